"""The `agentkgv` command line's shared options, declared once for every command that takes them."""

from __future__ import annotations

import copy
import os
import typing
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.core.ray_runner import RayOptions

# Exit codes a pipeline can act on: 0 every triple verified; USER_ERROR bad input or settings, refused
# before any work; SOME_FAILED a run that finished without a verdict for some triples (a rerun retries them).
USER_ERROR, SOME_FAILED, INTERRUPTED = 2, 3, 130
# A command-line value its typed setting refused (click uses 2 for a bad option too).
OPTION_ERROR = 2
# The panels `agentkgv --help` groups its commands in.
VERIFY, BUILD, REVIEW, GRAPH, TRAIN, BENCH = ("Verify and report", "Build", "Review", "Graphs", "Train",
                                          "Benchmark and test tools")


def rare(option):
    """`option` (an `Annotated[type, typer.Option(...)]`) left out of `--help`: a command that takes many lists its
    everyday ones, and docs/command_line.md describes the rest."""
    kind, info = typing.get_args(option)
    info = copy.copy(info)
    info.hidden = True
    return Annotated[kind, info]


DataOpt = Annotated[Optional[Path], typer.Option("--data-dir", envvar="AGENTKGV_DATA",
                                                 help="Folder with the source data (default ../shared/data).")]


def _every_derived_file_there(folder: Path | None) -> Path | None:
    """The command's process finds its cache folder by AGENTKGV_CACHE wherever it derives a file (the LLM
    answers, the converted embedded model, unzipped encoders, Ray actors): the folder given must be the one
    they all find. Set here, at the command line's edge, so library callers' environments are left alone."""
    if folder is not None:
        os.environ["AGENTKGV_CACHE"] = str(folder.resolve())
    return folder


CacheOpt = Annotated[Optional[Path], typer.Option("--cache-dir", envvar="AGENTKGV_CACHE", callback=_every_derived_file_there,
                                                  help="Folder for everything derived (default: the user cache folder, ~/.cache/agentkgv).")]
RetrieverOpt = Annotated[Optional[str], typer.Option("--retriever", help="bm25 (default), dense or hybrid.")]
EmbeddingOpt = Annotated[Optional[str], typer.Option(
    "--embedding-model", help="'minilm' (offline default) or a sentence-transformers name/path.")]
MethodsHelp = "agentkgv, direct, single_rag, ircot, lexical."
BackendOpt = Annotated[Optional[str], typer.Option("--backend", help="transformers, llamacpp or openai.")]
ModelOpt = Annotated[Optional[str], typer.Option("--model", help="'smollm2' (embedded), a path, or a served model name.")]
AdapterOpt = Annotated[Optional[Path], typer.Option(
    "--adapter", help="LoRA adapter folder to apply, or 'agentkgv-smollm2' (the shipped trained one).")]
SummarizerOpt = Annotated[Optional[str], typer.Option("--summarizer", help="llm or extractive.")]
BaseUrlOpt = Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible server URL.")]
RunConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Run config TOML (see configs/); options override it.")]
JudgeOpt = Annotated[Optional[str], typer.Option(
    "--judge", help="Who judges the agent's evidence: 'reader' (the trained evidence reader, default) or 'llm' "
                    "(the LLM agent of the paper, on the shipped adapter).")]
ReaderOpt = Annotated[Optional[Path], typer.Option(
    "--reader", help="The main evidence reader: a folder written by `agentkgv train-reader` (default: the shipped "
                     "one). Relations it learned from fewer than rare_below facts go to --rare-reader.")]
RareReaderOpt = Annotated[Optional[Path], typer.Option(
    "--rare-reader", help="The reader of relations the main one rarely learned (default: the shipped gloss reader).")]
StopPolicyOpt = Annotated[Optional[Path], typer.Option(
    "--stop-policy", help="When the main reader's triples stop searching: a stop_policy.json of `agentkgv "
                          "train-search-policy` (default: once the triple is settled true; the rare-relation "
                          "reader's: rare_stop_policy in a run config).")]
AbsenceOpt = Annotated[Optional[str], typer.Option(
    "--absence", help="A triple no passage supports or contradicts: 'unknown' (not enough evidence; the default) "
                      "or 'false' (the documents state every true triple; the benchmarks' default).")]
PriorOpt = Annotated[Optional[float], typer.Option(
    "--prior", min=0.05, max=0.95, help="P(true) of a triple the documents say nothing about: the share of true "
                                        "triples you expect (default 0.5; `agentkgv learn` fits it from reviews).")]
TrainRunOpt = Annotated[str, typer.Option("--run-name", help="Training run folder under <cache>/train.")]
RayOpt = Annotated[bool, typer.Option("--ray", help="Run the triples on a pool of Ray actors (README: Many triples).")]
AddressOpt = Annotated[Optional[str], typer.Option(help="Ray cluster to join ('auto' or host:port); default a local one.")]
WorkersOpt = Annotated[int, typer.Option(help="Ray actors, each holding the model and the retriever.")]
GpusOpt = Annotated[float, typer.Option(help="GPUs each Ray actor reserves (transformers backend on a GPU node).")]
BaseModelOpt = Annotated[bool, typer.Option(help="Run the embedded model without the shipped trained adapter.")]
IndexOpt = Annotated[Optional[str], typer.Option(
    help="Search this document index (`agentkgv index`: a name or folder) instead of the built-in corpus.")]


class OnErrorMode(str, Enum):
    fail = "fail"
    skip = "skip"


OnErrorOpt = Annotated[OnErrorMode, typer.Option(help="fail: stop at the first bad row; skip: verify the good rows and write "
                                              "the bad ones to <output>.rejected.jsonl.")]
WordsOpt = Annotated[Optional[int], typer.Option(help="Words per passage (default 120).")]
OverlapOpt = Annotated[Optional[int], typer.Option(help="Words neighbouring passages share (default 20).")]


def ray_options(ray: bool, address: str | None, workers: int, gpus_per_worker: float = 0.0) -> RayOptions | None:
    return RayOptions(address=address, workers=workers, gpus_per_worker=gpus_per_worker) if ray else None
