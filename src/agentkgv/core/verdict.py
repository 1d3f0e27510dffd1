"""The verifier interface and the per-triple result every method returns."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Protocol

from agentkgv.core.trace import Trace, Turn, Turns, trace_from_json, trace_to_json
from agentkgv.data.records import LabeledTriple, Passage, Triple
from agentkgv.graph.evidence import GraphFinding
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


class Finding(str, Enum):
    """What the documents say of a triple, beside the verdict drawn from it: a triple they do not state is
    "not enough evidence", and false only where a run counts absence against it (`ReadingConfig.absence`)."""

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    NOT_ENOUGH_EVIDENCE = "not enough evidence"
    NOT_CHECKABLE = "not checkable"
    # Not the documents' word but the relation's: a value of a kind it never takes (an award as an author), so
    # no passage can state the triple (reader_agent/value_kinds.py). The verdict's `reason` says which value.
    WRONG_KIND = "wrong kind of value"
    # Not the documents' word but the graph's: its profile's rules or a user's shapes find the triple wrong,
    # or the graph's P(true) is low, and no trusted passage supports it (core/graph_checked.py).
    GRAPH_CONTRADICTED = "contradicted by the graph"


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
    # How the method reached it, of its family's kind (core/trace.py).
    trace: Trace | None = None
    p_true: float | None = None
    undecided: bool = False
    # What the documents say (a Finding's value), where the method tells support from contradiction from
    # silence; None for a method that reads support only.
    outcome: str | None = None
    # The value a cited passage states in the object's place, where it contradicts the triple.
    stated_instead: str | None = None
    # Whether `stated_instead` is a list a page gives in full, the object not among it: evidence against a triple of
    # a relation with several values, which decides nothing (reader_agent/contradiction.py `Unlisted`).
    listed: bool = False
    # Whether `stated_instead` is another value of a relation with several values: it speaks against the
    # triple without excluding it (reader_agent/contradiction.py).
    several_valued: bool = False
    # Why, in words, where the outcome alone does not say (a value of a kind its relation does not take, another of
    # several values, a
    # list, the graph's word).
    reason: str | None = None
    # Retrieved passages a rule kept from deciding this verdict (retrieval/guard.py): withheld by the evidence
    # guard, or of a distrusted source (withheld, or read by the reader agent without deciding anything).
    withheld: list[Withheld] = field(default_factory=list)
    # What the graph itself says against the triple (graph/evidence.py), where the run read the graph.
    graph: list[GraphFinding] = field(default_factory=list)
    # The documents' own outcome, kept where the graph's word replaced it as `outcome`.
    documents_outcome: str | None = None
    # Whether `p_true` is the graph prior's, from the graph and the documents together, and the documents' own P(true)
    # beside it where they had one: what `learn` weighs the documents by.
    p_true_by_graph: bool = False
    documents_p_true: float | None = None
    # The family of value the graph read the object as (graph/prior.py `value_family`), where the run read the graph:
    # `learn` refits how often a predicate's values of each family are wrong.
    value_family: str | None = None

    @property
    def finding(self) -> str:
        """The outcome, else what the verdict alone says: true is supported; false or none, by a method
        that reads support only, means no support was found."""
        if self.outcome is not None:
            return self.outcome
        return Finding.SUPPORTED.value if self.verdict else Finding.NOT_ENOUGH_EVIDENCE.value if self.undecided else (
            "not supported" if self.verdict is False else "no verdict")

    @property
    def turns(self) -> list[Turn]:
        """The model calls and rule moves of an LLM method's trace; none for a trace of another kind."""
        return self.trace.turns if isinstance(self.trace, Turns) else []

    @property
    def correct(self) -> bool:
        """Whether the verdict matches a known gold label (no verdict is never correct)."""
        return self.verdict is not None and self.gold is not None and self.verdict == self.gold

    def to_json(self) -> dict:
        return {**asdict(replace(self, trace=None)), "trace": trace_to_json(self.trace)}

    @staticmethod
    def from_json(record: dict) -> Verdict:
        record = dict(record)
        record["triple"] = Triple(**record["triple"])
        record["evidence"] = [EvidenceRef(**e) for e in record.get("evidence", [])]
        record["trace"] = trace_from_json(record.get("trace"))
        record["withheld"] = [Withheld(**w) for w in record.get("withheld", [])]
        record["graph"] = [GraphFinding(**g) for g in record.get("graph", [])]
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


class BriefTraces:
    """A verifier whose verdicts keep only the brief of their traces (`Trace.brief`): what `verify` writes for a
    user, who reads the verdicts and whose reviews refit on the brief; eval and training runs keep it all."""

    def __init__(self, verifier: Verifier):
        self.verifier, self.name = verifier, verifier.name

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        return [replace(verdict, trace=verdict.trace and verdict.trace.brief()) for verdict in self.verifier.verify(items)]
