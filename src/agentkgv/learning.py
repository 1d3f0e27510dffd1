"""The review loop's commands: learn from a reviewed queue, and measure what learning buys."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from statistics import fmean

from pydantic import ValidationError

from agentkgv.agent.calibration import Calibration, Outcome
from agentkgv.agent.base import Verdict
from agentkgv.agent.reader import (RELATIONS_FILE, SHIPPED_GLOSS_READER, SHIPPED_READER, ReaderCard, read_glosses,
                                   read_relations, reader_folder, save_relations)
from agentkgv.agent.reading import ReadingConfig
from agentkgv.data.errors import DataError
from agentkgv.data.predicates import load_predicates
from agentkgv.data.records import LabeledTriple
from agentkgv.eval.metrics import score
from agentkgv.eval.review import read_reviews
from agentkgv.eval.runner import load_run
from agentkgv.paths import Workspace, check_name
from agentkgv.pipeline import SILENT, Hooks, retriever_for
from agentkgv.retrieval.factory import RetrieverConfig
from agentkgv.retrieval.guard import AddressesReader, WithholdingRetriever
from agentkgv.train.calibrate import fit_calibration
from agentkgv.train.learn import (TUNE_AT, Learned, ReviewLoopRow, learn_calibration, learnable, review_folds,
                                  review_loop, review_pairs, reviewed_verdicts, save_learned)
from agentkgv.training import read_evidence

# Continuing a reader on a few hundred reviewed passages: small steps, twice over them.
TUNE_SETTINGS = {"epochs": 2.0, "batch_size": 8, "learning_rate": 2e-5, "save_steps": 1000, "max_pairs": None}


def learned_reader_dir(ws: Workspace, name: str) -> Path:
    return ws.cache / "readers" / check_name(name, "a reader")


def run_settings(log: Path) -> dict:
    """The settings the reader run that wrote `log` pinned beside it."""
    path = log.with_name(log.name + ".settings.json")
    if not path.exists():
        raise DataError(path, "missing: the run settings `verify`/`eval` write beside a log, which say how to "
                              "read the reviewed triples again")
    settings = json.loads(path.read_text())
    if settings.get("judge") != "reader" or "reading" not in settings:
        raise DataError(path, "not a run of the reader agent: only its verdicts can be learned from")
    return settings


def reading_of(settings: dict) -> ReadingConfig:
    try:
        return ReadingConfig.model_validate({k: v for k, v in settings["reading"].items()
                                             if k not in ("weights", "stop_policy_weights", "rare_stop_policy_weights")})
    except ValidationError as error:
        raise DataError("run settings", f"written by an earlier version of agentkgv ({error.errors()[0]['loc']}): "
                                        "verify the triples again, then learn from that run") from None


def run_reading(ws: Workspace, log: Path, hooks: Hooks = SILENT):
    """(retriever, reading settings, sources distrusted) of the reader run that wrote `log`, from the settings
    it pinned: a tuned reader reads the reviewed triples again as that run read them."""
    settings = run_settings(log)
    index = settings.get("index")  # a document index is pinned as {"name", "fingerprint"}
    retriever = retriever_for(ws, RetrieverConfig(kind=settings["retriever"], embedding_model=settings["embedding_model"],
                                                  index=index["name"] if isinstance(index, dict) else index), hooks)
    guarded = WithholdingRetriever(retriever, [AddressesReader()]) if settings.get("evidence_guard") else retriever
    return guarded, reading_of(settings), tuple(settings.get("distrust", ()))


def judged_by(verdicts: list[Verdict], rare: bool = False) -> list[Verdict]:
    """The verdicts the main reader judged, or with `rare` the rare-relation reader: a calibration refitted on
    logged evidence must not mix the two readers' scores."""
    return [v for v in verdicts if v.rare_relation == rare]


def tune_reader(ws: Workspace, source: Path, pairs: list, run_dir: Path) -> Path:
    """Continue the reader in `source` on `pairs` (train/learn.review_pairs); returns the tuned reader's
    folder (weights, card, glosses, relation counts with the reviewed facts added; no calibration yet)."""
    from agentkgv.train.reader import ReaderSettings, relation_counts, train_reader

    settings = ReaderSettings(name=f"{ReaderCard.read(source).name}-reviewed", init_from=source, **TUNE_SETTINGS)
    train_reader(pairs, read_glosses(source), run_dir, settings)
    if (source / RELATIONS_FILE).exists():  # a reader that routes rare relations keeps routing, now knowing these
        counts = relation_counts(pairs, load_predicates(ws.data), read_relations(source), new_facts=True)
        save_relations(run_dir / "reader", counts)
    return run_dir / "reader"


def learn_from_review(ws: Workspace, review: Path, verdicts_file: Path, name: str, reader: Path | None = None,
                      hooks: Hooks = SILENT, rare: bool = False) -> tuple[Path, Learned]:
    """Adapt `reader` (default the shipped one; with `rare`, the shipped reader of rare relations) to the
    reviewed triples of `review` it judged, whose verdicts are in `verdicts_file`: its calibration refitted,
    and from `TUNE_AT` reviews on its weights tuned on the reviewed passages first. The adapted reader goes to
    <cache>/readers/<name>."""
    if not verdicts_file.is_file():
        raise DataError(verdicts_file, "file not found: give the verdicts file `agentkgv verify -o` wrote (--verdicts)")
    verdicts = load_run(verdicts_file)
    if not verdicts:
        raise DataError(verdicts_file, "no verdicts in this file")
    source = reader_folder(reader, SHIPPED_GLOSS_READER if rare else SHIPPED_READER)
    reviews, target = read_reviews(review), learned_reader_dir(ws, name)
    reviewed_verdicts(verdicts, reviews, review)  # a review of a triple the verdicts lack is named first
    mine = {v.id for v in judged_by(list(verdicts.values()), rare)}
    if not any(r.id in mine for r in reviews):
        which, other = ("rare-relation", "`learn` without --rare") if rare else ("main", "`learn --rare`")
        raise DataError(review, f"no reviewed triple was judged by the {which} reader: {other} adapts the one that did")
    reviews = [r for r in reviews if r.id in mine]  # each reader learns from the triples it judged
    current = Calibration.read(source)
    if len(reviews) < TUNE_AT:
        calibration, learned = learn_calibration(verdicts, reviews, review, current)
        return save_learned(source, target, calibration, learned), learned
    reviewed = reviewed_verdicts(verdicts, reviews, review)
    taught = [(v, r.label) for v, r in zip(reviewed, reviews) if learnable(v)]
    pairs = review_pairs([v for v, _ in taught], [label for _, label in taught])
    retriever, reading, distrust = run_reading(ws, verdicts_file, hooks)
    tuned = tune_reader(ws, source, pairs, target / "tuning")
    # Every reviewed triple the reader read is read again, so the calibration is refitted on the tuned
    # reader's evidence; one never searched (a link, a label settled by name) has nothing to read.
    read = [(v, r) for v, r in zip(reviewed, reviews) if v.reading is not None]
    reviews = [r for _, r in read]
    items = [LabeledTriple(v.id, v.triple, r.label) for v, r in read]
    evidence = read_evidence(ws, tuned, items, retriever, reading, hooks, "reading the reviewed triples again",
                             distrust)
    calibration, learned = learn_calibration(verdicts, reviews, review, current, evidence, len(pairs))
    save_learned(tuned, target, calibration, learned)
    shutil.rmtree(tuned)  # its weights are now the learned reader's; the loss curve stays in tuning/
    return target, learned


def bench_review(ws: Workspace, run_name: str, split: str, sizes: list[int], folds: int, tune: bool = False,
                 hooks: Hooks = SILENT) -> list[ReviewLoopRow]:
    """The review loop, k-fold, on one split of an eval run of the reader agent; with `tune`, also the
    reader's weights tuned on each fold's reviewed triples, and the fold read again by the tuned reader."""
    log = ws.runs / run_name / f"agentkgv.{split}.jsonl"
    verdicts = judged_by(list(load_run(log).values()))
    if not verdicts:
        raise DataError(log, "no verdicts of the main reader here: run `agentkgv eval --method agentkgv --run-name` first")
    try:
        rows = review_loop(verdicts, sizes, folds)
    except ValueError as error:
        raise DataError(log, str(error)) from None
    if not tune:
        return rows
    retriever, reading, distrust = run_reading(ws, log, hooks)
    source = reader_folder(reading.reader)
    tuned_rows = []
    for row, size in zip(rows, sizes):
        scores = []
        for k, (reviewed, scored) in enumerate(review_folds(verdicts, size, folds)):
            folder = tune_reader(ws, source, review_pairs(reviewed, [v.gold for v in reviewed]),
                                 ws.training / f"review-tune-{run_name}-{split}-{size}-{k}")
            items = [LabeledTriple(v.id, v.triple, v.gold) for v in reviewed + scored]
            evidence = read_evidence(ws, folder, items, retriever, reading, hooks, f"fold {k + 1}, {size} reviewed",
                                     distrust)
            fitted = fit_calibration(evidence[:len(reviewed)], [v.gold for v in reviewed])
            outcomes = [fitted.outcome(fitted.probability(e)) for e in evidence[len(reviewed):]]
            scores.append(score([v.gold for v in scored], [o is Outcome.TRUE for o in outcomes]).macro_f1)
        tuned_rows.append(replace(row, macro_f1_tuned=round(fmean(scores), 4)))
    return tuned_rows
