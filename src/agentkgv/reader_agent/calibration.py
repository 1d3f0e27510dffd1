"""From what the reader found to a calibrated P(true) and one of three outcomes.

The evidence for a triple is three numbers over every passage the agent read (`Evidence`): the reader's
best support logit, whether a passage names both the subject and the object, and the best support among
those that do. P(true) is a logistic model over them (Platt scaling with the name match and the best
support among the passages naming both as further inputs), each weight non-negative, so more passages never lower it. At or above `true_at` the triple is true;
below `false_at` it is false; in between the evidence decides neither way ("not enough evidence") and the
triple goes to the review queue. Weights and thresholds are fitted on held-out training triples by
`agentkgv train-reader` (train/calibrate.py), never on a test split, and ship beside the reader.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from agentkgv.data.errors import DataError
from agentkgv.data.settings import Settings, invalid

CALIBRATION_FILE = "calibration.json"
# The logit that stands for "no such passage was read": below anything the reader gives.
NO_SUPPORT = -10.0


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the passages a triple's agent read add up to."""

    support: float = NO_SUPPORT  # the reader's best logit over every passage read
    named_both: bool = False  # a passage read names the subject and the object (label or alias)
    named_support: float = NO_SUPPORT  # the best logit among the passages that name both
    # A passage read names the subject. Not a calibration input (a passage about the subject that never names
    # the object says nothing of the triple); the stop policy's: a search that found no passage about the
    # subject leaves the one a rewrite by the subject's name may find.
    named_subject: bool = False

    def add(self, logit: float, names_both: bool, names_subject: bool) -> Evidence:
        return Evidence(max(self.support, logit), self.named_both or names_both,
                        max(self.named_support, logit) if names_both else self.named_support,
                        self.named_subject or names_subject)

    def features(self) -> tuple[float, float, float]:
        return (self.support, float(self.named_both), self.named_support)


class Outcome(str, Enum):
    TRUE = "true"
    FALSE = "false"
    UNDECIDED = "not enough evidence"


class Calibration(Settings):
    # Weights of Evidence.features(), in order, and the intercept.
    weights: tuple[float, float, float]
    intercept: float
    true_at: float = Field(gt=0, lt=1)
    false_at: float = Field(gt=0, lt=1)
    # How it was fitted: held-out triples, their macro-F1 at `true_at`, the expected calibration error.
    fitted_on: dict = Field(default_factory=dict)
    # P(true) of a triple nothing read supports or contradicts, where a run counts absence as unknown: the
    # share of true triples among those a review judged (`agentkgv learn`); None: none learned.
    prior: float | None = Field(None, ge=0.05, le=0.95)
    # How much a contradiction moves the odds of a triple no passage supports: P(contradicted | true) over
    # P(contradicted | false), among such triples, fitted on held-out training triples with half their evidence
    # withheld (experiments/contradiction_ratio.py); None: not fitted.
    contradiction_ratio: float | None = Field(None, gt=0, lt=1)
    # The same for another value of a relation with several values stated where nothing supports the object
    # (reader_agent/contradiction.py), fitted alike among the triples of such relations; None: not fitted.
    several_ratio: float | None = Field(None, gt=0, lt=1)
    # How often a triple is left with nothing read supporting or contradicting it, by whether a passage naming
    # its subject was read (first row: none was; second: one was): the rate among true triples whose evidence
    # the documents lack, among true ones whose evidence they hold, among false ones where the documents lack
    # the true value's evidence, and where they hold it. Fitted on held-out training triples with half their
    # evidence withheld (experiments/contradiction_ratio.py); None: not fitted.
    silence: tuple[tuple[float, float, float, float], tuple[float, float, float, float]] | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Calibration:
        if not all(math.isfinite(x) for x in (*self.weights, self.intercept)):
            raise ValueError(f"weights {self.weights} and intercept {self.intercept} must be finite")
        if min(self.weights) < 0 or self.weights[0] <= 0:
            raise ValueError(f"weights {self.weights} must be non-negative, the reader's positive")
        if self.false_at > self.true_at:
            raise ValueError(f"false_at {self.false_at} is above true_at {self.true_at}")
        return self

    def probability(self, evidence: Evidence) -> float:
        z = self.intercept + sum(w * x for w, x in zip(self.weights, evidence.features()))
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def outcome(self, probability: float) -> Outcome:
        if probability >= self.true_at:
            return Outcome.TRUE
        return Outcome.FALSE if probability < self.false_at else Outcome.UNDECIDED

    def settles(self, evidence: Evidence) -> bool:
        """Whether this evidence already makes the triple true: more passages could only raise P(true)."""
        return self.probability(evidence) >= self.true_at

    def save(self, folder: Path) -> None:
        (folder / CALIBRATION_FILE).write_text(json.dumps(self.model_dump(), indent=1) + "\n")

    @classmethod
    def read(cls, folder: Path) -> Calibration:
        path = folder / CALIBRATION_FILE
        if not path.exists():
            raise DataError(path, "no calibration here: `agentkgv train-reader` writes it after training")
        try:
            return cls.model_validate(json.loads(path.read_text()))
        except ValidationError as error:
            raise invalid(path, error) from None
        except json.JSONDecodeError as error:
            raise DataError(path, f"not JSON: {error.msg}", line=error.lineno) from None
