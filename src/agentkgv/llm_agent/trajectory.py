"""The LLM agent's state for one triple while it runs: what the next turn is built from, and every turn so far."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentkgv.core.trace import Turn
from agentkgv.core.verdict import Tally
from agentkgv.data.records import LabeledTriple
from agentkgv.retrieval.base import Hit


@dataclass
class Trajectory(Tally):
    """One triple's run so far: the state the next turn is built from, and the record of every turn."""

    item: LabeledTriple
    paraphrases: list[str]
    summary: str | None = None
    last_query: str | None = None
    last_hits: list[Hit] = field(default_factory=list)
    cited: list[Hit] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
