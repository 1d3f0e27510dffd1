"""The non-LLM lexical check that keeps the LLM methods honest.

A triple is judged true when one of the top-k passages retrieved for its subject mentions both the
subject and the object (each by its label or one of the triple's aliases), after case, accent and
punctuation folding.
"""

from __future__ import annotations

import time

from agentkgv.core.verdict import EvidenceRef, Verdict
from agentkgv.data.records import LabeledTriple
from agentkgv.data.text import mentions_any
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.guard import search_recorded


class LexicalVerifier:
    name = "lexical"

    def __init__(self, retriever: Retriever, top_k: int = 5):
        self.retriever = retriever
        self.top_k = top_k

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        start = time.perf_counter()
        results, withheld = search_recorded(self.retriever, [item.triple.subject for item in items], self.top_k)
        per_item = (time.perf_counter() - start) / max(1, len(items))
        verdicts = []
        for item, hits, dropped in zip(items, results, withheld):
            t = item.triple
            support = [h for h in hits if mentions_any(h.passage.text, t.subject_names)
                       and mentions_any(h.passage.text, t.object_names)]
            verdicts.append(Verdict(
                id=item.id, triple=item.triple, verdict=bool(support), method=self.name, gold=item.label,
                confidence=1.0 if support else 0.5,
                evidence=[EvidenceRef.of(h.passage) for h in support],
                search_calls=1, seconds=per_item, withheld=dropped))
        return verdicts
