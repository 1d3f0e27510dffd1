"""The verify-and-report commands: verify a file or a graph, check one triple, search, compare two runs,
the HTML report, and the demo. Over 250 lines because each command is its typed options, a dozen lines
apiece, and a user looking for one reads them best side by side."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.api import KGVerifier
from agentkgv.commands.build import BATCH_SIZE, ensure_benchmark, retriever_for
from agentkgv.commands.display import (HOOKS, console, print_table, show_benchmark_stats, show_check, show_comparison,
                                       show_demo_differences, show_eval, show_profile, show_verdicts)
from agentkgv.commands.graph import EVERY_TRIPLE, GraphSource
from agentkgv.commands.graph import graph_triples, profile_graph
from agentkgv.commands.options import (SOME_FAILED, VERIFY, AbsenceOpt, AdapterOpt, AddressOpt, BackendOpt,
                                       BaseModelOpt, BaseUrlOpt, CacheOpt, DataOpt, EmbeddingOpt, GpusOpt, IndexOpt,
                                       JudgeOpt, MethodsHelp, ModelOpt, OnErrorMode, OnErrorOpt, PriorOpt, RayOpt,
                                       ReaderOpt, RetrieverOpt, RunConfigOpt, RareReaderOpt, StopPolicyOpt,
                                       SummarizerOpt, WorkersOpt, rare, ray_options)
from agentkgv.commands.verify import check_output, read_user_file, run_demo
from agentkgv.config import RunConfig, RunOptions
from agentkgv.config import index_manifest
from agentkgv.core.runner import errors_path, load_run
from agentkgv.data.benchmark import load_stats
from agentkgv.data.errors import DataError
from agentkgv.data.sparql import LANGUAGE_TAG, GraphSelection
from agentkgv.eval.compare import compare_runs
from agentkgv.eval.html_report import write_report
from agentkgv.graph.checker import GraphSettings
from agentkgv.paths import Workspace
from agentkgv.retrieval.user_index import open_index

app = typer.Typer()


@app.command(rich_help_panel=VERIFY)
def search(query: Annotated[list[str], typer.Argument(help="One or more queries.")], k: Annotated[int, typer.Option(min=1, help="Passages per query.")] = 5,
           retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None, index: IndexOpt = None,
           data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Search the corpus, or an index of your documents (--index), from the shell."""
    ws = Workspace(data_dir, cache_dir)
    if index is not None:
        index_manifest(ws, index, retriever)  # a kind the index is not is refused before it opens
        opened = open_index(ws, index)
        config, searcher = opened.manifest.retriever_config(), opened.retriever
    else:
        config = RunOptions(retriever=retriever, embedding_model=embedding_model).apply(RunConfig()).retriever
        searcher = retriever_for(ws, config, HOOKS)
    found = searcher.search(query, k)
    for text, hits in zip(query, found):
        print_table(f"{config.kind}: {text}", ["#", "Score", "Id", "Source", "Passage"],
                    [[str(h.rank), f"{h.score:.3f}", h.passage.id, h.passage.source, h.passage.text[:160]]
                     for h in hits])


@app.command(rich_help_panel=VERIFY)
def verify(triples: Annotated[Optional[Path], typer.Argument(help="Triples: .jsonl, .csv, .tsv, .nt, .ttl, .nq or .trig (or --sparql).")] = None,
           output: Annotated[Path, typer.Option("--output", "-o", help="Verdicts JSONL (reruns resume).")] = Path("verdicts.jsonl"),
           sparql: Annotated[Optional[str], typer.Option(help="Read the triples from this SPARQL 1.1 endpoint (its query URL).")] = None,
           pattern: Annotated[Optional[str], typer.Option(hidden=True, help="With --sparql or --store: a graph pattern binding ?s ?p ?o "
                                                          "(default: every triple but labels).")] = None,
           query: Annotated[Optional[Path], typer.Option(hidden=True, exists=True, dir_okay=False, help="With --sparql or --store: a .rq SELECT binding ?s ?p ?o.")] = None,
           store: Annotated[bool, typer.Option(hidden=True, help="Load the .nt/.ttl graph file into an embedded Oxigraph store (once) and "
                                               "read it from there in pages: for graphs too large to parse in memory.")] = False,
           lang: Annotated[str, typer.Option(hidden=True, help="Language of the labels read from a graph.")] = "en",
           page_size: Annotated[int, typer.Option(hidden=True, min=1, help="Triples per page read from a graph.")] = 1000,
           limit: Annotated[Optional[int], typer.Option(min=1, help="Verify only the first N triples.")] = None,
           method: Annotated[str, typer.Option(help=MethodsHelp)] = "agentkgv",
           retriever: RetrieverOpt = None, embedding_model: rare(EmbeddingOpt) = None,
           config: RunConfigOpt = None, backend: rare(BackendOpt) = None, model: rare(ModelOpt) = None,
           adapter: rare(AdapterOpt) = None, summarizer: rare(SummarizerOpt) = None, base_url: rare(BaseUrlOpt) = None,
           judge: rare(JudgeOpt) = None, reader: rare(ReaderOpt) = None, rare_reader: rare(RareReaderOpt) = None,
           stop_policy: rare(StopPolicyOpt) = None, absence: AbsenceOpt = None, prior: rare(PriorOpt) = None,
           trajectories: Annotated[bool, typer.Option(hidden=True, help="Keep each triple's full trajectory in the output.")] = False,
           aliases: Annotated[Optional[Path], typer.Option(help="Other names of entities: a JSONL of {name, aliases}.")] = None,
           graph: Annotated[bool, typer.Option(help="Read the triples' own graph too: its findings, and a P(true) from "
                                               "it (docs/graph.md).")] = True,
           profile: Annotated[Optional[Path], typer.Option(hidden=True, help="A saved profile (`agentkgv profile`) of the graph the "
                                                           "triples are part of, instead of the triples' own.")] = None,
           shapes: Annotated[Optional[Path], typer.Option(hidden=True, help="SHACL shapes the graph should meet: each violation is "
                                                          "evidence against its triple.")] = None,
           graph_prior: Annotated[Optional[Path], typer.Option(hidden=True, help="A graph prior refitted by `learn` (default: the shipped one).")] = None,
           graph_false_below: Annotated[Optional[float], typer.Option(hidden=True, min=0.0, max=1.0, help="The graph's P(true) under which it "
                                                                      "contradicts a triple no trusted passage supports (default 0.4).")] = None,
           base_model: rare(BaseModelOpt) = False, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = BATCH_SIZE, index: IndexOpt = None, on_error: OnErrorOpt = OnErrorMode.fail,
           ray: RayOpt = False, address: rare(AddressOpt) = None, workers: WorkersOpt = 2, gpus_per_worker: rare(GpusOpt) = 0.0,
           data_dir: rare(DataOpt) = None, cache_dir: CacheOpt = None) -> None:
    """Verify triples from a file or a SPARQL endpoint: one JSONL record per triple with the verdict, what the documents (and the graph) say, P(true) and the passages cited.

    Rarer options (--judge llm, --reader, --stop-policy, --prior, --profile, --shapes, --graph-prior, --graph-false-below, --store, --pattern, --query, --lang, --page-size, --trajectories, ...): docs/command_line.md."""
    ws = Workspace(data_dir, cache_dir)
    if (triples is None) == (sparql is None):
        raise typer.BadParameter("give a file of triples or --sparql URL, one of them")
    if not LANGUAGE_TAG.fullmatch(lang):
        raise typer.BadParameter(f"a language tag such as en or pt-BR, not {lang!r}", param_hint="--lang")
    check_output(output)  # before the triples are read, which may take long
    verifier = KGVerifier(config, index=index, base_model=base_model, data_dir=data_dir, cache_dir=cache_dir, hooks=HOOKS,
                          method=method, backend=backend, model=model, adapter=adapter, summarizer=summarizer,
                          base_url=base_url, retriever=retriever, embedding_model=embedding_model, judge=judge,
                          reader=reader, rare_reader=rare_reader, stop_policy=stop_policy, absence=absence, prior=prior)
    if sparql or store:
        try:
            selection = GraphSelection(query=query.read_text(encoding="utf-8")) if query else GraphSelection(pattern=pattern or EVERY_TRIPLE)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--query") from None
        source = GraphSource(endpoint=sparql, store_file=None if sparql else triples, selection=selection,
                             language=lang, page_size=page_size)
        items, name = graph_triples(ws, source, limit, HOOKS), source.name
    else:
        items, name = read_user_file(triples, output, on_error.value, HOOKS)[:limit], triples.name
    if not items:
        console.print(f"[yellow]warning:[/] {name} holds no triple: nothing to verify")
        return
    if not graph and (profile or shapes or graph_prior or graph_false_below is not None):
        raise typer.BadParameter("--profile, --shapes, --graph-prior and --graph-false-below read the graph: drop --no-graph",
                                 param_hint="--no-graph")
    chosen = {"false_below": graph_false_below} if graph_false_below is not None else {}
    settings = GraphSettings(profile=profile, shapes=shapes, prior=graph_prior, **chosen) if graph else None
    verdicts = verifier.verify(items, output, batch_size=batch_size, trajectories=trajectories,
                               ray=ray_options(ray, address, workers, gpus_per_worker), aliases=aliases, name=name,
                               graph=settings)
    show_verdicts(verdicts, output)
    if len(verdicts) < len(items):
        console.print(f"[bold red]{len(items) - len(verdicts)} triples failed[/] (the model server gave no answer): "
                      f"listed in {errors_path(output)}; run the same command again to retry them")
        sys.exit(SOME_FAILED)


@app.command(rich_help_panel=VERIFY)
def profile(graph: Annotated[Optional[Path], typer.Argument(help="A graph file: .nt, .nq, .ttl, .trig or .rdf (or --sparql).")] = None,
            output: Annotated[Path, typer.Option("--output", "-o", help="The profile's JSON.")] = Path("profile.json"),
            shacl: Annotated[Optional[Path], typer.Option(help="Also write the profile as SHACL shapes (Turtle) here.")] = None,
            sparql: Annotated[Optional[str], typer.Option(help="Profile the graph at this SPARQL 1.1 endpoint (its query URL).")] = None,
            pattern: Annotated[Optional[str], typer.Option(help="With --sparql: a graph pattern binding ?s ?p ?o.")] = None,
            page_size: Annotated[int, typer.Option(min=1, help="Triples per page read from an endpoint.")] = 10_000,
            data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Learn what a graph's predicates take, without labels: the kinds of their values, their subjects' and
    objects' types, one value or many, numeric ranges. `verify --profile` holds a graph's triples against it."""
    if (graph is None) == (sparql is None):
        raise typer.BadParameter("give a graph file or --sparql URL, one of them")
    source = GraphSource(endpoint=sparql, selection=GraphSelection(pattern=pattern or EVERY_TRIPLE),
                         page_size=page_size) if sparql else None
    result = profile_graph(Workspace(data_dir, cache_dir), output, graph, source, shacl, HOOKS)
    show_profile(result)


@app.command(rich_help_panel=VERIFY)
def check(subject: Annotated[str, typer.Argument(help="The subject's name.")],
          predicate: Annotated[str, typer.Argument(help="The relation, in words (\"place of birth\").")],
          obj: Annotated[str, typer.Argument(metavar="OBJECT", help="The object's name.")],
          index: IndexOpt = None, method: Annotated[str, typer.Option(help=MethodsHelp)] = "agentkgv",
          judge: JudgeOpt = None, reader: ReaderOpt = None, rare_reader: RareReaderOpt = None,
          stop_policy: StopPolicyOpt = None, absence: AbsenceOpt = None, prior: PriorOpt = None,
          data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Check one triple and show the evidence: what the documents say (supported, contradicted, not enough
    evidence, not checkable), the verdict, P(true), and the passages it read and cited."""
    verifier = KGVerifier(index=index, data_dir=data_dir, cache_dir=cache_dir, hooks=HOOKS, method=method, judge=judge,
                          reader=reader, rare_reader=rare_reader, stop_policy=stop_policy, absence=absence, prior=prior)
    verdict = verifier.check(subject, predicate, obj)
    show_check(verdict)


@app.command(rich_help_panel=VERIFY)
def compare(first: Annotated[Path, typer.Argument(help="Verdicts JSONL (or an eval run log).")],
            second: Annotated[Path, typer.Argument(help="Verdicts JSONL to compare with.")],
            show_all: Annotated[bool, typer.Option("--all", help="List every differing triple, not the first 20.")] = False) -> None:
    """Two runs side by side: macro-F1 of each on the triples both hold (where gold labels exist), how often
    they agree, and the triples where they differ."""
    runs = []
    for path in (first, second):
        run = load_run(path)
        if not run:
            raise DataError(path, "no verdicts here (is the path right?)")
        runs.append(run)
    show_comparison(compare_runs(*runs), first.name, second.name, None if show_all else 20)


@app.command(rich_help_panel=VERIFY)
def report(verdicts: Annotated[Path, typer.Argument(help="Verdicts JSONL written by `agentkgv verify`.")],
           output: Annotated[Path, typer.Option("--output", "-o", help="The HTML page to write.")],
           review: Annotated[Optional[Path], typer.Option(help="Review queue CSV (default <output>.review.csv).")] = None,
           review_below: Annotated[float, typer.Option(min=0.0, max=1.0, help="Confidence under which a verdict goes to review.")] = 0.7) -> None:
    """One self-contained HTML page of a run's verdicts, plus a CSV of the ones a person should check."""
    queue = review or output.with_name(output.stem + ".review.csv")
    summary = write_report(verdicts, output, queue, review_below)
    console.print(f"{summary.triples} triples -> {output}; {summary.review} for review -> {queue}")


@app.command(rich_help_panel=VERIFY)
def demo(data_dir: DataOpt = None, cache_dir: CacheOpt = None,
         limit: Annotated[int, typer.Option(min=1, help="Triples per split (a fixed balanced subset).")] = 20) -> None:
    """The main job on the embedded defaults: build what is missing, verify a sample, print the table.

    Runs the AgentKGV agent (judging with the shipped evidence readers) on BM25, next to the lexical check it
    must beat.
    """
    ws = Workspace(data_dir, cache_dir)
    if not ensure_benchmark(ws, HOOKS):  # a fresh build has shown its statistics already
        show_benchmark_stats(load_stats(ws.benchmark))
    console.print("agentkgv judges with the shipped evidence readers (MiniLM cross-encoders trained on a 2-core CPU); "
                  "--judge llm on eval/verify runs the LLM agent")
    result = run_demo(ws, limit, HOOKS)
    show_eval(result.table)
    show_demo_differences(result.differences)
    console.print(f"the agent's report: {result.report} (review queue: {result.review})")
