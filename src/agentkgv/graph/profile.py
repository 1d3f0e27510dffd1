"""A graph's profile: for each predicate, what its values are like, learned from the graph without labels.

Per predicate it counts the classes of its objects (graph/values.py) and their datatypes, the `rdf:type`s of
its subjects and objects where the graph states them, how many values each subject has (so the share of
subjects with exactly one), self-loops, and the range of its numeric values. Graph evidence
(graph/evidence.py) holds each triple against it; `profile --shacl` writes it as shapes (graph/shapes.py).

It is built by streaming, in memory bounded by the graph's typed entities and 8 bytes a triple (a hash of
each subject, to count values per subject): twice over the source where types are to be learned, since a
type may be stated after the triples that use it. Sources: a graph file (parsed by Oxigraph), a SPARQL
endpoint or store (paged), or triples already read (a `verify` run's claims).
"""

from __future__ import annotations

import hashlib
import json
import random
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from agentkgv.data.errors import DataError
from agentkgv.graph.values import RDF_TYPE, Term, loops_back, number, value_class

# 2: a node made for the subject (`Jimmy_Wales__8`) counts as a self-loop. 3: a unit ends where lower-case letters
# stop (`360Commerce` is no quantity), so class counts differ.
PROFILE_VERSION = 3
# Per predicate, the most frequent types and IRI hosts kept by name; the rest are counted together.
TOP = 20
OTHER_SITE = "an IRI of another site"
_RESERVOIR = 512


@dataclass(frozen=True, slots=True)
class GraphTriple:
    subject: Term
    predicate: str
    object: Term


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NumericRange(Strict):
    count: int
    minimum: float
    maximum: float
    low: float  # the 1st percentile of a sample of the values
    high: float  # the 99th


class PredicateProfile(Strict):
    triples: int
    classes: dict[str, int]
    datatypes: dict[str, int] = {}
    subjects: int
    one_value_subjects: int
    self_loops: int = 0
    subject_types: dict[str, int] = {}
    object_types: dict[str, int] = {}
    typed_subjects: int = 0
    typed_objects: int = 0
    numbers: NumericRange | None = None

    @property
    def one_value_share(self) -> float:
        return self.one_value_subjects / self.subjects if self.subjects else 0.0


class GraphProfile(Strict):
    """What a graph's predicates take, and where it came from (`source`, `fingerprint` of its triples)."""

    version: int = PROFILE_VERSION
    source: str
    fingerprint: str
    triples: int
    subjects: int
    # The hosts that name a real share of the graph's subjects: an IRI of another host is a link out of the
    # graph, and all such links are one class.
    hosts: list[str]
    predicates: dict[str, PredicateProfile]

    def value_class(self, term: Term) -> str:
        """A term's class as this graph's profile counts it (graph/values.py, links out of the graph as one)."""
        return site_class(value_class(term), frozenset(self.hosts))

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.model_dump_json(indent=1), encoding="utf-8")
        tmp.replace(path)
        return path

    @staticmethod
    def load(path: Path) -> GraphProfile:
        try:
            profile = GraphProfile.model_validate_json(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DataError(path, "no graph profile here (make one with `agentkgv profile GRAPH -o FILE`)") from None
        except ValueError as error:
            raise DataError(path, f"not a graph profile: {str(error).splitlines()[0]}") from None
        if profile.version != PROFILE_VERSION:
            raise DataError(path, f"a graph profile of version {profile.version}, which this version reads otherwise "
                                  f"({PROFILE_VERSION}): make it again with `agentkgv profile GRAPH -o FILE`")
        return profile


def site_class(kind: str, graph_hosts: frozenset[str]) -> str:
    return OTHER_SITE if kind.startswith("an IRI of ") and kind.removeprefix("an IRI of ") not in graph_hosts else kind


class _Predicate:
    """One predicate's counts while the profile streams."""

    def __init__(self, seed: int):
        self.triples = self.self_loops = self.typed_subjects = self.typed_objects = 0
        self.classes: Counter[str] = Counter()
        self.datatypes: Counter[str] = Counter()
        self.subject_types: Counter[str] = Counter()
        self.object_types: Counter[str] = Counter()
        self.subject_hashes = array("q")
        self.numbers: list[float] = []
        self.numeric = 0
        self.minimum, self.maximum = float("inf"), float("-inf")
        self.rng = random.Random(seed)

    def add(self, triple: GraphTriple, types: dict[str, tuple[str, ...]]) -> None:
        self.triples += 1
        subject, obj = triple.subject, triple.object
        self.classes[value_class(obj)] += 1
        if len(self.classes) > 4 * TOP:  # a predicate of web links: one class per site
            self._merge_sites()
        if obj.datatype:
            self.datatypes[obj.datatype] += 1
        self.subject_hashes.append(hash(subject.value))
        self.self_loops += loops_back(subject, obj)
        for term, counter, attribute in ((subject, self.subject_types, "typed_subjects"),
                                         (obj, self.object_types, "typed_objects")):
            known = types.get(term.value) if term.kind != "literal" else None
            if known:
                setattr(self, attribute, getattr(self, attribute) + 1)
                counter.update(known)
        value = number(obj)
        if value is not None:
            self.numeric += 1
            self.minimum, self.maximum = min(self.minimum, value), max(self.maximum, value)
            if len(self.numbers) < _RESERVOIR:
                self.numbers.append(value)
            elif (slot := self.rng.randrange(self.numeric)) < _RESERVOIR:
                self.numbers[slot] = value

    def _merge_sites(self, keep: frozenset[str] = frozenset()) -> None:
        sites = [(name, n) for name, n in self.classes.items() if name.startswith("an IRI of ") and name != OTHER_SITE]
        sites.sort(key=lambda item: -item[1])
        for name, n in sites[TOP:]:
            if name not in keep:
                self.classes[OTHER_SITE] += n
                del self.classes[name]

    def finish(self, graph_hosts: frozenset[str]) -> PredicateProfile:
        # A host that names none of the graph's subjects is the web beyond the graph: one class for all of it.
        for name in [name for name in self.classes if site_class(name, graph_hosts) != name]:
            self.classes[OTHER_SITE] += self.classes.pop(name)
        self._merge_sites()
        counts = np.unique(np.frombuffer(self.subject_hashes, dtype=np.int64), return_counts=True)[1]
        numbers = None
        if self.numeric:
            low, high = np.quantile(np.array(self.numbers), [0.01, 0.99])
            numbers = NumericRange(count=self.numeric, minimum=self.minimum, maximum=self.maximum,
                                   low=float(low), high=float(high))
        return PredicateProfile(
            triples=self.triples, classes=dict(self.classes.most_common()), datatypes=dict(self.datatypes.most_common(TOP)),
            subjects=len(counts), one_value_subjects=int((counts == 1).sum()), self_loops=self.self_loops,
            subject_types=dict(self.subject_types.most_common(TOP)), object_types=dict(self.object_types.most_common(TOP)),
            typed_subjects=self.typed_subjects, typed_objects=self.typed_objects, numbers=numbers)


def build_profile(source: Callable[[], Iterable[GraphTriple]], name: str,
                  progress: Callable[[int], None] = lambda done: None) -> GraphProfile:
    """The profile of the triples `source()` yields (called twice: once for the types, once for the rest);
    `progress` is told of each 10,000 triples profiled."""
    types: dict[str, set[str]] = {}
    for triple in source():
        if triple.predicate == RDF_TYPE and triple.object.kind == "iri":
            types.setdefault(triple.subject.value, set()).add(triple.object.value)
    frozen = {entity: tuple(sorted(kinds)) for entity, kinds in types.items()}
    del types
    predicates: dict[str, _Predicate] = {}
    subject_hosts: Counter[str] = Counter()
    digest = hashlib.sha256()
    subjects = array("q")
    total = 0
    for triple in source():
        total += 1
        if total % 10_000 == 0:
            progress(10_000)
        digest.update(f"{triple.subject.value}\x00{triple.predicate}\x00{triple.object.value}\x01".encode("utf-8", "replace"))
        subjects.append(hash(triple.subject.value))
        subject_hosts[triple.subject.host] += 1
        if triple.predicate not in predicates:
            predicates[triple.predicate] = _Predicate(len(predicates))
        predicates[triple.predicate].add(triple, frozen)
    progress(total % 10_000)
    # The graph's own hosts: those that name a real share of its subjects.
    hosts = frozenset(host for host, n in subject_hosts.items() if host and n >= max(2, 0.01 * total))
    return GraphProfile(source=name, fingerprint=digest.hexdigest()[:16], triples=total, hosts=sorted(hosts),
                        subjects=len(np.unique(np.frombuffer(subjects, dtype=np.int64))),
                        predicates={p: counts.finish(hosts) for p, counts in sorted(predicates.items())})


# Reading graphs as GraphTriples.

_FORMATS = {".nt": "N_TRIPLES", ".nq": "N_QUADS", ".ttl": "TURTLE", ".trig": "TRIG", ".rdf": "RDF_XML",
            ".owl": "RDF_XML", ".xml": "RDF_XML", ".n3": "N3"}


def oxigraph_term(term: object) -> Term:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return Term("iri", term.value)
    if isinstance(term, ox.BlankNode):
        return Term("bnode", term.value)
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value
        return Term("literal", term.value, None if datatype.endswith(("#string", "#langString")) else datatype)
    raise DataError("graph", f"a quoted triple is not a term the profile reads: {term}")


def file_triples(path: Path) -> Callable[[], Iterator[GraphTriple]]:
    """A graph file's triples, streamed by Oxigraph's parser (N-Triples, N-Quads, Turtle, TriG, RDF/XML)."""
    import pyoxigraph as ox

    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise DataError(path, f"not a graph file Oxigraph reads (one of {', '.join(sorted(_FORMATS))})")
    if not path.is_file():
        raise DataError(path, "no graph file here")

    def stream() -> Iterator[GraphTriple]:
        try:
            for quad in ox.parse(path=str(path), format=getattr(ox.RdfFormat, fmt)):
                yield GraphTriple(oxigraph_term(quad.subject), quad.predicate.value, oxigraph_term(quad.object))
        except SyntaxError as error:
            raise DataError(path, f"not valid {fmt.replace('_', '-').lower()}: {error.msg}",
                            getattr(error, "lineno", None)) from None

    return stream


def n_triples_terms(subject: str, predicate: str, obj: str) -> GraphTriple:
    """A triple written in N-Triples terms (data.records.RdfTerms) as a GraphTriple."""
    import pyoxigraph as ox

    quad = next(iter(ox.parse(input=f"{subject} {predicate} {obj} .", format=ox.RdfFormat.N_TRIPLES)))
    return GraphTriple(oxigraph_term(quad.subject), quad.predicate.value, oxigraph_term(quad.object))


def claim_triple(triple: object) -> GraphTriple:
    """A claim (data.records.Triple) as the graph states it: its RDF terms where it was read from RDF, else
    its ids and names (an IRI-looking object is an IRI, any other a literal)."""
    rdf = triple.rdf
    if rdf is not None:
        return n_triples_terms(rdf.subject, rdf.predicate, rdf.object)
    subject = Term("iri", triple.subject_id) if triple.subject_id else Term("literal", triple.subject)
    obj = (Term("iri", triple.object_id) if triple.object_id and ":" in triple.object_id
           else Term("literal", triple.object))
    return GraphTriple(subject, triple.predicate_id or triple.predicate, obj)


def claims_profile(triples: list, name: str) -> GraphProfile:
    """The profile of triples already read (data.records.Triple)."""
    graph = [claim_triple(triple) for triple in triples]
    return build_profile(lambda: graph, name)


def endpoint_triples(client: object, selection: object, page_size: int = 10_000) -> Callable[[], Iterator[GraphTriple]]:
    """A SPARQL endpoint's (or embedded store's) selected triples, in pages (data/sparql.py)."""
    from agentkgv.data.sparql import triple_pages

    def stream() -> Iterator[GraphTriple]:
        for page in triple_pages(client, selection, page_size):
            for s, p, o in page:
                yield GraphTriple(oxigraph_term(s), p.value, oxigraph_term(o))

    return stream
