"""How far a run's confidence can be trusted, and where its errors lie: expected calibration error and the
reliability diagram of P(true), the share of triples sent to review and the accuracy on the rest, and
FactBench-docs accuracy per kind of false fact.

Read from eval run logs (`<cache>/runs/<run>/<entrant>.<split>.jsonl`), so any finished run can be scored.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from agentkgv.core.verdict import Verdict
from agentkgv.data.factbench import factbench_kind
from agentkgv.eval.html_report import needs_review
from agentkgv.eval.metrics import expected_calibration_error, reliability_bins, score


def p_true(verdict: Verdict) -> float:
    """The verdict's probability that the triple is true: the calibrated one where the method has it, else
    read off its confidence in the verdict it gave (0.5 for no verdict)."""
    if verdict.p_true is not None:
        return verdict.p_true
    if verdict.verdict is None or verdict.confidence is None:
        return 0.5
    return verdict.confidence if verdict.verdict else 1.0 - verdict.confidence


# The review threshold of `agentkgv report`'s default.
REVIEW_BELOW = 0.7


@dataclass(frozen=True)
class ReviewTally:
    """What the review queue holds of a set of verdicts: the triples it lists (no verdict, or confidence under
    `REVIEW_BELOW`), the wrong verdicts among all, and how many of those it lists."""

    queued: int
    wrong: int
    wrong_queued: int

    @staticmethod
    def of(verdicts: list[Verdict]) -> ReviewTally:
        wrong = [v for v in verdicts if v.verdict is not None and v.verdict != v.gold]
        return ReviewTally(sum(needs_review(v, REVIEW_BELOW) for v in verdicts), len(wrong),
                           sum(needs_review(v, REVIEW_BELOW) for v in wrong))

    def cells(self, total: int) -> list[str]:
        return [f"{self.queued / max(1, total):.0%}", f"{self.wrong_queued} / {self.wrong}"]


@dataclass(frozen=True)
class ConfidenceRow:
    HEADERS = ("Method", "Split", "Triples", "ECE", "To review", "Accuracy on the rest", "Accuracy, all")

    method: str
    split: str
    count: int
    ece: float
    review_share: float
    rest_accuracy: float
    accuracy: float

    def cells(self) -> list[str]:
        return [self.method, self.split, str(self.count), f"{self.ece:.3f}", f"{self.review_share:.1%}",
                f"{self.rest_accuracy:.3f}", f"{self.accuracy:.3f}"]


def confidence_row(method: str, split: str, verdicts: list[Verdict], review_below: float) -> ConfidenceRow:
    scored = [v for v in verdicts if v.gold is not None]
    gold = [bool(v.gold) for v in scored]
    rest = [v for v in scored if not needs_review(v, review_below)]
    return ConfidenceRow(method, split, len(scored), expected_calibration_error([p_true(v) for v in scored], gold),
                         (len(scored) - len(rest)) / max(1, len(scored)),
                         sum(v.correct for v in rest) / max(1, len(rest)),
                         score(gold, [v.verdict for v in scored]).accuracy if scored else 0.0)


@dataclass(frozen=True)
class KindRow:
    HEADERS = ("Method", "Kind", "Facts", "Correct", "Accuracy")

    method: str
    kind: str
    count: int
    correct: int

    def cells(self) -> list[str]:
        return [self.method, self.kind, str(self.count), str(self.correct), f"{self.correct / max(1, self.count):.3f}"]


def kind_rows(method: str, verdicts: list[Verdict]) -> list[KindRow]:
    """FactBench accuracy per kind of fact: the true ones, and each way the false ones were made."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for verdict in verdicts:
        kind = factbench_kind(verdict.id)
        counts[kind][0] += 1
        counts[kind][1] += verdict.correct or (verdict.gold is False and verdict.verdict is None)
    return [KindRow(method, kind, n, c) for kind, (n, c) in sorted(counts.items())]


def plot_reliability(curves: dict[str, list[Verdict]], path: Path) -> None:
    """One reliability curve per (method, split) label: mean P(true) against the share true, per bin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5, 5))
    axis.plot([0, 1], [0, 1], color="grey", linestyle="--", label="perfect")
    for label, verdicts in curves.items():
        scored = [v for v in verdicts if v.gold is not None]
        bins = reliability_bins([p_true(v) for v in scored], [bool(v.gold) for v in scored])
        axis.plot([b.mean_probability for b in bins], [b.share_true for b in bins], marker="o", label=label)
    axis.set_xlabel("P(true) given")
    axis.set_ylabel("share of triples true")
    axis.set_title("Reliability")
    axis.legend(fontsize=7)
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
