"""Typed records shared by every stage: triples, facts with evidence, passages, benchmark examples.

Plain frozen dataclasses rather than pydantic models: loaders create hundreds of thousands of them and
validation happens once, at the reader, where the file and line are known.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True, slots=True)
class RdfTerms:
    """A triple as its graph wrote it, each term in N-Triples syntax (`<http://…/Q90>`, `"1950"^^<…#gYear>`),
    so that verdicts go back to the graph about the very statement that was read."""

    subject: str
    predicate: str
    object: str


@dataclass(frozen=True, slots=True)
class Triple:
    """A (subject, predicate, object) statement. Labels are what the verifier reads; ids are optional."""

    subject: str
    predicate: str
    object: str
    predicate_id: str | None = None
    subject_id: str | None = None
    object_id: str | None = None
    # Other names the documents may use (`Danish` for Denmark, `actress` for actor): a passage naming one
    # mentions the entity. A user's graph may carry them; the benchmark learns them (agentkgv.data.aliases).
    subject_aliases: tuple[str, ...] = ()
    object_aliases: tuple[str, ...] = ()
    # Where the triple was read from an RDF graph (a file or a SPARQL endpoint).
    rdf: RdfTerms | None = None

    def __post_init__(self) -> None:
        # JSON gives lists and objects; a triple stays hashable. A lone name is one alias, not its letters.
        for name in ("subject_aliases", "object_aliases"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))
        if isinstance(self.rdf, dict):
            object.__setattr__(self, "rdf", RdfTerms(**self.rdf))

    @property
    def subject_names(self) -> tuple[str, ...]:
        return (self.subject, *self.subject_aliases)

    @property
    def object_names(self) -> tuple[str, ...]:
        return (self.object, *self.object_aliases)

    def verbalize(self) -> str:
        return f"{self.subject} {self.predicate} {self.object}"


@dataclass(frozen=True, slots=True)
class Fact:
    """A triple a source asserts as true, with the sentences that state it (may be empty)."""

    triple: Triple
    evidences: tuple[str, ...] = ()
    source: str = ""
    # How the evidence sentences name the subject and the object, where the source says (LAMA does).
    subject_surfaces: tuple[str, ...] = ()
    object_surfaces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LabeledTriple:
    """A triple to verify. `label` is None for a user's graph, where the truth is what we want to find."""

    id: str
    triple: Triple
    label: bool | None = None
    source: str = ""


@dataclass(frozen=True, slots=True)
class Passage:
    """A retrievable unit of text. The id is derived from the text so it is stable across rebuilds."""

    id: str
    text: str
    title: str = ""
    source: str = ""

    @staticmethod
    def make_id(source: str, text: str) -> str:
        return f"{source.split(':')[0]}-{hashlib.sha1(text.encode('utf-8')).hexdigest()[:16]}"


@dataclass(frozen=True, slots=True)
class Example:
    """One benchmark item: a labeled triple plus how it was made (regime, gold evidence, negative origin)."""

    id: str
    triple: Triple
    label: bool
    split: str
    regime: str
    gold_passage_ids: tuple[str, ...] = ()
    negative_of: str | None = None
    similarity: float | None = None
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(record: dict) -> "Example":
        record = dict(record)
        record["triple"] = Triple(**record["triple"])
        record["gold_passage_ids"] = tuple(record.get("gold_passage_ids", ()))
        return Example(**record)

    def as_labeled(self) -> LabeledTriple:
        return LabeledTriple(id=self.id, triple=self.triple, label=self.label, source=f"benchmark:{self.split}")
