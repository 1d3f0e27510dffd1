"""What a command needs, built from a run config and a workspace: the benchmark, corpus and indexes (built
on first use), the retriever, the model and the verifier; and the loops of the verification commands (eval,
demo, verify, check, index). The benchmark commands' loops are in `benchmarks.py`, the training commands' in
`training.py`, the graph and review commands' in `graphs.py` and `learning.py`.

The layer between the library and the command line: `cli.py` parses options into a `RunConfig` and prints
what these functions return; progress reaches it through `Hooks`, so tests and other callers run the same
code silently. It is longer than 300 lines because every verification command's loop sits here, each a
few lines over the same builders, which read best together.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from agentkgv.agent.base import Verdict, Verifier, WithoutTrajectories
from agentkgv.agent.factory import build_verifier
from agentkgv.agent.relation_facts import RelationFacts
from agentkgv.agent.run_config import RunConfig
from agentkgv.data.aliases import ALIAS_FILE, read_alias_table, with_aliases
from agentkgv.data.benchmark import (SPLITS, TEST_SPLIT_REGIME, BenchmarkConfig, SplitStats, build_benchmark,
                                     load_split)
from agentkgv.data.corpus import CorpusConfig, build_corpus, load_corpus
from agentkgv.data.errors import DataError
from agentkgv.data.factbench import DOCS_SPLIT
from agentkgv.data.predicates import load_predicates, paraphrase_table
from agentkgv.data.documents import ChunkConfig
from agentkgv.data.records import Example, LabeledTriple, Triple
from agentkgv.data.user_formats import read_triples, write_rejected
from agentkgv.eval.evaluate import Entrant, evaluate, log_path, log_stem
from agentkgv.eval.ray_runner import RayOptions, RayVerifier, VerifierSpec
from agentkgv.eval.report import ResultRow, save_report
from agentkgv.eval.runner import ANOTHER_OUTPUT, Bar, check_settings, no_bar, run_verifier
from agentkgv.eval.subsets import balanced_subset
from agentkgv.llm.base import LLM
from agentkgv.llm.embedded import adapter_fingerprint, resolve_adapter
from agentkgv.llm.factory import build_llm
from agentkgv.memory import peak_memory_gib
from agentkgv.paths import Workspace
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import RetrieverConfig, build_retriever, load_retriever
from agentkgv.retrieval.user_index import (IndexReport, Manifest, OpenIndex, live_generation, load_manifest,
                                            open_index, update_index)
from agentkgv.retrieval.user_index import index_dir as document_index_dir

TEST_SPLITS = tuple(TEST_SPLIT_REGIME)
EVAL_SPLITS = (*TEST_SPLITS, DOCS_SPLIT)
# Triples per batch for eval, verify and the demo: where the shipped agent's throughput on two cores levels
# off (0.40 triples/s at 8, 0.60 at 32, no more at 64; BENCHMARKS.md, *Throughput of AgentKGV*). It is also the most
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


def relation_facts(ws: Workspace, run: RunConfig) -> RelationFacts | None:
    """The relations another value contradicts, with their values' names from the facts files: the reader
    agent's; None for the other methods."""
    return RelationFacts.load(ws.data, run.reading.one_valued) if run.uses_reader else None


@dataclass
class IndexBuild:
    retriever: Retriever
    passages: int
    seconds: float  # building only, not reading the corpus
    peak_memory_gib: float


def index_root(ws: Workspace, config: RetrieverConfig) -> Path:
    """The folder `config`'s index lies in: a user's document index's live generation, else the benchmark
    corpus's."""
    if config.index is None:
        return ws.indexes
    folder = document_index_dir(ws, config.index)
    generation = live_generation(folder)
    if generation is None:
        raise DataError(folder, f"no index named {config.index!r} here; build it with `agentkgv index DOCS... "
                                f"--name {config.index}`")
    return generation


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


def with_llm_cache(ws: Workspace, run: RunConfig) -> RunConfig:
    """The run with its LLM answer cache in the workspace's cache folder, unless the run names its own file."""
    if run.llm.cache_path is not None:
        return run
    return run.model_copy(update={"llm": run.llm.model_copy(update={"cache_path": ws.llm_cache.resolve()})})


def load_llm(ws: Workspace, run: RunConfig) -> LLM | None:
    """The run's model; none for the lexical check and the reader's agent, which need none."""
    return build_llm(with_llm_cache(ws, run).llm) if run.needs_llm else None


def shared_llms(ws: Workspace, configs: list[RunConfig]) -> list[LLM | None]:
    """Each run's model, every distinct model loaded once and shared by the runs that name it."""
    keys = [config.llm.model_dump_json() if config.needs_llm else "" for config in configs]
    loaded: dict[str, LLM | None] = {}
    for key, config in zip(keys, configs):
        if key not in loaded:
            loaded[key] = load_llm(ws, config)
    return [loaded[key] for key in keys]


def method_verifiers(ws: Workspace, configs: list[RunConfig], llms: list[LLM | None],
                     hooks: Hooks = SILENT, retriever: Retriever | None = None) -> list[Verifier]:
    """Each config's verifier with its model. The configs of one eval differ in method and model only
    (`method_runs`), so they share one index and one paraphrase table, each loaded once; `retriever`: the
    document index the caller opened."""
    retriever, table = retriever or retriever_for(ws, configs[0].retriever, hooks), paraphrases(ws)
    return [build_verifier(config, retriever, table, llm, relations=relation_facts(ws, config))
            for config, llm in zip(configs, llms)]


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
    if run.llm.adapter is not None and not any(config.needs_llm for config in configs):
        # An adapter no method loads would be ignored, and the table labelled as if it had been run.
        raise DataError("command line", "an adapter (--adapter, or [llm] adapter in --config) is read by the LLM "
                                        f"agent (--judge llm) and the LLM baselines; none of {', '.join(methods)} "
                                        "loads an LLM")
    return [config.with_trained_adapter() for config in configs] if trained else configs


def run_eval(ws: Workspace, run: RunConfig, methods: list[str], splits: list[str], limit: int | None = None,
             label: str | None = None, batch_size: int = BATCH_SIZE, run_name: str = "eval", trained: bool = True,
             hooks: Hooks = SILENT) -> EvalResult:
    """Every method of `methods` (see `method_runs`) on every split; resumable. Each distinct model is loaded
    once and shared by the methods that run it. A document index the run names is read as `verify` reads it:
    its kind, its distrust marks and its absence setting, its fingerprint pinned."""
    checked, pinned = resolve_index(ws, run)
    out_dir = ws.runs / run_name
    names = [label if label and len(methods) == 1 else method for method in methods]
    for name, config in zip(names, method_runs(checked, methods, trained)):  # refused before anything loads
        check_model(config)
        for split in splits:
            check_settings(log_path(out_dir, name, split), config.identity() | pinned, unknown=("llm.name",),
                           record=False)
    run, index, pinned = with_index(ws, run)
    configs = method_runs(run, methods, trained)
    ensure_benchmark(ws, hooks)
    llms = shared_llms(ws, configs)
    entrants = []
    verifiers = method_verifiers(ws, configs, llms, hooks, index.retriever if index is not None else None)
    for name, config, llm, verifier in zip(names, configs, llms, verifiers):
        entrants.append(Entrant(name, verifier, config.identity(llm.name if llm is not None else None) | pinned))
    rows, breakdown = evaluate(entrants, {split: split_examples(ws, split, limit) for split in splits}, out_dir,
                               batch_size, hooks.bar)
    name = log_stem(label or "-".join(methods))
    markdown, _ = save_report(rows, out_dir, f"results-{name}")
    save_report(breakdown, out_dir, f"per_predicate-{name}")
    return EvalResult(rows, markdown)


def demo_run_name(run: RunConfig) -> str:
    """The demo's run folder: a demo resumes, but one whose settings or shipped weights changed (an upgrade)
    gets its own folder rather than a refusal to resume."""
    if run.uses_reader:
        weights = run.reading.weights()
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
                  index: OpenIndex | None = None) -> Iterator[OpenVerifier]:
    """The run's verifier, in this process or, with `ray`, on a pool of Ray actors (eval/ray_runner.py).
    `index`: the run's document index already opened by the caller, so it is not loaded twice and every
    actor reads the generation it opened."""
    run = with_llm_cache(ws, run)
    if ray is None:
        llm = load_llm(ws, run)
        retriever = index.retriever if index is not None else retriever_for(ws, run.retriever, hooks)
        yield OpenVerifier(build_verifier(run, retriever, paraphrases(ws), llm, relations=relation_facts(ws, run)),
                           llm.name if llm else None, 1)
        return
    if index is None:
        retriever_for(ws, run.retriever, hooks)  # builds a missing index once here, not in every actor
    spec = VerifierSpec(run=run, index_root=index.index_dir if index is not None else index_root(ws, run.retriever),
                        paraphrases=paraphrases(ws), data=ws.data.resolve())
    with RayVerifier(spec, ray) as verifier:
        yield OpenVerifier(verifier, verifier.llm_name, ray.workers)


def check_triple(ws: Workspace, run: RunConfig, triple: Triple, hooks: Hooks = SILENT,
                 retriever_asked: str | None = None) -> Verdict:
    """One triple's verdict with its trajectory, nothing written."""
    run, _ = resolve_index(ws, run, retriever_asked)
    run, index, _ = with_index(ws, run)
    with open_verifier(ws, run, None, hooks, index) as opened:
        return opened.verifier.verify([LabeledTriple("check", triple)])[0]


def index_run(run: RunConfig, manifest: Manifest) -> RunConfig:
    """The run over a document index: the index decides the retriever's kind, and its sources distrusted join
    any the run distrusts. A user's documents need not state every true triple: silence is not enough
    evidence unless the run or the index says they state them all (`--absence false`, `index --absence false`)."""
    distrust = tuple(sorted(set(run.retriever.distrust) | set(manifest.distrusted)))
    return run.with_options(retriever=manifest.kind, embedding_model=manifest.embedding_model, distrust=distrust,
                            absence=run.reading.absence or manifest.absence)


def resolve_index(ws: Workspace, run: RunConfig, retriever_asked: str | None = None) -> tuple[RunConfig, dict]:
    """The run over the document index it names, from the index's manifest alone (nothing loaded), and what
    a run log pins of it: what a check before any expensive step compares. `retriever_asked`: the kind the
    user asked for (`--retriever`), refused where the index is of another kind."""
    if run.retriever.index is None:
        return run, {}
    folder = document_index_dir(ws, run.retriever.index)
    manifest = load_manifest(folder)
    if manifest is None:
        raise DataError(folder, f"no index named {run.retriever.index!r} here; build it with `agentkgv index DOCS... "
                                f"--name {run.retriever.index}`")
    if retriever_asked is not None and retriever_asked != manifest.kind:
        raise DataError(folder, f"a {manifest.kind} index: --retriever {retriever_asked} cannot search it; leave "
                                f"--retriever out, or index the documents with --retriever {retriever_asked} under "
                                "another --name")
    return index_run(run, manifest), {"index": {"name": manifest.name, "fingerprint": manifest.fingerprint}}


def with_index(ws: Workspace, run: RunConfig) -> tuple[RunConfig, OpenIndex | None, dict]:
    """The run over the document index it names, if any, opened: the run, the index (its live generation,
    which this run keeps reading while an update makes a new one) and what to pin of it (its contents and
    trust marks, so a resume against an index that changed since is refused)."""
    if run.retriever.index is None:
        return run, None, {}
    index = open_index(ws, run.retriever.index)
    return index_run(run, index.manifest), index, {"index": index.identity()}


def read_user_file(triples: Path, output: Path, on_error: OnError = "fail", hooks: Hooks = SILENT) -> list[LabeledTriple]:
    """A user's file of triples. With `on_error="skip"` the bad rows are written with their reasons to
    `<output>.rejected.jsonl` and the good ones returned."""
    rejected: list | None = [] if on_error == "skip" else None
    items = list(read_triples(triples, rejected=rejected))
    if rejected:
        written = write_rejected(output, rejected)
        hooks.note(f"{len(rejected)} bad rows skipped (first: {rejected[0]}); all in {written}")
    return items


def check_output(output: Path) -> None:
    """Refuse an output a run could not append to, before anything is loaded."""
    if output.is_dir():
        raise DataError(output, "a folder: give the verdicts file's path (-o verdicts.jsonl)")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with output.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise DataError(output, f"cannot be written ({error.strerror}); choose another -o") from None


def check_model(run: RunConfig) -> None:
    """Refuse a model the run could not load, before loading anything: a model or adapter path that is not
    there, an OpenAI-compatible backend with no server to ask."""
    if not run.needs_llm:
        return
    llm = run.llm
    if llm.adapter is not None and not resolve_adapter(Path(llm.adapter)).exists():
        raise DataError(llm.adapter, "no adapter here (--adapter)")
    looks_like_path = llm.model.startswith((".", "/", "~")) or llm.model.endswith(".gguf")
    if llm.backend != "openai" and looks_like_path and not Path(llm.model).expanduser().exists():
        raise DataError(llm.model, "no model here (--model): give a model folder, a GGUF file, or a hub name")
    if llm.backend == "openai" and llm.base_url is None and not (
            os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")):
        raise DataError("command line", "--backend openai needs --base-url, the URL of an OpenAI-compatible "
                                        "server (or OPENAI_API_KEY for OpenAI's own)")


def preflight(ws: Workspace, run: RunConfig, output: Path, retriever_asked: str | None = None,
              aliases: Path | None = None) -> tuple[RunConfig, dict]:
    """Every check that can refuse a `verify` run, made before any model, index or document is loaded: the
    output can be written, the index exists and is of the kind asked, the readers exist, and a resumed
    output was written with these settings. Returns the run over its index and what its log pins besides
    the run's identity."""
    check_output(output)
    run, pinned = resolve_index(ws, run, retriever_asked)
    if aliases is not None:
        if not aliases.is_file():
            raise DataError(aliases, "no alias table here (--aliases)")
        # Other names change what counts as a mention, so a resume with another table is refused.
        pinned["aliases"] = hashlib.sha256(aliases.read_bytes()).hexdigest()[:16]
    check_model(run)
    check_settings(output, run.identity() | pinned, ANOTHER_OUTPUT, unknown=("llm.name",), record=False)
    return run, pinned


def verify_triples(ws: Workspace, run: RunConfig, items: list[LabeledTriple], name: str, output: Path,
                   batch_size: int = BATCH_SIZE, trajectories: bool = False, ray: RayOptions | None = None,
                   hooks: Hooks = SILENT, aliases: Path | None = None, retriever_asked: str | None = None) -> list[Verdict]:
    """Verdicts for a user's triples (from a file or a graph; `name` says which), appended to `output` (a
    rerun resumes). `aliases` is an alias table file (agentkgv.data.aliases) whose names the triples'
    entities get too. Failed triples are left out (the runner's errors file names them)."""
    _, pinned = preflight(ws, run, output, retriever_asked, aliases)
    # The run over the generation opened now, which an update that finished since the check may have replaced.
    run, index, opened_pins = with_index(ws, run)
    pinned |= opened_pins
    if aliases is not None:
        table = read_alias_table(aliases)
        items = [replace(item, triple=with_aliases(item.triple, table)) for item in items]
    # Loaded here, as in eval, so the output's pinned settings carry the model's name with its adapter's hash.
    with open_verifier(ws, run, ray, hooks, index) as opened:
        verifier = opened.verifier if trajectories else WithoutTrajectories(opened.verifier)
        with hooks.bar(f"verifying {name}", len(items)) as advance:
            return run_verifier(verifier, items, output, batch_size * opened.parallel, advance,
                                run.identity(opened.llm_name) | pinned, ANOTHER_OUTPUT)


def index_documents(ws: Workspace, name: str, documents: list[Path], kind: str | None = None,
                    embedding_model: str | None = None, chunking: ChunkConfig | None = None,
                    hooks: Hooks = SILENT, trust: list[Path] = (), distrust: list[Path] = (),
                    wait: bool = True, absence: str | None = None) -> IndexReport:
    """Create the named document index, or update it: add documents (only new or changed files are read),
    distrust or trust again the sources named, all as one new generation by the index's one writer. Another
    writer at work: wait for it (`hooks.note` says whose), or with `wait` False refuse (IndexBusy)."""
    folder = document_index_dir(ws, name)
    if not (documents or trust or distrust or absence):
        raise DataError(folder, "nothing to do: name documents to index, sources to --trust or --distrust, or "
                                "--absence")
    for path in [*documents, *distrust]:
        if not path.exists():
            raise DataError(path, "no such file or folder")
    with hooks.byte_bar("reading documents") as progress:
        return update_index(folder, documents, trust, distrust, kind, embedding_model, chunking, progress, wait,
                            lambda holder: hooks.note(f"waiting for {holder}, which is updating {folder}"),
                            hooks.note, absence)
