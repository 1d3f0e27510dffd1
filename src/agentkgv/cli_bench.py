"""Benchmark commands of the `agentkgv` command line: summarizers, poisoned evidence, confidence, and a model
server that fails on purpose. `cli.py` adds them to its own commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv import benchmarks, graphs, learning, pipeline
from agentkgv.agent.run_config import RunConfig
from agentkgv.cli_options import BENCH, CacheOpt, DataOpt, JudgeOpt, MethodsHelp, RetrieverOpt, RunConfigOpt
from agentkgv.display import HOOKS, console, print_table, show
from agentkgv.eval.confidence import ConfidenceRow, KindRow
from agentkgv.eval.summary_bench import SummaryRow
from agentkgv.eval.shaped_graph import ShapedRow
from agentkgv.eval.withheld import WithheldRow
from agentkgv.llm.fault_proxy import FaultConfig, serve
from agentkgv.graphs import GraphReadRow, GraphSource
from agentkgv.paths import Workspace
from agentkgv.train.learn import ReviewLoopRow

benches = typer.Typer()


@benches.command("bench-summarizer", rich_help_panel=BENCH)
def bench_summarizer_command(count: Annotated[int, typer.Option(help="Positives to draw requests from.")] = 60,
                             split: str = "test_long_tail", retriever: RetrieverOpt = None,
                             config: RunConfigOpt = None, data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """The LLM and extractive summarizers on the same retrieval results: cost and fact retention."""
    run = RunConfig.load(config).with_options(retriever=retriever)
    requests, rows = benchmarks.bench_summarizer(Workspace(data_dir, cache_dir), run, split, count, HOOKS)
    show(f"Summarizers on {requests} first-turn results holding the gold evidence ({split})", SummaryRow, rows)


@benches.command("bench-poison", rich_help_panel=BENCH)
def bench_poison_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["lexical"],
                         splits: Annotated[list[str], typer.Option("--split")] = list(pipeline.TEST_SPLITS),
                         limit: Annotated[int, typer.Option(help="Fixed balanced subset of this many triples per split.")] = 40,
                         variants: Annotated[list[str], typer.Option("--variant", help="clean, poisoned, clean+guard, poisoned+guard.")] = ["poisoned", "poisoned+guard"],
                         index_name: Annotated[str, typer.Option(help="Index folder for the poisoned copy.")] = "bm25-poisoned",
                         config: RunConfigOpt = None, judge: JudgeOpt = None, batch_size: int = 8,
                         run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "poison",
                         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Flip rate and macro-F1 of each method when adversarial passages are added to a copy of the index."""
    run = RunConfig.load(config).with_options(judge=judge)
    headers, rows = benchmarks.bench_poison(Workspace(data_dir, cache_dir), run, methods, splits,
                                          limit, variants, index_name, batch_size, run_name, HOOKS)
    print_table("Poisoned evidence: verdict flips against each method's clean run", headers, rows)


@benches.command("bench-withheld", rich_help_panel=BENCH)
def bench_withheld_command(splits: Annotated[list[str], typer.Option("--split")] = list(pipeline.EVAL_SPLITS),
                           absences: Annotated[list[str], typer.Option("--absence", help="false, unknown: what a triple no passage supports or contradicts is.")] = ["false", "unknown"],
                           config: RunConfigOpt = None, batch_size: int = 64,
                           run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "withheld",
                           data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """The reader agent with the evidence of a fixed, stratified half of each split taken out of the corpus:
    how often it calls a triple false whose evidence is gone, and whether it still finds contradictions."""
    rows = benchmarks.bench_withheld(Workspace(data_dir, cache_dir), RunConfig.load(config), splits, absences,
                                     run_name, batch_size, HOOKS)
    show("Evidence withheld: verdicts on the half whose evidence is gone and on the half that keeps it",
         WithheldRow, rows)


@benches.command("bench-graph", rich_help_panel=BENCH)
def bench_graph_command(methods: Annotated[list[str], typer.Option("--method", help=MethodsHelp)] = ["agentkgv", "lexical"],
                        index_name: Annotated[str, typer.Option("--index", help="The document index of FactBench's pages (made when missing).")] = "factbench-docs",
                        config: RunConfigOpt = None, batch_size: int = 64,
                        run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "shaped-graph",
                        data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """A graph shaped like a real one (mostly true; labels, dates, categories and links beside the relation
    facts) against web pages that state only some of it: what each kind of triple is called."""
    rows = benchmarks.bench_shaped_graph(Workspace(data_dir, cache_dir), RunConfig.load(config), methods, index_name,
                                         run_name, batch_size, HOOKS)
    show("A graph shaped like a real one, against FactBench's pages", ShapedRow, rows)


@benches.command("bench-confidence", rich_help_panel=BENCH)
def bench_confidence_command(run_names: Annotated[list[str], typer.Option("--run-name", help="Eval run folders under the cache.")] = ["eval"],
                             review_below: Annotated[float, typer.Option(help="Confidence under which a verdict goes to review.")] = 0.7,
                             data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """How far each logged run's confidence can be trusted (ECE, the share sent to review, accuracy on the
    rest) and FactBench-docs accuracy per kind of false fact; writes a reliability diagram."""
    report = benchmarks.bench_confidence(Workspace(data_dir, cache_dir), run_names, review_below)
    show("Confidence: expected calibration error of P(true), and review at confidence < "
         f"{review_below}", ConfidenceRow, report.rows)
    if report.kinds:
        show("FactBench-docs accuracy per kind of fact", KindRow, report.kinds)
    console.print(f"reliability diagram: {report.plot}")


@benches.command("bench-review", rich_help_panel=BENCH)
def bench_review_command(run_name: Annotated[str, typer.Option(help="Eval run of the reader agent, under the cache.")] = "eval",
                         split: Annotated[str, typer.Option(help="The split whose verdicts are reviewed and scored.")] = "factbench_docs",
                         reviewed: Annotated[list[int], typer.Option("--reviewed", help="Reviewed triples to learn from.")] = [50, 100],
                         folds: Annotated[int, typer.Option(help="Folds: each is scored once, never reviewed.")] = 4,
                         tune: Annotated[bool, typer.Option(help="Also tune the reader on each fold's reviews and read the fold again.")] = False,
                         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """What learning from reviewed triples buys, k-fold: macro-F1 on the unreviewed triples before and after
    the calibration is refitted on N reviewed ones drawn from the other folds (--tune: and after the reader
    is tuned on them too)."""
    rows = learning.bench_review(Workspace(data_dir, cache_dir), run_name, split, reviewed, folds, tune, HOOKS)
    show(f"The review loop on {split} ({run_name})", ReviewLoopRow, rows)


@benches.command("bench-graph-read", rich_help_panel=BENCH)
def bench_graph_read_command(sparql: Annotated[Optional[str], typer.Option(help="A SPARQL endpoint's query URL.")] = None,
                             store: Annotated[Optional[Path], typer.Option(help="A graph file, loaded into an embedded store once.")] = None,
                             page_size: Annotated[int, typer.Option(min=1, help="Triples per page.")] = 1000,
                             limit: Annotated[Optional[int], typer.Option(help="Stop after N triples.")] = None,
                             cache_dir: CacheOpt = None) -> None:
    """Triples per second read from a graph with their labels (what `verify --sparql` / `--store` reads), and
    the reading's peak memory: here the triples are counted, not kept (verify keeps the ones it verifies)."""
    if (sparql is None) == (store is None):
        raise typer.BadParameter("read from --sparql URL or --store FILE, one of them")
    source = GraphSource(endpoint=sparql, store_file=store, page_size=page_size)
    show("Reading a graph", GraphReadRow, [graphs.read_rate(Workspace(None, cache_dir), source, limit, HOOKS)])


@benches.command("fault-proxy", rich_help_panel=BENCH)
def fault_proxy_command(upstream: Annotated[str, typer.Argument(help="The real server, e.g. http://127.0.0.1:8080.")],
                        port: int = 8089, drop: float = 0.0, stall: float = 0.0, error_500: float = 0.0,
                        throttle_429: float = 0.0, malformed: float = 0.0, stall_s: float = 5.0,
                        retry_after_s: float = 0.5, seed: int = 0) -> None:
    """Serve a proxy to an OpenAI-compatible server that fails on purpose at these rates (fault testing)."""
    counts = serve(upstream, FaultConfig(drop=drop, stall=stall, error_500=error_500, throttle_429=throttle_429,
                                         malformed=malformed, stall_s=stall_s, retry_after_s=retry_after_s, seed=seed),
                   port, HOOKS.note)
    print_table("Requests", ["Outcome", "Requests"], [[k, str(v)] for k, v in counts.most_common()])
