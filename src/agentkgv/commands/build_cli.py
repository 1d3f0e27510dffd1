"""The build commands: the benchmark, its corpus and indexes, and an index of a user's documents."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.commands.build import build_benchmark_into, build_index, index_documents, rebuild_corpus
from agentkgv.commands.display import HOOKS, console, show_index_report
from agentkgv.commands.options import BUILD, CacheOpt, DataOpt, EmbeddingOpt, OverlapOpt, RetrieverOpt, WordsOpt
from agentkgv.config import RunConfig, RunOptions
from agentkgv.data.benchmark import BenchmarkConfig
from agentkgv.data.documents import ChunkConfig
from agentkgv.encoders import DEFAULT_EMBEDDING_MODEL
from agentkgv.paths import Workspace, data_dir as default_data_dir

app = typer.Typer()


@app.command("build-benchmark", rich_help_panel=BUILD)
def build_benchmark_command(data_dir: DataOpt = None, cache_dir: CacheOpt = None,
                            config: Annotated[Optional[Path], typer.Option(help="Regime config TOML.")] = None,
                            embedding_model: Annotated[str, typer.Option(help="Embedding model of the hard negatives.")] = DEFAULT_EMBEDDING_MODEL) -> None:
    """Build train / test_long_tail / test_unseen with hard negatives (paper section 4.1)."""
    ws = Workspace(data_dir, cache_dir)
    build_benchmark_into(ws, BenchmarkConfig.load(config).model_copy(update={"embedding_model": embedding_model}), HOOKS)
    console.print(f"written to {ws.benchmark}")


@app.command("build-predicates", rich_help_panel=BUILD)
def build_predicates_command(data_dir: DataOpt = None) -> None:
    """Write the predicate and relation-cue tables the package ships (labels, aliases, descriptions, templates;
    the words that state each relation) from the data folder."""
    from agentkgv.data.predicates import shippable, shipped_predicates_path, write_shipped_predicates
    from agentkgv.reader_agent.relation_cues import shipped_cues_path, write_cue_table
    from agentkgv.reader_agent.relation_facts import cue_table

    data = Path(data_dir) if data_dir else default_data_dir()
    for path, write in ((shipped_predicates_path(), lambda path: write_shipped_predicates(shippable(data), path)),
                        (shipped_cues_path(), lambda path: write_cue_table(cue_table(data), path))):
        console.print(f"written to {path} ({write(path) / 1e3:.0f} KB)")


@app.command("build-corpus", rich_help_panel=BUILD)
def build_corpus_command(data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Collect the retrieval corpus (all evidence sentences plus distractor sources)."""
    rebuild_corpus(Workspace(data_dir, cache_dir), HOOKS)


@app.command("build-index", rich_help_panel=BUILD)
def build_index_command(retriever: RetrieverOpt = None, embedding_model: EmbeddingOpt = None,
                        data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Build (or rebuild) a retrieval index over the corpus."""
    config = RunOptions(retriever=retriever, embedding_model=embedding_model).apply(RunConfig()).retriever
    built = build_index(Workspace(data_dir, cache_dir), config, HOOKS)
    console.print(f"{config.kind} index over {built.passages} passages: {built.seconds:.1f} s, "
                  f"peak memory {built.peak_memory_gib:.2f} GiB")


@app.command("index", rich_help_panel=BUILD)
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
    show_index_report(index_documents(Workspace(None, cache_dir), name, documents or [], retriever, embedding_model,
                                      ChunkConfig(**sizes) if sizes else None, HOOKS, trust, distrust, wait,
                                      absence))
