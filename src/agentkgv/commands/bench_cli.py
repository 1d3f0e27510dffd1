"""The benchmark commands: the paper's table (eval), retrieval recall, throughput, summarizers, poisoned
evidence, withheld evidence, a shaped graph, a real graph's errors, confidence, and a model server that fails on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.commands.bench import (bench_confidence, bench_dbpedia, bench_dbpedia_graph, bench_poison, bench_retrieval, bench_shaped_graph,
                                     bench_summarizer, bench_throughput, bench_withheld)
from agentkgv.commands.build import BATCH_SIZE, EVAL_SPLITS, TEST_SPLITS
from agentkgv.commands.display import HOOKS, console, print_table, show, show_eval, show_recall
from agentkgv.commands.options import (BENCH, AdapterOpt, AddressOpt, BackendOpt, BaseModelOpt, CacheOpt, DataOpt,
                                       EmbeddingOpt, JudgeOpt, MethodsHelp, ModelOpt, RayOpt, ReaderOpt, RetrieverOpt,
                                       RunConfigOpt, RareReaderOpt, StopPolicyOpt, SummarizerOpt, WorkersOpt,
                                       ray_options)
from agentkgv.commands.verify import run_eval
from agentkgv.config import RunConfig, RunOptions
from agentkgv.eval.confidence import ConfidenceRow, KindRow
from agentkgv.data.dbpedia import iter_dbpedia
from agentkgv.eval.graph_scale import (ReadRow, ScaleRow, ShaclRow, compare_shacl_engines, measure_reading,
                                       measure_scale, sample_lines, write_long_literal, write_scale_graph)
from agentkgv.graph.profile import build_profile, file_triples
from agentkgv.eval.real_graph import RealGraphRow
from agentkgv.eval.shaped_graph import ShapedRow
from agentkgv.eval.summary_bench import SummaryRow
from agentkgv.eval.throughput import ThroughputRow
from agentkgv.eval.withheld import WithheldRow
from agentkgv.llm.fault_proxy import FaultConfig, serve
from agentkgv.paths import Workspace

app = typer.Typer()





@app.command("bench-summarizer", rich_help_panel=BENCH)
def bench_summarizer_command(count: Annotated[int, typer.Option(help="Positives to draw requests from.")] = 60,
                             split: str = "test_long_tail", retriever: RetrieverOpt = None,
                             config: RunConfigOpt = None, data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """The LLM and extractive summarizers on the same retrieval results: cost and fact retention."""
    run = RunOptions(retriever=retriever).apply(RunConfig.load(config))
    requests, rows = bench_summarizer(Workspace(data_dir, cache_dir), run, split, count, HOOKS)
    show(f"Summarizers on {requests} first-turn results holding the gold evidence ({split})", SummaryRow, rows)


@app.command("bench-poison", rich_help_panel=BENCH)
def bench_poison_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["lexical"],
                         splits: Annotated[list[str], typer.Option("--split")] = list(TEST_SPLITS),
                         limit: Annotated[int, typer.Option(min=1, help="Fixed balanced subset of this many triples per split.")] = 40,
                         variants: Annotated[list[str], typer.Option("--variant", help="clean, poisoned, clean+guard, poisoned+guard.")] = ["poisoned", "poisoned+guard"],
                         index_name: Annotated[str, typer.Option(help="Index folder for the poisoned copy.")] = "bm25-poisoned",
                         config: RunConfigOpt = None, judge: JudgeOpt = None, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = 8,
                         run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "poison",
                         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Flip rate and macro-F1 of each method when adversarial passages are added to a copy of the index."""
    run = RunOptions(judge=judge).apply(RunConfig.load(config))
    headers, rows = bench_poison(Workspace(data_dir, cache_dir), run, methods, splits,
                                 limit, variants, index_name, batch_size, run_name, HOOKS)
    print_table("Poisoned evidence: verdict flips against each method's clean run", headers, rows)


@app.command("bench-withheld", rich_help_panel=BENCH)
def bench_withheld_command(splits: Annotated[list[str], typer.Option("--split")] = list(EVAL_SPLITS),
                           absences: Annotated[list[str], typer.Option("--absence", help="false, unknown: what a triple no passage supports or contradicts is.")] = ["false", "unknown"],
                           config: RunConfigOpt = None, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = 64,
                           run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "withheld",
                           data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """The reader agent with the evidence of a fixed, stratified half of each split taken out of the corpus:
    how often it calls a triple false whose evidence is gone, and whether it still finds contradictions."""
    rows = bench_withheld(Workspace(data_dir, cache_dir), RunConfig.load(config), splits, absences,
                          run_name, batch_size, HOOKS)
    show("Evidence withheld: verdicts on the half whose evidence is gone and on the half that keeps it",
         WithheldRow, rows)


@app.command("bench-graph", rich_help_panel=BENCH)
def bench_graph_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["agentkgv", "lexical"],
                        index_name: Annotated[str, typer.Option("--index", help="The document index of FactBench's pages (made when missing).")] = "factbench-docs",
                        config: RunConfigOpt = None, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = 64,
                        run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "shaped-graph",
                        data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """A graph shaped like a real one (mostly true; labels, dates, categories and links beside the relation
    facts) against web pages that state only some of it: what each kind of triple is called."""
    rows = bench_shaped_graph(Workspace(data_dir, cache_dir), RunConfig.load(config), methods, index_name,
                              run_name, batch_size, HOOKS)
    show("A graph shaped like a real one, against FactBench's pages", ShapedRow, rows)


@app.command("bench-dbpedia", rich_help_panel=BENCH)
def bench_dbpedia_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["agentkgv", "lexical"],
                          index_name: Annotated[str, typer.Option("--index", help="The document index of the set's pages (made when missing).")] = "dbpedia-docs",
                          config: RunConfigOpt = None, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = 64,
                          run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "dbpedia",
                          forms: Annotated[list[str], typer.Option("--form", help="iri (the triples as given) and verbalized (each relation as FactCheck's sentence words it).")] = ["iri", "verbalized"],
                          data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """A real graph's errors: the DBpedia development set's triples that come with web pages, verified against
    those pages as a user would, scored closed world and open world (the wrong triples flagged, the
    precision of "false", the true triples called false)."""
    unknown = sorted(set(forms) - {"iri", "verbalized"})
    if unknown:
        raise typer.BadParameter(f"unknown form {unknown[0]!r}: iri or verbalized", param_hint="--form")
    rows = bench_dbpedia(Workspace(data_dir, cache_dir), RunConfig.load(config), methods, index_name, run_name,
                         batch_size, tuple(forms), HOOKS)
    show("The DBpedia set against its own pages", RealGraphRow, rows)


@app.command("bench-graph-scale", rich_help_panel=BENCH)
def bench_graph_scale_command(triples: Annotated[int, typer.Option(min=1, help="The graph's size.")] = 1_000_000,
                              shacl_sample: Annotated[int, typer.Option(min=1, help="Triples the SHACL engines validate.")] = 20_000,
                              data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """A profile and every triple's graph findings for a graph of a million triples (made from the Wikidata-based
    facts into the cache), streamed, timed, with peak memory; and the SHACL engines on a sample."""
    ws = Workspace(data_dir, cache_dir)
    path = ws.cache / "graphs" / f"wikidata-{triples}.nt"
    if not path.exists():
        console.print(f"writing a {triples:,}-triple graph from the Wikidata-based facts -> {path}")
        write_scale_graph(ws.data, path, triples)
    with HOOKS.bar(f"profiling {path.name}", None) as advance:
        row, rules, profile = measure_scale(path, advance)
    show(f"Graph evidence at scale ({path.name})", ScaleRow, [row])
    console.print("findings by rule: " + ", ".join(f"{rule} {n:,}" for rule, n in rules.most_common()))
    sample = sample_lines(path, shacl_sample, row.triples)
    # A real graph's own shapes break where its errors are: the DBpedia set, its N-Triples written to the cache.
    dbpedia = ws.cache / "graphs" / "dbpedia.nt"
    dbpedia.write_text("".join(f"{t.rdf.subject} {t.rdf.predicate} {t.rdf.object} .\n"
                               for t in (item.triple for item in iter_dbpedia(ws.data)) if t.rdf), encoding="utf-8")
    rows = (compare_shacl_engines(f"{shacl_sample:,} sampled", sample, profile)
            + compare_shacl_engines("DBpedia set", dbpedia, build_profile(file_triples(dbpedia), dbpedia.name)))
    show("SHACL engines on the profile's own shapes", ShaclRow, rows)
    long = write_long_literal(ws.cache / "graphs" / "long-literal.nt")
    show("Reading graph files for verify (Oxigraph's parser)", ReadRow, measure_reading([long, path]))


@app.command("bench-dbpedia-graph", rich_help_panel=BENCH)
def bench_dbpedia_graph_command(index_name: Annotated[str, typer.Option("--index", help="The document index of the set's pages (made when missing).")] = "dbpedia-docs",
                                config: RunConfigOpt = None, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = 64,
                                run_name: Annotated[str, typer.Option(help="Run folder under the cache (the documents' verdicts).")] = "dbpedia",
                                data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """What the graph itself says on a real graph: the DBpedia development set's 8,893 triples as the graph,
    profiled without labels; the rules alone, the graph's P(true) (fitted on the labels, cross-validated), and
    on the triples with pages the documents alone, the graph alone and both together."""
    whole, pages = bench_dbpedia_graph(Workspace(data_dir, cache_dir), RunConfig.load(config), index_name, run_name,
                                       batch_size, HOOKS)
    show("The DBpedia set's graph, all triples", RealGraphRow, whole)
    show("The DBpedia set's triples with pages", RealGraphRow, pages)


@app.command("bench-confidence", rich_help_panel=BENCH)
def bench_confidence_command(run_names: Annotated[list[str], typer.Option("--run-name", help="Eval run folders under the cache.")] = ["eval"],
                             review_below: Annotated[float, typer.Option(min=0.0, max=1.0, help="Confidence under which a verdict goes to review.")] = 0.7,
                             data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """How far each logged run's confidence can be trusted (ECE, the share sent to review, accuracy on the
    rest) and FactBench-docs accuracy per kind of false fact; writes a reliability diagram."""
    report = bench_confidence(Workspace(data_dir, cache_dir), run_names, review_below)
    show("Confidence: expected calibration error of P(true), and review at confidence < "
         f"{review_below}", ConfidenceRow, report.rows)
    if report.kinds:
        show("FactBench-docs accuracy per kind of fact", KindRow, report.kinds)
    console.print(f"reliability diagram: {report.plot}")


@app.command("fault-proxy", rich_help_panel=BENCH)
def fault_proxy_command(upstream: Annotated[str, typer.Argument(help="The real server, e.g. http://127.0.0.1:8080.")],
                        port: int = 8089, drop: float = 0.0, stall: float = 0.0, error_500: float = 0.0,
                        throttle_429: float = 0.0, malformed: float = 0.0, stall_s: float = 5.0,
                        retry_after_s: float = 0.5, seed: int = 0) -> None:
    """Serve a proxy to an OpenAI-compatible server that fails on purpose at these rates (fault testing)."""
    counts = serve(upstream, FaultConfig(drop=drop, stall=stall, error_500=error_500, throttle_429=throttle_429,
                                         malformed=malformed, stall_s=stall_s, retry_after_s=retry_after_s, seed=seed),
                   port, HOOKS.note)
    print_table("Requests", ["Outcome", "Requests"], [[k, str(v)] for k, v in counts.most_common()])


@app.command("bench-retrieval", rich_help_panel=BENCH)
def bench_retrieval_command(retrievers: Annotated[list[str], typer.Option("--retriever")] = ["bm25", "dense", "hybrid"],
                            embedding_model: EmbeddingOpt = None, k: Annotated[int, typer.Option(min=1, help="Passages per query.")] = 5,
                            out: Annotated[Optional[Path], typer.Option(help="Write the table as Markdown here.")] = None,
                            data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Recall@k of the gold evidence for each query form, per retriever and test split."""
    show_recall(bench_retrieval(Workspace(data_dir, cache_dir), retrievers, embedding_model, k, HOOKS), k, out)


@app.command("eval", rich_help_panel=BENCH)
def eval_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["agentkgv", "lexical"],
                 splits: Annotated[list[str], typer.Option("--split")] = list(EVAL_SPLITS),
                 limit: Annotated[Optional[int], typer.Option(min=1, help="Fixed balanced subset of this many triples per split.")] = None,
                 retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None,
                 config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None,
                 adapter: AdapterOpt = None, summarizer: SummarizerOpt = None, judge: JudgeOpt = None,
                 reader: ReaderOpt = None, rare_reader: RareReaderOpt = None, stop_policy: StopPolicyOpt = None,
                 label: Annotated[Optional[str], typer.Option(help="Row name in the table (default: the method).")] = None,
                 cache: Annotated[bool, typer.Option(help="Reuse cached LLM answers; --no-cache when timing.")] = True,
                 batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = BATCH_SIZE, run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "eval",
                 base_model: BaseModelOpt = False, data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Score methods on the benchmark splits: the paper's Table 1 plus cost; resumable. The agent judges with
    the shipped evidence reader (--judge llm: the LLM agent on the shipped trained adapter unless --base-model
    or --adapter); the LLM baselines run the bare backbone."""
    run = RunOptions(backend=backend, model=model, adapter=adapter, summarizer=summarizer, retriever=retriever,
                     embedding_model=embedding_model, cache=cache, judge=judge, reader=reader, rare_reader=rare_reader,
                     stop_policy=stop_policy).apply(RunConfig.load(config))
    show_eval(run_eval(Workspace(data_dir, cache_dir), run, methods, splits, limit, label, batch_size, run_name,
                       base_model, HOOKS))


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
    run = RunOptions(method=method, retriever=retriever, judge=judge).apply(RunConfig.load(config))
    rows = bench_throughput(Workspace(data_dir, cache_dir), run, split, count, batch_sizes,
                            ray_options(ray, address, workers), base_model, HOOKS)
    backbone = ("evidence reader" if run.uses_reader else f"{run.llm.backend}:{run.llm.model}" if run.needs_llm
                else "no model")
    show(f"{method} throughput ({split}, {backbone}{f', Ray x{workers}' if ray else ''})",
         ThroughputRow, rows)
