"""The reader agent's trace of one triple: each search it ran, and what its reading added up to (the evidence a
review refits the calibration on, and which reader judged it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import ClassVar

from agentkgv.core.trace import trace_kind
from agentkgv.core.verdict import Verdict
from agentkgv.reader_agent.calibration import Evidence


@dataclass(slots=True)
class SearchStep:
    query: str
    retrieved: list[str]  # passage ids, in rank order
    note: str = ""  # the best support after it, for a person reading the trace


@trace_kind
@dataclass(slots=True)
class ReadingTrace:
    kind: ClassVar[str] = "reading"
    # What the trusted passages read add up to; None when nothing was searched (a link, a label by name).
    evidence: Evidence | None = None
    # Judged by the reader of relations the main reader rarely learned (reader_agent/judges.RareRelations): the
    # evidence holds that reader's scores, which its own calibration turns into P(true).
    rare_relation: bool = False
    steps: list[SearchStep] = field(default_factory=list)

    def brief(self) -> ReadingTrace:
        return replace(self, steps=[])

    def to_json(self) -> dict:
        return {"evidence": None if self.evidence is None else asdict(self.evidence),
                "rare_relation": self.rare_relation, "steps": [asdict(step) for step in self.steps]}

    @staticmethod
    def from_json(record: dict) -> ReadingTrace:
        evidence = record.get("evidence")
        return ReadingTrace(None if evidence is None else Evidence(**evidence), bool(record.get("rare_relation")),
                            [SearchStep(**step) for step in record.get("steps", [])])


def reading_of(verdict: Verdict) -> Evidence | None:
    """What the reader agent's reading of a verdict added up to; None for a verdict it did not search for, or of
    another method."""
    return verdict.trace.evidence if isinstance(verdict.trace, ReadingTrace) else None


def by_rare_reader(verdict: Verdict) -> bool:
    """Whether the reader of rare relations judged it (its evidence holds that reader's scores)."""
    return isinstance(verdict.trace, ReadingTrace) and verdict.trace.rare_relation
