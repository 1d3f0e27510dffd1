"""Which family verifies a run, and how it is built: the method (and the judge) map to the reader agent, the
LLM agent or a baseline, and each family's own `build` does the rest. Importing this module also registers
every family's trace kind, so run logs read back into typed verdicts.

`RunSpec` is the same build shipped to a Ray actor (core/ray_runner.py): plain data that each actor builds
its own verifier from.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from agentkgv.baselines import build as baselines
from agentkgv.config import ResolvedRun, RunConfig
from agentkgv.core.verdict import Verifier
from agentkgv.llm.base import LLM, GenerationConfig
from agentkgv.llm.factory import build_llm
from agentkgv.llm_agent import build as llm_agent
from agentkgv.llm_agent.policy import Policy
from agentkgv.reader_agent import build as reader_agent
from agentkgv.reader_agent.build import Readers
from agentkgv.reader_agent.relation_facts import RelationFacts
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import load_retriever
from agentkgv.retrieval.guard import AddressesReader, DistrustedSource, WithholdingRetriever


def build_verifier(run: ResolvedRun, retriever: Retriever, paraphrases: dict[str, list[str]], llm: LLM | None = None,
                   policy: Policy | None = None, relations: RelationFacts | None = None) -> Verifier:
    """The run's verifier. `llm`: its loaded model, if it asks one (loaded here otherwise); `policy` chooses the
    LLM agent's actions in place of its LLM (a teacher); `relations`: what the facts files say of each relation
    (the reader agent's; reader_agent/relation_facts.py)."""
    config = run.config
    distrusted = DistrustedSource(config.retriever.distrust)
    # The reader agent reads a distrusted source and lets it decide nothing (its support sends a triple to
    # review); a method that cannot keep a passage from deciding never sees one.
    rules = ([AddressesReader()] if config.evidence_guard else []) + (
        [distrusted] if distrusted.marks and not config.uses_reader else [])
    if rules:
        retriever = WithholdingRetriever(retriever, rules)
    if policy is not None:
        summarizer = llm_agent.build_summarizer(config.summarizer, None, config.summarizer_llm)
        return llm_agent.build(config.agent, None, retriever, summarizer, paraphrases, policy)
    if config.uses_reader:
        assert run.readers is not None, "a resolved run of the reader agent has its readers"
        return reader_agent.build(config.reading, run.readers, retriever, paraphrases, relations, distrusted)
    if config.needs_llm:
        llm = llm or build_llm(config.llm)
    if config.uses_llm_agent:
        summarizer = llm_agent.build_summarizer(config.summarizer, llm, config.summarizer_llm)
        return llm_agent.build(config.agent, llm, retriever, summarizer, paraphrases)
    a = config.agent
    generation = GenerationConfig(max_new_tokens=a.max_new_tokens, temperature=a.temperature, seed=a.seed)
    return baselines.build(config.method, llm, retriever, generation, a.top_k, a.max_passage_words,
                           a.reasoning_chars, a.max_turns)


class RunSpec(BaseModel):
    """Everything a Ray actor needs to build the verifier a local run builds: the resolved settings, the index
    and the paraphrase table, which the driver reads once from the data folder."""

    model_config = ConfigDict(extra="forbid")

    run: RunConfig
    index_root: Path  # the folder the run's retriever (`run.retriever`) loads its index from
    paraphrases: dict[str, list[str]]
    data: Path | None = None  # the data folder, whose facts files give the reader agent's one-valued relations' values
    cache: Path | None = None  # the run's cache folder, where the readers' ONNX exports are kept

    def build(self) -> tuple[Verifier, str | None]:
        """The verifier and the loaded LLM's name (None for the lexical check and the reader agent, which load
        none)."""
        config = self.run
        llm = build_llm(config.llm) if config.needs_llm else None
        relations = (RelationFacts.load(self.data, config.reading.one_valued, self.cache, config.reading.many_valued)
                     if self.data and config.uses_reader else None)
        resolved = ResolvedRun(config, Readers.open(config.reading, self.cache) if config.uses_reader else None)
        verifier = build_verifier(resolved, load_retriever(config.retriever, self.index_root), self.paraphrases, llm,
                                  relations=relations)
        return verifier, llm.name if llm is not None else None

    def for_actor(self, cpus: float) -> RunSpec:
        """The spec with the local paths it names made absolute (an actor's working folder is not the driver's),
        and the local model's threads matched to the actor's CPUs (torch would otherwise start one thread per
        core of the node in every actor). The resolved run's answer cache is a path already: actors share one
        file, sqlite in WAL mode, made for several processes."""
        llm = self.run.llm
        update = {"threads": llm.threads or max(1, int(cpus)), "model": _absolute(llm.model),
                  "adapter": llm.adapter and Path(_absolute(llm.adapter))}
        reading = self.run.reading
        reading = reading.model_copy(update={name: getattr(reading, name) and Path(_absolute(getattr(reading, name)))
                                             for name in ("reader", "rare_reader", "stop_policy", "rare_stop_policy")})
        reading = reading.model_copy(update={name: Path(_absolute(getattr(reading, name)))
                                             for name in ("value_kinds", "value_reader")
                                             if isinstance(getattr(reading, name), Path)})
        run = self.run.model_copy(update={"llm": llm.model_copy(update=update), "reading": reading})
        return self.model_copy(update={"run": run, "index_root": Path(self.index_root).resolve()})


def _absolute(value: str | Path) -> str:
    """A path that exists here, made absolute; anything else (a model's name) as given."""
    return str(Path(value).resolve()) if Path(value).exists() else str(value)
