"""Graph evidence: each triple held against its graph's profile (graph/profile.py).

A rule is a small named object that reads one triple with what the graph says around it and returns a
finding or nothing: a malformed value, a value of a class its predicate rarely takes, a second value of a
predicate that takes one, a subject or object of types its predicate rarely joins, a self-loop where the
predicate has none, a number far outside its predicate's range. A finding names its rule, says why in words
and cites the counts behind it; a `strong` one calls the triple false unless a trusted passage supports it
(core/graph_checked.py). A predicate the graph has too few triples of to learn says nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agentkgv.graph.profile import OTHER_SITE, GraphProfile, GraphTriple, PredicateProfile
from agentkgv.graph.values import MALFORMED, RDF_TYPE, family, local_part, loops_back, number

# The fewest triples (or typed subjects) of a predicate from which its profile is read.
MIN_SUPPORT = 20
# The rule of a finding that comes from a user's SHACL shapes (graph/shapes.py).
SHAPE_RULE = "shape violation"


@dataclass(frozen=True, slots=True)
class GraphFinding:
    """What the graph says against one triple: the rule, why, and the counts behind it (`observed` of the
    predicate's `out_of` values are like this one)."""

    rule: str
    reason: str
    observed: int
    out_of: int
    strong: bool


@dataclass(frozen=True, slots=True)
class Context:
    """What the graph states around a triple: its object's class as the profile counts it, its subject's
    number of values of the predicate, and the types of its subject and object."""

    object_class: str
    values_of_subject: int
    subject_types: tuple[str, ...]
    object_types: tuple[str, ...]


class GraphRule(Protocol):
    name: str

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None: ...


def _short(iri: str) -> str:
    return local_part(iri) or iri


def _quoted(value: str, limit: int = 60) -> str:
    return f"`{value if len(value) <= limit else value[:limit] + '…'}`"


class MalformedValue:
    """A value no predicate should take: a cut-off IRI, a placeholder, wiki markup, two years run together."""

    name = "malformed value"

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None:
        kind = context.object_class
        if kind not in MALFORMED:
            return None
        same = predicate.classes.get(kind, 0)
        return GraphFinding(self.name, f"{_quoted(triple.object.value)} is {kind}", same, predicate.triples, strong=True)


class RareValueClass:
    """A value of a class its predicate rarely takes (`name | 60px`: names are names, not image sizes)."""

    name = "rare kind of value"

    def __init__(self, rare: float = 0.05, strong: float = 0.02):
        self.rare, self.strong = rare, strong

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None:
        kind = context.object_class
        if kind.startswith("an IRI of ") and kind not in predicate.classes and OTHER_SITE in predicate.classes:
            kind = OTHER_SITE  # a host of the graph this predicate links to too rarely to be counted by name
        if predicate.triples < MIN_SUPPORT or kind in MALFORMED:
            return None
        same = sum(n for other, n in predicate.classes.items() if family(other) == family(kind))
        if same > self.rare * predicate.triples:
            return None
        usual, n = max(predicate.classes.items(), key=lambda item: item[1])
        return GraphFinding(self.name, f"{_quoted(triple.object.value)} is {kind}, which this predicate takes in "
                                       f"{same} of {predicate.triples} triples; it mostly takes {usual} ({n})",
                            same, predicate.triples, strong=same <= self.strong * predicate.triples)


class SecondValue:
    """Another value of a predicate nearly every subject has one of. Not strong: which value is wrong, the
    graph cannot say."""

    name = "second value"

    def __init__(self, one_value: float = 0.95):
        self.one_value = one_value

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None:
        if (predicate.subjects < MIN_SUPPORT or context.values_of_subject < 2
                or predicate.one_value_share < self.one_value):
            return None
        return GraphFinding(self.name, f"{context.values_of_subject} values, where {predicate.one_value_subjects} of "
                                       f"{predicate.subjects} subjects have exactly one",
                            predicate.subjects - predicate.one_value_subjects, predicate.subjects, strong=False)


class RareType:
    """A subject or object whose types the predicate rarely joins (a spouse that is a city)."""

    name = "rare type"

    def __init__(self, rare: float = 0.02):
        self.rare = rare

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None:
        for end, types, seen, typed in (("subject", context.subject_types, predicate.subject_types, predicate.typed_subjects),
                                        ("object", context.object_types, predicate.object_types, predicate.typed_objects)):
            if not types or typed < MIN_SUPPORT:
                continue
            best = max(seen.get(kind, 0) for kind in types)
            if best <= max(1.0, self.rare * typed):  # a type only this triple gives it, or nearly
                usual = max(seen.items(), key=lambda item: item[1])[0] if seen else "none"
                return GraphFinding(self.name, f"its {end} is {', '.join(_short(t) for t in types)}, which this "
                                               f"predicate joins in {best} of {typed} typed {end}s; mostly "
                                               f"{_short(usual)}", best, typed, strong=True)
        return None


class SelfLoop:
    """A triple whose object is its subject, or a node made for it (`Jimmy_Wales__8`), for a predicate that
    otherwise never links a thing to itself (`Arthur C. Clarke | notable work | Arthur C. Clarke`)."""

    name = "self-loop"

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None:
        if not loops_back(triple.subject, triple.object) or predicate.triples < 5:  # plain from a few triples
            return None
        itself = "its subject" if triple.subject == triple.object else "a node made for its subject"
        return GraphFinding(self.name, f"its object is {itself}, as in {predicate.self_loops} of "
                                       f"{predicate.triples} triples of this predicate",
                            predicate.self_loops, predicate.triples,
                            strong=predicate.self_loops <= 0.05 * predicate.triples)


class NumericOutlier:
    """A number far outside its predicate's range: beyond the 1st-99th percentile span by twice that span."""

    name = "number out of range"

    def check(self, triple: GraphTriple, predicate: PredicateProfile, context: Context) -> GraphFinding | None:
        numbers = predicate.numbers
        value = number(triple.object)
        if value is None or numbers is None or numbers.count < MIN_SUPPORT:
            return None
        span = max(numbers.high - numbers.low, 1e-9)
        if numbers.low - 2 * span <= value <= numbers.high + 2 * span:
            return None
        return GraphFinding(self.name, f"{value:g} lies far outside this predicate's usual {numbers.low:g} to "
                                       f"{numbers.high:g}", 0, numbers.count, strong=False)


_UNSEEN = PredicateProfile(triples=0, classes={}, subjects=0, one_value_subjects=0)

DEFAULT_RULES: tuple[GraphRule, ...] = (MalformedValue(), RareValueClass(), SecondValue(), RareType(), SelfLoop(),
                                        NumericOutlier())


class GraphEvidence:
    """The findings of a graph's triples against a profile: of the graph itself, or of a larger one the
    triples are a sample of. `triples` is the graph as stated, whose subjects' values and types it counts."""

    def __init__(self, profile: GraphProfile, triples: Iterable[GraphTriple],
                 rules: Sequence[GraphRule] = DEFAULT_RULES):
        self.profile, self.rules = profile, tuple(rules)
        # Keyed by a hash of (subject, predicate): a count per subject's predicate in a few dozen bytes.
        self._values: Counter[int] = Counter()
        types: dict[str, set[str]] = {}
        for triple in triples:
            self._values[hash((triple.subject.value, triple.predicate))] += 1
            if triple.predicate == RDF_TYPE and triple.object.kind == "iri":
                types.setdefault(triple.subject.value, set()).add(triple.object.value)
        self._types = {entity: tuple(sorted(kinds)) for entity, kinds in types.items()}

    def findings(self, triple: GraphTriple) -> list[GraphFinding]:
        # A predicate a saved profile lacks is learned nothing of; a malformed value is flagged all the same.
        predicate = self.profile.predicates.get(triple.predicate) or _UNSEEN
        context = Context(self.profile.value_class(triple.object), self._values.get(hash((triple.subject.value, triple.predicate)), 1),
                          self._types.get(triple.subject.value, ()),
                          self._types.get(triple.object.value, ()) if triple.object.kind != "literal" else ())
        return [finding for rule in self.rules if (finding := rule.check(triple, predicate, context)) is not None]
