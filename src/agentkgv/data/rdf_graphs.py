"""RDF graphs as triples to verify: N-Triples and Turtle files, or an rdflib graph in memory. RDF terms are read
as the verifier reads text: a predicate IRI becomes words (`dbo:birthPlace` -> `birth place`), an entity its
`rdfs:label` if the graph has one, else its IRI's local name (`Beverly_Hills` -> `Beverly Hills`), and its
other English or untagged labels and `skos:altLabel`s are its aliases. A file's errors name its line where
rdflib lets them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote

from rdflib import RDFS, SKOS, XSD, BNode, Graph, Literal, URIRef

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import decoded_lines
from agentkgv.data.records import LabeledTriple, RdfTerms, Triple
from agentkgv.data.text import folded_words


# The triples that name the graph's terms: each in English or untagged is checked against the term's other names
# (its IRI's local name, its other labels), not named by itself. A name in another language, like a comment, is
# documentation no passage of the index is expected to state: not a claim.
_NAMING = frozenset({RDFS.label, SKOS.prefLabel, SKOS.altLabel})
_DOCUMENTATION = frozenset({RDFS.comment})
_NAMING_TERMS = frozenset(f"<{iri}>" for iri in _NAMING)


def names_a_term(triple: Triple) -> bool:
    """Whether a claim read from a graph is one of its naming triples (a label), checked by name, not a fact."""
    return triple.rdf is not None and triple.rdf.predicate in _NAMING_TERMS


def _claimed(triple: tuple) -> bool:
    _, predicate, obj = triple
    if predicate in _DOCUMENTATION:
        return False
    return predicate not in _NAMING or not isinstance(obj, Literal) or obj.language in (None, "en") or (
        obj.language or "").startswith("en-")


_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_\-\s]+")


_WIKIDATA = re.compile(r"https?://www\.wikidata\.org/(?:entity|prop/direct|prop)/([QP][0-9]+)")


def predicate_words(name: str) -> str:
    """`birthPlace` -> `birth place`, `date_of_birth` -> `date of birth`; acronyms and ids keep their case."""
    words = [word for word in _WORD_BREAK.split(name) if word]
    return " ".join(word if word.isupper() or not word.isalpha() else word.lower() for word in words)


def local_name(iri: str) -> str:
    """The last segment of an IRI, percent-decoded: `http://dbpedia.org/resource/Pel%C3%A9` -> `Pelé`."""
    iri = iri.rstrip("/#")
    separator = "#" if "#" in iri else "/" if "/" in iri else ":"  # DBpedia names may hold a ':'
    return unquote(iri.rsplit(separator, 1)[-1])


def read_rdf(path: Path, rdflib_format: str,
              on_error: Callable[[DataError], None] | None) -> Iterator[LabeledTriple]:
    try:
        graph = _parse(path, rdflib_format)
    except DataError:
        # Turtle statements span lines, so a broken one cannot be cut out; an N-Triples line can.
        if on_error is None or rdflib_format != "nt":
            raise
        graph = _parse_lines(path, on_error)
    yield from graph_claims(graph, path.stem, f"user:{path.name}", path)


def graph_claims(graph: Graph, name: str, source: str, origin: Path | str = "graph") -> Iterator[LabeledTriple]:
    """The triples an rdflib graph states, to verify, named by the graph's labels (rdfs:label, skos:prefLabel;
    skos:altLabel as aliases) or the IRI's local name; then the naming triples themselves in English or untagged,
    each with its subject named by the IRI's local name and its other labels, so that a label is checked against
    the names it does not give. Comments and names in other languages are not claims. `name` starts their ids;
    `origin` is named in errors."""
    graph = stable_blank_nodes(graph)
    names, aliases = _names(graph), _alt_labels(graph)
    claims = sorted(triple for triple in graph if triple[1] not in _NAMING and _claimed(triple))
    naming = sorted(triple for triple in graph if triple[1] in _NAMING and _claimed(triple))
    for index, (subject, predicate, obj) in enumerate(claims + naming, start=1):
        if predicate in _NAMING:
            subject_name, subject_aliases = _named_otherwise(subject, _term_label(obj, names), names, aliases)
        else:
            subject_name, subject_aliases = _term_label(subject, names), aliases.get(subject, ())
        yield LabeledTriple(
            id=f"{name}:{index}",
            triple=Triple(
                subject=subject_name,
                predicate=predicate_words(local_name(str(predicate))),
                object=_term_label(obj, names),
                predicate_id=_term_id(predicate),
                subject_id=_term_id(subject),
                object_id=_term_id(obj),
                subject_aliases=subject_aliases,
                object_aliases=aliases.get(obj, ()),
                rdf=RdfTerms(*(n_triples(term, origin) for term in (subject, predicate, obj))),
            ),
            source=source,
        )


# Graph files are read by Oxigraph's parser: linear in a file's size (rdflib's N-Triples reader is quadratic in
# a literal's length: 186 s for one 5 MB literal), its errors naming the line.
_OXIGRAPH = {"nt": "N_TRIPLES", "turtle": "TURTLE", "nquads": "N_QUADS", "trig": "TRIG"}


def _parse(path: Path, rdflib_format: str) -> Graph:
    for _ in decoded_lines(path):  # a line that is not UTF-8 is named as such
        pass
    graph = Graph()
    try:
        _add_parsed(graph, path, {"path": str(path)}, rdflib_format)
    except SyntaxError as error:
        raise DataError(path, f"not valid {rdflib_format}: {_message(error)}", error.lineno) from None
    return graph


def _parse_lines(path: Path, on_error: Callable[[DataError], None]) -> Graph:
    """The good lines of an N-Triples file, each bad one reported with its number."""
    graph = Graph()
    for number, line in enumerate(decoded_lines(path, on_error), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            _add_parsed(graph, path, {"input": line}, "nt")
        except SyntaxError as error:
            on_error(DataError(path, f"not valid nt: {_message(error)}", number))
    return graph


def _message(error: SyntaxError) -> str:
    return re.sub(r"^Parser error at line \d+ (?:between columns \d+ and \d+|column \d+): ", "", error.msg or str(error))


def _add_parsed(graph: Graph, path: Path, source: dict, rdflib_format: str) -> None:
    import pyoxigraph as ox

    for quad in ox.parse(**source, format=getattr(ox.RdfFormat, _OXIGRAPH[rdflib_format])):
        graph.add((_rdflib_term(quad.subject, path), URIRef(quad.predicate.value), _rdflib_term(quad.object, path)))


def _rdflib_term(term: object, path: Path) -> object:
    import pyoxigraph as ox

    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        datatype = term.datatype.value
        return Literal(term.value, datatype=None if datatype == str(XSD.string) else URIRef(datatype))
    raise DataError(path, f"a triple term (RDF 1.2) is not a claim this verifier reads: {term}")


def stable_blank_nodes(graph: Graph) -> Graph:
    """The graph with each blank node named by what the graph says of it (a hash of its triples, other blank
    nodes read as `_`), so that the same file gives the same names on every parse: rdflib and Turtle's
    `[ ]` name them anew each time, and a run over the graph must resume. Blank nodes alike in every triple
    are interchangeable, and are numbered."""
    nodes = {term for triple in graph for term in (triple[0], triple[2]) if isinstance(term, BNode)}
    if not nodes:
        return graph

    def shown(term: object) -> str:
        return "_" if isinstance(term, BNode) else term.n3()

    signature = {node: hashlib.sha1("\n".join(sorted(
        [f"> {p.n3()} {shown(o)}" for p, o in graph.predicate_objects(node)]
        + [f"< {shown(s)} {p.n3()}" for s, p in graph.subject_predicates(node)])).encode()).hexdigest()[:16]
        for node in nodes}
    seen: dict[str, int] = {}
    names = {}
    for node in sorted(nodes, key=lambda n: signature[n]):
        n = seen[signature[node]] = seen.get(signature[node], 0) + 1
        names[node] = BNode(f"b{signature[node]}" + (f"n{n}" if n > 1 else ""))
    stable = Graph()
    for s, p, o in graph:
        stable.add((names.get(s, s), p, names.get(o, o)))
    return stable


def _labels(graph: Graph) -> dict:
    """Term -> its labels as (text, in English or untagged), the one that names it first: English or untagged
    before other languages, rdfs:label before skos:prefLabel, then in sorted order, so that a term with several
    labels is named alike on every read."""
    ranked: dict = {}
    for rank, predicate in enumerate((RDFS.label, SKOS.prefLabel)):
        for subject, label in graph.subject_objects(predicate):
            if isinstance(label, Literal):
                ranked.setdefault(subject, set()).add((label.language not in (None, "en"), rank, str(label)))
    return {subject: tuple(dict.fromkeys((text, not foreign) for foreign, _, text in sorted(labels)))
            for subject, labels in ranked.items()}


def _names(graph: Graph) -> dict:
    """Term -> the label that names it (`_labels`)."""
    return {subject: labels[0][0] for subject, labels in _labels(graph).items()}


def _alt_labels(graph: Graph) -> dict:
    """Term -> the aliases a passage may name it by: its other labels in English or untagged, then its
    skos:altLabel names."""
    aliases: dict = {}
    for subject, labels in _labels(graph).items():
        others = tuple(dict.fromkeys(text for text, english in labels[1:] if english and text != labels[0][0]))
        if others:
            aliases[subject] = others
    for subject, label in sorted(graph.subject_objects(SKOS.altLabel)):
        if isinstance(label, Literal) and str(label) not in aliases.get(subject, ()):
            aliases[subject] = (*aliases.get(subject, ()), str(label))
    return aliases


# A local name that names nothing a passage would write: a Wikidata id, a number, a hash.
OPAQUE_NAME = re.compile(r"[A-Za-z]?\d+|[0-9a-fA-F-]{16,}|_:.*")


def _named_otherwise(term: object, given: str, names: dict, aliases: dict) -> tuple[str, tuple[str, ...]]:
    """The names of `term` other than the label `given`: its IRI's local name where that is a name, then its
    other labels; the label's subject for a naming triple. With none, the term as `_term_label` shows it, an id
    that claims.py reads as leaving the label nothing to be checked against."""
    own = _term_label(term, {}) if isinstance(term, URIRef) else ""
    # `Marie_Curie`, and a camel-cased name as words: `placeOfBirth`, "place of birth".
    forms = [own, predicate_words(own)] if own and " " not in own else [own]
    forms = [form for form in forms if form and not OPAQUE_NAME.fullmatch(form)]
    others = forms + [n for n in (names.get(term), *aliases.get(term, ())) if n and n != given]
    unique: dict[str, str] = {}
    for name in others:
        unique.setdefault(" ".join(folded_words(name)), name)
    kept = [name for words, name in unique.items() if words]
    return (kept[0], tuple(kept[1:])) if kept else (own or _term_label(term, {}), ())


def _term_label(term: object, names: dict) -> str:
    if term in names:
        return names[term]
    if isinstance(term, Literal):
        return str(term)
    if isinstance(term, BNode):
        return f"_:{term}"
    return local_name(str(term)).replace("_", " ")


def n_triples(term: object, path: Path) -> str:
    """An rdflib term in N-Triples syntax, as pyoxigraph writes it (rdflib's own n3() is Turtle: long
    strings in triple quotes)."""
    import pyoxigraph as ox

    try:
        if isinstance(term, URIRef):
            return str(ox.NamedNode(str(term)))
        if isinstance(term, BNode):
            return str(ox.BlankNode(str(term)))
        if isinstance(term, Literal):
            if term.language:
                return str(ox.Literal(str(term), language=term.language))
            if term.datatype:
                return str(ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype))))
            return str(ox.Literal(str(term)))
    except ValueError as error:
        raise DataError(path, f"not an RDF term pyoxigraph accepts: {term!r} ({error})") from None
    raise DataError(path, f"not an RDF term: {term!r}")


def _term_id(term: object) -> str | None:
    return term_id(str(term)) if isinstance(term, URIRef) else None


def term_id(iri: str) -> str:
    """The id a triple keeps for an IRI: a Wikidata entity or property as its Q/P id, else the IRI."""
    match = _WIKIDATA.fullmatch(iri)
    return match.group(1) if match else iri
