"""One run configuration picks the method, the backbone, the summarizer and the retriever."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from agentkgv.agent.agentkgv import AgentConfig, AgentKGV
from agentkgv.agent.base import Verifier
from agentkgv.agent.baselines import DirectLLM, SingleTurnRAG
from agentkgv.agent.ircot import IRCoT
from agentkgv.agent.lexical import LexicalVerifier
from agentkgv.agent.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from agentkgv.data.errors import DataError
from agentkgv.data.predicates import PredicateInfo
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.llm.factory import LLMConfig, build_llm
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.guard import GuardedRetriever

METHODS = ("agentkgv", "direct", "single_rag", "ircot", "lexical")
Method = Literal["agentkgv", "direct", "single_rag", "ircot", "lexical"]


class RunConfig(BaseModel):
    method: Method = "agentkgv"
    llm: LLMConfig = Field(default_factory=LLMConfig)
    # The paper summarizes with a 7B LLM. With the embedded 135M model the extractive summarizer keeps the
    # gold fact in 97% of summaries against 44% for the LLM one, at no model cost (BENCHMARKS.md), so
    # it is the default here; choose "llm" with a capable summarizer model.
    summarizer: Literal["llm", "extractive"] = "extractive"
    # The summarizer's own model for "llm"; None reuses the agent's backbone.
    summarizer_llm: LLMConfig | None = None
    agent: AgentConfig = Field(default_factory=AgentConfig)
    # Withhold retrieved passages that address the verifier instead of stating facts (retrieval.guard); what
    # it changes under poisoned evidence is in BENCHMARKS.md. Off reproduces runs from before it existed.
    evidence_guard: bool = True

    @classmethod
    def load(cls, path: Path) -> "RunConfig":
        try:
            return cls.model_validate(tomllib.loads(Path(path).read_text()))
        except (OSError, tomllib.TOMLDecodeError, ValueError) as error:
            raise DataError(path, str(error)) from None


def paraphrase_table(predicates: dict[str, PredicateInfo], limit: int = 4) -> dict[str, list[str]]:
    """p' candidates by predicate id and by lower-cased label (user graphs often carry labels only)."""
    table: dict[str, list[str]] = {}
    for pid, info in predicates.items():
        phrases = info.paraphrases()[:limit]
        table[pid] = phrases
        table.setdefault(info.label, phrases)
    return table


def build_summarizer(config: RunConfig, llm: LLM) -> Summarizer:
    if config.summarizer == "extractive":
        return ExtractiveSummarizer()
    return LLMSummarizer(build_llm(config.summarizer_llm) if config.summarizer_llm else llm)


def build_verifier(config: RunConfig, retriever: Retriever, paraphrases: dict[str, list[str]],
                   llm: LLM | None = None) -> Verifier:
    a = config.agent
    if config.evidence_guard:
        retriever = GuardedRetriever(retriever)
    if config.method == "lexical":
        return LexicalVerifier(retriever, a.top_k)
    llm = llm or build_llm(config.llm)
    generation = GenerationConfig(max_new_tokens=a.max_new_tokens, temperature=a.temperature, seed=a.seed)
    if config.method == "direct":
        return DirectLLM(llm, generation, a.reasoning_chars)
    if config.method == "single_rag":
        return SingleTurnRAG(llm, retriever, generation, a.top_k, a.max_passage_words, a.reasoning_chars)
    if config.method == "ircot":
        return IRCoT(llm, retriever, generation, a.top_k, max_sentences=a.max_turns - 1,
                     reasoning_chars=a.reasoning_chars)
    return AgentKGV(llm, retriever, build_summarizer(config, llm), paraphrases, a)
