"""Graphs where they live: triples read from a SPARQL endpoint or an embedded store, verdicts written back.

The commands' loops over agentkgv.data.sparql (reading) and agentkgv.eval.verdict_rdf (writing).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import islice
from pathlib import Path

from agentkgv.commands.verify import SILENT, Hooks
from agentkgv.core.runner import load_run
from agentkgv.data.errors import DataError, refuse_overwriting
from agentkgv.data.records import LabeledTriple
from agentkgv.data.sparql import GraphSelection, stream_triples
from agentkgv.data.sparql_clients import EmbeddedStore, HttpEndpoint, SparqlClient
from agentkgv.graph.profile import GraphProfile, build_profile, endpoint_triples, file_triples
from agentkgv.graph.shapes import profile_shapes
from agentkgv.eval.verdict_rdf import DEFAULT_BASE, Graphs, insert_statements, verdict_quads, write_rdf
from agentkgv.memory import peak_memory_gib
from agentkgv.paths import Workspace

# Whole-graph pattern: every triple but the naming ones (those are filtered by the selection).
EVERY_TRIPLE = "?s ?p ?o ."


@dataclass(frozen=True)
class GraphSource:
    """Where the triples are: an endpoint URL, or a graph file loaded once into an embedded store."""

    endpoint: str | None = None
    store_file: Path | None = None
    selection: GraphSelection = GraphSelection(pattern=EVERY_TRIPLE)
    language: str = "en"
    page_size: int = 1000
    timeout: float = 60.0

    def __post_init__(self) -> None:
        if (self.endpoint is None) == (self.store_file is None):
            raise ValueError("a graph source is an endpoint or a store file, one of them")

    @property
    def name(self) -> str:
        return self.endpoint or self.store_file.name


def open_store(ws: Workspace, graph: Path, hooks: Hooks = SILENT) -> EmbeddedStore:
    """The embedded store holding `graph`, loaded on first use under <cache>/stores (keyed by the file's
    path, size and time, so an edited file is loaded again)."""
    if not graph.exists():
        raise DataError(graph, "file not found")
    stat = graph.stat()
    key = hashlib.sha1(f"{graph.resolve()} {stat.st_size} {stat.st_mtime_ns}".encode()).hexdigest()[:16]
    folder = ws.cache / "stores" / f"{graph.stem}-{key}"
    loaded = folder / "loaded"
    folder.mkdir(parents=True, exist_ok=True)  # a fresh cache has no stores folder yet
    store = EmbeddedStore(folder)
    if not loaded.exists():
        hooks.note(f"loading {graph.name} into an embedded store at {folder} (once)")
        count = store.load(graph)
        loaded.write_text(f"{count}\n")
    return store


def client_for(ws: Workspace, source: GraphSource, hooks: Hooks = SILENT) -> SparqlClient:
    if source.endpoint is not None:
        return HttpEndpoint(source.endpoint, timeout=source.timeout)
    return open_store(ws, source.store_file, hooks)


def graph_triples(ws: Workspace, source: GraphSource, limit: int | None = None,
                  hooks: Hooks = SILENT) -> list[LabeledTriple]:
    """The selected triples with their names (the first `limit`), read page by page with a progress count."""
    client = client_for(ws, source, hooks)
    with hooks.bar(f"reading triples from {source.name}", limit) as advance:
        triples = stream_triples(client, source.selection, source.language, source.page_size, advance)
        return list(islice(triples, limit))


@dataclass(frozen=True)
class GraphReadRow:
    """How fast triples come out of a graph with their names, and at what memory."""

    source: str
    page_size: int
    triples: int
    seconds: float
    peak_gib: float

    HEADERS = ["Source", "Page size", "Triples", "Seconds", "Triples/s", "Peak GiB"]

    def cells(self) -> list[str]:
        return [self.source, str(self.page_size), str(self.triples), f"{self.seconds:.1f}",
                f"{self.triples / max(self.seconds, 1e-9):.0f}", f"{self.peak_gib:.2f}"]


def read_rate(ws: Workspace, source: GraphSource, limit: int | None = None, hooks: Hooks = SILENT) -> GraphReadRow:
    """Stream the selected triples with their names without keeping them: the reading side of `verify`."""
    client = client_for(ws, source, hooks)  # a store is loaded first, outside the timing
    started, count = time.perf_counter(), 0
    with hooks.bar(f"reading triples from {source.name}", limit) as advance:
        for _ in islice(stream_triples(client, source.selection, source.language, source.page_size, advance), limit):
            count += 1
    return GraphReadRow(source.name, source.page_size, count, time.perf_counter() - started, peak_memory_gib())


@dataclass
class ExportReport:
    verdicts: int
    quads: int
    target: str
    graphs: Graphs


def export_verdicts(verdicts_file: Path, output: Path | None = None, endpoint: str | None = None,
                    base: str = DEFAULT_BASE, update_url: str | None = None, triple_terms: bool = False) -> ExportReport:
    """The verdicts of a `verify` output as RDF: into a TriG/N-Quads file, or into named graphs of an endpoint
    by SPARQL Update; `triple_terms` adds RDF 1.2 triple terms beside the reification."""
    if (output is None) == (endpoint is None):
        raise ValueError("export to a file (--output) or to an endpoint (--endpoint), one of them")
    if not verdicts_file.is_file():
        raise DataError(verdicts_file, "file not found: give the verdicts file `agentkgv verify -o` wrote")
    if output is not None and output.is_dir():
        raise DataError(output, "a folder: give the file to write (-o verdicts.trig)")
    refuse_overwriting([verdicts_file], [output])
    verdicts = list(load_run(verdicts_file).values())
    if not verdicts:
        raise DataError(verdicts_file, "no verdicts in this file")
    graphs = Graphs.under(base)
    ended = datetime.fromtimestamp(verdicts_file.stat().st_mtime, tz=timezone.utc)
    quads = list(verdict_quads(verdicts, graphs, str(verdicts_file.resolve()), ended, triple_terms))
    if output is not None:
        write_rdf(quads, output)
        return ExportReport(len(verdicts), len(quads), str(output), graphs)
    client = HttpEndpoint(endpoint, update_url=update_url)
    for request in insert_statements(quads, graphs):
        client.update(request)
    return ExportReport(len(verdicts), len(quads), endpoint, graphs)


@dataclass(frozen=True)
class ProfileResult:
    profile: GraphProfile
    path: Path | None
    shapes: Path | None
    seconds: float
    peak_gib: float


def profile_graph(ws: Workspace, output: Path | None, graph: Path | None = None, source: GraphSource | None = None,
                  shapes: Path | None = None, hooks: Hooks = SILENT) -> ProfileResult:
    """The profile of a graph file (streamed by Oxigraph) or of a graph source (an endpoint or a store),
    saved to `output` (where given); with `shapes`, also written there as SHACL shapes."""
    refuse_overwriting([graph], [output, shapes])
    started = time.perf_counter()
    if graph is not None:
        stream, name = file_triples(graph), graph.name
    else:
        stream, name = endpoint_triples(client_for(ws, source, hooks), source.selection, source.page_size), source.name
    with hooks.bar(f"profiling {name}", None) as advance:
        profile = build_profile(stream, name, advance)
    if output is not None:
        profile.save(output)
    if shapes is not None:
        shapes.parent.mkdir(parents=True, exist_ok=True)
        shapes.write_text(profile_shapes(profile), encoding="utf-8")
    return ProfileResult(profile, output, shapes, time.perf_counter() - started, peak_memory_gib())
