"""The review loop's commands: learn from a reviewed queue, and measure what learning buys."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import fmean


from agentkgv.commands.build import SILENT, Hooks, retriever_for
from agentkgv.commands.train_reader import read_evidence
from agentkgv.config import RunConfig
from agentkgv.core.graph_checked import as_reviewed
from agentkgv.core.runner import load_run
from agentkgv.core.runner import settings_path
from agentkgv.core.verdict import Verdict
from agentkgv.data.errors import DataError
from agentkgv.data.predicates import load_predicates
from agentkgv.data.records import LabeledTriple
from agentkgv.eval.metrics import score
from agentkgv.eval.review import read_reviews
from agentkgv.graph.prior import GraphPrior, prior_digest, refit_from_reviews
from agentkgv.paths import Workspace, check_name
from agentkgv.reader_agent.build import Readers
from agentkgv.reader_agent.calibration import Outcome
from agentkgv.reader_agent.reader_folder import (SHIPPED_GLOSS_READER, SHIPPED_READER, ReaderFolder, save_relations,
                                                 shipped_reader_dir)
from agentkgv.reader_agent.trace import by_rare_reader, reading_of
from agentkgv.retrieval.guard import AddressesReader, WithholdingRetriever
from agentkgv.train.calibrate import fit_calibration
from agentkgv.train.learn import (TUNE_AT, Learned, NothingToLearn, ReviewLoopRow, learn_calibration, learnable,
                                  review_folds, review_loop, review_pairs, reviewed_verdicts, save_learned)

# Continuing a reader on a few hundred reviewed passages: small steps, twice over them.
TUNE_SETTINGS = {"epochs": 2.0, "batch_size": 8, "learning_rate": 2e-5, "save_steps": 1000, "max_pairs": None}


def learned_reader_dir(ws: Workspace, name: str) -> Path:
    return ws.cache / "readers" / check_name(name, "a reader")


def run_of(log: Path) -> RunConfig:
    """The run of the reader agent that wrote `log`, read back from the settings it pinned beside it."""
    path = settings_path(log)
    if not path.exists():
        raise DataError(path, "missing: the run settings `verify`/`eval` write beside a log, which say how to "
                              "read the reviewed triples again")
    run = RunConfig.from_identity(json.loads(path.read_text()))
    if not run.uses_reader:
        raise DataError(path, "not a run of the reader agent: only its verdicts can be learned from")
    return run


def run_reading(ws: Workspace, log: Path, hooks: Hooks = SILENT):
    """(retriever, reading settings, sources distrusted) of the reader run that wrote `log`, from the settings
    it pinned: a tuned reader reads the reviewed triples again as that run read them."""
    run = run_of(log)
    retriever = retriever_for(ws, run.retriever, hooks)
    guarded = WithholdingRetriever(retriever, [AddressesReader()]) if run.evidence_guard else retriever
    return guarded, run.reading, run.retriever.distrust


def judged_by(verdicts: list[Verdict], rare: bool = False) -> list[Verdict]:
    """The verdicts the main reader judged, or with `rare` the rare-relation reader: a calibration refitted on
    logged evidence must not mix the two readers' scores."""
    return [v for v in verdicts if by_rare_reader(v) == rare]


def tune_reader(ws: Workspace, source: Path, pairs: list, run_dir: Path) -> Path:
    """Continue the reader in `source` on `pairs` (train/learn.review_pairs); returns the tuned reader's
    folder (weights, card, glosses, relation counts with the reviewed facts added; no calibration yet)."""
    from agentkgv.train.reader_trainer import ReaderSettings, relation_counts, train_reader

    folder = ReaderFolder.open(source)
    settings = ReaderSettings(name=f"{folder.card.name}-reviewed", init_from=source, **TUNE_SETTINGS)
    train_reader(pairs, folder.glosses, run_dir, settings)
    if folder.relations is not None:  # a reader that routes rare relations keeps routing, now knowing these
        counts = relation_counts(pairs, load_predicates(ws.data, shipped_if_missing=True), folder.relations, new_facts=True)
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
    source = reader or shipped_reader_dir(SHIPPED_GLOSS_READER if rare else SHIPPED_READER)
    reviews, target = read_reviews(review), learned_reader_dir(ws, name)
    reviewed_verdicts(verdicts, reviews, review)  # a review of a triple the verdicts lack is named first
    mine = {v.id for v in judged_by(list(verdicts.values()), rare)}
    if not any(r.id in mine for r in reviews):
        which, other = ("rare-relation", "`learn` without --rare") if rare else ("main", "`learn --rare`")
        raise NothingToLearn(review, f"no reviewed triple was judged by the {which} reader: {other} adapts the one "
                                     "that did")
    reviews = [r for r in reviews if r.id in mine]  # each reader learns from the triples it judged
    if not any(learnable(v) for v in reviewed_verdicts(verdicts, reviews, review)):
        raise NothingToLearn(review, f"none of the {len(reviews)} reviewed triples the reader judged was decided by "
                                     "its reading (links, labels, what the graph decided): nothing to refit it on")
    current = ReaderFolder.open(source).calibrated
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
    read = [(v, r) for v, r in zip(reviewed, reviews) if reading_of(v) is not None]
    reviews = [r for _, r in read]
    items = [LabeledTriple(v.id, v.triple, r.label) for v, r in read]
    evidence = read_evidence(ws, tuned, items, retriever, reading, hooks, "reading the reviewed triples again",
                             distrust)
    calibration, learned = learn_calibration(verdicts, reviews, review, current, evidence, len(pairs))
    save_learned(tuned, target, calibration, learned)
    shutil.rmtree(tuned)  # its weights are now the learned reader's; the loss curve stays in tuning/
    return target, learned


@dataclass(frozen=True)
class Lesson:
    """What `learn` taught: the adapted reader's folder and what it learned (None where the reviews held nothing the
    reader could learn from, `reader_unchanged` saying why), and the refitted graph prior (None where the run did not
    read the graph)."""

    reader: Path | None
    learned: Learned | None
    graph_prior: Path | None
    reader_unchanged: str | None = None


def learn(ws: Workspace, review: Path, verdicts_file: Path, name: str, reader: Path | None = None,
          hooks: Hooks = SILENT, rare: bool = False, graph_prior: Path | None = None) -> Lesson:
    """The reader adapted to the reviews (`learn_from_review`) and, where the run read the graph, the graph prior
    refitted on them (`learn_graph_prior`), both under <cache>/readers/<name>. Reviews of triples the graph decided
    (a link, a name given as another page) teach the graph prior even where the reader can learn nothing from them."""
    try:
        folder, learned = learn_from_review(ws, review, verdicts_file, name, reader, hooks, rare)
    except NothingToLearn as error:
        prior = learn_graph_prior(review, verdicts_file, learned_reader_dir(ws, name) / "graph-prior.json", graph_prior)
        if prior is None:
            raise
        return Lesson(None, None, prior, str(error))
    return Lesson(folder, learned, learn_graph_prior(review, verdicts_file, folder / "graph-prior.json", graph_prior))


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
    source = Readers.open(reading).main.path
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


def learn_graph_prior(review: Path, verdicts_file: Path, target: Path, prior: Path | None = None) -> Path | None:
    """Where the verdicts were composed with their graph (`verify` reads it by default), the graph prior
    (`prior`, default the shipped one) refitted on the reviewed triples (how much the documents count, and the
    per-predicate and per-family offsets: graph/prior.refit_from_reviews), saved as `target`; None where the run did
    not read the graph."""
    pins = json.loads(settings_path(verdicts_file).read_text()).get("pins", {}) if settings_path(verdicts_file).exists() else {}
    if "graph" not in pins:
        return None
    current = GraphPrior.load(prior)
    if isinstance(pins["graph"], dict) and pins["graph"].get("prior") not in (None, prior_digest(current)):
        raise DataError(prior or "the shipped graph prior", "not the graph prior these verdicts were made with: "
                                                            "pass that one (--graph-prior)")
    verdicts, reviews = load_run(verdicts_file), read_reviews(review)
    labelled = [as_reviewed(v, r.label) for v, r in zip(reviewed_verdicts(verdicts, reviews, review), reviews)
                if v.p_true is not None]
    return refit_from_reviews(current, labelled).save(target)
