"""The verifier interface and the per-triple result every method returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from enum import Enum
from typing import Protocol

from agentkgv.agent.actions import Action
from agentkgv.agent.calibration import Evidence
from agentkgv.data.records import LabeledTriple, Passage, Triple
from agentkgv.retrieval.base import Hit
from agentkgv.retrieval.guard import Withheld


@dataclass(slots=True)
class EvidenceRef:
    id: str
    text: str
    title: str = ""
    source: str = ""  # where the passage came from: a corpus, or the file of a user's index

    @staticmethod
    def of(passage: Passage) -> EvidenceRef:
        return EvidenceRef(passage.id, passage.text, passage.title, passage.source)


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


class Finding(str, Enum):
    """What the documents say of a triple, beside the verdict drawn from it: a triple they do not state is
    "not enough evidence", and false only where a run counts absence against it (`ReadingConfig.absence`)."""

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_ENOUGH_EVIDENCE = "not enough evidence"
    NOT_CHECKABLE = "not checkable"


@dataclass(slots=True)
class Verdict:
    """One triple's result: the verdict (None = no parseable answer, or `undecided`), why, and what it cost.

    `p_true` is the calibrated probability that the triple is true, where the method has one (the reader);
    `undecided` marks a triple whose evidence decided neither way ("not enough evidence"): it has no
    verdict, is scored as false like a missing label, and goes to the review queue."""

    id: str
    triple: Triple
    verdict: bool | None
    method: str
    gold: bool | None = None
    confidence: float | None = None
    evidence: list[EvidenceRef] = field(default_factory=list)
    search_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    trajectory: list[Turn] = field(default_factory=list)
    p_true: float | None = None
    undecided: bool = False
    # What the passages the reader read add up to, where the reader judged: a review can recalibrate on it.
    reading: Evidence | None = None
    # Judged by the reader of relations the main reader rarely learned (agent/reading.RareRelations): `reading`
    # holds that reader's scores, which its own calibration, not the main reader's, turns into P(true).
    rare_relation: bool = False
    # What the documents say (a Finding's value), where the method tells support from contradiction from
    # silence; None for a method that reads support only.
    outcome: str | None = None
    # The value a cited passage states in the object's place, where it contradicts the triple.
    stated_instead: str | None = None
    # Retrieved passages a rule kept from deciding this verdict (retrieval/guard.py): withheld by the evidence
    # guard, or of a distrusted source (withheld, or read by the reader agent without deciding anything).
    withheld: list[Withheld] = field(default_factory=list)

    @property
    def finding(self) -> str:
        """The outcome, else what the verdict alone says: true is supported; false or none, by a method
        that reads support only, means no support was found."""
        if self.outcome is not None:
            return self.outcome
        return Finding.SUPPORTED.value if self.verdict else Finding.NOT_ENOUGH_EVIDENCE.value if self.undecided else (
            "not supported" if self.verdict is False else "no verdict")

    @property
    def correct(self) -> bool:
        """Whether the verdict matches a known gold label (no verdict is never correct)."""
        return self.verdict is not None and self.gold is not None and self.verdict == self.gold

    def to_json(self) -> dict:
        return {**asdict(replace(self, trajectory=[])), "trajectory": [turn.to_json() for turn in self.trajectory]}

    @staticmethod
    def from_json(record: dict) -> "Verdict":
        record = dict(record)
        record["triple"] = Triple(**record["triple"])
        record["evidence"] = [EvidenceRef(**e) for e in record.get("evidence", [])]
        record["trajectory"] = [Turn.from_json(turn) for turn in record.get("trajectory", [])]
        record["withheld"] = [Withheld(**w) for w in record.get("withheld", [])]
        if record.get("reading") is not None:
            record["reading"] = Evidence(**record["reading"])
        return Verdict(**record)


@dataclass(kw_only=True)
class Tally:
    """What a multi-step method accumulates for one triple while it runs."""

    verdict: bool | None = None
    confidence: float | None = None
    done: bool = False
    searches: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    withheld: list[Withheld] = field(default_factory=list)  # what a rule kept from deciding it (Verdict.withheld)

    def charge(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens

    def withhold(self, records: list[Withheld]) -> None:
        self.withheld += [record for record in records if record not in self.withheld]


class Verifier(Protocol):
    """Verifies a batch of triples. A batch lets LLM methods step several triples through the model at once."""

    name: str

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]: ...


class WithoutTrajectories:
    """A verifier whose verdicts leave out the trajectories: what `verify` writes for a user, who reads the
    verdicts; eval and training runs keep them."""

    def __init__(self, verifier: Verifier):
        self.verifier, self.name = verifier, verifier.name

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        return [replace(verdict, trajectory=[]) for verdict in self.verifier.verify(items)]


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
