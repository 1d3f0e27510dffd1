"""What a command needs, built from a run config and a workspace: the benchmark, corpus and indexes (built
on first use), the retriever, the model and the verifier, and the loops of each command put together.

The layer between the library and the command line: `cli.py` parses options into a `RunConfig` and prints
what these functions return; progress reaches it through `Hooks`, so tests and other callers run the same
code silently.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal

from agentkgv.agent.base import Verdict, Verifier, WithoutTrajectories
from agentkgv.agent.factory import build_verifier
from agentkgv.agent.reader import reader_fingerprint
from agentkgv.agent.run_config import RunConfig
from agentkgv.data.aliases import ALIAS_FILE, read_alias_table, with_aliases
from agentkgv.data.benchmark import (SPLITS, TEST_SPLIT_REGIME, BenchmarkConfig, SplitStats, build_benchmark,
                                     load_split, triple_key)
from agentkgv.data.corpus import CorpusConfig, build_corpus, load_corpus
from agentkgv.data.errors import DataError
from agentkgv.data.factbench import DOCS_SPLIT
from agentkgv.data.predicates import load_predicates, paraphrase_table
from agentkgv.data.documents import ChunkConfig
from agentkgv.data.records import Example, LabeledTriple, Triple
from agentkgv.data.text import label_key
from agentkgv.data.user_formats import read_triples, write_rejected
from agentkgv.eval.evaluate import Entrant, evaluate
from agentkgv.eval.poison import (VARIANTS, attack_table, build_poisoned_index, make_poisons, poison_digest,
                                  retrieved_share, run_attack)
from agentkgv.eval.ray_runner import RayOptions, RayVerifier, VerifierSpec
from agentkgv.eval.report import ResultRow, markdown_table, save_report
from agentkgv.eval.retrieval_bench import RecallRow, recall_at_k
from agentkgv.eval.runner import Bar, no_bar, run_verifier
from agentkgv.eval.subsets import balanced_subset
from agentkgv.eval.summary_bench import SummaryRow
from agentkgv.eval.throughput import ThroughputRow, measure_throughput
from agentkgv.llm.base import LLM
from agentkgv.llm.embedded import adapter_fingerprint, resolve_adapter
from agentkgv.llm.factory import build_llm
from agentkgv.memory import peak_memory_gib
from agentkgv.paths import Workspace
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import RetrieverConfig, bm25_dir, build_retriever, load_retriever
from agentkgv.retrieval.user_index import IndexReport, add_documents, open_index, set_trust
from agentkgv.retrieval.user_index import index_dir as document_index_dir
from agentkgv.train.sft_data import SFTDataStats, SFTExample, sft_data_from_run
from agentkgv.train.teacher import TeacherConfig, TeacherPolicy, TeacherSample, run_teacher

TEST_SPLITS = tuple(TEST_SPLIT_REGIME)
EVAL_SPLITS = (*TEST_SPLITS, DOCS_SPLIT)
# Triples per batch for eval, verify and the demo: where the shipped agent's throughput on two cores levels
# off (0.40 triples/s at 8, 0.60 at 32, no more at 64; BENCHMARKS.md, Session 10). It is also the most
# triples whose work a crash can lose, since each batch is written when it completes.
BATCH_SIZE = 32
Status = Callable[[str], AbstractContextManager[Callable[[str], None]]]
# A bar over bytes whose total is known only once the work has listed its files: fed (done, total).
ByteBar = Callable[[str], AbstractContextManager[Callable[[int, int], None]]]
OnError = Literal["fail", "skip"]


@contextmanager
def no_byte_bar(description: str) -> Iterator[Callable[[int, int], None]]:
    yield lambda done, total: None


@contextmanager
def no_status(description: str) -> Iterator[Callable[[str], None]]:
    yield lambda message: None


@dataclass
class Hooks:
    """How long work reports itself: a bar for counted loops, a status line for a build with steps, a note,
    and what a one-time build of the benchmark or corpus produced."""

    bar: Bar = no_bar
    byte_bar: ByteBar = no_byte_bar
    status: Status = no_status
    note: Callable[[str], None] = lambda message: None
    benchmark_built: Callable[[list[SplitStats]], None] = lambda stats: None
    corpus_built: Callable[[Counter], None] = lambda counts: None


SILENT = Hooks()


def build_benchmark_into(ws: Workspace, config: BenchmarkConfig, hooks: Hooks = SILENT) -> list[SplitStats]:
    with hooks.status("building the benchmark") as update:
        stats = build_benchmark(ws.data, ws.benchmark, config, progress=update)
    hooks.benchmark_built(stats)
    return stats


def ensure_benchmark(ws: Workspace, hooks: Hooks = SILENT) -> bool:
    """Build the benchmark if it is missing; whether it was built (and its statistics reported)."""
    if all((ws.benchmark / name).exists() for name in [*(f"{split}.jsonl" for split in SPLITS), ALIAS_FILE]):
        return False
    build_benchmark_into(ws, BenchmarkConfig.load(), hooks)
    return True


def ensure_corpus(ws: Workspace, hooks: Hooks = SILENT) -> None:
    if ws.corpus.exists():
        return
    with hooks.bar("building the corpus", None) as advance:
        last = [0]

        def on_progress(count: int) -> None:  # build_corpus reports a running total, the bar wants steps
            advance(count - last[0])
            last[0] = count

        counts = build_corpus(ws.data, ws.corpus, CorpusConfig(), progress=on_progress)
    hooks.corpus_built(counts)


def rebuild_corpus(ws: Workspace, hooks: Hooks = SILENT) -> None:
    ws.corpus.unlink(missing_ok=True)
    ensure_corpus(ws, hooks)


def paraphrases(ws: Workspace) -> dict[str, list[str]]:
    return paraphrase_table(load_predicates(ws.data))


@dataclass
class IndexBuild:
    retriever: Retriever
    passages: int
    seconds: float  # building only, not reading the corpus
    peak_memory_gib: float


def index_root(ws: Workspace, config: RetrieverConfig) -> Path:
    """The folder `config`'s index lies in: a user's document index by name, else the benchmark corpus's."""
    return document_index_dir(ws, config.index) if config.index is not None else ws.indexes


def build_index(ws: Workspace, config: RetrieverConfig, hooks: Hooks = SILENT) -> IndexBuild:
    """`config`'s index built over the benchmark corpus, replacing any."""
    if config.index is not None:
        raise DataError(index_root(ws, config), "a named document index is built by `agentkgv index`, "
                        "not from the benchmark corpus")
    ensure_corpus(ws, hooks)
    passages = load_corpus(ws.corpus)
    start = time.perf_counter()
    retriever = build_retriever(config, ws.indexes, passages)
    return IndexBuild(retriever, len(passages), time.perf_counter() - start, peak_memory_gib())


def retriever_for(ws: Workspace, config: RetrieverConfig, hooks: Hooks = SILENT) -> Retriever:
    """The index `config` names, built over the benchmark corpus the first time it is asked for; a user's
    document index is opened as built (its fingerprint checked), never built here."""
    if config.index is not None:
        return open_index(ws, config.index).retriever
    try:
        return load_retriever(config, ws.indexes)
    except DataError:
        hooks.note(f"building the {config.kind} index (one time)")
        return build_index(ws, config, hooks).retriever


def load_llm(run: RunConfig) -> LLM | None:
    """The run's model; none for the lexical check and the reader's agent, which need none."""
    return build_llm(run.llm) if run.needs_llm else None


def shared_llms(configs: list[RunConfig]) -> list[LLM | None]:
    """Each run's model, every distinct model loaded once and shared by the runs that name it."""
    keys = [config.llm.model_dump_json() if config.needs_llm else "" for config in configs]
    loaded: dict[str, LLM | None] = {}
    for key, config in zip(keys, configs):
        if key not in loaded:
            loaded[key] = load_llm(config)
    return [loaded[key] for key in keys]


def method_verifiers(ws: Workspace, configs: list[RunConfig], llms: list[LLM | None],
                     hooks: Hooks = SILENT) -> list[Verifier]:
    """Each config's verifier with its model. The configs of one eval differ in method and model only
    (`method_runs`), so they share one index and one paraphrase table, each loaded once."""
    retriever, table = retriever_for(ws, configs[0].retriever, hooks), paraphrases(ws)
    return [build_verifier(config, retriever, table, llm) for config, llm in zip(configs, llms)]


def split_examples(ws: Workspace, split: str, limit: int | None = None) -> list[Example]:
    examples = load_split(ws.benchmark, split)
    return balanced_subset(examples, limit) if limit else examples


@dataclass
class EvalResult:
    rows: list[ResultRow]
    report: Path


def method_runs(run: RunConfig, methods: list[str], trained: bool) -> list[RunConfig]:
    """Each method's run config. With `trained`, the agent gets the shipped adapter (as `verify` runs it) and
    the baselines keep the bare backbone, as in the paper's table."""
    configs = [run.with_options(method=method) for method in methods]
    return [config.with_trained_adapter() for config in configs] if trained else configs


def run_eval(ws: Workspace, run: RunConfig, methods: list[str], splits: list[str], limit: int | None = None,
             label: str | None = None, batch_size: int = BATCH_SIZE, run_name: str = "eval", trained: bool = True,
             hooks: Hooks = SILENT) -> EvalResult:
    """Every method of `methods` (see `method_runs`) on every split; resumable. Each distinct model is loaded
    once and shared by the methods that run it."""
    ensure_benchmark(ws, hooks)
    out_dir = ws.runs / run_name
    configs = method_runs(run, methods, trained)
    llms = shared_llms(configs)
    entrants = []
    for method, config, llm, verifier in zip(methods, configs, llms, method_verifiers(ws, configs, llms, hooks)):
        name = label if label and len(methods) == 1 else method
        entrants.append(Entrant(name, verifier, config.identity(llm.name if llm is not None else None)))
    rows, breakdown = evaluate(entrants, {split: split_examples(ws, split, limit) for split in splits}, out_dir,
                               batch_size, hooks.bar)
    name = label or "-".join(methods)
    markdown, _ = save_report(rows, out_dir, f"results-{name}")
    save_report(breakdown, out_dir, f"per_predicate-{name}")
    return EvalResult(rows, markdown)


def demo_run_name(run: RunConfig) -> str:
    """The demo's run folder: a demo resumes, but one whose settings or shipped weights changed (an upgrade)
    gets its own folder rather than a refusal to resume."""
    if run.uses_reader:
        weights = reader_fingerprint(run.reading.reader)
    else:
        weights = adapter_fingerprint(resolve_adapter(run.llm.adapter)) if run.llm.adapter else ""
    return "demo-" + hashlib.sha256((run.model_dump_json() + weights).encode()).hexdigest()[:8]


@dataclass
class DemoResult:
    table: EvalResult
    # Where the default verifier and the string match disagree: (the agent's verdict, the lexical one).
    differences: list[tuple[Verdict, Verdict]]
    report: Path  # the HTML report of the agent's verdicts
    review: Path


def run_demo(ws: Workspace, limit: int, hooks: Hooks = SILENT) -> DemoResult:
    """The default AgentKGV agent (the shipped evidence reader judging), next to the lexical check it must
    beat, on a fixed balanced sample of every evaluation split; where they differ; and the agent's report."""
    from agentkgv.data.jsonl import write_jsonl
    from agentkgv.eval.html_report import write_report
    from agentkgv.eval.runner import load_run

    run = RunConfig().with_trained_adapter()
    name = demo_run_name(run)
    table = run_eval(ws, run, ["lexical", "agentkgv"], list(EVAL_SPLITS), limit, batch_size=BATCH_SIZE,
                     run_name=name, hooks=hooks)
    folder = ws.runs / name
    agent = {i: v for split in EVAL_SPLITS for i, v in load_run(folder / f"agentkgv.{split}.jsonl").items()}
    lexical = {i: v for split in EVAL_SPLITS for i, v in load_run(folder / f"lexical.{split}.jsonl").items()}
    differences = [(v, lexical[i]) for i, v in agent.items() if i in lexical and v.verdict != lexical[i].verdict]
    verdicts = folder / "agentkgv.all.jsonl"
    write_jsonl(verdicts, (v.to_json() for v in agent.values()))
    report, review = folder / "report.html", folder / "report.review.csv"
    write_report(verdicts, report, review, 0.7)
    return DemoResult(table, differences, report, review)


@dataclass
class OpenVerifier:
    verifier: Verifier
    llm_name: str | None  # the loaded model's name, which a run log pins (a resume cannot switch adapters)
    parallel: int  # batches the verifier runs at once: one per Ray actor


@contextmanager
def open_verifier(ws: Workspace, run: RunConfig, ray: RayOptions | None = None, hooks: Hooks = SILENT,
                  retriever: Retriever | None = None) -> Iterator[OpenVerifier]:
    """The run's verifier, in this process or, with `ray`, on a pool of Ray actors (eval/ray_runner.py).
    `retriever`: the run's index already opened by the caller, so it is not loaded twice."""
    if ray is None:
        llm = load_llm(run)
        retriever = retriever or retriever_for(ws, run.retriever, hooks)
        yield OpenVerifier(build_verifier(run, retriever, paraphrases(ws), llm), llm.name if llm else None, 1)
        return
    if retriever is None:
        retriever_for(ws, run.retriever, hooks)  # builds a missing index once here, not in every actor
    spec = VerifierSpec(run=run, index_root=index_root(ws, run.retriever), paraphrases=paraphrases(ws))
    with RayVerifier(spec, ray) as verifier:
        yield OpenVerifier(verifier, verifier.llm_name, ray.workers)


def check_triple(ws: Workspace, run: RunConfig, triple: Triple, hooks: Hooks = SILENT) -> Verdict:
    """One triple's verdict with its trajectory, nothing written."""
    run, retriever, _ = with_index(ws, run)
    with open_verifier(ws, run, None, hooks, retriever) as opened:
        return opened.verifier.verify([LabeledTriple("check", triple)])[0]


def with_index(ws: Workspace, run: RunConfig) -> tuple[RunConfig, Retriever | None, dict]:
    """The run over the document index it names, if any: the index decides the retriever's kind and the
    sources distrusted; returns the run, the index's retriever and what to pin of it (its contents, so a
    resume against an index whose passages changed since is refused)."""
    if run.retriever.index is None:
        return run, None, {}
    index = open_index(ws, run.retriever.index)
    run = run.with_options(retriever=index.manifest.kind, embedding_model=index.manifest.embedding_model,
                           distrust=tuple(index.manifest.distrusted) or None)
    return run, index.retriever, {"index": index.identity()}


def read_user_file(triples: Path, output: Path, on_error: OnError = "fail", hooks: Hooks = SILENT) -> list[LabeledTriple]:
    """A user's file of triples. With `on_error="skip"` the bad rows are written with their reasons to
    `<output>.rejected.jsonl` and the good ones returned."""
    rejected: list | None = [] if on_error == "skip" else None
    items = list(read_triples(triples, rejected=rejected))
    if rejected:
        written = write_rejected(output, rejected)
        hooks.note(f"{len(rejected)} bad rows skipped (first: {rejected[0]}); all in {written}")
    return items


def verify_triples(ws: Workspace, run: RunConfig, items: list[LabeledTriple], name: str, output: Path,
                   batch_size: int = BATCH_SIZE, trajectories: bool = False, ray: RayOptions | None = None,
                   hooks: Hooks = SILENT, aliases: Path | None = None) -> list[Verdict]:
    """Verdicts for a user's triples (from a file or a graph; `name` says which), appended to `output` (a
    rerun resumes). `aliases` is an alias table file (agentkgv.data.aliases) whose names the triples'
    entities get too."""
    run, retriever, pinned = with_index(ws, run)
    if aliases is not None:
        table = read_alias_table(aliases)
        items = [replace(item, triple=with_aliases(item.triple, table)) for item in items]
        # Other names change what counts as a mention, so a resume with another table is refused.
        pinned["aliases"] = hashlib.sha256(aliases.read_bytes()).hexdigest()[:16]
    # Loaded here, as in eval, so the output's pinned settings carry the model's name with its adapter's hash.
    with open_verifier(ws, run, ray, hooks, retriever) as opened:
        verifier = opened.verifier if trajectories else WithoutTrajectories(opened.verifier)
        with hooks.bar(f"verifying {name}", len(items)) as advance:
            verdicts = run_verifier(verifier, items, output, batch_size * opened.parallel, advance,
                                    run.identity(opened.llm_name) | pinned)
    if len(verdicts) < len(items):
        hooks.note(f"{len(items) - len(verdicts)} triples failed (the model server gave no answer); "
                   "a rerun of the same command retries them")
    return verdicts


def index_documents(ws: Workspace, name: str, documents: list[Path], kind: str | None = None,
                    embedding_model: str | None = None, chunking: ChunkConfig | None = None,
                    hooks: Hooks = SILENT, trust: list[Path] = (), distrust: list[Path] = ()) -> IndexReport:
    """Create the named document index, or add documents to it (only new or changed files are read); then
    distrust or trust again the sources named."""
    folder = document_index_dir(ws, name)
    report = None
    if documents:
        with hooks.byte_bar("reading documents") as progress:
            report = add_documents(folder, documents, kind, embedding_model, chunking, progress)
    if trust or distrust:
        manifest = set_trust(folder, list(trust), list(distrust))
        report = report or IndexReport(folder, manifest)
        report.manifest = manifest
    if report is None:
        raise DataError(folder, "nothing to do: name documents to index, or sources to --trust or --distrust")
    return report


def bench_retrieval(ws: Workspace, kinds: list[str], embedding_model: str | None = None, k: int = 5,
                    hooks: Hooks = SILENT) -> list[RecallRow]:
    ensure_benchmark(ws, hooks)
    table = paraphrases(ws)
    rows = []
    for kind in kinds:
        config = RunConfig().with_options(retriever=kind, embedding_model=embedding_model).retriever
        retriever = retriever_for(ws, config, hooks)
        for split in TEST_SPLITS:
            rows += recall_at_k(retriever, kind, split, load_split(ws.benchmark, split), table, k)
    return rows


def bench_summarizer(ws: Workspace, run: RunConfig, split: str, count: int,
                     hooks: Hooks = SILENT) -> tuple[int, list[SummaryRow]]:
    """(requests, one row per summarizer): both summarizers on the same first-turn retrieval results."""
    from agentkgv.agent.summarizer import ExtractiveSummarizer, LLMSummarizer
    from agentkgv.eval.summary_bench import compare, summary_requests

    ensure_benchmark(ws, hooks)
    requests = summary_requests(split_examples(ws, split, 2 * count), retriever_for(ws, run.retriever, hooks),
                                paraphrases(ws))
    # A cost measurement: every summary must really be generated.
    llm = build_llm(run.llm.model_copy(update={"cache": False}))
    return len(requests), [compare(ExtractiveSummarizer(), requests), compare(LLMSummarizer(llm), requests)]


def bench_throughput(ws: Workspace, run: RunConfig, split: str, count: int, batch_sizes: list[int],
                     ray: RayOptions | None = None, hooks: Hooks = SILENT) -> list[ThroughputRow]:
    """With the LLM cache off, so every call is real; with `ray`, each batch size is per actor."""
    ensure_benchmark(ws, hooks)
    items = [e.as_labeled() for e in split_examples(ws, split, count)]
    with open_verifier(ws, run.with_options(cache=False), ray, hooks) as opened:
        return measure_throughput(opened.verifier, items, batch_sizes, opened.parallel)


def teacher(ws: Workspace, run: RunConfig, plan: TeacherConfig, policy: TeacherPolicy, run_name: str,
            batch_size: int = 16, hooks: Hooks = SILENT) -> list[TeacherSample]:
    """Stage-1 trajectories of the run's agent, acted by the teacher, under <cache>/train/<run_name>."""
    ensure_benchmark(ws, hooks)
    llm = build_llm(run.llm) if policy == "llm" else None
    return run_teacher(run, plan, policy, load_split(ws.benchmark, "train"), retriever_for(ws, run.retriever, hooks),
                       paraphrases(ws), llm, ws.training / run_name, batch_size, hooks.bar)


def sft_data(ws: Workspace, run_name: str, turns: str) -> tuple[list[SFTExample], SFTDataStats]:
    """(pairs, stats) of a teacher run, written beside it; test triples and unseen predicates are refused."""
    tests = [e for split in EVAL_SPLITS for e in load_split(ws.benchmark, split)]
    return sft_data_from_run(ws.training / run_name, tests, set(BenchmarkConfig.load().regimes.unseen), turns)


def sft(ws: Workspace, run_name: str, settings_path: Path | None, threads: int | None = None) -> dict:
    from agentkgv.train.sft import SFTSettings, train_sft
    from agentkgv.train.sft_data import SFT_FILE

    run_dir = ws.training / run_name
    dataset = run_dir / SFT_FILE
    if not dataset.exists():
        raise DataError(dataset, "missing; run `agentkgv teacher` and `agentkgv sft-data` first")
    return train_sft(dataset, run_dir / "model", SFTSettings.load(settings_path), threads)


def grpo(ws: Workspace, run_name: str, settings_path: Path | None, retriever: str | None = None,
         threads: int | None = None, hooks: Hooks = SILENT) -> dict:
    """Stage 2 on training triples drawn as the teacher draws them, rollouts built from the settings' run."""
    from agentkgv.train.grpo import GRPOSettings, train_grpo
    from agentkgv.train.teacher import training_draw

    ensure_benchmark(ws, hooks)
    settings = GRPOSettings.load(settings_path)
    settings = settings.model_copy(update={"run": settings.run.with_options(retriever=retriever)})
    examples = training_draw(load_split(ws.benchmark, "train"), settings.steps * settings.triples_per_step,
                             settings.seed)
    return train_grpo([e.as_labeled() for e in examples], retriever_for(ws, settings.run.retriever, hooks),
                      paraphrases(ws), ws.training / run_name, settings, threads)


def bench_poison(ws: Workspace, run: RunConfig, methods: list[str], splits: list[str], limit: int,
                 variants: list[str], index_name: str, batch_size: int = 8, run_name: str = "poison",
                 hooks: Hooks = SILENT) -> tuple[list[str], list[list[str]]]:
    """Flip rate and macro-F1 of each method when adversarial passages are added to a copy of the BM25 index
    (eval/poison.py); the table's (headers, rows), also written as Markdown beside the run logs."""
    unknown = (set(variants) - set(VARIANTS)) | (set(splits) - set(TEST_SPLITS))
    if unknown:
        raise DataError("command line", f"variants are among {', '.join(VARIANTS)} and splits among "
                                        f"{', '.join(TEST_SPLITS)}, not {', '.join(sorted(unknown))}")
    ensure_benchmark(ws, hooks)
    # Both test splits are poisoned whichever run, so one poisoned index serves every split choice.
    examples = {split: split_examples(ws, split, limit) for split in TEST_SPLITS}
    predicates = load_predicates(ws.data)
    poisons = make_poisons([e for split in TEST_SPLITS for e in examples[split]], predicates)
    clean = retriever_for(ws, RetrieverConfig(), hooks)
    with hooks.status(f"indexing the corpus with {len(poisons)} poison passages -> {ws.indexes / index_name}"):
        retrievers = {False: clean, True: build_poisoned_index(bm25_dir(ws.indexes), poisons, ws.indexes / index_name)}
    every = [e for split in splits for e in examples[split]]
    hooks.note(f"poison in the top 5 for the triple's own words: {retrieved_share(retrievers[True], every, poisons, 5):.1%}")
    table, rows = paraphrase_table(predicates), []
    configs = method_runs(run, methods, trained=True)
    for method, config, llm in zip(methods, configs, shared_llms(configs)):

        def make(retriever: Retriever, guard: bool, config: RunConfig = config,
                 llm: LLM | None = llm) -> tuple[Verifier, dict]:
            chosen = config.model_copy(update={"evidence_guard": guard})
            return build_verifier(chosen, retriever, table, llm), chosen.identity(llm.name if llm else None)

        items = {split: [e.as_labeled() for e in examples[split]] for split in splits}
        with hooks.bar(f"{method} under poisoned evidence", sum(map(len, items.values())) * (1 + len(variants))) as advance:
            rows += run_attack(method, make, retrievers, items, {p.example_id: p.kind for p in poisons},
                               ws.runs / run_name, variants, poison_digest(poisons), batch_size, advance)
    headers, cells = attack_table(rows)
    (ws.runs / run_name / f"poison-{'-'.join(methods)}.md").write_text(markdown_table(headers, cells))
    return headers, cells


def reader_pairs(ws: Workspace, run_dir: Path, settings, hooks: Hooks = SILENT) -> list:
    """The reader's training pairs (the training split less its held-out subjects, then Re-DocRED and FewRel),
    built once into `run_dir` and rebuilt when the settings that shape them change."""
    import random

    from agentkgv.data.jsonl import read_jsonl, write_jsonl
    from agentkgv.train.reader_corpora import fewrel_pairs, redocred_pairs
    from agentkgv.train.reader_data import (INVERSES, ReaderPair, build_reader_pairs, check_reader_pairs, held_out,
                                           held_out_name)

    path, pinned = run_dir / "pairs.jsonl", run_dir / "pairs.settings.json"
    shape = settings.pair_settings()
    if path.exists() and pinned.exists() and json.loads(pinned.read_text()) == shape:
        pairs = [ReaderPair.from_json(record) for _, record in read_jsonl(path)]
        check_reader_pairs(pairs, *reader_forbidden(ws))  # the benchmark may have been rebuilt since
        return pairs
    ensure_benchmark(ws, hooks)
    retriever = retriever_for(ws, RetrieverConfig(), hooks)
    forbidden = reader_forbidden(ws)
    # The training split shares a few facts with FactBench (Nasser died in Cairo): they are left out.
    train = [e for e in load_split(ws.benchmark, "train") if not held_out(e, settings.held_out_share)
             and (label_key(e.triple.subject), label_key(e.triple.object)) not in forbidden[1]]
    with hooks.bar("building reader pairs", len(train)) as advance:
        pairs = build_reader_pairs(train, retriever, retriever.store.get, settings.seed, settings.split_swap_share,
                                   progress=advance)
    # The corpora must not undo the benchmark's regimes: no unseen relation (nor its inverse), and no
    # long-tail one, which training sees only `long_tail_train_cap` times.
    regimes = BenchmarkConfig.load().regimes
    excluded = {p for r in (*regimes.unseen, *regimes.long_tail) for p in (r, INVERSES.get(r)) if p}
    labels = {pid: info.label for pid, info in load_predicates(ws.data).items()}
    rng = random.Random(settings.seed)
    corpora = (redocred_pairs(ws.data, labels, excluded, rng, settings.redocred_per_relation, settings.corpus_swap_share)
               + fewrel_pairs(ws.data, labels, excluded, rng, settings.fewrel_per_relation, settings.corpus_swap_share))
    # The corpora name FactBench's and the test splits' entities too: a pair about an entity pair of either
    # (by any of its names, in either order) is dropped, as is one about a held-out subject.
    tests = {(label_key(e.triple.subject), label_key(e.triple.object)) for split in EVAL_SPLITS
             for e in load_split(ws.benchmark, split)}
    taken = forbidden[1] | tests

    def clean(pair) -> bool:
        t = pair.triple
        names = [(label_key(a), label_key(b)) for a in t.subject_names for b in t.object_names]
        return (not any(n in taken or n[::-1] in taken for n in names)
                and not any(held_out_name(a, settings.held_out_share) for a in t.subject_names))

    pairs += [p for p in corpora if clean(p)]
    rng.shuffle(pairs)
    check_reader_pairs(pairs, *forbidden)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(path, (p.to_json() for p in pairs))
    pinned.write_text(json.dumps(shape))
    return pairs


def reader_forbidden(ws: Workspace) -> tuple[set, set, set[str]]:
    """What the reader may never train on: the test splits' triples, every FactBench fact's (subject,
    object) pair, and the test_unseen relations."""
    from agentkgv.data.factbench import iter_factbench

    tests = [e for split in EVAL_SPLITS for e in load_split(ws.benchmark, split)]
    facts = {(label_key(t.triple.subject), label_key(t.triple.object)) for t in iter_factbench(ws.data)}
    return ({triple_key(e.triple) for e in tests}, facts, set(BenchmarkConfig.load().regimes.unseen))


def train_reader(ws: Workspace, run_name: str, settings_path: Path | None, threads: int | None = None,
                 hooks: Hooks = SILENT) -> dict:
    """Build the pairs (once), then train the reader under <cache>/train/<run_name>; resumes its checkpoints."""
    from agentkgv.train.reader import ReaderSettings
    from agentkgv.train.reader import train_reader as train

    settings = ReaderSettings.load(settings_path)
    run_dir = ws.training / run_name
    pairs = reader_pairs(ws, run_dir, settings, hooks)
    record = train(pairs, run_dir, settings, threads)
    calibration = calibrate_reader(ws, run_dir / "reader", settings.held_out_share, settings.calibration_triples, hooks)
    return record | {"calibration": calibration.model_dump()}


def calibrate_reader(ws: Workspace, folder: Path, held_out_share: float, count: int, hooks: Hooks = SILENT):
    """Read the held-out training triples (a fixed balanced draw of `count`) to the full search budget with
    the reader in `folder`, fit its calibration and write it beside the reader."""
    from agentkgv.agent.calibration import Evidence
    from agentkgv.agent.reader import CrossEncoderReader
    from agentkgv.agent.reading import ReadingAgent, ReadingConfig
    from agentkgv.data.jsonl import write_jsonl
    from agentkgv.train.calibrate import fit_calibration
    from agentkgv.train.reader_data import held_out

    factbench = reader_forbidden(ws)[1]
    examples = balanced_subset([e for e in load_split(ws.benchmark, "train") if held_out(e, held_out_share)
                                and (label_key(e.triple.subject), label_key(e.triple.object)) not in factbench], count)
    agent = ReadingAgent(retriever_for(ws, RetrieverConfig(), hooks), CrossEncoderReader(folder), None, paraphrases(ws),
                         ReadingConfig())
    evidence: list[Evidence] = []
    with hooks.bar("reading held-out training triples", len(examples)) as advance:
        for start in range(0, len(examples), 64):
            chunk = [e.as_labeled() for e in examples[start:start + 64]]
            evidence += [r.evidence for r in agent.run(chunk)]
            advance(len(chunk))
    write_jsonl(folder.parent / "held_out_evidence.jsonl",
                ({"id": e.id, "label": e.label, **asdict(v)} for e, v in zip(examples, evidence)))
    calibration = fit_calibration(evidence, [e.label for e in examples])
    calibration.save(folder)
    return calibration


def train_search_policy(ws: Workspace, run_name: str, settings_path: Path | None, reader: Path | None = None,
                        hooks: Hooks = SILENT) -> dict:
    """Read held-out training triples to the full budget once (the episodes, cached), then train the
    reading agent's stop policy under <cache>/train/<run_name>; resumes from its last checkpoint."""
    from agentkgv.agent.calibration import Evidence
    from agentkgv.agent.calibration import Calibration
    from agentkgv.agent.reader import CrossEncoderReader, ReaderCard, reader_folder
    from agentkgv.agent.reading import ReadingAgent, ReadingConfig
    from agentkgv.data.jsonl import read_jsonl, write_jsonl
    from agentkgv.train.reader import ReaderSettings
    from agentkgv.train.reader_data import held_out
    from agentkgv.train.search_policy import Episode, SearchPolicySettings
    from agentkgv.train.search_policy import train_search_policy as train

    settings = SearchPolicySettings.load(settings_path)
    run_dir, folder = ws.training / run_name, reader_folder(reader)
    calibration, config = Calibration.read(folder), ReadingConfig(reader=folder)
    path = run_dir / "episodes.jsonl"
    pinned = {"reader": reader_fingerprint(folder), "triples": settings.triples, "max_searches": config.max_searches}
    if not (path.exists() and (run_dir / "episodes.settings.json").exists()
            and json.loads((run_dir / "episodes.settings.json").read_text()) == pinned):
        ensure_benchmark(ws, hooks)
        factbench = reader_forbidden(ws)[1]
        # The reader's held-out subjects: never in its training pairs (the calibration was fitted on them too).
        # The share the reader was trained with (its card records its settings), else the default.
        share = ReaderCard.read(folder).training.get("settings", {}).get("held_out_share", ReaderSettings().held_out_share)
        examples = balanced_subset([e for e in load_split(ws.benchmark, "train") if held_out(e, share)
                                    and (label_key(e.triple.subject), label_key(e.triple.object)) not in factbench],
                                   settings.triples)
        agent = ReadingAgent(retriever_for(ws, RetrieverConfig(), hooks), CrossEncoderReader(folder), None,
                             paraphrases(ws), config)
        episodes = []
        with hooks.bar("reading held-out training triples to the full budget", len(examples)) as advance:
            for start in range(0, len(examples), 64):
                chunk = examples[start:start + 64]
                episodes += [Episode(tuple(r.history), bool(e.label), config.max_searches)
                             for e, r in zip(chunk, agent.run([e.as_labeled() for e in chunk]))]
                advance(len(chunk))
        run_dir.mkdir(parents=True, exist_ok=True)
        write_jsonl(path, ({"history": [asdict(h) for h in e.history], "gold": e.gold, "budget": e.budget}
                           for e in episodes))
        (run_dir / "episodes.settings.json").write_text(json.dumps(pinned))
    episodes = [Episode(tuple(Evidence(**h) for h in r["history"]), r["gold"], r["budget"]) for _, r in read_jsonl(path)]
    return train(episodes, calibration, run_dir, settings, pinned["reader"])


@dataclass
class ConfidenceReport:
    rows: list
    kinds: list
    plot: Path


def bench_confidence(ws: Workspace, run_names: list[str], review_below: float) -> ConfidenceReport:
    """Calibration, review share and FactBench per-kind accuracy of every entrant logged in these eval runs."""
    from agentkgv.eval.confidence import confidence_row, kind_rows, plot_reliability
    from agentkgv.eval.runner import load_run

    rows, kinds, curves = [], [], {}
    for run_name in run_names:
        logs = sorted((ws.runs / run_name).glob("*.jsonl"))
        if not logs:
            raise DataError(ws.runs / run_name, "no eval run logs here: run `agentkgv eval --run-name` first")
        for log in logs:
            method, _, split = log.stem.rpartition(".")
            if split not in EVAL_SPLITS:
                continue
            # Two runs of one method (two readers) stay apart in the tables and the diagram.
            entrant = method if len(run_names) == 1 else f"{method} ({run_name})"
            verdicts = list(load_run(log).values())
            rows.append(confidence_row(entrant, split, verdicts, review_below))
            curves[f"{entrant} · {split}"] = verdicts
            if split == DOCS_SPLIT:
                kinds += kind_rows(entrant, verdicts)
    plot = ws.runs / run_names[0] / "reliability.png"
    plot_reliability(curves, plot)
    return ConfidenceReport(rows, kinds, plot)
