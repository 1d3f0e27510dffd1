"""When the reading agent stops searching: the one decision its search policy takes after each search.

Two policies behind one interface, chosen for each reader by `ReadingConfig.stop_policy` (the main reader's)
and `rare_stop_policy` (the reader of rare relations):
- `SettledRule` (the default): stop once the evidence makes the triple true, since more passages could
  only raise P(true); otherwise search until the budget is spent.
- `LearnedStop`: a logistic policy over the state after a search (P(true), whether it settles the triple
  true, the evidence features, whether a passage read names the subject, the searches made), trained in
  two stages by `agentkgv train-search-policy` (train/search_policy.py): cloned from the rule's successful
  trajectories, then trajectory-level GRPO with the paper's reward, correct verdicts minus a penalty per
  search after the first. It learns where a further search rarely changes the verdict, and stops there. The settled flag is the rule's own decision,
  which P(true) alone cannot give a logistic policy: with both it can stop at either end (settled true, or
  so little support that no rewrite is likely to find more) and search again only in between. Whether a
  passage about the subject was read tells it where "in between" a rewrite can still find something: the
  later searches that change a verdict are nearly all ones after a first search that read no passage
  naming the subject (BENCHMARKS.md, *The search policy*).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from agentkgv.data.errors import DataError
from agentkgv.reader_agent.calibration import NO_SUPPORT, Calibration, Evidence, Outcome

FEATURES = ("bias", "p_true", "settled", "named_both", "support", "named_support", "named_subject", "searches")


@dataclass(frozen=True, slots=True)
class SearchState:
    """What a stop decision sees after a search."""

    p_true: float
    settled: bool  # P(true) reaches the calibration's `true_at`: the triple would be said true now
    evidence: Evidence
    searches: int
    max_searches: int

    def features(self) -> np.ndarray:
        """`FEATURES`, scaled to about [-1, 1]."""
        clip = lambda logit: max(logit, NO_SUPPORT) / -NO_SUPPORT  # noqa: E731
        return np.array([1.0, self.p_true, float(self.settled), float(self.evidence.named_both),
                         clip(self.evidence.support), clip(self.evidence.named_support),
                         float(self.evidence.named_subject), self.searches / self.max_searches], dtype=np.float64)

    @staticmethod
    def of(calibration: Calibration, evidence: Evidence, searches: int, max_searches: int) -> SearchState:
        p_true = calibration.probability(evidence)
        return SearchState(p_true, calibration.outcome(p_true) is Outcome.TRUE, evidence, searches, max_searches)


class StopPolicy(Protocol):
    name: str

    def stop(self, state: SearchState) -> bool: ...


@dataclass(frozen=True)
class SettledRule:
    name: str = "settled"

    def stop(self, state: SearchState) -> bool:
        return state.settled


@dataclass(frozen=True)
class LearnedStop:
    weights: tuple[float, ...]
    # What it was trained for: its features read P(true) under this reader's calibration and this budget.
    reader: str = ""  # the reader's support fingerprint (reader_agent/reader_folder.py)
    budget: int = 0
    name: str = "learned"

    def probability(self, state: SearchState) -> float:
        z = float(np.dot(self.weights, state.features()))
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def stop(self, state: SearchState) -> bool:
        return self.probability(state) >= 0.5

    def save(self, path: Path, trained: dict) -> None:
        path.write_text(json.dumps({"features": list(FEATURES), "weights": list(self.weights), "reader": self.reader,
                                    "budget": self.budget, "trained": trained}, indent=1) + "\n")

    @staticmethod
    def read(path: Path) -> LearnedStop:
        try:
            record = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise DataError(path, "no stop policy here: `agentkgv train-search-policy` writes one") from None
        except json.JSONDecodeError as error:
            raise DataError(path, f"not JSON: {error.msg}", error.lineno) from None
        if not isinstance(record, dict):
            raise DataError(path, "expected an object of features and weights")
        if record.get("features") != list(FEATURES):
            raise DataError(path, f"a policy over the features {', '.join(map(str, record.get('features') or ['?']))}, "
                                  f"not {', '.join(FEATURES)}: retrain it with `agentkgv train-search-policy` "
                                  "(seconds once its episodes are cached)", field="features")
        if len(record.get("weights", ())) != len(FEATURES):
            raise DataError(path, f"expected weights for the features {', '.join(FEATURES)}", field="weights")
        return LearnedStop(tuple(float(w) for w in record["weights"]), str(record.get("reader", "")),
                           int(record.get("budget", 0)))

    def check(self, path: Path, reader: str, budget: int) -> LearnedStop:
        """Refuse a policy trained for another reader or search budget: its inputs would mean other things."""
        if (self.reader, self.budget) != (reader, budget):
            raise DataError(path, f"trained for reader {self.reader or '?'} with {self.budget} searches, not reader "
                                  f"{reader} with {budget}: train one for this reader (`agentkgv train-search-policy --reader`)")
        return self


def policy_fingerprint(path: Path) -> str:
    if not Path(path).exists():
        raise DataError(path, "no stop policy here: `agentkgv train-search-policy` writes one")
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
