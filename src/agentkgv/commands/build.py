"""What a command needs, built from a workspace on first use: the benchmark, the corpus and its indexes, a
user's document index, the retriever, the LLM; and `Hooks`, how long work reports its progress, so tests and
other callers run the same code silently.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentkgv.config import RunConfig
from agentkgv.core.runner import Bar, no_bar
from agentkgv.data.aliases import ALIAS_FILE
from agentkgv.data.benchmark import SPLITS, TEST_SPLIT_REGIME, BenchmarkConfig, SplitStats, build_benchmark, load_split
from agentkgv.data.corpus import CorpusConfig, build_corpus, load_corpus
from agentkgv.data.documents import ChunkConfig
from agentkgv.data.errors import DataError
from agentkgv.data.factbench import DOCS_SPLIT
from agentkgv.data.predicates import PROPERTIES, load_predicates, paraphrase_table
from agentkgv.data.records import Example
from agentkgv.eval.subsets import balanced_subset
from agentkgv.llm.base import LLM
from agentkgv.llm.factory import build_llm
from agentkgv.memory import peak_memory_gib
from agentkgv.paths import Workspace
from agentkgv.reader_agent.relation_facts import RelationFacts
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import RetrieverConfig, build_retriever, load_retriever
from agentkgv.retrieval.index_generations import live_generation
from agentkgv.retrieval.user_index import IndexReport, open_index, update_index
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
    if not (ws.data / PROPERTIES).is_dir():
        # The run reads the tables shipped in the package then, without X-FACTR's templates and types: its figures
        # are not those BENCHMARKS.md reports (the long-tail split's errors found fall by a third).
        hooks.note(f"warning: no relation tables in the data folder ({ws.data / PROPERTIES} not found): the run "
                   "falls back to the shipped ones and its figures differ from the published; set AGENTKGV_DATA")
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
    return paraphrase_table(load_predicates(ws.data, shipped_if_missing=True))


def relation_facts(ws: Workspace, run: RunConfig) -> RelationFacts | None:
    """The relations another value contradicts, with their values' names from the facts files: the reader
    agent's; None for the other methods."""
    if not run.uses_reader:
        return None
    return RelationFacts.load(ws.data, run.reading.one_valued, ws.cache, run.reading.many_valued)


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


def load_llm(run: RunConfig) -> LLM | None:
    """The run's model; none for the lexical check and the reader agent, which need none."""
    return build_llm(run.llm) if run.needs_llm else None


def shared_llms(configs: list[RunConfig]) -> list[LLM | None]:
    """Each run's model, every distinct model loaded once and shared by the runs that name it."""
    keys = [config.llm.model_dump_json() if config.needs_llm else "" for config in configs]
    loaded: dict[str, LLM | None] = {}
    for key, config in zip(keys, configs):
        if key not in loaded:
            loaded[key] = load_llm(config)
    return [loaded[key] for key in keys]


def split_examples(ws: Workspace, split: str, limit: int | None = None) -> list[Example]:
    examples = load_split(ws.benchmark, split)
    return balanced_subset(examples, limit) if limit else examples


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
