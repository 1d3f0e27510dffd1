"""Fit the reader's verdict calibration on held-out training triples (agent/calibration.py says what it is).

Platt scaling (scikit-learn's logistic regression on the one feature) of the best support logit each triple
reached with its full search budget; `true_at` is the P(true) that maximises macro-F1 on these triples, and
`false_at` the highest P below it under which the "false" verdicts are still right `false_precision` of the
time: between the two the triple is "not enough evidence" and goes to review.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from agentkgv.agent.calibration import Calibration
from agentkgv.eval.metrics import expected_calibration_error, score


def _finite(supports: Sequence[float]) -> np.ndarray:
    """-inf (no passage read) as a logit below every one read."""
    values = np.asarray(supports, dtype=np.float64)
    floor = values[np.isfinite(values)].min() - 1.0 if np.isfinite(values).any() else -10.0
    return np.where(np.isfinite(values), values, floor)


def fit_calibration(supports: Sequence[float], gold: Sequence[bool], false_precision: float = 0.9) -> Calibration:
    from sklearn.linear_model import LogisticRegression

    if len(set(gold)) < 2:
        raise ValueError("calibration needs held-out triples of both labels")
    x = _finite(supports).reshape(-1, 1)
    platt = LogisticRegression(C=1e4).fit(x, np.asarray(gold, dtype=int))
    slope, intercept = float(platt.coef_[0, 0]), float(platt.intercept_[0])
    if slope <= 0:
        raise ValueError(f"the reader's support does not rank true above false on held-out triples (slope {slope:.3f})")
    draft = Calibration(slope=slope, intercept=intercept, true_at=0.5, false_at=0.5)
    probabilities = [draft.probability(float(v)) for v in x[:, 0]]
    candidates = sorted(set(round(p, 4) for p in probabilities if 0 < p < 1))
    true_at = max(candidates, key=lambda t: (score(gold, [p >= t for p in probabilities]).macro_f1, -abs(t - 0.5)))
    false_at = _false_at(probabilities, gold, true_at, false_precision)
    f1 = score(gold, [p >= true_at for p in probabilities]).macro_f1
    return Calibration(slope=slope, intercept=intercept, true_at=true_at, false_at=false_at, fitted_on={
        "held_out_triples": len(gold), "macro_f1": round(f1, 4),
        "ece": round(expected_calibration_error(probabilities, gold), 4),
        "undecided_share": round(sum(false_at <= p < true_at for p in probabilities) / len(gold), 4)})


def _false_at(probabilities: list[float], gold: Sequence[bool], true_at: float, precision: float) -> float:
    """The highest threshold at or below `true_at` whose "false" verdicts (P below it) are right at least
    `precision` of the time; the lowest probability seen if none is."""
    ranked = sorted(zip(probabilities, gold))
    best, wrong = None, 0
    for count, (p, g) in enumerate(ranked, start=1):
        wrong += g
        if p >= true_at:
            break
        nxt = ranked[count][0] if count < len(ranked) else true_at
        if (count - wrong) / count >= precision and nxt > p:
            best = min(nxt, true_at)
    return best if best is not None else max(min(ranked[0][0], true_at), math.ulp(0.0))
