"""What a verifier finds in a real graph's labelled sample: the closed-world macro-F1 the benchmark scores,
and, open world, the wrong triples it flags, how many of its flags are right, the true triples it flags,
how many triples it leaves undecided, and whether its P(true) ranks and calibrates (AUC, ECE)."""

from __future__ import annotations

from dataclasses import dataclass

from agentkgv.core.verdict import Verdict
from agentkgv.eval.confidence import p_true
from agentkgv.eval.metrics import error_finding, expected_calibration_error, ranking_auc, score
from agentkgv.eval.report import called_false


@dataclass(frozen=True)
class RealGraphRow:
    HEADERS = ("Method", "Triples", "Wrong", "Macro-F1 (closed)", "Errors found", "Precision of false",
               "True called false", "Not enough evidence", "AUC of P(true)", "ECE")

    method: str
    triples: int
    wrong: int
    macro_f1: float
    error_recall: float
    flagged: int
    false_precision: float
    true_called_false: float
    undecided: int
    auc: float
    ece: float

    def cells(self) -> list[str]:
        found = round(self.error_recall * self.wrong)
        return [self.method, str(self.triples), str(self.wrong), f"{self.macro_f1:.3f}",
                f"{found} ({self.error_recall:.1%})", f"{self.false_precision:.2f} of {self.flagged}",
                f"{self.true_called_false:.1%}", str(self.undecided), f"{self.auc:.3f}", f"{self.ece:.3f}"]


def real_graph_row(method: str, verdicts: list[Verdict]) -> RealGraphRow:
    scored = [v for v in verdicts if v.gold is not None]
    gold = [bool(v.gold) for v in scored]
    errors = error_finding(gold, [called_false(v) for v in scored])
    probabilities = [p_true(v) for v in scored]
    return RealGraphRow(method, len(scored), errors.wrong, score(gold, [v.verdict for v in scored]).macro_f1,
                        errors.error_recall, errors.flagged, errors.false_precision, errors.true_called_false,
                        sum(v.verdict is None or v.outcome == "not enough evidence" for v in scored),
                        ranking_auc(probabilities, gold), expected_calibration_error(probabilities, gold))
