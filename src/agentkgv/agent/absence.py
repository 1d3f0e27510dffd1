"""What a triple no passage supports or contradicts comes to: the one place a run says whether its corpus is
complete.

On the benchmark's corpus every true triple has its evidence, so a triple no search found support for is
false, with the confidence the calibration fitted there (`AbsenceIsFalse`). In a user's documents a missing
support mostly means the documents do not say (a label, a date, a fact nobody wrote down): such a triple
gets no verdict, "not enough evidence", and P(true) is the prior the user set or `learn` fitted, lowered by
how little support was read as far as the documents' coverage allows: never a confident false
(`AbsenceIsUnknown`).
"""

from __future__ import annotations

from typing import Protocol

from agentkgv.agent.calibration import Calibration, Outcome


class Absence(Protocol):
    name: str

    def unsupported(self, calibration: Calibration, p_support: float, prior: float) -> tuple[bool | None, float]:
        """The verdict and P(true) of a triple nothing read supports or contradicts."""
        ...

    def contradicted(self, calibration: Calibration, p_support: float, p_other: float, prior: float) -> float:
        """P(true) of a triple a passage contradicts, where the reader gave the other value `p_other`."""
        ...


class AbsenceIsFalse:
    """The corpus holds the evidence of every true triple: the calibration fitted on such a corpus decides."""

    name = "false"

    def unsupported(self, calibration: Calibration, p_support: float, prior: float) -> tuple[bool | None, float]:
        outcome = calibration.outcome(p_support)
        return {Outcome.TRUE: True, Outcome.FALSE: False, Outcome.UNDECIDED: None}[outcome], p_support

    def contradicted(self, calibration: Calibration, p_support: float, p_other: float, prior: float) -> float:
        # The calibration was fitted on this kind of corpus, where a contradicted triple is an unsupported one.
        return p_support


class AbsenceIsUnknown:
    """The documents need not state every true triple: silence is no evidence."""

    name = "unknown"

    def __init__(self, coverage: float):
        self.coverage = coverage

    def unsupported(self, calibration: Calibration, p_support: float, prior: float) -> tuple[bool | None, float]:
        return None, self._posterior(p_support, prior, 1.0)

    def contradicted(self, calibration: Calibration, p_support: float, p_other: float, prior: float) -> float:
        if calibration.contradiction_ratio is None:
            # Not fitted: as likely false as the other value is likely stated, and no likelier true than the prior.
            return min(prior, 1.0 - p_other)
        return self._posterior(p_support, prior, calibration.contradiction_ratio)

    def _posterior(self, p_support: float, prior: float, contradiction: float) -> float:
        # The calibration was fitted where every true triple has its evidence and half the triples are true, so
        # its odds are the likelihood ratio of what was read, true against false. Where only `coverage` of the
        # true triples are stated, a true triple reads like a false one otherwise: the ratio is
        # coverage * LR + (1 - coverage), never under 1 - coverage, so silence never makes a confident false.
        ratio = self.coverage * p_support / (1.0 - p_support) + (1.0 - self.coverage)
        odds = prior / (1.0 - prior) * ratio * contradiction
        return odds / (1.0 + odds)


def absence(name: str, coverage: float) -> Absence:
    return AbsenceIsFalse() if name == "false" else AbsenceIsUnknown(coverage)
# P(true) of a triple the documents say nothing about, where neither the run nor the reader's calibration
# (`learn` fits one from reviews) gives a prior: nothing is known either way.
DEFAULT_PRIOR = 0.5
