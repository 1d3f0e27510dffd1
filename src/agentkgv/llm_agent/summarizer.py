"""The retrieval summarization module: S_<t+1 = Summarizer(S_<t, q_t, R_t) (paper eq. 2).

Two implementations behind one interface: an LLM summarizer (the paper's; its model is a setting and
may differ from the agent's) and an extractive one that keeps the retrieved sentences mentioning the
triple's subject or object, which costs no model call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agentkgv.data.records import Triple
from agentkgv.data.text import mentions_any
from agentkgv.llm.answers import parse_field
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.llm_agent.prompts import summary_prompt, summary_schema
from agentkgv.retrieval.base import Hit


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    triple: Triple
    summary: str | None
    query: str
    hits: Sequence[Hit]


@dataclass(frozen=True, slots=True)
class SummaryResult:
    summary: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Summarizer(Protocol):
    name: str

    def summarize(self, requests: list[SummaryRequest]) -> list[SummaryResult]: ...


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def _trim_oldest(text: str, max_chars: int) -> str:
    """Keep the newest part: later searches were written knowing the earlier ones."""
    return text if len(text) <= max_chars else "… " + text[-max_chars:].split(" ", 1)[-1]


class ExtractiveSummarizer:
    name = "extractive"

    def __init__(self, max_chars: int = 240, sentences_per_turn: int = 2, max_sentence_words: int = 20):
        self.max_chars = max_chars
        self.sentences_per_turn = sentences_per_turn
        self.max_sentence_words = max_sentence_words

    def summarize(self, requests: list[SummaryRequest]) -> list[SummaryResult]:
        return [SummaryResult(self._one(r)) for r in requests]

    def _one(self, request: SummaryRequest) -> str:
        triple = request.triple
        relevant = [" ".join(s.split()[: self.max_sentence_words]) for h in request.hits for s in _sentences(h.passage.text)
                    if mentions_any(s, triple.subject_names + triple.object_names)]
        found = " ".join(dict.fromkeys(relevant[: self.sentences_per_turn])) or "nothing about the triple"
        line = f"[{request.query}] {found}"
        merged = f"{request.summary} {line}" if request.summary else line
        return _trim_oldest(merged, self.max_chars)


class LLMSummarizer:
    name = "llm"

    def __init__(self, llm: LLM, max_chars: int = 300, max_passage_words: int = 60, max_new_tokens: int = 120):
        self.llm = llm
        self.max_chars = max_chars
        self.max_passage_words = max_passage_words
        self.config = GenerationConfig(max_new_tokens=max_new_tokens)

    def summarize(self, requests: list[SummaryRequest]) -> list[SummaryResult]:
        if not requests:
            return []
        prompts = [summary_prompt(r.triple, r.summary, r.query, r.hits, self.max_passage_words, self.max_chars)
                   for r in requests]
        completions = self.llm.generate(prompts, self.config, summary_schema(self.max_chars))
        results = []
        for request, completion in zip(requests, completions):
            # A summary lost to truncation falls back to the old one rather than erasing history.
            text = parse_field(completion.text, "summary") or request.summary or ""
            results.append(SummaryResult(text, completion.prompt_tokens, completion.completion_tokens))
        return results
