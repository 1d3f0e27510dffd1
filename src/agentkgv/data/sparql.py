"""A graph where it lives: triples streamed from a SPARQL 1.1 endpoint or an embedded Oxigraph store.

The triples come in pages (`LIMIT n OFFSET k`), each page's entities and predicates named by one more query: `rdfs:label` (else `skos:prefLabel`) in the
chosen language, else an untagged one, else the IRI's local name; `skos:altLabel`s are aliases. A triple's
id is a hash of its N-Triples form, so a rerun of `verify` skips what its output already holds.

The pages follow the store's own order: no ORDER BY is added, because an endpoint sorts the whole
selection again for every page (Oxigraph took over ten minutes for one page of a 1.4-million-triple graph).
SPARQL does not promise that order is the same from one query to the next; the stores we know keep it for
an unchanged graph, and a triple met twice (the same id) is kept once. A query that needs a fixed order
can say ORDER BY itself.

No value is ever spliced into query text as a string: IRIs, literals and the language tag enter only as
RDF terms serialized by pyoxigraph (which validates an IRI and escapes a literal) inside a VALUES block or
a FILTER, so a label or IRI cannot change the query. The graph pattern or SELECT is the user's own. The
endpoint and the embedded store (data/sparql_clients.py) share this paging and naming.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

import pyoxigraph as ox

from agentkgv.data.rdf_graphs import local_name, predicate_words, term_id
from agentkgv.data.records import LabeledTriple, RdfTerms, Triple
from agentkgv.data.sparql_clients import SparqlClient, SparqlError, Term

PREFIXES = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "skos": "http://www.w3.org/2004/02/skos/core#", "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#", "schema": "http://schema.org/",
    "dbo": "http://dbpedia.org/ontology/", "dbr": "http://dbpedia.org/resource/",
    "wd": "http://www.wikidata.org/entity/", "wdt": "http://www.wikidata.org/prop/direct/",
}
PROLOGUE = "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items())
# Naming and documentation triples describe the graph's terms; they are not claims to verify; nor are the
# verdicts `agentkgv export` writes back (on a store whose default graph is the union of its graphs).
ANNOTATIONS = ("rdfs:label", "rdfs:comment", "skos:prefLabel", "skos:altLabel", "rdf:subject", "rdf:predicate",
               "rdf:object")
VERDICT_NAMESPACES = ("https://w3id.org/agentkgv/ns#", "http://www.w3.org/ns/prov#")
LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")
_PAGING = re.compile(r"\b(LIMIT|OFFSET)\s+\d+\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class GraphSelection:
    """Which triples to verify: a graph pattern binding ?s ?p ?o (prefixes rdf, rdfs, skos, xsd, owl,
    schema, dbo, dbr, wd, wdt are declared), or a whole SELECT query (a `.rq` file) binding them."""

    pattern: str | None = None
    query: str | None = None

    def __post_init__(self) -> None:
        if (self.pattern is None) == (self.query is None):
            raise ValueError("give a graph pattern or a SELECT query, not both or neither")
        if self.query is not None and _PAGING.search(self.query.strip()):
            raise ValueError("leave LIMIT and OFFSET out of the query: verify reads the graph in pages itself")

    def select(self) -> str:
        """The query for every triple (pages are cut from it)."""
        if self.query is not None:
            return self.query.rstrip()
        excluded = ", ".join(ANNOTATIONS)
        ours = " && ".join(f"!STRSTARTS(STR(?p), {ox.Literal(n)})" for n in VERDICT_NAMESPACES)
        return f"{PROLOGUE}SELECT ?s ?p ?o WHERE {{\n{self.pattern}\nFILTER(?p NOT IN ({excluded}) && {ours})\n}}"


def triple_pages(client: SparqlClient, selection: GraphSelection, page_size: int, start_page: int = 0) -> Iterator[list[tuple[Term, Term, Term]]]:
    """The selected triples, `page_size` at a time: pages of one streamed query from a store, else a
    query per page until one comes back short."""
    if page_size < 1:
        raise ValueError(f"a page holds at least one triple, not {page_size}")
    query = selection.select()
    if client.streams:
        rows = iter(client.select(query))
        while page := list(islice(rows, page_size)):
            yield _triples(page, client.name)
        return
    page = start_page
    while True:
        rows = list(client.select(f"{query}\nLIMIT {page_size} OFFSET {page * page_size}"))
        if triples := _triples(rows, client.name):
            yield triples
        if len(rows) < page_size:
            return
        page += 1


def _triples(rows: list[dict[str, Term]], source: str) -> list[tuple[Term, Term, Term]]:
    if any(not {"s", "p", "o"} <= row.keys() for row in rows):
        raise SparqlError(source, "the query's rows must bind ?s, ?p and ?o")
    return [(row["s"], row["p"], row["o"]) for row in rows if isinstance(row["p"], ox.NamedNode)]


@dataclass(frozen=True)
class Names:
    """An entity's or predicate's label and other names, as the graph gives them."""

    label: str | None = None
    aliases: tuple[str, ...] = ()


def names_of(client: SparqlClient, iris: list[ox.NamedNode], language: str, chunk: int = 400) -> dict[str, Names]:
    """Label and aliases of each IRI (keyed by the IRI's value): the label in `language`, else an untagged
    one, else a `skos:prefLabel`; every other label and `skos:altLabel` in those languages is an alias."""
    if not LANGUAGE_TAG.fullmatch(language):
        raise ValueError(f"not a language tag: {language!r}")
    tag = ox.Literal(language)
    found: dict[str, list[tuple[int, str]]] = {}
    rank = {"label": 0, "pref": 2, "alt": 4}
    for start in range(0, len(iris), chunk):
        values = " ".join(str(iri) for iri in iris[start:start + chunk])
        query = (f"{PROLOGUE}SELECT ?x ?kind ?name WHERE {{\n  VALUES ?x {{ {values} }}\n"
                 "  { ?x rdfs:label ?name BIND(\"label\" AS ?kind) } UNION { ?x skos:prefLabel ?name BIND(\"pref\" AS ?kind) }"
                 " UNION { ?x skos:altLabel ?name BIND(\"alt\" AS ?kind) }\n"
                 f"  FILTER(lang(?name) = \"\" || langMatches(lang(?name), {tag}))\n}}")
        for row in client.select(query):
            name, kind = row.get("name"), row.get("kind")
            if isinstance(name, ox.Literal) and isinstance(kind, ox.Literal) and "x" in row:
                # The chosen language outranks an untagged name of the same kind.
                order = rank.get(kind.value, 4) + (0 if name.language else 1)
                found.setdefault(row["x"].value, []).append((order, name.value))
    out = {}
    for iri, ranked in found.items():
        ordered = [name for _, name in sorted(ranked)]
        label = ordered[0] if min(r for r, _ in ranked) < 4 else None
        out[iri] = Names(label, tuple(dict.fromkeys(n for n in ordered if n != label)))
    return out


def stream_triples(client: SparqlClient, selection: GraphSelection, language: str = "en", page_size: int = 1000,
                   on_page: Callable[[int], None] = lambda count: None) -> Iterator[LabeledTriple]:
    """The selected triples with their names, page by page, each once."""
    seen: set[str] = set()
    for page in triple_pages(client, selection, page_size):
        named = {t.value: t for triple in page for t in triple if isinstance(t, ox.NamedNode)}
        names = names_of(client, list(named.values()), language)
        for s, p, o in page:
            item = labeled_triple(s, p, o, names, client.name)
            if item.id not in seen:
                seen.add(item.id)
                yield item
        on_page(len(page))


def labeled_triple(s: Term, p: ox.NamedNode, o: Term, names: dict[str, Names], source: str) -> LabeledTriple:
    terms = RdfTerms(str(s), str(p), str(o))
    predicate = names.get(p.value, Names()).label or predicate_words(local_name(p.value))
    triple = Triple(
        subject=_label(s, names), predicate=predicate, object=_label(o, names),
        predicate_id=term_id(p.value), subject_id=_id(s), object_id=_id(o),
        subject_aliases=_aliases(s, names), object_aliases=_aliases(o, names), rdf=terms)
    digest = hashlib.sha1(f"{terms.subject} {terms.predicate} {terms.object}".encode()).hexdigest()[:16]
    return LabeledTriple(id=f"rdf-{digest}", triple=triple, source=source)


def _label(term: Term, names: dict[str, Names]) -> str:
    if isinstance(term, ox.Literal):
        return term.value
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    named = names.get(term.value)
    return named.label if named and named.label else local_name(term.value).replace("_", " ")


def _aliases(term: Term, names: dict[str, Names]) -> tuple[str, ...]:
    return names[term.value].aliases if isinstance(term, ox.NamedNode) and term.value in names else ()


def _id(term: Term) -> str | None:
    return term_id(term.value) if isinstance(term, ox.NamedNode) else None


