"""One run configuration: the method, the backbone, the summarizer, the agent's settings and the retriever.

It is what `--config` files hold, what command-line options override, what a run log pins as its identity,
and what GRPO and the teacher build their rollouts from, so training and evaluation run the same agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from agentkgv.agent.agentkgv import AgentConfig
from agentkgv.agent.stopping import policy_fingerprint
from agentkgv.agent.reading import ReadingConfig
from agentkgv.data.settings import Settings, invalid
from agentkgv.llm.embedded import DEFAULT_MODEL, TRAINED_ADAPTER
from agentkgv.llm.factory import LLMConfig
from agentkgv.retrieval.factory import RetrieverConfig

Method = Literal["agentkgv", "direct", "single_rag", "ircot", "lexical"]
# Who judges the agent's evidence: the trained evidence reader (agent/reading.py), or the LLM, which also
# routes and writes the queries (the paper's agent, agent/agentkgv.py).
Judge = Literal["reader", "llm"]
# The agent settings each baseline reads (agent/factory.py), the only ones its run log pins: renaming a setting
# only the LLM agent reads leaves their logs resumable.
_GENERATION = ("max_new_tokens", "temperature", "seed", "reasoning_chars")
BASELINE_AGENT_FIELDS = {"lexical": ("top_k",), "direct": _GENERATION,
                         "single_rag": (*_GENERATION, "top_k", "max_passage_words"),
                         "ircot": (*_GENERATION, "top_k", "max_turns")}

# Where each command-line option lands in the config.
OPTIONS = {"method": ("method",), "judge": ("judge",), "reader": ("reading", "reader"), "rare_reader": ("reading", "rare_reader"), "distrust": ("retriever", "distrust"),
           "absence": ("reading", "absence"), "prior": ("reading", "prior"), "stop_policy": ("reading", "stop_policy"), "summarizer": ("summarizer",), "backend": ("llm", "backend"),
           "model": ("llm", "model"), "adapter": ("llm", "adapter"), "base_url": ("llm", "base_url"),
           "cache": ("llm", "cache"), "retriever": ("retriever", "kind"),
           "embedding_model": ("retriever", "embedding_model"), "index": ("retriever", "index")}


class RunConfig(Settings):
    method: Method = "agentkgv"
    # The reader is the default: level with the LLM judge on quality, 6x faster, calibrated (BENCHMARKS.md).
    judge: Judge = "reader"
    llm: LLMConfig = Field(default_factory=LLMConfig)
    # The paper summarizes with a 7B LLM. With the embedded 135M model the extractive summarizer keeps the
    # gold fact in 97% of summaries against 44% for the LLM one, at no model cost (BENCHMARKS.md), so
    # it is the default here; choose "llm" with a capable summarizer model.
    summarizer: Literal["llm", "extractive"] = "extractive"
    # The summarizer's own model for "llm"; None reuses the agent's backbone.
    summarizer_llm: LLMConfig | None = None
    agent: AgentConfig = Field(default_factory=AgentConfig)
    reading: ReadingConfig = Field(default_factory=ReadingConfig)
    retriever: RetrieverConfig = Field(default_factory=RetrieverConfig)
    # Withhold retrieved passages that address the verifier instead of stating facts (retrieval.guard); what
    # it changes under poisoned evidence is in BENCHMARKS.md. Off reproduces runs from before it existed.
    evidence_guard: bool = True

    def with_options(self, **options: object) -> RunConfig:
        """These settings with command-line options on top (names of OPTIONS); an option given as None
        leaves its setting alone. Validated again: a mistyped value is a DataError naming the option."""
        data = self.model_dump()
        for name, value in options.items():
            if value is None:
                continue
            *sections, key = OPTIONS[name]
            target = data
            for section in sections:
                target = target[section]
            target[key] = value
        try:
            return RunConfig.model_validate(data)
        except ValidationError as error:
            raise invalid("command line", error, {".".join(path): f"--{name.replace('_', '-')}"
                                                  for name, path in OPTIONS.items()}) from None

    def with_trained_adapter(self) -> RunConfig:
        """The embedded model with the shipped trained adapter, unless the run names its own model or
        adapter: what the LLM agent (`--judge llm`) runs unless told otherwise; other runs are left as they are."""
        llm = self.llm
        if not self.uses_llm_agent or llm.backend != "transformers" or llm.model != DEFAULT_MODEL or llm.adapter:
            return self
        return self.model_copy(update={"llm": llm.model_copy(update={"adapter": Path(TRAINED_ADAPTER)})})

    @property
    def uses_llm_agent(self) -> bool:
        return self.method == "agentkgv" and self.judge == "llm"

    @property
    def uses_reader(self) -> bool:
        return self.method == "agentkgv" and self.judge == "reader"

    @property
    def needs_llm(self) -> bool:
        """Whether the run loads an LLM: not the lexical check, nor the agent that judges with the reader."""
        return self.method != "lexical" and not self.uses_reader

    def identity(self, llm_name: str | None = None) -> dict:
        """What decides a verdict, which a resumed run log must share with its first write. The loaded
        model's name, when given, pins the adapter's content, not only its folder. The retriever's fields sit
        at the top level, where run logs written before the config had a retriever section keep them."""
        r = self.retriever
        # The guard is recorded only when on, so logs written before it existed resume with it switched off.
        unpinned = {"llm", "retriever"} | (set() if self.evidence_guard else {"evidence_guard"})
        # Each method is pinned by the settings it reads: the reader agent by its own, the LLM agent by its
        # own, a baseline by the few agent settings it shares.
        unpinned |= {"reading", "judge"} if not self.uses_reader else set()
        unpinned |= {"agent", "summarizer", "summarizer_llm"} if not self.uses_llm_agent else set()
        settings = {**self.model_dump(mode="json", exclude=unpinned), "retriever": r.kind,
                    "embedding_model": r.embedding_model, **({"index": r.index} if r.index is not None else {}),
                    **({"distrust": list(r.distrust)} if r.distrust else {})}
        if not (self.uses_reader or self.uses_llm_agent):
            settings["agent"] = self.agent.model_dump(mode="json", include=set(BASELINE_AGENT_FIELDS[self.method]))
        if self.uses_reader:
            reading = {k: v for k, v in settings["reading"].items() if k != "runtime"}  # how it runs, not what it decides
            settings["reading"] = {**reading, "weights": self.reading.weights()}
            if self.reading.stop_policy is not None:
                settings["reading"]["stop_policy_weights"] = policy_fingerprint(self.reading.stop_policy)
            if self.reading.rare_stop_policy is not None:
                settings["reading"]["rare_stop_policy_weights"] = policy_fingerprint(self.reading.rare_stop_policy)
        elif self.needs_llm:
            settings["llm"] = self.llm.identity() | ({"name": llm_name} if llm_name is not None else {})
        return settings
