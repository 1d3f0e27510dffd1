"""The `agentkgv` command line: options in, tables out. Every command is one call into `agentkgv.pipeline`.

The user's commands (verify and report, build); the training and benchmark ones are in `cli_train.py` and
`cli_bench.py`. Over 300 lines because each command is its typed options, a dozen lines apiece, and a
user looking for one reads them best side by side.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv import benchmarks, graphs, learning, pipeline
from agentkgv.cli_options import (BENCH, BUILD, VERIFY, AbsenceOpt, AdapterOpt, AddressOpt, BackendOpt, BaseModelOpt, BaseUrlOpt,
                                  CacheOpt, DataOpt, EmbeddingOpt, GpusOpt, IndexOpt, JudgeOpt, MethodsHelp, ModelOpt,
                                  OnErrorMode, OnErrorOpt, OverlapOpt, PriorOpt, RayOpt, ReaderOpt, RetrieverOpt, RunConfigOpt,
                                  RareReaderOpt, StopPolicyOpt, SummarizerOpt, WordsOpt, WorkersOpt, ray_options)
from agentkgv.agent.run_config import RunConfig
from agentkgv.data.benchmark import BenchmarkConfig, load_stats
from agentkgv.data.errors import DataError
from agentkgv.data.sparql import GraphSelection
from agentkgv.cli_bench import benches
from agentkgv.cli_train import trainers
from agentkgv.data.documents import ChunkConfig
from agentkgv.display import (HOOKS, console, print_table, show, show_benchmark_stats, show_check, show_comparison,
                              show_demo_differences, show_eval, show_index_report, show_recall, show_verdicts)
from agentkgv.embedding import DEFAULT_EMBEDDING_MODEL
from agentkgv.eval.html_report import write_report
from agentkgv.eval.compare import compare_runs
from agentkgv.eval.runner import RunLocked, RunSettingsChanged, errors_path, load_run
from agentkgv.eval.verdict_rdf import DEFAULT_BASE
from agentkgv.graphs import EVERY_TRIPLE, GraphSource
from agentkgv.eval.throughput import ThroughputRow
from agentkgv.data.records import Triple
from agentkgv.paths import Workspace
from agentkgv.retrieval.user_index import open_index

app = typer.Typer(help="Verify knowledge-graph triples against a document corpus.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
app.add_typer(benches)  # bench-summarizer, bench-poison and fault-proxy, in their own module
app.add_typer(trainers)  # the training commands, in their own module


def version_callback(value: bool) -> None:
    if value:
        console.print(f"agentkgv {metadata.version('agentkgv')}")
        raise typer.Exit()


@app.callback()
def options(version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True,
                                                  help="Print the version and exit.")] = False) -> None:
    """Verify knowledge-graph triples against a document corpus."""


# Exit codes a pipeline can act on: 0 every triple verified; USER_ERROR bad input or settings, refused
# before any work; SOME_FAILED a run that finished without a verdict for some triples (a rerun retries them).
USER_ERROR, SOME_FAILED, INTERRUPTED = 2, 3, 130
# What a Ctrl-C leaves, by command: every command that writes keeps what it finished.
_ON_INTERRUPT = {"verify": "the verdicts written so far are kept; run the same command again to resume",
                 "eval": "the verdicts written so far are kept; run the same command again to resume",
                 "index": "the index is as it was before this update; run the same command again"}


def main() -> None:
    """Entry point: bad input ends with one readable line naming the file, not a traceback; Ctrl-C with what
    was kept."""
    try:
        app()
    except (DataError, RunLocked, RunSettingsChanged) as error:
        console.print(f"[bold red]error:[/] {error}")
        sys.exit(USER_ERROR)
    except OSError as error:
        if error.filename is None:  # a network or library fault, not a path: its traceback is the report
            raise
        # A path the user gave that the system refused (a folder, read-only, full disk).
        console.print(f"[bold red]error:[/] {error.filename}: {error.strerror or error}; check the path and its "
                      "permissions")
        sys.exit(USER_ERROR)
    except SystemExit as exit:
        if exit.code == INTERRUPTED:  # typer's exit for Ctrl-C
            _interrupted()
        raise


def _interrupted() -> None:
    command = next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "")
    console.print(f"[yellow]interrupted:[/] {_ON_INTERRUPT.get(command, 'nothing half-written is kept')}")
    sys.exit(INTERRUPTED)


@app.command("build-benchmark", rich_help_panel=BUILD)
def build_benchmark_command(data_dir: DataOpt = None, cache_dir: CacheOpt = None,
                            config: Annotated[Optional[Path], typer.Option(help="Regime config TOML.")] = None,
                            embedding_model: Annotated[str, typer.Option(help="Embedding model of the hard negatives.")] = DEFAULT_EMBEDDING_MODEL) -> None:
    """Build train / test_long_tail / test_unseen with hard negatives (paper section 4.1)."""
    ws = Workspace(data_dir, cache_dir)
    pipeline.build_benchmark_into(ws, BenchmarkConfig.load(config).model_copy(update={"embedding_model": embedding_model}), HOOKS)
    console.print(f"written to {ws.benchmark}")


@app.command("build-corpus", rich_help_panel=BUILD)
def build_corpus_command(data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Collect the retrieval corpus (all evidence sentences plus distractor sources)."""
    pipeline.rebuild_corpus(Workspace(data_dir, cache_dir), HOOKS)


@app.command("build-index", rich_help_panel=BUILD)
def build_index_command(retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None,
                        data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Build (or rebuild) a retrieval index over the corpus."""
    config = RunConfig().with_options(retriever=retriever, embedding_model=embedding_model).retriever
    built = pipeline.build_index(Workspace(data_dir, cache_dir), config, HOOKS)
    console.print(f"{config.kind} index over {built.passages} passages: {built.seconds:.1f} s, "
                  f"peak memory {built.peak_memory_gib:.2f} GiB")


@app.command(rich_help_panel=VERIFY)
def search(query: Annotated[list[str], typer.Argument(help="One or more queries.")], k: int = 5,
           retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None, index: IndexOpt = None,
           data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Search the corpus, or an index of your documents (--index), from the shell."""
    ws = Workspace(data_dir, cache_dir)
    if index is not None:
        pipeline.resolve_index(ws, RunConfig().with_options(index=index), retriever)
        opened = open_index(ws, index)
        config, searcher = opened.manifest.retriever_config(), opened.retriever
    else:
        config = RunConfig().with_options(retriever=retriever, embedding_model=embedding_model).retriever
        searcher = pipeline.retriever_for(ws, config, HOOKS)
    found = searcher.search(query, k)
    for text, hits in zip(query, found):
        print_table(f"{config.kind}: {text}", ["#", "Score", "Id", "Source", "Passage"],
                    [[str(h.rank), f"{h.score:.3f}", h.passage.id, h.passage.source, h.passage.text[:160]]
                     for h in hits])


@app.command("bench-retrieval", rich_help_panel=BENCH)
def bench_retrieval_command(retrievers: Annotated[list[str], typer.Option("--retriever")] = ["bm25", "dense", "hybrid"],
                            embedding_model: EmbeddingOpt = None, k: int = 5,
                            out: Annotated[Optional[Path], typer.Option(help="Write the table as Markdown here.")] = None,
                            data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Recall@k of the gold evidence for each query form, per retriever and test split."""
    show_recall(benchmarks.bench_retrieval(Workspace(data_dir, cache_dir), retrievers, embedding_model, k, HOOKS), k, out)


@app.command("eval", rich_help_panel=BENCH)
def eval_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["agentkgv", "lexical"],
                 splits: Annotated[list[str], typer.Option("--split")] = list(pipeline.EVAL_SPLITS),
                 limit: Annotated[Optional[int], typer.Option(help="Fixed balanced subset of this many triples per split.")] = None,
                 retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None,
                 config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None,
                 adapter: AdapterOpt = None, summarizer: SummarizerOpt = None, judge: JudgeOpt = None,
                 reader: ReaderOpt = None, rare_reader: RareReaderOpt = None, stop_policy: StopPolicyOpt = None,
                 label: Annotated[Optional[str], typer.Option(help="Row name in the table (default: the method).")] = None,
                 cache: Annotated[bool, typer.Option(help="Reuse cached LLM answers; --no-cache when timing.")] = True,
                 batch_size: int = pipeline.BATCH_SIZE, run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "eval",
                 base_model: BaseModelOpt = False, data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Score methods on the benchmark splits: the paper's Table 1 plus cost; resumable. The agent judges with
    the shipped evidence reader (--judge llm: the LLM agent on the shipped trained adapter unless --base-model
    or --adapter); the LLM baselines run the bare backbone."""
    run = RunConfig.load(config).with_options(backend=backend, model=model, adapter=adapter, summarizer=summarizer,
                                              retriever=retriever, embedding_model=embedding_model, cache=cache,
                                              judge=judge, reader=reader, rare_reader=rare_reader,
                                              stop_policy=stop_policy)
    show_eval(pipeline.run_eval(Workspace(data_dir, cache_dir), run, methods, splits, limit, label, batch_size,
                                run_name, not base_model, HOOKS))


@app.command(rich_help_panel=VERIFY)
def verify(triples: Annotated[Optional[Path], typer.Argument(help="Triples: .jsonl, .csv, .tsv, .nt or .ttl (or --sparql).")] = None,
           output: Annotated[Path, typer.Option("--output", "-o", help="JSONL of verdicts (appended; reruns resume).")] = Path("verdicts.jsonl"),
           sparql: Annotated[Optional[str], typer.Option(help="Read the triples from this SPARQL 1.1 endpoint (its query URL).")] = None,
           pattern: Annotated[Optional[str], typer.Option(help="With --sparql or --store: a graph pattern binding ?s ?p ?o "
                                                          "(default: every triple but labels).")] = None,
           query: Annotated[Optional[Path], typer.Option(exists=True, dir_okay=False, help="With --sparql or --store: a .rq SELECT binding ?s ?p ?o.")] = None,
           store: Annotated[bool, typer.Option(help="Load the .nt/.ttl graph file into an embedded Oxigraph store (once) and "
                                               "read it from there in pages: for graphs too large to parse in memory.")] = False,
           lang: Annotated[str, typer.Option(help="Language of the labels read from a graph.")] = "en",
           page_size: Annotated[int, typer.Option(min=1, help="Triples per page read from a graph.")] = 1000,
           limit: Annotated[Optional[int], typer.Option(help="Verify only the first N triples.")] = None,
           method: Annotated[str, typer.Option(help=MethodsHelp)] = "agentkgv",
           retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None,
           config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None, adapter: AdapterOpt = None,
           summarizer: SummarizerOpt = None, base_url: BaseUrlOpt = None, judge: JudgeOpt = None, reader: ReaderOpt = None,
           rare_reader: RareReaderOpt = None, stop_policy: StopPolicyOpt = None,
           absence: AbsenceOpt = None, prior: PriorOpt = None,
           trajectories: Annotated[bool, typer.Option(help="Keep each triple's full trajectory in the output.")] = False,
           aliases: Annotated[Optional[Path], typer.Option(help="Other names of entities: a JSONL of {name, aliases} "
                                                           "(the benchmark writes <cache>/benchmark/aliases.jsonl).")] = None,
           base_model: BaseModelOpt = False, batch_size: int = pipeline.BATCH_SIZE, index: IndexOpt = None, on_error: OnErrorOpt = OnErrorMode.fail,
           ray: RayOpt = False, address: AddressOpt = None, workers: WorkersOpt = 2, gpus_per_worker: GpusOpt = 0.0,
           data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Verify triples from a file or a SPARQL endpoint: one JSONL record per triple with verdict, confidence,
    evidence and cost.

    The agent judges with the shipped evidence reader; --judge llm runs the LLM agent (the embedded SmolLM2
    with the shipped trained adapter unless told otherwise)."""
    ws = Workspace(data_dir, cache_dir)
    run = RunConfig.load(config).with_options(method=method, backend=backend, model=model, adapter=adapter,
                                              summarizer=summarizer, base_url=base_url, retriever=retriever,
                                              embedding_model=embedding_model, index=index, judge=judge, reader=reader,
                                              rare_reader=rare_reader, stop_policy=stop_policy, absence=absence,
                                              prior=prior)
    run = run if base_model else run.with_trained_adapter()
    if (triples is None) == (sparql is None):
        raise typer.BadParameter("give a file of triples or --sparql URL, one of them")
    pipeline.check_output(output)  # before the triples are read, which may take long
    if sparql or store:
        try:
            selection = GraphSelection(query=query.read_text(encoding="utf-8")) if query else GraphSelection(pattern=pattern or EVERY_TRIPLE)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--query") from None
        source = GraphSource(endpoint=sparql, store_file=None if sparql else triples, selection=selection,
                             language=lang, page_size=page_size)
        items, name = graphs.graph_triples(ws, source, limit, HOOKS), source.name
    else:
        items, name = pipeline.read_user_file(triples, output, on_error.value, HOOKS)[:limit], triples.name
    if not items:
        console.print(f"[yellow]warning:[/] {name} holds no triple: nothing to verify")
        return
    verdicts = pipeline.verify_triples(ws, run, items, name, output, batch_size, trajectories,
                                       ray_options(ray, address, workers, gpus_per_worker), HOOKS, aliases, retriever)
    show_verdicts(verdicts, output)
    if len(verdicts) < len(items):
        console.print(f"[bold red]{len(items) - len(verdicts)} triples failed[/] (the model server gave no answer): "
                      f"listed in {errors_path(output)}; run the same command again to retry them")
        sys.exit(SOME_FAILED)


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
    run = RunConfig().with_options(method=method, index=index, judge=judge, reader=reader, rare_reader=rare_reader,
                                   stop_policy=stop_policy, absence=absence, prior=prior)
    verdict = pipeline.check_triple(Workspace(data_dir, cache_dir), run.with_trained_adapter(),
                                    Triple(subject, predicate, obj), HOOKS)
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
    report = graphs.export_verdicts(verdicts, output, endpoint, base, update_url, rdf12)
    console.print(f"{report.verdicts} verdicts, {report.quads} quads -> {report.target}: graphs "
                  f"{report.graphs.verdicts.value}, {report.graphs.cleaned.value}, {report.graphs.flagged.value}")


@app.command(rich_help_panel=VERIFY)
def learn(review: Annotated[Path, typer.Argument(help="The review queue CSV with reviewer_verdict filled in.")],
          verdicts: Annotated[Path, typer.Option(help="The verdicts JSONL the queue was made from.")],
          name: Annotated[str, typer.Option(help="Name of the adapted reader (under <cache>/readers).")],
          reader: ReaderOpt = None,
          rare: Annotated[bool, typer.Option("--rare", help="Adapt the reader of rare relations, from the reviewed "
                                                            "triples it judged (default: the main reader).")] = False,
          data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Adapt the verifier to your domain from what your reviewers said: the reader's calibration is refitted
    on the reviewed triples it judged, and from 50 of them on the reader itself is tuned on their passages (about
    a minute on a CPU). Run it with --reader (with --rare: --rare-reader) <the folder printed>."""
    folder, learned = learning.learn_from_review(Workspace(data_dir, cache_dir), review, verdicts, name, reader,
                                                 HOOKS, rare)
    after, before = learned.calibration_after, learned.calibration_before
    print_table(f"Learned from {learned.reviews} reviewed triples ({learned.true_reviews} true) -> {folder}",
                ["", "Before", "After"],
                [["macro-F1 on the reviewed triples", f"{learned.macro_f1_before:.3f}", f"{learned.macro_f1_after:.3f}"],
                 ["true at P(true) >=", f"{before['true_at']:.3f}", f"{after['true_at']:.3f}"],
                 ["false below P(true)", f"{before['false_at']:.3f}", f"{after['false_at']:.3f}"],
                 ["verdicts changed", "", str(learned.changed)],
                 ["reader tuned on passages", "", str(learned.tuned_pairs) if learned.tuned_pairs else "no"]])
    console.print(f"use it: agentkgv verify ... {'--rare-reader' if rare else '--reader'} {folder}")


@app.command("index", rich_help_panel=VERIFY)
def index_command(documents: Annotated[Optional[list[Path]], typer.Argument(help="Files and folders: .txt .md .html .pdf, and "
                                                                                ".jsonl/.csv/.tsv passage tables.")] = None,
                  name: Annotated[str, typer.Option("--name", help="Index name (under <cache>/indexes) or folder.")] = "docs",
                  trust: Annotated[list[Path], typer.Option("--trust", help="Trust this indexed file or folder again.")] = [],
                  distrust: Annotated[list[Path], typer.Option("--distrust", help="A file or folder whose passages alone never "
                                                                                  "decide a verdict (they send it to review).")] = [],
                  retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None, words: WordsOpt = None,
                  overlap: OverlapOpt = None,
                  wait: Annotated[bool, typer.Option(help="When another `index` is updating this index: wait for it "
                                                          "(--wait), or refuse at once (--no-wait).")] = True,
                  absence: Annotated[Optional[str], typer.Option(
                      "--absence", help="What a verification over this index makes of a triple its documents do not "
                                        "state: 'unknown' (the default: not enough evidence) or 'false' (the documents "
                                        "state every true triple).")] = None,
                  cache_dir: CacheOpt = None) -> None:
    """Index your own documents, or add documents to an index: only new or changed files are read. Sources
    you distrust are kept, but their evidence alone decides nothing. Each update is one writer's, made beside
    the index and switched in at the end: runs reading the index meanwhile keep the version they opened,
    and an update killed midway leaves the index as it was."""
    sizes = {k: v for k, v in {"words_per_passage": words, "overlap_words": overlap}.items() if v is not None}
    show_index_report(pipeline.index_documents(Workspace(None, cache_dir), name, documents or [], retriever, embedding_model,
                                               ChunkConfig(**sizes) if sizes else None, HOOKS, trust, distrust, wait,
                                               absence))


@app.command(rich_help_panel=VERIFY)
def report(verdicts: Annotated[Path, typer.Argument(help="Verdicts JSONL written by `agentkgv verify`.")],
           output: Annotated[Path, typer.Option("--output", "-o", help="The HTML page to write.")],
           review: Annotated[Optional[Path], typer.Option(help="Review queue CSV (default <output>.review.csv).")] = None,
           review_below: Annotated[float, typer.Option(help="Confidence under which a verdict goes to review.")] = 0.7) -> None:
    """One self-contained HTML page of a run's verdicts, plus a CSV of the ones a person should check."""
    queue = review or output.with_name(output.stem + ".review.csv")
    summary = write_report(verdicts, output, queue, review_below)
    console.print(f"{summary.triples} triples -> {output}; {summary.review} for review -> {queue}")


@app.command("bench-throughput", rich_help_panel=BENCH)
def bench_throughput_command(count: Annotated[int, typer.Option(help="Triples per measurement.")] = 16,
                             batch_sizes: Annotated[list[int], typer.Option("--batch-size")] = [1, 8],
                             method: str = "agentkgv", split: str = "test_long_tail", retriever: RetrieverOpt = None,
                             config: RunConfigOpt = None, judge: JudgeOpt = None, base_model: BaseModelOpt = False, ray: RayOpt = False,
                             address: AddressOpt = None, workers: WorkersOpt = 2, data_dir: DataOpt = None,
                             cache_dir: CacheOpt = None) -> None:
    """Triples per second, one triple at a time and batched, with the LLM cache off so every call is real; the
    default agent judges with the shipped reader (--judge llm: the LLM agent on the shipped adapter unless
    --base-model). With --ray, each batch size is per actor."""
    run = RunConfig.load(config).with_options(method=method, retriever=retriever, judge=judge)
    run = run if base_model else run.with_trained_adapter()
    rows = benchmarks.bench_throughput(Workspace(data_dir, cache_dir), run, split, count, batch_sizes,
                                     ray_options(ray, address, workers), HOOKS)
    backbone = ("evidence reader" if run.uses_reader else f"{run.llm.backend}:{run.llm.model}" if run.needs_llm
                else "no model")
    show(f"{method} throughput ({split}, {backbone}{f', Ray x{workers}' if ray else ''})",
         ThroughputRow, rows)


@app.command(rich_help_panel=VERIFY)
def demo(data_dir: DataOpt = None, cache_dir: CacheOpt = None,
         limit: Annotated[int, typer.Option(help="Triples per split (a fixed balanced subset).")] = 20) -> None:
    """The main job on the embedded defaults: build what is missing, verify a sample, print the table.

    Runs the AgentKGV agent (judging with the shipped evidence readers) on BM25, next to the lexical check it
    must beat.
    """
    ws = Workspace(data_dir, cache_dir)
    if not pipeline.ensure_benchmark(ws, HOOKS):  # a fresh build has shown its statistics already
        show_benchmark_stats(load_stats(ws.benchmark))
    console.print("agentkgv judges with the shipped evidence readers (MiniLM cross-encoders trained on a 2-core CPU); "
                  "--judge llm on eval/verify runs the LLM agent")
    result = pipeline.run_demo(ws, limit, HOOKS)
    show_eval(result.table)
    show_demo_differences(result.differences)
    console.print(f"the agent's report: {result.report} (review queue: {result.review})")
