"""The benchmark's metrics as pure functions (paper section 4.1).

Positive F1 and negative F1 are the per-class F1 of the true and false labels, macro-F1 their mean.
A prediction of None (the model produced no parseable verdict) is scored as negative, as in the paper.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scores:
    positive_f1: float
    negative_f1: float
    macro_f1: float
    accuracy: float
    count: int


def _f1(gold: Sequence[bool], predicted: Sequence[bool], positive: bool) -> float:
    tp = sum(g == positive and p == positive for g, p in zip(gold, predicted))
    fp = sum(g != positive and p == positive for g, p in zip(gold, predicted))
    fn = sum(g == positive and p != positive for g, p in zip(gold, predicted))
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def score(gold: Sequence[bool], predicted: Sequence[bool | None]) -> Scores:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    as_bool = [bool(p) for p in predicted]  # None (unparsable) counts as a negative verdict
    positive = _f1(gold, as_bool, True)
    negative = _f1(gold, as_bool, False)
    accuracy = sum(g == p for g, p in zip(gold, as_bool)) / len(gold) if gold else 0.0
    return Scores(positive, negative, (positive + negative) / 2, accuracy, len(gold))


@dataclass(frozen=True, slots=True)
class ErrorFinding:
    """How well a verifier finds the wrong triples, scored open world: only a triple it calls false counts as
    flagged ("not enough evidence" flags nothing). What a person cleaning a graph asks of it."""

    error_recall: float  # the share of wrong triples called false
    false_precision: float  # the share of "false" verdicts that are wrong triples (1.0 when none is called false)
    true_called_false: float  # the share of true triples called false
    flagged: int  # triples called false
    wrong: int  # wrong triples


def error_finding(gold: Sequence[bool], called_false: Sequence[bool]) -> ErrorFinding:
    if len(gold) != len(called_false):
        raise ValueError(f"{len(gold)} gold labels but {len(called_false)} verdicts")
    hits = sum(not g and f for g, f in zip(gold, called_false))
    wrong, flagged, right = sum(not g for g in gold), sum(called_false), sum(gold)
    return ErrorFinding(hits / wrong if wrong else 0.0, hits / flagged if flagged else 1.0,
                        sum(g and f for g, f in zip(gold, called_false)) / right if right else 0.0, flagged, wrong)


def bootstrap_macro_f1(gold: Sequence[bool], predicted: Sequence[bool | None], samples: int = 1000,
                       confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of macro-F1, resampling triples with replacement."""
    if not gold:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(gold)
    values = []
    for _ in range(samples):
        rows = [rng.randrange(n) for _ in range(n)]
        values.append(score([gold[i] for i in rows], [predicted[i] for i in rows]).macro_f1)
    values.sort()
    low = values[int((1 - confidence) / 2 * samples)]
    high = values[min(samples - 1, int((1 + confidence) / 2 * samples))]
    return (low, high)


def ranking_auc(probabilities: Sequence[float], gold: Sequence[bool]) -> float:
    """How often P(true) ranks a true triple above a false one (ties count half): the ROC AUC; 0.5 where
    either class is missing."""
    if len(set(gold)) < 2:
        return 0.5
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(list(gold), list(probabilities)))


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_probability: float
    share_true: float


def reliability_bins(probabilities: Sequence[float], gold: Sequence[bool], bins: int = 10) -> list[ReliabilityBin]:
    """Equal-width bins of P(true): how often the triples a verifier gave about p were true (the reliability
    diagram's points); empty bins are left out."""
    rows = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(p, g) for p, g in zip(probabilities, gold) if low <= p < high or (b == bins - 1 and p == 1.0)]
        if inside:
            rows.append(ReliabilityBin(low, high, len(inside), sum(p for p, _ in inside) / len(inside),
                                       sum(g for _, g in inside) / len(inside)))
    return rows


def expected_calibration_error(probabilities: Sequence[float], gold: Sequence[bool], bins: int = 10) -> float:
    """ECE of P(true): the count-weighted gap between mean probability and the share true, over equal bins."""
    if not gold:
        return 0.0
    return sum(r.count * abs(r.mean_probability - r.share_true) for r in reliability_bins(probabilities, gold, bins)) / len(gold)
