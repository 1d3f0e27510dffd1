"""Fit the verdict calibration on held-out training triples (reader_agent/calibration.py says what it is).

A logistic regression (scikit-learn) of the gold label on each triple's evidence features, read with the
full search budget; a feature whose weight comes out negative is dropped and the rest refitted, so P(true)
never falls as passages are added. `true_at` is the P(true) that maximises macro-F1 on these triples, and
`false_at` the highest P below it under which the "false" verdicts are still right `false_precision` of the
time: between the two the triple is "not enough evidence" and goes to review.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from agentkgv.core.verdict import Finding, Verdict
from agentkgv.eval.metrics import expected_calibration_error, score
from agentkgv.reader_agent.calibration import Calibration, Evidence
from agentkgv.reader_agent.trace import reading_of


def fit_calibration(evidence: Sequence[Evidence], gold: Sequence[bool], false_precision: float = 0.9,
                    features: tuple[int, ...] = (0, 1, 2)) -> Calibration:
    """`features`: which of Evidence.features() the model may use; 0, the reader's support, is required (0
    alone is Platt scaling of the support)."""
    if 0 not in features:
        raise ValueError("the reader's support (feature 0) must be among the features")
    from sklearn.linear_model import LogisticRegression

    if len(set(gold)) < 2:
        raise ValueError("calibration needs held-out triples of both labels")
    x = np.array([e.features() for e in evidence], dtype=np.float64)
    y = np.asarray(gold, dtype=int)
    used = list(features)
    while True:
        model = LogisticRegression(C=1e4, max_iter=1000).fit(x[:, used], y)
        weights = dict(zip(used, model.coef_[0]))
        negative = [i for i, w in weights.items() if w < 0 and i != 0]
        if not negative:
            break
        used.remove(negative[0])
    if weights.get(0, 0.0) <= 0:
        raise ValueError(f"the reader's support does not rank true above false on held-out triples ({weights})")
    full = tuple(float(weights.get(i, 0.0)) for i in range(3))
    draft = Calibration(weights=full, intercept=float(model.intercept_[0]), true_at=0.5, false_at=0.5)
    probabilities = [draft.probability(e) for e in evidence]
    candidates = sorted({t for t in (round(p, 4) for p in probabilities) if 0 < t < 1})
    if not candidates:
        raise ValueError("every held-out triple has P(true) of 0 or 1: nothing to place a threshold between")
    true_at = max(candidates, key=lambda t: (score(gold, [p >= t for p in probabilities]).macro_f1, -abs(t - 0.5)))
    false_at = _false_at(probabilities, gold, true_at, false_precision)
    f1 = score(gold, [p >= true_at for p in probabilities]).macro_f1
    return Calibration.model_validate({**draft.model_dump(), "true_at": true_at, "false_at": false_at, "fitted_on": {
        "held_out_triples": len(gold), "macro_f1": round(f1, 4),
        "ece": round(expected_calibration_error(probabilities, gold), 4),
        "undecided_share": round(sum(false_at <= p < true_at for p in probabilities) / len(gold), 4)}})


def fit_contradiction_ratio(verdicts: Sequence[Verdict]) -> float | None:
    """P(contradicted | true) / P(contradicted | false) among the verdicts no passage supported (each
    count with half a pseudo-count, so no contradiction is ever proof); None without both labels."""
    unsupported = [v for v in verdicts if v.gold is not None and not v.listed  # a list weighs as half of it
                   and v.outcome in (Finding.CONTRADICTED.value, Finding.NOT_ENOUGH_EVIDENCE.value)]
    true = [v for v in unsupported if v.gold]
    false = [v for v in unsupported if not v.gold]
    if not true or not false:
        return None
    rate = lambda group: (sum(v.outcome == Finding.CONTRADICTED.value for v in group) + 0.5) / (len(group) + 1)  # noqa: E731
    return round(rate(true) / rate(false), 4)


def fit_silence(lacking: Sequence[Verdict], holding: Sequence[Verdict]) -> tuple[tuple[float, ...], ...]:
    """`Calibration.silence` from the verdicts of triples whose evidence the documents lacked (`lacking`) and
    held (`holding`): for no passage naming the subject read, then one read, the share of true and of false
    triples of each that nothing read supported or contradicted (half a pseudo-count each)."""
    def rate(group: Sequence[Verdict], gold: bool, subject: bool) -> float:
        mine = [v for v in group if v.gold is gold]
        silent = sum(v.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and reading_of(v) is not None
                     and reading_of(v).named_subject == subject for v in mine)
        return round((silent + 0.5) / (len(mine) + 1), 4)

    return tuple((rate(lacking, True, s), rate(holding, True, s), rate(lacking, False, s), rate(holding, False, s))
                 for s in (False, True))


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
