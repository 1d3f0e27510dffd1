"""The baseline a run's method names, on the same backbone and retriever as the agents."""

from __future__ import annotations

from agentkgv.baselines.ircot import IRCoT
from agentkgv.baselines.lexical import LexicalVerifier
from agentkgv.baselines.single_pass import DirectLLM, SingleTurnRAG
from agentkgv.core.verdict import Verifier
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.retrieval.base import Retriever

BASELINES = ("lexical", "direct", "single_rag", "ircot")


def build(method: str, llm: LLM | None, retriever: Retriever, generation: GenerationConfig, top_k: int,
          max_passage_words: int, reasoning_chars: int, max_turns: int) -> Verifier:
    """The settings are those the baselines share with the LLM agent's (`[agent]` in a run config)."""
    if method == "lexical":
        return LexicalVerifier(retriever, top_k)
    if llm is None:
        raise ValueError(f"{method} asks an LLM")
    if method == "direct":
        return DirectLLM(llm, generation, reasoning_chars)
    if method == "single_rag":
        return SingleTurnRAG(llm, retriever, generation, top_k, max_passage_words, reasoning_chars)
    if method == "ircot":
        return IRCoT(llm, retriever, generation, top_k, max_sentences=max_turns - 1, reasoning_chars=reasoning_chars)
    raise ValueError(f"no baseline named {method!r}: one of {', '.join(BASELINES)}")
