"""Who judges a triple's passages: a reader with the calibration fitted on its scores and the stop policy
trained on them; and the second judge of the relations the main reader rarely learned."""

from __future__ import annotations

from dataclasses import dataclass

from agentkgv.data.predicates import by_predicate
from agentkgv.data.records import Triple
from agentkgv.reader_agent.calibration import Calibration, Evidence
from agentkgv.reader_agent.reader import Reader
from agentkgv.reader_agent.stopping import SearchState, SettledRule, StopPolicy


@dataclass(frozen=True)
class ReaderJudge:
    """A reader, the calibration fitted on its scores (None: reading only, to fit one), and the stop policy
    trained on them (None: the settled rule)."""

    reader: Reader
    calibration: Calibration | None
    stop_policy: StopPolicy | None = None

    def stops(self, evidence: Evidence, searches: int, max_searches: int) -> bool:
        if self.calibration is None:
            return False
        return (self.stop_policy or SettledRule()).stop(SearchState.of(self.calibration, evidence, searches, max_searches))


@dataclass(frozen=True)
class RareRelations:
    """The judge of relations the main reader learned from fewer than `below` facts (`counts`, its
    relations.json)."""

    judge: ReaderJudge
    counts: dict[str, int]
    below: int

    def takes(self, triple: Triple) -> bool:
        return by_predicate(self.counts, triple, 0) < self.below
