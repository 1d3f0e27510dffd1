"""The LLM agent's training loops: its two stages (teacher trajectories, SFT data, SFT, GRPO). Each builds
what it needs from the workspace (commands/build.py) and writes under <cache>/train/<run name>; the reader's
are in commands/train_reader.py."""

from __future__ import annotations

from pathlib import Path

from agentkgv.commands.build import EVAL_SPLITS, SILENT, Hooks, ensure_benchmark, paraphrases, retriever_for
from agentkgv.config import RunConfig, RunOptions, resolve
from agentkgv.data.benchmark import BenchmarkConfig, load_split
from agentkgv.data.errors import DataError
from agentkgv.llm.factory import build_llm
from agentkgv.paths import Workspace
from agentkgv.train.sft_data import SFTDataStats, SFTExample, sft_data_from_run
from agentkgv.train.teacher import TeacherConfig, TeacherPolicy, TeacherSample, run_teacher


def teacher(ws: Workspace, run: RunConfig, plan: TeacherConfig, policy: TeacherPolicy, run_name: str,
            batch_size: int = 16, hooks: Hooks = SILENT) -> list[TeacherSample]:
    """Stage-1 trajectories of the run's agent, acted by the teacher, under <cache>/train/<run_name>."""
    ensure_benchmark(ws, hooks)
    run = resolve(run, ws, base_model=True).config  # the teacher is the model the run names, no adapter added
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
    return train_sft(dataset, run_dir / "model", SFTSettings.load(settings_path), threads, ws.models.resolve())


def grpo(ws: Workspace, run_name: str, settings_path: Path | None, retriever: str | None = None,
         threads: int | None = None, hooks: Hooks = SILENT) -> dict:
    """Stage 2 on training triples drawn as the teacher draws them, rollouts built from the settings' run."""
    from agentkgv.train.grpo import GRPOSettings, train_grpo
    from agentkgv.train.teacher import training_draw

    ensure_benchmark(ws, hooks)
    settings = GRPOSettings.load(settings_path)
    run = RunOptions(retriever=retriever).apply(settings.run)
    if run.llm.models_dir is None:  # the embedded model is converted into this run's cache folder
        run = run.model_copy(update={"llm": run.llm.model_copy(update={"models_dir": ws.models.resolve()})})
    settings = settings.model_copy(update={"run": run})
    examples = training_draw(load_split(ws.benchmark, "train"), settings.steps * settings.triples_per_step,
                             settings.seed)
    return train_grpo([e.as_labeled() for e in examples], retriever_for(ws, settings.run.retriever, hooks),
                      paraphrases(ws), ws.training / run_name, settings, threads)
