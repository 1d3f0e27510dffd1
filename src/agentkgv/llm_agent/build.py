"""The LLM agent a run's settings name: its backbone, its summarizer, and the policy that chooses its actions."""

from __future__ import annotations

from typing import Literal

from agentkgv.llm.base import LLM
from agentkgv.llm.factory import LLMConfig, build_llm
from agentkgv.llm_agent.agent import AgentKGV
from agentkgv.llm_agent.config import AgentConfig
from agentkgv.llm_agent.policy import Policy
from agentkgv.llm_agent.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from agentkgv.retrieval.base import Retriever


def build_summarizer(kind: Literal["llm", "extractive"], llm: LLM | None, summarizer_llm: LLMConfig | None = None) -> Summarizer:
    """`llm`: the agent's backbone, which an LLM summarizer reuses unless it has a model of its own."""
    if kind == "extractive":
        return ExtractiveSummarizer()
    return LLMSummarizer(build_llm(summarizer_llm) if summarizer_llm else llm)


def build(config: AgentConfig, llm: LLM | None, retriever: Retriever, summarizer: Summarizer,
          paraphrases: dict[str, list[str]], policy: Policy | None = None) -> AgentKGV:
    """`policy` chooses the actions in place of the LLM (a teacher writing training data)."""
    return AgentKGV(llm, retriever, summarizer, paraphrases, config, policy)
