"""The `agentkgv` command line: build the benchmark, corpus and indexes, search, evaluate, verify."""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from agentkgv.data.benchmark import SPLITS, TEST_SPLIT_REGIME, BenchmarkConfig, build_benchmark, load_split, load_stats
from agentkgv.data.corpus import CorpusConfig, build_corpus, load_corpus
from agentkgv.data.errors import DataError
from agentkgv.data.factbench import DOCS_SPLIT
from agentkgv.data.predicates import load_predicates
from agentkgv.embedding import DEFAULT_EMBEDDING_MODEL
from agentkgv.eval.report import HEADERS, ResultRow, markdown_table, per_predicate, row_cells, save_report, summarize
from agentkgv.eval.retrieval_bench import recall_at_k
from agentkgv.eval.runner import RunLocked, RunSettingsChanged, run_verifier
from agentkgv.eval.subsets import balanced_subset
from agentkgv.paths import Workspace
from agentkgv.retrieval.factory import RetrieverConfig, build_retriever, load_retriever

app = typer.Typer(help="Verify knowledge-graph triples against a document corpus.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
# Redirected to a log file, rich would wrap tables at 80 columns and cut every figure short.
console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)

DataOpt = Annotated[Optional[Path], typer.Option("--data-dir", envvar="AGENTKGV_DATA",
                                                 help="Folder with the source data (default ../shared/data).")]
CacheOpt = Annotated[Optional[Path], typer.Option("--cache-dir", envvar="AGENTKGV_CACHE",
                                                  help="Folder for everything derived (default .cache).")]
RetrieverOpt = Annotated[str, typer.Option("--retriever", help="bm25, dense or hybrid.")]
EmbeddingOpt = Annotated[str, typer.Option("--embedding-model",
                                           help="'minilm' (offline default) or a sentence-transformers name/path.")]
TEST_SPLITS = tuple(TEST_SPLIT_REGIME)
EVAL_SPLITS = (*TEST_SPLITS, DOCS_SPLIT)


def main() -> None:
    """Entry point: bad input ends with one readable line naming the file, not a traceback."""
    try:
        app()
    except (DataError, RunLocked, RunSettingsChanged) as error:
        console.print(f"[bold red]error:[/] {error}")
        sys.exit(2)


@contextmanager
def progress_bar(description: str, total: int | None) -> Iterator[callable]:
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda advance: progress.advance(task, advance)


def print_table(title: str, headers: list[str] | tuple[str, ...], rows: list[list[str]]) -> None:
    table = Table(title=title)
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*row)
    # Piped into a file or a CI log there is no terminal width to fit: rich would fall back to 80 columns
    # and cut every cell, so the table gets room instead.
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def retriever_config(ws: Workspace, kind: str, embedding_model: str) -> RetrieverConfig:
    return RetrieverConfig(kind=kind, embedding_model=embedding_model, index_root=ws.indexes)


def ensure_benchmark(ws: Workspace) -> None:
    if all((ws.benchmark / f"{split}.jsonl").exists() for split in SPLITS):
        return
    config = BenchmarkConfig.load()
    with console.status("building the benchmark") as status:
        stats = build_benchmark(ws.data, ws.benchmark, config, progress=lambda m: status.update(m))
    show_benchmark_stats(ws, stats)


def show_benchmark_stats(ws: Workspace, stats=None) -> None:
    stats = stats or load_stats(ws.benchmark)
    print_table("Hard-negative statistics (paper appendix C)",
                ["Split", "Pos / Neg", "Thresh.", "Mean Sim.", "Co-mention neg."],
                [[s.split, f"{s.positives} / {s.negatives}", f"{s.threshold:.2f}", f"{s.mean_similarity:.3f}",
                  str(s.co_mention)] for s in stats])


def ensure_corpus(ws: Workspace) -> None:
    if ws.corpus.exists():
        return
    with progress_bar("building the corpus", None) as advance:
        last = [0]

        def on_progress(count: int) -> None:
            advance(count - last[0])
            last[0] = count

        counts = build_corpus(ws.data, ws.corpus, CorpusConfig(), progress=on_progress)
    print_table("Corpus", ["Source", "Passages"], [[k, str(v)] for k, v in counts.most_common()]
                + [["total", str(sum(counts.values()))]])


def ensure_retriever(ws: Workspace, kind: str, embedding_model: str):
    ensure_corpus(ws)
    config = retriever_config(ws, kind, embedding_model)
    try:
        return load_retriever(config)
    except DataError:
        console.print(f"building the {kind} index (one time)")
        return build_retriever(config, load_corpus(ws.corpus))


@app.command("build-benchmark")
def build_benchmark_command(data_dir: DataOpt = None, cache_dir: CacheOpt = None,
                            config: Annotated[Optional[Path], typer.Option(help="Regime config TOML.")] = None,
                            embedding_model: EmbeddingOpt = DEFAULT_EMBEDDING_MODEL) -> None:
    """Build train / test_long_tail / test_unseen with hard negatives (paper section 4.1)."""
    ws = Workspace(data_dir, cache_dir)
    settings = BenchmarkConfig.load(config).model_copy(update={"embedding_model": embedding_model})
    with console.status("building the benchmark") as status:
        stats = build_benchmark(ws.data, ws.benchmark, settings, progress=lambda m: status.update(m))
    show_benchmark_stats(ws, stats)
    console.print(f"written to {ws.benchmark}")


@app.command("build-corpus")
def build_corpus_command(data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Collect the retrieval corpus (all evidence sentences plus distractor sources)."""
    ws = Workspace(data_dir, cache_dir)
    ws.corpus.unlink(missing_ok=True)
    ensure_corpus(ws)


@app.command("build-index")
def build_index_command(retriever: RetrieverOpt = "bm25", embedding_model: EmbeddingOpt = DEFAULT_EMBEDDING_MODEL,
                        data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Build (or rebuild) a retrieval index over the corpus."""
    ws = Workspace(data_dir, cache_dir)
    ensure_corpus(ws)
    passages = load_corpus(ws.corpus)
    start = time.perf_counter()
    build_retriever(retriever_config(ws, retriever, embedding_model), passages)
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    console.print(f"{retriever} index over {len(passages)} passages: {time.perf_counter() - start:.1f} s, "
                  f"peak memory {peak_gib:.2f} GiB")


@app.command()
def search(query: Annotated[list[str], typer.Argument(help="One or more queries.")], k: int = 5,
           retriever: RetrieverOpt = "bm25", embedding_model: EmbeddingOpt = DEFAULT_EMBEDDING_MODEL,
           data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Search the corpus from the shell."""
    ws = Workspace(data_dir, cache_dir)
    found = ensure_retriever(ws, retriever, embedding_model).search(query, k)
    for text, hits in zip(query, found):
        print_table(f"{retriever}: {text}", ["#", "Score", "Id", "Source", "Passage"],
                    [[str(h.rank), f"{h.score:.3f}", h.passage.id, h.passage.source, h.passage.text[:160]]
                     for h in hits])


@app.command("bench-retrieval")
def bench_retrieval_command(retrievers: Annotated[list[str], typer.Option("--retriever")] = ["bm25", "dense", "hybrid"],
                            embedding_model: EmbeddingOpt = DEFAULT_EMBEDDING_MODEL, k: int = 5,
                            out: Annotated[Optional[Path], typer.Option(help="Write the table as Markdown here.")] = None,
                            data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Recall@k of the gold evidence for each query form, per retriever and test split."""
    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    from agentkgv.agent.factory import paraphrase_table

    paraphrases = paraphrase_table(load_predicates(ws.data))
    rows = []
    for kind in retrievers:
        retriever = ensure_retriever(ws, kind, embedding_model)
        for split in TEST_SPLITS:
            rows += recall_at_k(retriever, kind, split, load_split(ws.benchmark, split), paraphrases, k)
    cells = [[r.retriever, r.split, r.combination, f"{r.recall:.3f}", str(r.queries), f"{r.queries_per_second:.1f}"]
             for r in rows]
    headers = ["Retriever", "Split", "Query form", f"Recall@{k}", "Queries", "Queries/s"]
    print_table("Gold-evidence recall", headers, cells)
    if out:
        out.write_text(markdown_table(headers, cells))


BackendOpt = Annotated[Optional[str], typer.Option("--backend", help="transformers, llamacpp or openai.")]
ModelOpt = Annotated[Optional[str], typer.Option("--model", help="'smollm2' (embedded), a path, or a served model name.")]
AdapterOpt = Annotated[Optional[Path], typer.Option(
    "--adapter", help="LoRA adapter folder to apply, or 'agentkgv-smollm2' (the shipped trained one).")]
BaseModelOpt = Annotated[bool, typer.Option(
    "--base-model", help="Run the embedded model without the shipped trained adapter.")]
SummarizerOpt = Annotated[Optional[str], typer.Option("--summarizer", help="llm or extractive.")]
RunConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Run config TOML (see configs/).")]


def run_config(path: Path | None, method: str | None = None, backend: str | None = None, model: str | None = None,
               adapter: Path | None = None, summarizer: str | None = None, base_url: str | None = None):
    """The TOML file's settings, then any command-line option on top."""
    from agentkgv.agent.factory import RunConfig

    config = RunConfig.load(path) if path else RunConfig()
    llm = {k: v for k, v in {"backend": backend, "model": model, "adapter": adapter, "base_url": base_url}.items()
           if v is not None}
    top = {k: v for k, v in {"method": method, "summarizer": summarizer}.items() if v is not None}
    # Validated again, so a mistyped option value fails here with pydantic's message.
    return RunConfig.model_validate({**config.model_dump(), **top, "llm": {**config.llm.model_dump(), **llm}})


def with_trained_adapter(config):
    """The embedded model with the shipped trained adapter, unless the run names its own model or adapter:
    what `verify` and `demo` run by default, because it is the best verifier the project has."""
    from agentkgv.llm.embedded import DEFAULT_MODEL, TRAINED_ADAPTER

    llm = config.llm
    if config.method != "agentkgv" or llm.backend != "transformers" or llm.model != DEFAULT_MODEL or llm.adapter:
        return config
    return config.model_copy(update={"llm": llm.model_copy(update={"adapter": Path(TRAINED_ADAPTER)})})


def verdict_settings(config, retriever: str, embedding_model: str, llm=None) -> dict:
    """What decides a verdict, which a resumed run log must share with its first write. The loaded model's
    name, when given, pins the adapter's content, not only its folder."""
    # The guard is recorded only when on, so logs written before it existed resume with it switched off.
    unpinned = {"llm"} | (set() if config.evidence_guard else {"evidence_guard"})
    settings = {**config.model_dump(mode="json", exclude=unpinned), "retriever": retriever,
                "embedding_model": embedding_model}
    if config.method != "lexical":
        settings["llm"] = config.llm.identity() | ({"name": llm.name} if llm is not None else {})
    return settings


def make_verifier(config, ws: Workspace, retriever: str, embedding_model: str, llm=None):
    from agentkgv.agent.factory import build_verifier, paraphrase_table

    paraphrases = paraphrase_table(load_predicates(ws.data))
    return build_verifier(config, ensure_retriever(ws, retriever, embedding_model), paraphrases, llm)


@app.command("eval")
def eval_command(methods: Annotated[list[str], typer.Option("--method", help="agentkgv, direct, single_rag, ircot, lexical.")] = ["lexical"],
                 splits: Annotated[list[str], typer.Option("--split")] = list(EVAL_SPLITS),
                 limit: Annotated[Optional[int], typer.Option(help="Fixed balanced subset of this many triples per split.")] = None,
                 retriever: RetrieverOpt = "bm25", embedding_model: EmbeddingOpt = DEFAULT_EMBEDDING_MODEL,
                 config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None,
                 adapter: AdapterOpt = None, summarizer: SummarizerOpt = None,
                 label: Annotated[Optional[str], typer.Option(help="Row name in the table (default: the method).")] = None,
                 cache: Annotated[bool, typer.Option(help="Reuse cached LLM answers; --no-cache when timing.")] = True,
                 batch_size: int = 8, run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "eval",
                 data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Score methods on the benchmark splits: the paper's Table 1 plus cost; resumable."""
    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    out_dir = ws.runs / run_name
    rows: list[ResultRow] = []
    breakdown: list[ResultRow] = []
    llm = None
    for method in methods:
        settings = run_config(config, method, backend, model, adapter, summarizer)
        settings.llm.cache = cache
        if llm is None and method != "lexical":
            from agentkgv.llm.factory import build_llm

            llm = build_llm(settings.llm)  # loaded once, shared by every LLM method of the run
        verifier = make_verifier(settings, ws, retriever, embedding_model, llm)
        pinned = verdict_settings(settings, retriever, embedding_model, llm)
        name = label if label and len(methods) == 1 else method
        for split in splits:
            examples = load_split(ws.benchmark, split)
            if limit:
                examples = balanced_subset(examples, limit)
            items = [e.as_labeled() for e in examples]
            with progress_bar(f"{name} on {split}", len(items)) as advance:
                verdicts = run_verifier(verifier, items, out_dir / f"{name}.{split}.jsonl", batch_size, advance,
                                        pinned)
            rows.append(summarize(name, split, verdicts))
            breakdown += per_predicate(name, split, verdicts)
    print_table("Results", HEADERS, [row_cells(r) for r in rows])
    markdown, _ = save_report(rows, out_dir, f"results-{'-'.join(methods) if not label else label}")
    save_report(breakdown, out_dir, f"per_predicate-{'-'.join(methods) if not label else label}")
    console.print(f"saved {markdown}")


@app.command()
def verify(triples: Annotated[Path, typer.Argument(help="Triples: .jsonl, .csv, .tsv, .nt or .ttl.")],
           output: Annotated[Path, typer.Option("--output", "-o", help="JSONL of verdicts (appended; reruns resume).")],
           method: Annotated[str, typer.Option(help="agentkgv, direct, single_rag, ircot, lexical.")] = "agentkgv",
           retriever: RetrieverOpt = "bm25", embedding_model: EmbeddingOpt = DEFAULT_EMBEDDING_MODEL,
           config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None, adapter: AdapterOpt = None,
           summarizer: SummarizerOpt = None,
           base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible server URL.")] = None,
           trajectories: Annotated[bool, typer.Option(help="Keep each triple's full trajectory in the output.")] = False,
           base_model: BaseModelOpt = False, batch_size: int = 8, data_dir: DataOpt = None,
           cache_dir: CacheOpt = None) -> None:
    """Verify a file of triples: one JSONL record per triple with verdict, confidence, evidence and cost.

    The agent runs the embedded SmolLM2 with the shipped trained adapter unless told otherwise."""
    from agentkgv.data.user_formats import read_triples
    from agentkgv.llm.factory import build_llm

    ws = Workspace(data_dir, cache_dir)
    items = list(read_triples(triples))
    settings = run_config(config, method, backend, model, adapter, summarizer, base_url)
    if not base_model:
        settings = with_trained_adapter(settings)
    # Loaded here, as in eval, so the output's pinned settings carry the model's name with its adapter's hash.
    llm = None if settings.method == "lexical" else build_llm(settings.llm)
    verifier = make_verifier(settings, ws, retriever, embedding_model, llm)
    if not trajectories:
        verifier = _WithoutTrajectories(verifier)
    with progress_bar(f"verifying {triples.name}", len(items)) as advance:
        verdicts = run_verifier(verifier, items, output, batch_size, advance,
                                verdict_settings(settings, retriever, embedding_model, llm))
    counts = {"true": sum(v.verdict is True for v in verdicts), "false": sum(v.verdict is False for v in verdicts),
              "no verdict": sum(v.verdict is None for v in verdicts),
              "failed (a rerun retries them)": len(items) - len(verdicts)}
    n = max(1, len(verdicts))
    print_table(f"{len(verdicts)} triples -> {output}", ["Verdict", "Triples"], [[k, str(v)] for k, v in counts.items()])
    console.print(f"per triple: {sum(v.search_calls for v in verdicts) / n:.2f} searches, "
                  f"{sum(v.prompt_tokens + v.completion_tokens for v in verdicts) / n:.0f} tokens, "
                  f"{sum(v.seconds for v in verdicts) / n:.2f} s")


@app.command("bench-poison")
def bench_poison_command(methods: Annotated[list[str], typer.Option("--method", help="agentkgv, direct, single_rag, ircot, lexical.")] = ["lexical"],
                         splits: Annotated[list[str], typer.Option("--split")] = list(TEST_SPLITS),
                         limit: Annotated[int, typer.Option(help="Fixed balanced subset of this many triples per split.")] = 40,
                         variants: Annotated[list[str], typer.Option("--variant", help="clean, poisoned, clean+guard, poisoned+guard.")] = ["poisoned", "poisoned+guard"],
                         index_name: Annotated[str, typer.Option(help="Index folder for the poisoned copy.")] = "bm25-poisoned",
                         config: RunConfigOpt = None, batch_size: int = 8, run_name: Annotated[str, typer.Option(help="Run folder under the cache.")] = "poison",
                         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Flip rate and macro-F1 of each method when adversarial passages are added to a copy of the index."""
    from agentkgv.agent.factory import build_verifier, paraphrase_table
    from agentkgv.eval.poison import (VARIANTS, attack_table, build_poisoned_index, make_poisons, poison_digest,
                                      retrieved_share, run_attack)
    from agentkgv.llm.factory import build_llm

    if unknown := set(variants) - set(VARIANTS) or set(splits) - set(TEST_SPLITS):
        raise typer.BadParameter(f"--variant must be among {', '.join(VARIANTS)} and --split among "
                                 f"{', '.join(TEST_SPLITS)}, not {', '.join(unknown)}")
    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    # Both test splits are poisoned whichever run, so one poisoned index serves every --split choice.
    examples = {split: balanced_subset(load_split(ws.benchmark, split), limit) for split in TEST_SPLITS}
    predicates = load_predicates(ws.data)
    poisons = make_poisons([e for split in TEST_SPLITS for e in examples[split]], predicates)
    clean = ensure_retriever(ws, "bm25", DEFAULT_EMBEDDING_MODEL)
    with console.status(f"indexing the corpus with {len(poisons)} poison passages -> {ws.indexes / index_name}"):
        retrievers = {False: clean, True: build_poisoned_index(ws.indexes / "bm25", poisons, ws.indexes / index_name)}
    every = [e for split in splits for e in examples[split]]
    console.print(f"poison in the top 5 for the triple's own words: {retrieved_share(retrievers[True], every, poisons, 5):.1%}")
    paraphrases, rows, llm = paraphrase_table(predicates), [], None
    for method in methods:
        settings = with_trained_adapter(run_config(config, method))
        if llm is None and method != "lexical":
            llm = build_llm(settings.llm)

        def make(retriever, guard, settings=settings):
            chosen = settings.model_copy(update={"evidence_guard": guard})
            return (build_verifier(chosen, retriever, paraphrases, llm),
                    verdict_settings(chosen, "bm25", DEFAULT_EMBEDDING_MODEL, llm))

        items = {split: [e.as_labeled() for e in examples[split]] for split in splits}
        with progress_bar(f"{method} under poisoned evidence", sum(map(len, items.values())) * (1 + len(variants))) as advance:
            rows += run_attack(method, make, retrievers, items, {p.example_id: p.kind for p in poisons},
                               ws.runs / run_name, variants, poison_digest(poisons), batch_size, advance)
    headers, cells = attack_table(rows)
    print_table("Poisoned evidence: verdict flips against each method's clean run", headers, cells)
    (ws.runs / run_name / f"poison-{'-'.join(methods)}.md").write_text(markdown_table(headers, cells))


@app.command("fault-proxy")
def fault_proxy_command(upstream: Annotated[str, typer.Argument(help="The real server, e.g. http://127.0.0.1:8080.")],
                        port: int = 8089, drop: float = 0.0, stall: float = 0.0, error_500: float = 0.0,
                        throttle_429: float = 0.0, malformed: float = 0.0, stall_s: float = 5.0,
                        retry_after_s: float = 0.5, seed: int = 0) -> None:
    """Serve a proxy to an OpenAI-compatible server that fails on purpose at these rates (fault testing)."""
    import signal

    from agentkgv.llm.fault_proxy import FaultConfig, FaultProxy

    proxy = FaultProxy(upstream, FaultConfig(drop=drop, stall=stall, error_500=error_500, throttle_429=throttle_429,
                                             malformed=malformed, stall_s=stall_s, retry_after_s=retry_after_s,
                                             seed=seed), port)
    console.print(f"fault proxy on {proxy.url} -> {upstream}; Ctrl-C or SIGTERM prints what it did")
    # A shell starts background jobs with SIGINT ignored; either signal ends the loop below.
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.default_int_handler)
    try:
        proxy.serve_forever()
    except KeyboardInterrupt:
        pass
    print_table("Requests", ["Outcome", "Requests"], [[k, str(v)] for k, v in proxy.counts.most_common()])


class _WithoutTrajectories:
    """Keeps verify output to what a user reads; trajectories are for eval and training runs."""

    def __init__(self, verifier):
        self.verifier, self.name = verifier, verifier.name

    def verify(self, items):
        verdicts = self.verifier.verify(items)
        for verdict in verdicts:
            verdict.trajectory = []
        return verdicts


@app.command("bench-summarizer")
def bench_summarizer_command(count: Annotated[int, typer.Option(help="Positives to draw requests from.")] = 60,
                             split: str = "test_long_tail", retriever: RetrieverOpt = "bm25",
                             config: RunConfigOpt = None, data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """The LLM and extractive summarizers on the same retrieval results: cost and fact retention."""
    from agentkgv.agent.factory import paraphrase_table
    from agentkgv.agent.summarizer import ExtractiveSummarizer, LLMSummarizer
    from agentkgv.eval.summary_bench import compare, summary_requests
    from agentkgv.llm.factory import build_llm

    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    examples = balanced_subset(load_split(ws.benchmark, split), 2 * count)
    requests = summary_requests(examples, ensure_retriever(ws, retriever, DEFAULT_EMBEDDING_MODEL),
                                paraphrase_table(load_predicates(ws.data)))
    settings = run_config(config)
    settings.llm.cache = False  # a cost measurement: every summary must really be generated
    rows = [compare(ExtractiveSummarizer(), requests), compare(LLMSummarizer(build_llm(settings.llm)), requests)]
    print_table(f"Summarizers on {len(requests)} first-turn results holding the gold evidence ({split})",
                ["Summarizer", "Requests", "Keeps object", "Mean chars", "s/summary", "Tokens/summary"],
                [[r.summarizer, str(r.requests), f"{r.keeps_object:.3f}", f"{r.mean_chars:.0f}",
                  f"{r.seconds_per_summary:.3f}", f"{r.tokens_per_summary:.0f}"] for r in rows])


@app.command("bench-throughput")
def bench_throughput_command(count: Annotated[int, typer.Option(help="Triples per measurement.")] = 16,
                             batch_sizes: Annotated[list[int], typer.Option("--batch-size")] = [1, 8],
                             method: str = "agentkgv", split: str = "test_long_tail", retriever: RetrieverOpt = "bm25",
                             config: RunConfigOpt = None, data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Triples per second, one triple at a time and batched, with the LLM cache off so every call is real."""
    from agentkgv.llm.factory import build_llm

    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    items = [e.as_labeled() for e in balanced_subset(load_split(ws.benchmark, split), count)]
    settings = run_config(config, method)
    settings.llm.cache = False
    verifier = make_verifier(settings, ws, retriever, DEFAULT_EMBEDDING_MODEL, build_llm(settings.llm))
    verifier.verify(items[:1])  # warm-up: first-call compilation and allocation are not throughput
    rows = []
    for size in batch_sizes:
        started = time.perf_counter()
        verdicts = [v for offset in range(0, len(items), size) for v in verifier.verify(items[offset:offset + size])]
        elapsed = time.perf_counter() - started
        n = len(verdicts)
        rows.append([str(size), str(n), f"{n / elapsed:.3f}", f"{elapsed / n:.2f}",
                     f"{sum(v.prompt_tokens for v in verdicts) / n:.0f}", f"{sum(v.completion_tokens for v in verdicts) / n:.0f}",
                     f"{sum(v.search_calls for v in verdicts) / n:.2f}"])
    print_table(f"{method} throughput ({split}, {settings.llm.backend}:{settings.llm.model})",
                ["Batch", "Triples", "Triples/s", "s/triple", "Prompt tok", "Compl. tok", "Searches"], rows)


@app.command()
def demo(data_dir: DataOpt = None, cache_dir: CacheOpt = None,
         limit: Annotated[int, typer.Option(help="Triples per split (a fixed balanced subset).")] = 20) -> None:
    """The main job on the embedded defaults: build what is missing, verify a sample, print the table.

    Runs the AgentKGV agent (the embedded SmolLM2 with the shipped trained adapter) on BM25, next to the
    lexical check it must beat.
    """
    from agentkgv.llm.embedded import TRAINED_ADAPTER

    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    show_benchmark_stats(ws)
    console.print(f"agentkgv runs SmolLM2-135M with the trained adapter '{TRAINED_ADAPTER}'")
    eval_command(methods=["lexical", "agentkgv"], splits=list(EVAL_SPLITS), limit=limit, retriever="bm25",
                 embedding_model=DEFAULT_EMBEDDING_MODEL, config=None, backend=None, model=None,
                 adapter=Path(TRAINED_ADAPTER),
                 summarizer=None, label=None, cache=True, batch_size=16, run_name="demo", data_dir=data_dir,
                 cache_dir=cache_dir)


TrainRunOpt = Annotated[str, typer.Option("--run-name", help="Training run folder under <cache>/train.")]


def _teacher_logs(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("teacher.s*.jsonl"))


@app.command()
def teacher(triples: Annotated[int, typer.Option(help="Training triples (positives and their negatives).")] = 480,
            policy: Annotated[str, typer.Option(help="'privileged' (knows the gold label, no LLM) or 'llm'.")] = "privileged",
            samples: Annotated[int, typer.Option(help="Trajectories per triple, each with its own seed (llm).")] = 1,
            gold_hint: Annotated[bool, typer.Option(help="Show the LLM teacher the gold label (rationalization).")] = True,
            min_searches: Annotated[int, typer.Option(help="Searches before the LLM teacher may answer.")] = 1,
            table_queries: Annotated[bool, typer.Option(help="LLM teacher picks queries from the combination table.")] = True,
            max_searches: Annotated[int, typer.Option(help="Searches after which the teacher must answer.")] = 3,
            temperature: float = 0.5, seed: int = 13,
            config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None,
            base_url: Annotated[Optional[str], typer.Option(help="OpenAI-compatible server URL.")] = None,
            retriever: RetrieverOpt = "bm25", batch_size: int = 16, run_name: TrainRunOpt = "sft",
            data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Stage-1 data: run a teacher through the agent loop over training triples; resumable."""
    from agentkgv.agent.agentkgv import AgentKGV
    from agentkgv.agent.factory import build_summarizer, paraphrase_table
    from agentkgv.eval.metrics import score
    from agentkgv.llm.factory import build_llm
    from agentkgv.train.privileged import PrivilegedTeacher, privileges
    from agentkgv.train.sft_data import is_correct
    from agentkgv.train.teacher import TeacherConfig, sample_items, teacher_agent_config, training_draw

    if policy not in ("privileged", "llm"):
        raise typer.BadParameter("--policy must be 'privileged' or 'llm'")
    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    settings = run_config(config, "agentkgv", backend, model, None, None, base_url)
    plan = TeacherConfig(triples=triples, samples=samples if policy == "llm" else 1, temperature=temperature,
                         seed=seed, gold_hint=gold_hint, min_searches=min_searches, table_queries=table_queries,
                         max_searches=max_searches)
    train = load_split(ws.benchmark, "train")
    examples = training_draw(train, plan.triples, plan.seed)
    run_dir = ws.training / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "teacher.json").write_text(json.dumps({"policy": policy, "teacher": plan.model_dump(),
                                                      "run": settings.model_dump(mode="json")}, indent=2))
    llm = build_llm(settings.llm) if policy == "llm" else None
    rows = []
    for sample in range(plan.samples):
        if policy == "privileged":
            agent = AgentKGV(None, ensure_retriever(ws, retriever, DEFAULT_EMBEDDING_MODEL),
                             build_summarizer(settings, None), paraphrase_table(load_predicates(ws.data)),
                             settings.agent, PrivilegedTeacher(privileges(train), plan.max_searches,
                                                               settings.agent.reasoning_chars, settings.agent.max_cited,
                                                               settings.agent.max_passage_words))
        else:
            sample_settings = settings.model_copy(update={"agent": teacher_agent_config(settings.agent, plan, sample)})
            agent = make_verifier(sample_settings, ws, retriever, DEFAULT_EMBEDDING_MODEL, llm)
        items = sample_items(examples, sample)
        with progress_bar(f"teacher sample {sample}", len(items)) as advance:
            verdicts = run_verifier(agent, items, run_dir / f"teacher.s{sample}.jsonl", batch_size, advance)
        scores = score([v.gold for v in verdicts], [v.verdict for v in verdicts])
        correct = sum(map(is_correct, verdicts))
        rows.append([str(sample), str(len(verdicts)), f"{correct / len(verdicts):.3f}", f"{scores.macro_f1:.3f}",
                     f"{sum(v.search_calls for v in verdicts) / len(verdicts):.2f}"])
    print_table(f"Teacher trajectories ({policy}) -> {run_dir}", ["Sample", "Triples", "Correct", "Macro-F1", "Searches"],
                rows)


@app.command("sft-data")
def sft_data_command(run_name: TrainRunOpt = "sft",
                     turns: Annotated[str, typer.Option(help="'last' (the paper's last-turn pairs) or 'all' turns.")] = "last",
                     data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Build the SFT pairs from the teacher's correct trajectories (the paper's last-turn pairs, or every turn)."""
    from agentkgv.eval.runner import load_run
    from agentkgv.train.sft_data import (TURNS_TAKEN, SFTDataStats, build_examples, check_train_only, forbidden_keys,
                                         write_dataset)

    if turns not in TURNS_TAKEN:
        raise typer.BadParameter(f"--turns must be one of {', '.join(TURNS_TAKEN)}")
    ws = Workspace(data_dir, cache_dir)
    run_dir = ws.training / run_name
    logs = _teacher_logs(run_dir)
    if not logs:
        raise DataError(run_dir, "no teacher trajectories (teacher.s*.jsonl); run `agentkgv teacher` first")
    verdicts = [v for log in logs for v in load_run(log).values()]
    tests = [e for split in EVAL_SPLITS for e in load_split(ws.benchmark, split)]
    check_train_only(verdicts, forbidden_keys(tests), set(BenchmarkConfig.load().regimes.unseen))
    # Runs written before the privileged teacher existed came from the LLM teacher.
    teacher_info = run_dir / "teacher.json"
    policy = json.loads(teacher_info.read_text()).get("policy", "llm") if teacher_info.exists() else "llm"
    stats = SFTDataStats()
    examples = build_examples(verdicts, stats, turns, hinted=policy == "llm")
    write_dataset(examples, run_dir / "sft.jsonl")
    print_table(f"SFT data -> {run_dir / 'sft.jsonl'}", ["Trajectories", "Correct", "Dropped (hint leak)",
                                                          "Routing", "Search", "Judgment", "Examples"],
                [[str(stats.trajectories), str(stats.correct), str(stats.leaked), str(stats.examples["routing"]),
                  str(stats.examples["search"]), str(stats.examples["judgment"]), str(len(examples))]])


@app.command()
def sft(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="SFT settings TOML (configs/sft_*.toml).")] = None,
        threads: Annotated[Optional[int], typer.Option(help="CPU threads for training.")] = None,
        run_name: TrainRunOpt = "sft", data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Stage-1 training: LoRA SFT with TRL on the pairs from `sft-data`; resumes from its last checkpoint."""
    from agentkgv.train.sft import SFTSettings, train_sft

    ws = Workspace(data_dir, cache_dir)
    run_dir = ws.training / run_name
    dataset = run_dir / "sft.jsonl"
    if not dataset.exists():
        raise DataError(dataset, "missing; run `agentkgv teacher` and `agentkgv sft-data` first")
    summary = train_sft(dataset, run_dir / "model", SFTSettings.load(settings_path), threads)
    print_table("SFT run", ["Examples", "Steps", "Minutes", "Peak GiB", "Final loss", "Adapter"],
                [[str(summary["examples"]), str(summary["steps"]), f"{summary['minutes_this_session']:.1f}",
                  f"{summary['peak_memory_gib']:.2f}", f"{summary['final_train_loss']:.3f}", summary["adapter"]]])


@app.command()
def grpo(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="GRPO settings TOML (configs/grpo_*.toml).")] = None,
         threads: Annotated[Optional[int], typer.Option(help="CPU threads for rollouts and training.")] = None,
         retriever: RetrieverOpt = "bm25", run_name: TrainRunOpt = "grpo",
         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Stage-2 training: trajectory-level GRPO from the SFT adapter, rewarding correct verdicts reached with
    fewer searches; resumes from its last checkpoint."""
    from agentkgv.agent.factory import paraphrase_table
    from agentkgv.train.grpo import GRPOSettings, train_grpo
    from agentkgv.train.teacher import training_draw

    ws = Workspace(data_dir, cache_dir)
    ensure_benchmark(ws)
    settings = GRPOSettings.load(settings_path)
    examples = training_draw(load_split(ws.benchmark, "train"), settings.steps * settings.triples_per_step, settings.seed)
    summary = train_grpo([e.as_labeled() for e in examples], ensure_retriever(ws, retriever, DEFAULT_EMBEDDING_MODEL),
                         paraphrase_table(load_predicates(ws.data)), ws.training / run_name, settings, threads)
    last = summary["last"]
    print_table(f"GRPO run -> {ws.training / run_name}",
                ["Steps", "Minutes", "Peak GiB", "Reward", "Accuracy", "Searches", "KL", "Adapter"],
                [[str(summary["steps"]), f"{summary['minutes_this_session']:.1f}", f"{summary['peak_memory_gib']:.2f}",
                  f"{last['reward']:.3f}", f"{last['accuracy']:.3f}", f"{last['searches']:.2f}", f"{last['kl']:.4f}",
                  summary["adapter"]]])
