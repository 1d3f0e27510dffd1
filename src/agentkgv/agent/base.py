"""The verifier interface and the per-triple result every method returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Protocol

from agentkgv.data.records import LabeledTriple, Triple


@dataclass(slots=True)
class EvidenceRef:
    id: str
    text: str
    title: str = ""


@dataclass(slots=True)
class Verdict:
    """One triple's result: the verdict (None = no parseable answer), why, and what it cost."""

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
    trajectory: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(record: dict) -> "Verdict":
        record = dict(record)
        record["triple"] = Triple(**record["triple"])
        record["evidence"] = [EvidenceRef(**e) for e in record.get("evidence", [])]
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

    def charge(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens


class Verifier(Protocol):
    """Verifies a batch of triples. A batch lets LLM methods step several triples through the model at once."""

    name: str

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]: ...
