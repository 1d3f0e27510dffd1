"""What a triple no passage supports or contradicts comes to: the one place a run says whether its corpus is
complete.

On the benchmark's corpus every true triple has its evidence, so a triple no search found support for is
false, with the confidence the calibration fitted there (`AbsenceIsFalse`). In a user's documents a missing
support mostly means the documents do not say (a label, a date, a fact nobody wrote down): such a triple
gets no verdict, "not enough evidence", and P(true) is the prior the user set or `learn` fitted, moved by how
much likelier such a reading is for a false triple, with the documents stating `coverage` of the true ones:
never a confident false (`AbsenceIsUnknown`).
"""

from __future__ import annotations

from typing import Protocol

from agentkgv.reader_agent.calibration import Calibration, Evidence, Outcome


class Absence(Protocol):
    name: str

    def unsupported(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        """The verdict and P(true) of a triple nothing read supports or contradicts."""
        ...

    def contradicted(self, calibration: Calibration, evidence: Evidence, p_other: float, prior: float) -> float:
        """P(true) of a triple a passage contradicts, where the reader gave the other value `p_other`."""
        ...

    def other_of_several(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        """The verdict and P(true) of a triple nothing supports where a passage states another value of its relation,
        which takes several: evidence against that excludes nothing."""
        ...

    def unlisted(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        """The verdict and P(true) of a triple nothing supports whose object a page's list of the relation's values
        leaves out."""
        ...


class AbsenceIsFalse:
    """The corpus holds the evidence of every true triple: the calibration fitted on such a corpus decides."""

    name = "false"

    def unsupported(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        p_support = calibration.probability(evidence)
        outcome = calibration.outcome(p_support)
        return {Outcome.TRUE: True, Outcome.FALSE: False, Outcome.UNDECIDED: None}[outcome], p_support

    def contradicted(self, calibration: Calibration, evidence: Evidence, p_other: float, prior: float) -> float:
        # The calibration was fitted on this kind of corpus, where a contradicted triple is an unsupported one.
        return calibration.probability(evidence)

    def other_of_several(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        return False, calibration.probability(evidence)  # unsupported, so false, the other value cited as why

    def unlisted(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        return self.unsupported(calibration, evidence, prior)  # silence counts already


class AbsenceIsUnknown:
    """The documents need not state every true triple: silence is no evidence."""

    name = "unknown"

    def __init__(self, coverage: float):
        self.coverage = coverage

    def unsupported(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        return None, self._posterior(calibration, evidence, prior, 1.0)

    def contradicted(self, calibration: Calibration, evidence: Evidence, p_other: float, prior: float) -> float:
        if calibration.contradiction_ratio is None:
            # Not fitted: as likely false as the other value is likely stated, and no likelier true than the prior.
            return min(prior, 1.0 - p_other)
        return self._posterior(calibration, evidence, prior, calibration.contradiction_ratio)

    def other_of_several(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        ratio = calibration.several_ratio
        if ratio is None and calibration.contradiction_ratio is not None:
            ratio = calibration.contradiction_ratio ** UNLISTED_WEIGHT  # not fitted: weighed as a list
        if ratio is None:
            return None, self._posterior(calibration, evidence, prior, 1.0)  # nothing fitted: it decides nothing
        p = self._posterior(calibration, evidence, prior, ratio)
        # It may leave the triple likelier true than not (a high prior, little silence): a person decides.
        return (False if p < 0.5 else None), p

    def unlisted(self, calibration: Calibration, evidence: Evidence, prior: float) -> tuple[bool | None, float]:
        ratio = calibration.contradiction_ratio
        # Not fitted: weighed as silence alone.
        return None, self._posterior(calibration, evidence, prior, 1.0 if ratio is None else ratio ** UNLISTED_WEIGHT)

    def silence_ratio(self, calibration: Calibration, evidence: Evidence) -> float:
        """How much likelier the reading is for a true triple than for a false one, where the documents state
        `coverage` of the true triples (and of the true values false ones stand in for)."""
        c = self.coverage
        if calibration.silence is not None:
            # Fitted: a triple whose subject's passages were read and say nothing of it is likelier false than
            # one whose subject the documents never name (on held-out training triples 18% true against 48%).
            true_lacking, true_holding, false_lacking, false_holding = calibration.silence[int(evidence.named_subject)]
            return ((1 - c) * true_lacking + c * true_holding) / ((1 - c) * false_lacking + c * false_holding)
        # The calibration was fitted where every true triple has its evidence and half the triples are true, so
        # its odds are the likelihood ratio of what was read; a true triple the documents do not state reads like
        # a false one: coverage * LR + (1 - coverage), never under 1 - coverage.
        p_support = calibration.probability(evidence)
        return c * p_support / (1.0 - p_support) + (1.0 - c)

    def _posterior(self, calibration: Calibration, evidence: Evidence, prior: float, contradiction: float) -> float:
        odds = prior / (1.0 - prior) * self.silence_ratio(calibration, evidence) * contradiction
        return odds / (1.0 + odds)


# A list that leaves the object out counts this share of a contradiction's weight (its log likelihood ratio) against
# the triple, and decides nothing: a page may list only what its author thought the main values (a film's leads, a
# player's clubs of note).
UNLISTED_WEIGHT = 0.5
# P(true) of a triple the documents say nothing about, where neither the run nor the reader's calibration
# (`learn` fits one from reviews) gives a prior: nothing is known either way.
DEFAULT_PRIOR = 0.5
# The share of true triples a user's documents state, where the run does not say: unknown, so even.
DEFAULT_COVERAGE = 0.5


def absence(name: str, coverage: float) -> Absence:
    return AbsenceIsFalse() if name == "false" else AbsenceIsUnknown(coverage)
