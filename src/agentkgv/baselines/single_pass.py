"""The paper's LLM baselines on the same backbone: Direct LLM and Single-turn RAG (IRCoT has its own module)."""

from __future__ import annotations

import time
from dataclasses import replace

from agentkgv.baselines.prompts import direct_prompt, rag_prompt, verdict_schema
from agentkgv.core.trace import Turn, Turns
from agentkgv.core.verdict import EvidenceRef, Verdict
from agentkgv.data.records import LabeledTriple
from agentkgv.llm.answers import parse_verdict, verdict_confidence
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.retrieval.base import Hit, Retriever
from agentkgv.retrieval.guard import search_recorded


def read_verdicts(llm: LLM, method: str, items: list[LabeledTriple], prompts: list[list[dict]],
                  hits: list[list[Hit]], config: GenerationConfig, reasoning_chars: int,
                  search_calls: int, extra_seconds: float = 0.0) -> list[Verdict]:
    """One constrained reader call per triple; shared by every method whose last step is 'read and judge'."""
    started = time.perf_counter()
    completions = llm.generate(prompts, config, verdict_schema(reasoning_chars))
    share = (time.perf_counter() - started + extra_seconds) / max(1, len(items))
    verdicts = []
    for item, messages, found, completion in zip(items, prompts, hits, completions):
        verdict, reasoning = parse_verdict(completion.text)
        verdicts.append(Verdict(
            id=item.id, triple=item.triple, verdict=verdict, method=method, gold=item.label,
            confidence=verdict_confidence(completion) if verdict is not None else None,
            evidence=[EvidenceRef.of(h.passage) for h in found],
            search_calls=search_calls, prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens, seconds=share,
            trace=Turns([Turn(1, messages, completion.text, finish_reason=completion.finish_reason,
                              prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                              latency_s=completion.latency_s, retrieved=[h.passage.id for h in found],
                              reasoning=reasoning)])))
    return verdicts


class DirectLLM:
    """Parametric knowledge only: no retrieval."""

    name = "direct"

    def __init__(self, llm: LLM, config: GenerationConfig, reasoning_chars: int = 150):
        self.llm, self.config, self.reasoning_chars = llm, config, reasoning_chars

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        prompts = [direct_prompt(i.triple) for i in items]
        return read_verdicts(self.llm, self.name, items, prompts, [[] for _ in items], self.config,
                             self.reasoning_chars, search_calls=0)


class SingleTurnRAG:
    """One retrieval with the verbalized triple, then one judgment over the top-k passages."""

    name = "single_rag"

    def __init__(self, llm: LLM, retriever: Retriever, config: GenerationConfig, top_k: int = 5,
                 max_passage_words: int = 80, reasoning_chars: int = 150):
        self.llm, self.retriever, self.config = llm, retriever, config
        self.top_k, self.max_passage_words, self.reasoning_chars = top_k, max_passage_words, reasoning_chars

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        started = time.perf_counter()
        hits, withheld = search_recorded(self.retriever, [i.triple.verbalize() for i in items], self.top_k)
        retrieval_seconds = time.perf_counter() - started
        prompts = [rag_prompt(i.triple, found, self.max_passage_words) for i, found in zip(items, hits)]
        verdicts = read_verdicts(self.llm, self.name, items, prompts, hits, self.config, self.reasoning_chars,
                                 search_calls=1, extra_seconds=retrieval_seconds)
        return [replace(verdict, withheld=dropped) for verdict, dropped in zip(verdicts, withheld)]
