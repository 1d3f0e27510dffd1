"""Typed records shared by every stage: triples, facts with evidence, passages, benchmark examples.

Plain frozen dataclasses rather than pydantic models: loaders create hundreds of thousands of them and
validation happens once, at the reader, where the file and line are known.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

from agentkgv.data.text import FUNCTION_WORDS


# Heads of a compound that name a part of what the words before them name: the compound goes the other way.
_PART_HEADS = frozenset({"member", "members", "part", "parts"})


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
    def predicate_keys(self) -> tuple[str, ...]:
        """The keys a table of relations (keyed by id, lower-cased label and alias: `data.predicates.by_name`) may
        hold this triple's predicate under, in turn: its id, its words, and where its words are a compound noun,
        that noun read as "N of M". A graph that writes its predicates in camelCase writes Wikidata's "place of
        foundation" as `foundationPlace`, which reads "foundation place". Not a compound whose head names a part
        ("team member": `teamMember` goes from the team to its member), nor one of function words ("born in")."""
        words = self.predicate.lower()
        parts = words.split()
        compound = (len(parts) > 1 and parts[-1] not in _PART_HEADS
                    and all(part.isalpha() and part not in FUNCTION_WORDS for part in parts))
        spelled = (f"{parts[-1]} of {' '.join(parts[:-1])}",) if compound else ()
        return tuple(key for key in (self.predicate_id, words, *spelled) if key)

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
