"""The Python API: one object that loads a verifier once, and typed verdicts back.

    from agentkgv import KGVerifier
    verifier = KGVerifier()
    verdicts = verifier.verify([("Douglas Adams", "place of birth", "Cambridge")])

`KGVerifier` takes what the command line takes: a run config, a document index, the method and readers, the
data and cache folders. `verify` reads triples from Python (tuples, `Triple`s), an rdflib graph, or a file, and
with `output` writes them as `agentkgv verify` does (appended, resumable). `index_documents` builds or updates
an index of a user's documents. The command line's `verify` and `check` call it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from agentkgv.commands.build import BATCH_SIZE, SILENT, Hooks
from agentkgv.commands.build import index_documents as update_document_index
from agentkgv.commands.graph import profile_graph as profile_into
from agentkgv.commands.verify import OnError, load_verifier, opened_index, read_graph, read_user_file, verify_triples
from agentkgv.config import RunConfig, RunOptions, resolve
from agentkgv.core.graph_checked import GraphChecked
from agentkgv.core.ray_runner import RayOptions
from agentkgv.core.verdict import BriefTraces, Verdict
from agentkgv.data.documents import ChunkConfig
from agentkgv.data.errors import DataError, refuse_overwriting
from agentkgv.data.rdf_graphs import graph_claims
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.graph.checker import GraphChecker, GraphSettings
from agentkgv.graph.profile import GraphProfile
from agentkgv.paths import Workspace
from agentkgv.retrieval.user_index import IndexReport

TripleLike = Triple | LabeledTriple | tuple[str, str, str]


class KGVerifier:
    """A verifier of knowledge-graph triples: the shipped reader agent on the built-in corpus by default.

    `config`: a run config (a `RunConfig`, or the path of its TOML); `index`: the name of a document index to
    read instead of the corpus (`index_documents`); the other keywords are the command line's options of the same
    name (`method`, `judge`, `reader`, `rare_reader`, `stop_policy`, `absence`, `prior`, `retriever`, `backend`,
    `model`, `adapter`, ...). The run is resolved at once, so a missing index or reader is refused here."""

    def __init__(self, config: RunConfig | str | Path | None = None, *, index: str | None = None,
                 base_model: bool = False, data_dir: str | Path | None = None, cache_dir: str | Path | None = None,
                 hooks: Hooks = SILENT, **options: object):
        self.workspace = Workspace(data_dir and Path(data_dir), cache_dir and Path(cache_dir))
        base = config if isinstance(config, RunConfig) else RunConfig.load(None if config is None else Path(config))
        if options.get("absence") is None and base.reading.absence is None:
            # A user's question is open world: silence is "not enough evidence", on the built-in corpus too.
            # The benchmark commands keep the closed world their scoring needs; an index keeps its own setting.
            options["absence"] = None if index is not None else "unknown"
        self.hooks = hooks
        # Over a document index the index decides the retriever: one asked for is refused if the index is another.
        self.run = resolve(RunOptions(index=index, **options).apply(base), self.workspace, base_model,
                           retriever_asked=options.get("retriever"))
        self._loaded = None

    def verify(self, triples: Iterable[TripleLike] | str | Path | object, output: str | Path | None = None, *,
               batch_size: int = BATCH_SIZE, trajectories: bool = False, ray: RayOptions | None = None,
               aliases: str | Path | None = None, on_error: OnError = "fail", name: str | None = None,
               graph: GraphSettings | None = GraphSettings()) -> list[Verdict]:
        """The verdicts of `triples`: an iterable of (subject, predicate, object) sequences or `Triple`s, an rdflib
        `Graph`, or the path of a triples file (.jsonl .csv .tsv .nt .ttl .nq .trig; with `on_error="skip"` its bad rows
        are written beside `output`, or beside the file, and left out).

        Without `output` the verifier the first call loads verifies them in memory, in their order, and an error
        of the model stops the call. With `output` (or `ray` or `aliases`) they are appended to that JSONL as
        `agentkgv verify` writes them, each call loading the verifier whose model the file pins: a rerun
        resumes, and a triple the model failed on is left out of the list returned and named in
        `<output>.errors.jsonl` for the rerun to retry. `trajectories`: keep each verdict's whole trace, not its
        brief. `name`: what the progress bar calls the triples. `graph`: how the triples' own graph is read
        beside the documents (its profile, shapes, prior; graph/checker.py), None to read the documents alone."""
        if isinstance(triples, (str, Path)):
            refuse_overwriting([Path(triples)], [output and Path(output)])
        items, read_name = self._items(triples, output, on_error)
        name = name or read_name
        if output is None and ray is None and aliases is None:
            checked = read_graph(items, graph, name, self.hooks).checker if graph is not None else None
            return self._in_memory(items, batch_size, trajectories, checked, graph and graph.false_below)
        if output is None:
            with tempfile.TemporaryDirectory() as folder:
                return self.verify(items, Path(folder) / "verdicts.jsonl", batch_size=batch_size,
                                   trajectories=trajectories, ray=ray, aliases=aliases, name=name, graph=graph)
        return verify_triples(self.workspace, self.run, items, name, Path(output), batch_size, trajectories, ray,
                              self.hooks, aliases and Path(aliases), graph)

    def check(self, subject: str, predicate: str, obj: str) -> Verdict:
        """One triple's verdict with its whole trace, nothing written."""
        for argument, name in (("subject", subject), ("predicate", predicate), ("obj", obj)):
            _check_name(name, argument)
        return self._in_memory([LabeledTriple("check", Triple(subject, predicate, obj))], 1, trajectories=True)[0]

    def _in_memory(self, items: list[LabeledTriple], batch_size: int, trajectories: bool,
                   graph: GraphChecker | None = None, false_below: float | None = None) -> list[Verdict]:
        if self._loaded is None:
            resolved, index = opened_index(self.workspace, self.run)
            self._loaded = load_verifier(self.workspace, resolved, self.hooks, index).verifier
        verifier = self._loaded if graph is None else GraphChecked(self._loaded, graph, false_below)
        verifier = verifier if trajectories else BriefTraces(verifier)
        verdicts: list[Verdict] = []
        with self.hooks.bar("verifying", len(items)) as advance:
            for start in range(0, len(items), batch_size):
                batch = verifier.verify(items[start:start + batch_size])
                verdicts += batch
                advance(len(batch))
        return verdicts

    def _items(self, triples: object, output: str | Path | None, on_error: OnError) -> tuple[list[LabeledTriple], str]:
        if isinstance(triples, (str, Path)):
            path = Path(triples)
            return read_user_file(path, Path(output or path.with_suffix(".verdicts.jsonl")), on_error, self.hooks), path.name
        from rdflib import Graph

        if triples is None or isinstance(triples, (bytes, dict, int, float)):
            raise DataError("triples", f"expected (subject, predicate, object) tuples, Triples, an rdflib Graph or a "
                                       f"file's path, got {type(triples).__name__}")
        if isinstance(triples, Graph):
            return list(graph_claims(triples, "graph", "user:graph")), "graph"
        items = []
        for number, triple in enumerate(triples, start=1):
            if isinstance(triple, LabeledTriple):
                items.append(triple)
            elif isinstance(triple, Triple):
                items.append(LabeledTriple(f"triple:{number}", triple))
            elif isinstance(triple, Sequence) and not isinstance(triple, str) and len(triple) == 3 \
                    and all(isinstance(part, str) for part in triple):
                for part, argument in zip(triple, ("subject", "predicate", "object")):
                    _check_name(part, f"triples: item {number}'s {argument}")
                items.append(LabeledTriple(f"triple:{number}", Triple(*triple)))
            else:
                raise DataError("triples", f"item {number} is not a (subject, predicate, object) of strings, a "
                                           f"Triple or a LabeledTriple: {triple!r}")
        return items, "triples"


def index_documents(name: str, documents: Iterable[str | Path] | str | Path = (), *, cache_dir: str | Path | None = None,
                    retriever: str | None = None, embedding_model: str | None = None, chunking: ChunkConfig | None = None,
                    trust: Iterable[str | Path] | str | Path = (), distrust: Iterable[str | Path] | str | Path = (),
                    wait: bool = True, absence: str | None = None, hooks: Hooks = SILENT) -> IndexReport:
    """Create the named index of a user's documents (files and folders: .txt .md .html .pdf, passage tables), or
    update it: only new or changed files are read. `distrust`: sources kept but never deciding alone. Read it with
    `KGVerifier(index=name)`."""
    _check_name(name, "name")
    if documents is None:
        raise DataError("documents", "expected files or folders of documents, got None")
    return update_document_index(Workspace(None, cache_dir and Path(cache_dir)), name, _paths(documents), retriever,
                                 embedding_model, chunking, hooks, _paths(trust), _paths(distrust), wait, absence)


def profile_graph(graph: str | Path, output: str | Path | None = None, *, shacl: str | Path | None = None,
                  hooks: Hooks = SILENT) -> GraphProfile:
    """The profile of a graph file (.nt .nq .ttl .trig .rdf), streamed: what each predicate's values are like,
    learned without labels ([graph.md](docs/graph.md)). With `output` it is saved there (for `verify(...,
    graph=GraphSettings(profile=...))`), with `shacl` also written as SHACL shapes."""
    return profile_into(Workspace(), output and Path(output), Path(graph), None, shacl and Path(shacl), hooks).profile


def _check_name(name: object, argument: str) -> None:
    """A name the verifier can read: text with a letter or digit in it (a DataError, a ValueError, names the
    argument otherwise)."""
    if not isinstance(name, str):
        raise DataError(argument, f"expected a name (a string), got {type(name).__name__}")
    if not name.strip():
        raise DataError(argument, "an empty name")


def _paths(given: Iterable[str | Path] | str | Path) -> list[Path]:
    """One path or several: a lone string is one path, not its letters."""
    return [Path(given)] if isinstance(given, (str, Path)) else [Path(p) for p in given]
