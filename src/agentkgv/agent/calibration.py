"""From the reader's best support logit to a calibrated P(true) and one of three outcomes.

P(true) is Platt scaling of the best logit over every passage the agent read (monotone: more support never
lowers it). At or above `true_at` the triple is true; below `false_at` it is false; in between the
evidence does not decide it ("not enough evidence"), and the triple goes to the review queue. All three
numbers are fitted on held-out training triples by `agentkgv train-reader` (train/calibrate.py), never on a
test split, and ship beside the reader.
"""

from __future__ import annotations

import json
import math
from enum import Enum
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from agentkgv.data.errors import DataError
from agentkgv.data.settings import Settings, invalid

CALIBRATION_FILE = "calibration.json"


class Outcome(str, Enum):
    TRUE = "true"
    FALSE = "false"
    UNDECIDED = "not enough evidence"


class Calibration(Settings):
    slope: float = Field(gt=0)
    intercept: float
    true_at: float = Field(gt=0, lt=1)
    false_at: float = Field(gt=0, lt=1)
    # How it was fitted: held-out triples, their macro-F1 at `true_at`, the expected calibration error.
    fitted_on: dict = Field(default_factory=dict)

    @model_validator(mode="after")
    def _ordered(self) -> Calibration:
        if self.false_at > self.true_at:
            raise ValueError(f"false_at {self.false_at} is above true_at {self.true_at}")
        return self

    def probability(self, logit: float) -> float:
        """P(true) for the best support logit; -inf (nothing read) gives 0."""
        if logit == -math.inf:
            return 0.0
        z = self.slope * logit + self.intercept
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def outcome(self, probability: float) -> Outcome:
        if probability >= self.true_at:
            return Outcome.TRUE
        return Outcome.FALSE if probability < self.false_at else Outcome.UNDECIDED

    def settles(self, logit: float) -> bool:
        """Whether this much support already makes the triple true: more search could only raise it."""
        return self.probability(logit) >= self.true_at

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
