"""The verifier adapted to a user's domain from the triples their reviewers judged.

Always, the reader's calibration is refitted (train/calibrate.py) on the reviewed triples' evidence, as the
verify run logged it (the evidence of its reading trace). That moves P(true) and the thresholds to the user's documents and
graph: how much a supporting passage there is worth, where "not enough evidence" begins. The evidence was
gathered under the old calibration, which stops reading once a triple is settled true: a stricter new
calibration would have read on. The fit takes the evidence as logged.

With enough reviews (`TUNE_AT`), the reader's weights learn too (`review_pairs`): each reviewed triple's
cited passages become training pairs, continuing the reader on the CPU for a few dozen steps; the
calibration is then fitted on the reviewed triples read again by the tuned reader (commands/review.py).

The adapted reader is a folder like the shipped one (weights, card, glosses, calibration) plus
`learned.json`, saying what it learned; `--reader FOLDER` runs it and a run pins it by content.

`review_loop` measures what learning buys, k-fold: the triples of one fold are scored, the reviewed ones
drawn from the others, so no triple scored was reviewed.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.errors import DataError
from agentkgv.eval.metrics import expected_calibration_error, score
from agentkgv.eval.review import Review
from agentkgv.reader_agent.absence import DEFAULT_COVERAGE, AbsenceIsUnknown
from agentkgv.reader_agent.calibration import Calibration, Evidence, Outcome
from agentkgv.reader_agent.reader_folder import CARD_FILE, GLOSSES_FILE, RELATIONS_FILE, WEIGHTS_FILE
from agentkgv.reader_agent.trace import reading_of
from agentkgv.train.calibrate import fit_calibration
from agentkgv.train.reader_data import ReaderPair

LEARNED_FILE = "learned.json"
# Fewer reviewed triples than this say too little to move a calibration.
MIN_REVIEWS = 20
# Reviewed triples the documents said nothing about, at least, to learn the prior from.
MIN_PRIOR_REVIEWS = 10
# From this many reviewed triples on, the reader's weights are tuned on their passages as well.
TUNE_AT = 50


class NothingToLearn(DataError):
    """Reviews the reader can learn nothing from (none of them it judged, or none its reading decided): a link, a
    label or a triple the graph decided. The graph prior may still learn from them."""


@dataclass(frozen=True)
class Learned:
    """What a review taught: how many triples, and the verdicts on them before and after (in-sample)."""

    reviews: int
    true_reviews: int
    macro_f1_before: float
    macro_f1_after: float
    changed: int  # reviewed triples whose verdict the new calibration changes
    calibration_before: dict
    calibration_after: dict
    tuned_pairs: int = 0  # passages the reader's weights were tuned on; 0: the weights are the source's


def reviewed_verdicts(verdicts: dict[str, Verdict], reviews: Sequence[Review], review_path: Path) -> list[Verdict]:
    """The verdict behind each review, in order; every review must name a verdict the reader judged, and
    there must be enough of them, with both labels."""
    reviewed = []
    for review in reviews:
        verdict = verdicts.get(review.id)
        if verdict is None:
            raise DataError(review_path, f"triple {review.id} is not in the verdicts file", review.line, "id")
        if reading_of(verdict) is None and verdict.outcome is None:
            raise DataError(review_path, f"triple {review.id} was not judged by the reader ({verdict.method}): "
                                         "only the reader's verdicts can be learned from", review.line, "id")
        reviewed.append(verdict)
    true = sum(r.label for r in reviews)
    if len(reviews) < MIN_REVIEWS or true in (0, len(reviews)):
        raise NothingToLearn(review_path, f"{len(reviews)} reviewed triples ({true} true): learning needs at least "
                                          f"{MIN_REVIEWS}, with both verdicts among them")
    return reviewed


def learn_calibration(verdicts: dict[str, Verdict], reviews: Sequence[Review], review_path: Path,
                      current: Calibration, evidence: Sequence[Evidence] | None = None,
                      tuned_pairs: int = 0) -> tuple[Calibration, Learned]:
    """Refit `current` on the reviewed triples: on their logged evidence, or on `evidence` (the same
    triples read again by a tuned reader, `tuned_pairs` its tuning pairs)."""
    reviewed = reviewed_verdicts(verdicts, reviews, review_path)
    evidence = list(evidence) if evidence is not None else [reading_of(v) for v in reviewed]
    labels = [r.label for r in reviews]
    # The support calibration learns from what was read and decided by it; a triple the documents said nothing
    # of teaches the prior only (in a real graph most are true, and would teach that no support means true).
    chosen = [i for i, v in enumerate(reviewed) if learnable(v)]
    evidence, gold = [evidence[i] for i in chosen], [labels[i] for i in chosen]
    before = [reviewed[i].verdict is True for i in chosen]
    try:
        fitted = fit_calibration(evidence, gold)
    except ValueError as error:
        raise NothingToLearn(review_path, f"cannot learn from these reviews ({len(chosen)} with a reading that decided "
                                     f"them): {error}") from None
    fitted = Calibration.model_validate({**fitted.model_dump(), "prior": learned_prior(reviewed, labels, current),
                                         "contradiction_ratio": current.contradiction_ratio,
                                         "several_ratio": current.several_ratio, "silence": current.silence})
    after = [fitted.outcome(fitted.probability(e)) is Outcome.TRUE for e in evidence]
    return fitted, Learned(len(reviews), sum(gold), round(score(gold, before).macro_f1, 4),
                           round(score(gold, after).macro_f1, 4), sum(a != b for a, b in zip(after, before)),
                           current.model_dump(), fitted.model_dump(), tuned_pairs)


def learnable(verdict: Verdict) -> bool:
    """Whether a reviewed verdict's reading can refit the support calibration: something was read, and the
    triple was not left without a verdict for what the documents do not say."""
    return reading_of(verdict) is not None and not (verdict.verdict is None
                                                and verdict.outcome == Finding.NOT_ENOUGH_EVIDENCE.value)


def learned_prior(reviewed: Sequence[Verdict], gold: Sequence[bool], current: Calibration) -> float | None:
    """The prior under which the reviewed triples the documents said nothing about come out as true as the
    reviewers found them, on average (their share true smoothed by one true and one false pseudo-review; the
    documents taken to state an even share, `DEFAULT_COVERAGE`), within [0.05, 0.95]; the current prior when
    fewer than `MIN_PRIOR_REVIEWS` of them were reviewed."""
    silent = [(v, label) for v, label in zip(reviewed, gold, strict=True)
              if v.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and reading_of(v) is not None]
    if len(silent) < MIN_PRIOR_REVIEWS:
        return current.prior
    share = (sum(label for _, label in silent) + 1) / (len(silent) + 2)
    ratios = [AbsenceIsUnknown(DEFAULT_COVERAGE).silence_ratio(current, reading_of(v)) for v, _ in silent]

    def mean_p(prior: float) -> float:
        odds = [prior / (1 - prior) * r for r in ratios]
        return sum(o / (1 + o) for o in odds) / len(odds)

    low, high = 0.05, 0.95  # mean_p rises with the prior: bisect for the share
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (middle, high) if mean_p(middle) < share else (low, middle)
    return round((low + high) / 2, 4)


def review_pairs(reviewed: Sequence[Verdict], labels: Sequence[bool]) -> list[ReaderPair]:
    """Reader pairs from reviewed verdicts: a triple reviewed false makes each passage cited for it a
    negative (none of them states it, or the reviewer would have said true); one reviewed true makes its
    best-supported cited passage (cited first) a positive. That passage may state the triple only in part:
    the reviewer judged the triple, not the passage."""
    pairs = []
    for verdict, label in zip(reviewed, labels, strict=True):
        cited = verdict.evidence[:1] if label else verdict.evidence
        pairs += [ReaderPair(verdict.triple, e.text, e.title, float(label), "review", "review") for e in cited]
    return pairs


def save_learned(source: Path, target: Path, calibration: Calibration, learned: Learned) -> Path:
    """The adapted reader: the weights, card, relation glosses and relation counts of `source` (the reader it
    started from, or the tuned one), the new calibration, what it learned."""
    target.mkdir(parents=True, exist_ok=True)
    if source.resolve() != target.resolve():  # learning again into the same reader keeps its weights
        for name in (WEIGHTS_FILE, CARD_FILE, GLOSSES_FILE, RELATIONS_FILE):
            if (source / name).exists():  # a reader trained without glosses has none
                shutil.copyfile(source / name, target / name)
    calibration.save(target)
    (target / LEARNED_FILE).write_text(json.dumps(asdict(learned), indent=1) + "\n")
    return target


@dataclass(frozen=True)
class ReviewLoopRow:
    reviewed: int
    folds: int
    scored: int  # triples scored per fold (none of them reviewed)
    macro_f1_before: float  # mean over folds
    macro_f1_after: float
    undecided_before: float  # share sent to review
    undecided_after: float
    ece_before: float  # of the logged P(true), mean over folds
    ece_after: float  # of the refitted calibration's P(true) from the support, which the verdicts after are read from
    macro_f1_tuned: float | None = None  # the reader's weights tuned on the reviews too; None: not measured

    HEADERS = ["Reviewed", "Folds", "Scored per fold", "Macro-F1 before", "Macro-F1 after", "To review before",
               "To review after", "ECE before", "ECE after", "Macro-F1, reader tuned"]

    def cells(self) -> list[str]:
        return [str(self.reviewed), str(self.folds), str(self.scored), f"{self.macro_f1_before:.3f}",
                f"{self.macro_f1_after:.3f}", f"{self.undecided_before:.1%}", f"{self.undecided_after:.1%}",
                f"{self.ece_before:.3f}", f"{self.ece_after:.3f}",
                "—" if self.macro_f1_tuned is None else f"{self.macro_f1_tuned:.3f}"]


def review_folds(verdicts: Sequence[Verdict], size: int, folds: int = 4,
                 seed: int = 13) -> list[tuple[list[Verdict], list[Verdict]]]:
    """(reviewed, scored) per fold: each fold's triples are scored once, and `size` reviewed triples are
    drawn at random from the other folds, so no triple scored was reviewed."""
    judged = [v for v in verdicts if reading_of(v) is not None and v.gold is not None]
    # Reviewed triples are drawn at random here; a real queue holds the least sure ones, which may teach
    # the thresholds more and the rest less.
    if len(judged) < folds * 2:
        raise ValueError(f"{len(judged)} reader verdicts with gold labels: too few for {folds} folds")
    order = sorted(judged, key=lambda v: v.id)
    random.Random(seed).shuffle(order)
    parts = [order[i::folds] for i in range(folds)]
    splits = []
    for k, scored in enumerate(parts):
        pool = [v for j, part in enumerate(parts) if j != k for v in part]
        splits.append((random.Random(seed + k).sample(pool, min(size, len(pool))), scored))
    return splits


def review_loop(verdicts: Sequence[Verdict], sizes: Sequence[int], folds: int = 4, seed: int = 13) -> list[ReviewLoopRow]:
    """Macro-F1 on each fold's triples as logged, and after a calibration learned from `size` reviewed
    triples drawn at random from the other folds (`review_folds`); the mean over folds, per size."""
    rows = []
    for size in sizes:
        before, after, und_before, und_after, ece_before, ece_after = [], [], [], [], [], []
        splits = review_folds(verdicts, size, folds, seed)
        for reviewed, scored in splits:
            fitted = fit_calibration([reading_of(v) for v in reviewed], [v.gold for v in reviewed])
            gold = [v.gold for v in scored]
            probabilities = [fitted.probability(reading_of(v)) for v in scored]
            outcomes = [fitted.outcome(p) for p in probabilities]
            before.append(score(gold, [v.verdict is True for v in scored]).macro_f1)
            after.append(score(gold, [o is Outcome.TRUE for o in outcomes]).macro_f1)
            und_before.append(sum(v.undecided for v in scored) / len(scored))
            und_after.append(sum(o is Outcome.UNDECIDED for o in outcomes) / len(scored))
            ece_before.append(expected_calibration_error([v.p_true for v in scored], gold))
            ece_after.append(expected_calibration_error(probabilities, gold))
        rows.append(ReviewLoopRow(size, folds, len(splits[0][1]), round(_mean(before), 4), round(_mean(after), 4),
                                  round(_mean(und_before), 4), round(_mean(und_after), 4),
                                  round(_mean(ece_before), 4), round(_mean(ece_after), 4)))
    return rows


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)
