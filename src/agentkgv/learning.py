"""The review loop's commands: learn from a reviewed queue, and measure what learning buys."""

from __future__ import annotations

from pathlib import Path

from agentkgv.agent.calibration import Calibration
from agentkgv.agent.reader import reader_folder
from agentkgv.data.errors import DataError
from agentkgv.eval.review import read_reviews
from agentkgv.eval.runner import load_run
from agentkgv.paths import Workspace, check_name
from agentkgv.train.learn import Learned, ReviewLoopRow, learn_calibration, review_loop, save_learned


def learned_reader_dir(ws: Workspace, name: str) -> Path:
    return ws.cache / "readers" / check_name(name, "a reader")


def learn_from_review(ws: Workspace, review: Path, verdicts_file: Path, name: str,
                      reader: Path | None = None) -> tuple[Path, Learned]:
    """Recalibrate `reader` (default the shipped one) on the reviewed triples of `review`, whose verdicts
    are in `verdicts_file`; the adapted reader goes to <cache>/readers/<name>."""
    verdicts = load_run(verdicts_file)
    if not verdicts:
        raise DataError(verdicts_file, "no verdicts in this file")
    source = reader_folder(reader)
    calibration, learned = learn_calibration(verdicts, read_reviews(review), review, Calibration.read(source))
    return save_learned(source, learned_reader_dir(ws, name), calibration, learned), learned


def bench_review(ws: Workspace, run_name: str, split: str, sizes: list[int], folds: int) -> list[ReviewLoopRow]:
    """The review loop, k-fold, on one split of an eval run of the reader agent."""
    log = ws.runs / run_name / f"agentkgv.{split}.jsonl"
    verdicts = list(load_run(log).values())
    if not verdicts:
        raise DataError(log, "no verdicts here: run `agentkgv eval --method agentkgv --run-name` first")
    try:
        return review_loop(verdicts, sizes, folds)
    except ValueError as error:
        raise DataError(log, str(error)) from None
