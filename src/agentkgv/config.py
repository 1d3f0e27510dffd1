"""One run's configuration, the options the command line sets on it, and the run resolved once.

`RunConfig` is what `--config` files hold, every section in one place; `RunOptions` is what a command's
options set on top, each mapped to its setting in code. `resolve` then applies, once, everything a run
leaves to its surroundings: the document index it names (the index decides the retriever, adds its
distrusted sources and says what silence means), the shipped trained adapter the LLM agent runs unless told
otherwise, the reader folders (opened once, the shipped ones unless named) and the LLM answer cache. The resolved run's
`identity()` is what a run log pins, and it reads back into a `RunConfig` (`from_identity`), which is how a
resume checks and `learn` re-reads a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentkgv.data.errors import DataError
from agentkgv.data.settings import Settings, invalid
from agentkgv.llm.embedded import DEFAULT_MODEL, TRAINED_ADAPTER
from agentkgv.llm.factory import LLMConfig
from agentkgv.llm_agent.config import AgentConfig
from agentkgv.paths import Workspace
from agentkgv.reader_agent.build import Readers
from agentkgv.reader_agent.config import ReadingConfig
from agentkgv.retrieval.factory import RetrieverConfig
from agentkgv.retrieval.user_index import Manifest, load_manifest
from agentkgv.retrieval.user_index import index_dir as document_index_dir

Method = Literal["agentkgv", "direct", "single_rag", "ircot", "lexical"]
# Who judges the agent's evidence: the trained evidence reader (the reader agent), or the LLM, which also
# routes and writes the queries (the paper's agent, the LLM agent).
JudgeKind = Literal["reader", "llm"]
# The agent settings each baseline reads, the only ones its run log pins: renaming a setting only the LLM
# agent reads leaves their logs resumable.
_GENERATION = ("max_new_tokens", "temperature", "seed", "reasoning_chars")
BASELINE_AGENT_FIELDS = {"lexical": ("top_k",), "direct": _GENERATION,
                         "single_rag": (*_GENERATION, "top_k", "max_passage_words"),
                         "ircot": (*_GENERATION, "top_k", "max_turns")}


class RunConfig(Settings):
    method: Method = "agentkgv"
    # The reader is the default: level with the LLM judge on quality, 6x faster, calibrated (BENCHMARKS.md).
    judge: JudgeKind = "reader"
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
    # it changes under poisoned evidence is in BENCHMARKS.md.
    evidence_guard: bool = True

    @property
    def family(self) -> str:
        """The verifier family that runs it (agentkgv.registry): the reader agent, the LLM agent, or a baseline."""
        return ("reader_agent" if self.judge == "reader" else "llm_agent") if self.method == "agentkgv" else self.method

    @property
    def uses_llm_agent(self) -> bool:
        return self.family == "llm_agent"

    @property
    def uses_reader(self) -> bool:
        return self.family == "reader_agent"

    @property
    def needs_llm(self) -> bool:
        """Whether the run loads an LLM: not the lexical check, nor the agent that judges with the reader."""
        return self.method != "lexical" and not self.uses_reader

    @staticmethod
    def from_identity(identity: dict) -> RunConfig:
        """The run a log's pinned settings describe (`ResolvedRun.identity`); its model reads as the defaults'."""
        try:
            return RunConfig.model_validate({k: v for k, v in identity.items() if k != "pins"})
        except ValidationError as error:
            raise DataError("run settings", f"not the settings of this version of agentkgv ({error.errors()[0]['loc']}): "
                                            "run the triples again") from None


class RunOptions(BaseModel):
    """What a command's options set on a run config; None leaves the setting alone."""

    model_config = ConfigDict(extra="forbid")

    method: str | None = None
    judge: str | None = None
    reader: Path | None = None
    rare_reader: Path | None = None
    stop_policy: Path | None = None
    absence: str | None = None
    prior: float | None = None
    summarizer: str | None = None
    backend: str | None = None
    model: str | None = None
    adapter: Path | None = None
    base_url: str | None = None
    cache: bool | None = None
    retriever: str | None = None
    embedding_model: str | None = None
    index: str | None = None
    distrust: tuple[str, ...] | None = None

    def __init__(self, **options: object):
        try:
            super().__init__(**options)
        except ValidationError as error:
            raise invalid("command line", error, {name: f"--{name.replace('_', '-')}" for name in options}) from None

    def apply(self, run: RunConfig) -> RunConfig:
        """`run` with these options on top, validated again: a mistyped value is a DataError naming its option."""
        def given(**values: object) -> dict:
            return {k: v for k, v in values.items() if v is not None}

        data = run.model_dump()
        data |= given(method=self.method, judge=self.judge, summarizer=self.summarizer)
        data["reading"] |= given(reader=self.reader, rare_reader=self.rare_reader, stop_policy=self.stop_policy,
                                 absence=self.absence, prior=self.prior)
        data["llm"] |= given(backend=self.backend, model=self.model, adapter=self.adapter, base_url=self.base_url,
                             cache=self.cache)
        data["retriever"] |= given(kind=self.retriever, embedding_model=self.embedding_model, index=self.index,
                                   distrust=self.distrust)
        try:
            return RunConfig.model_validate(data)
        except ValidationError as error:
            raise invalid("command line", error, _OPTION_OF) from None


# Where each option lands, to name the option in an error about its setting.
_OPTION_OF = {"method": "--method", "judge": "--judge", "summarizer": "--summarizer", "reading.reader": "--reader",
              "reading.rare_reader": "--rare-reader", "reading.stop_policy": "--stop-policy",
              "reading.absence": "--absence", "reading.prior": "--prior", "llm.backend": "--backend",
              "llm.model": "--model", "llm.adapter": "--adapter", "llm.base_url": "--base-url", "llm.cache": "--cache",
              "retriever.kind": "--retriever", "retriever.embedding_model": "--embedding-model",
              "retriever.index": "--index", "retriever.distrust": "--distrust"}


@dataclass(frozen=True)
class ResolvedRun:
    """A run with nothing left to a default: what builds its verifier and what its log pins."""

    config: RunConfig
    # The reader folders, opened once, for a run of the reader agent (its settings name a shipped one as None,
    # so a log pins the reader by content, not by where the package lies).
    readers: Readers | None = None
    # What decides its verdicts by content besides the settings: the document index, the readers.
    pins: dict = field(default_factory=dict)
    # The run as given and whether the LLM agent runs bare: what the run is resolved again from where its
    # document index changed since (`over`).
    given: RunConfig | None = None
    base_model: bool = False

    def identity(self, llm_name: str | None = None) -> dict:
        """What decides a verdict, which a resumed run log must share with its first write: the settings the
        method reads and the pins. The loaded model's name, when given, pins the adapter's content, not only
        its folder."""
        run = self.config
        sections = {"method", "judge", "retriever", "evidence_guard"}
        sections |= {"reading"} if run.uses_reader else set()
        sections |= {"agent", "summarizer", "summarizer_llm"} if run.uses_llm_agent else set()
        settings = run.model_dump(mode="json", include=sections)
        if run.uses_reader:
            settings["reading"].pop("runtime")  # how it runs, not what it decides
        elif not run.uses_llm_agent:
            settings["agent"] = run.agent.model_dump(mode="json", include=set(BASELINE_AGENT_FIELDS[run.method]))
        pins = dict(self.pins)
        if run.needs_llm:
            pins["llm"] = run.llm.identity() | ({"name": llm_name} if llm_name is not None else {})
        return settings | {"pins": pins}

    def with_pins(self, **pins: object) -> ResolvedRun:
        return replace(self, pins=self.pins | pins)

    def over(self, manifest: Manifest, ws: Workspace) -> ResolvedRun:
        """This run over its document index as `manifest` now describes it (an update finished since it was
        resolved), keeping the pins added after resolving."""
        again = resolve(self.given or self.config, ws, self.base_model, manifest=manifest)
        return again.with_pins(**{k: v for k, v in self.pins.items() if k not in again.pins})


def resolve(run: RunConfig, ws: Workspace, base_model: bool = False, retriever_asked: str | None = None,
            manifest: Manifest | None = None) -> ResolvedRun:
    """`run` with everything its surroundings decide applied, once (the module docstring lists it). Refuses,
    before anything loads, an index that is missing or of another kind than `retriever_asked` (the kind the
    user asked for). `base_model`: the LLM agent runs the embedded model bare, not with the trained adapter.
    `manifest`: the index's manifest as the caller opened it, else read from the workspace."""
    given, pins = run, {}
    if run.retriever.index is not None:
        manifest = manifest or index_manifest(ws, run.retriever.index, retriever_asked)
        # A user's documents need not state every true triple: silence is not enough evidence unless the run or
        # the index says they state them all.
        run = RunOptions(retriever=manifest.kind, embedding_model=manifest.embedding_model,
                         distrust=tuple(sorted(set(run.retriever.distrust) | set(manifest.distrusted))),
                         absence=run.reading.absence or manifest.absence).apply(run)
        pins["index"] = {"name": manifest.name, "fingerprint": manifest.fingerprint}
    llm = run.llm
    if run.uses_llm_agent and not base_model and llm.backend == "transformers" and llm.model == DEFAULT_MODEL \
            and not llm.adapter:
        llm = llm.model_copy(update={"adapter": Path(TRAINED_ADAPTER)})
    if llm.cache_path is None:
        llm = llm.model_copy(update={"cache_path": ws.llm_cache.resolve()})
    if llm.models_dir is None:
        llm = llm.model_copy(update={"models_dir": ws.models.resolve()})
    run = run.model_copy(update={"llm": llm})
    if not run.uses_reader:
        return ResolvedRun(run, None, pins, given, base_model)
    readers = Readers.open(run.reading, ws.cache)
    return ResolvedRun(run, readers, pins | {"readers": readers.pins(run.reading)}, given, base_model)


def index_manifest(ws: Workspace, name: str, retriever_asked: str | None = None) -> Manifest:
    """The named document index's manifest, read without opening the index; refused where it is missing or of
    another kind than `retriever_asked`."""
    folder = document_index_dir(ws, name)
    manifest = load_manifest(folder)
    if manifest is None:
        raise DataError(folder, f"no index named {name!r} here; build it with `agentkgv index DOCS... --name {name}`")
    if retriever_asked is not None and retriever_asked != manifest.kind:
        raise DataError(folder, f"a {manifest.kind} index: --retriever {retriever_asked} cannot search it; leave "
                                f"--retriever out, or index the documents with --retriever {retriever_asked} under "
                                "another --name")
    return manifest
