"""How a method reached its verdict, kept beside it as the verdict's trace: each family records its own kind.

The LLM methods record `Turns`, one per model call (what SFT data and GRPO read back); the reader agent
records its searches and what its reading added up to (reader_agent/trace.py). A family registers its kind
with `trace_kind` when it is imported, so a run log reads back into typed traces once the family that wrote it is
loaded (`agentkgv.registry` loads every family; the command line, `agentkgv.api.KGVerifier` and the report import
it). The core imports no family, not even by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar, Literal, Protocol

from agentkgv.data.errors import DataError


class Trace(Protocol):
    kind: ClassVar[str]

    def to_json(self) -> dict: ...

    def brief(self) -> Trace | None:
        """What a user's verdict keeps of it: the per-step record dropped, what a review refits on kept."""
        ...


_KINDS: dict[str, Callable[[dict], Trace]] = {}


def trace_kind(cls):
    """Register a trace class (with `kind` and a static `from_json`) so verdicts read it back."""
    _KINDS[cls.kind] = cls.from_json
    return cls


def trace_to_json(trace: Trace | None) -> dict | None:
    return None if trace is None else {"kind": trace.kind, **trace.to_json()}


def trace_from_json(record: dict | None) -> Trace | None:
    if record is None:
        return None
    kind = record.get("kind")
    if kind not in _KINDS:
        raise DataError("run log", f"a verdict's trace is of kind {kind!r}, which no family loaded writes (loaded: "
                                   f"{', '.join(sorted(_KINDS))}; `import agentkgv.registry` loads every family)")
    return _KINDS[kind]({k: v for k, v in record.items() if k != "kind"})


@dataclass(frozen=True, slots=True)
class Action:
    kind: Literal["answer", "search", "invalid"]
    reasoning: str = ""
    verdict: bool | None = None
    combination: str | None = None
    query: str | None = None
    # The 1-based numbers of the shown passages an answer cites.
    evidence: tuple[int, ...] = ()
    error: str | None = None



# The finish reason of a turn one of the agent's rules took without a model call.
RULE = "rule"


@dataclass(slots=True)
class Turn:
    """One model call of a trajectory, the record the agent writes and SFT data and GRPO read back; or a
    move the agent's rules made without one, the opening search or a "false" (`finish_reason` RULE: no
    messages, no tokens).

    `messages` is what the model saw; `state` the student's view of the same turn in a teacher run (the
    text training learns from); `action_ids` the token ids the sampler drew (what GRPO scores). The
    baselines fill the fields they have and `reasoning` where they parse one."""

    turn: int
    messages: list[dict]
    action_text: str
    action_ids: list[int] | None = None
    action: Action | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    retrieved: list[str] = field(default_factory=list)
    summary: str | None = None
    state: list[dict] | None = None
    reasoning: str | None = None

    @property
    def by_model(self) -> bool:
        return self.finish_reason != RULE

    def student_state(self) -> list[dict]:
        """The student's context at this turn: the recorded `state` of a teacher run, else what the model saw."""
        return self.state if self.state is not None else self.messages

    def to_json(self) -> dict:
        # Fields only some methods write are left out when unset, so records read as they always have.
        record = {f.name: getattr(self, f.name) for f in fields(self)}
        record["action"] = None if self.action is None else asdict(self.action)
        return {k: v for k, v in record.items() if v is not None or k not in _OPTIONAL_TURN_FIELDS}

    @staticmethod
    def from_json(record: dict) -> Turn:
        record = dict(record)
        if record.get("action") is not None:
            action = record["action"]
            record["action"] = Action(**{**action, "evidence": tuple(action.get("evidence", ()))})
        return Turn(**record)


_OPTIONAL_TURN_FIELDS = ("state", "reasoning")


@trace_kind
@dataclass(slots=True)
class Turns:
    """The trace of a method that asks an LLM: every model call, and every move a rule made in its place."""

    kind: ClassVar[str] = "turns"
    turns: list[Turn] = field(default_factory=list)

    def brief(self) -> None:
        return None

    def to_json(self) -> dict:
        return {"turns": [turn.to_json() for turn in self.turns]}

    @staticmethod
    def from_json(record: dict) -> Turns:
        return Turns([Turn.from_json(turn) for turn in record.get("turns", [])])
