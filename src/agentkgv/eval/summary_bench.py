"""Compare summarizers on the same retrieval results: cost, length, and whether the summary keeps the fact.

For positives whose top-k results contain a gold evidence passage, a summary that still names the
triple's object has kept what the next turn needs; one that lost it has not. This measures the module
in isolation, so it does not depend on how often a given agent happens to search twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from agentkgv.core.combinations import compose_query, paraphrases_of
from agentkgv.data.records import Example
from agentkgv.data.text import mentions_any
from agentkgv.llm_agent.summarizer import Summarizer, SummaryRequest
from agentkgv.retrieval.base import Retriever


@dataclass(frozen=True, slots=True)
class SummaryRow:
    summarizer: str
    requests: int
    keeps_object: float
    mean_chars: float
    seconds_per_summary: float
    tokens_per_summary: float

    HEADERS: ClassVar = ("Summarizer", "Requests", "Keeps object", "Mean chars", "s/summary", "Tokens/summary")

    def cells(self) -> list[str]:
        return [self.summarizer, str(self.requests), f"{self.keeps_object:.3f}", f"{self.mean_chars:.0f}",
                f"{self.seconds_per_summary:.3f}", f"{self.tokens_per_summary:.0f}"]


def summary_requests(examples: list[Example], retriever: Retriever, paraphrases: dict[str, list[str]],
                     k: int = 5) -> list[SummaryRequest]:
    """First-turn results of an (s, p') query, kept only where they hold a gold evidence passage."""
    positives = [e for e in examples if e.label]
    queries = [compose_query(e.triple, "s,p'", (paraphrases_of(paraphrases, e.triple) or [None])[0])
               for e in positives]
    requests = []
    for example, query, hits in zip(positives, queries, retriever.search(queries, k)):
        if set(example.gold_passage_ids) & {h.passage.id for h in hits}:
            requests.append(SummaryRequest(example.triple, None, query, hits))
    return requests


def compare(summarizer: Summarizer, requests: list[SummaryRequest], batch_size: int = 8) -> SummaryRow:
    started = time.perf_counter()
    results = []
    for offset in range(0, len(requests), batch_size):
        results += summarizer.summarize(requests[offset:offset + batch_size])
    elapsed = time.perf_counter() - started
    n = max(1, len(results))
    return SummaryRow(
        summarizer=summarizer.name, requests=len(results),
        keeps_object=sum(mentions_any(r.summary, q.triple.object_names) for r, q in zip(results, requests)) / n,
        mean_chars=sum(len(r.summary) for r in results) / n, seconds_per_summary=elapsed / n,
        tokens_per_summary=sum(r.prompt_tokens + r.completion_tokens for r in results) / n)
