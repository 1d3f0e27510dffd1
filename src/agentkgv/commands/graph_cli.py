"""The graph commands: verdicts written back as RDF, and how fast triples are read from a graph."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.commands.display import HOOKS, console, show
from agentkgv.commands.graph import GraphReadRow, export_verdicts, read_rate
from agentkgv.commands.graph import GraphSource
from agentkgv.commands.options import GRAPH, CacheOpt
from agentkgv.eval.verdict_rdf import DEFAULT_BASE
from agentkgv.paths import Workspace

app = typer.Typer()


@app.command(rich_help_panel=GRAPH)
def export(verdicts: Annotated[Path, typer.Argument(help="Verdicts JSONL written by `agentkgv verify`.")],
           output: Annotated[Optional[Path], typer.Option("--output", "-o", help="A .trig or .nq file to write.")] = None,
           endpoint: Annotated[Optional[str], typer.Option(help="Write into this SPARQL endpoint by SPARQL Update.")] = None,
           update_url: Annotated[Optional[str], typer.Option(help="The endpoint's update URL, where it is not the query "
                                                             "URL with /query -> /update.")] = None,
           base: Annotated[str, typer.Option(help="IRI the named graphs verdicts, cleaned and flagged are put under.")] = DEFAULT_BASE,
           rdf12: Annotated[bool, typer.Option("--rdf12", help="Also link each verdict to its triple by an RDF 1.2 triple "
                                                "term (rdf:reifies <<( s p o )>>), for stores that read RDF 1.2.")] = False) -> None:
    """The verdicts as RDF: each triple's verdict with its confidence, method and cited passages (PROV-O),
    the triples judged true ("cleaned") and the rest ("flagged"), in three named graphs (an export into an
    endpoint replaces them)."""
    if (output is None) == (endpoint is None):
        raise typer.BadParameter("export to a file (--output) or into an endpoint (--endpoint), one of them")
    if output is not None and output.suffix.lower() not in (".trig", ".nq"):
        raise typer.BadParameter("write verdicts as .trig or .nq (named graphs need a quad format)", param_hint="--output")
    report = export_verdicts(verdicts, output, endpoint, base, update_url, rdf12)
    console.print(f"{report.verdicts} verdicts, {report.quads} quads -> {report.target}: graphs "
                  f"{report.graphs.verdicts.value}, {report.graphs.cleaned.value}, {report.graphs.flagged.value}")


@app.command("bench-graph-read", rich_help_panel=GRAPH)
def bench_graph_read_command(sparql: Annotated[Optional[str], typer.Option(help="A SPARQL endpoint's query URL.")] = None,
                             store: Annotated[Optional[Path], typer.Option(help="A graph file, loaded into an embedded store once.")] = None,
                             page_size: Annotated[int, typer.Option(min=1, help="Triples per page.")] = 1000,
                             limit: Annotated[Optional[int], typer.Option(min=1, help="Stop after N triples.")] = None,
                             cache_dir: CacheOpt = None) -> None:
    """Triples per second read from a graph with their labels (what `verify --sparql` / `--store` reads), and
    the reading's peak memory: here the triples are counted, not kept (verify keeps the ones it verifies)."""
    if (sparql is None) == (store is None):
        raise typer.BadParameter("read from --sparql URL or --store FILE, one of them")
    source = GraphSource(endpoint=sparql, store_file=store, page_size=page_size)
    show("Reading a graph", GraphReadRow, [read_rate(Workspace(None, cache_dir), source, limit, HOOKS)])
