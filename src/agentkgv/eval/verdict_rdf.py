"""Verdicts back into the graph, as RDF.

Three named graphs under a base IRI:
- `<base>verdicts`: one node per verdict, a reification of the triple it judged (`rdf:subject`,
  `rdf:predicate`, `rdf:object`: every store reads it, where RDF-star and RDF 1.2 triple terms are not yet
  read everywhere; with `triple_terms`, also RDF 1.2's `rdf:reifies <<( s p o )>>`, for stores that do), with `kgv:outcome` (`kgv:True`, `kgv:False`, `kgv:NotEnoughEvidence`, `kgv:NoAnswer`),
  `kgv:finding`, what the documents say where the method tells it (`kgv:Supported`, `kgv:Contradicted` with
  `kgv:statedInstead`, the value the cited passage gives, `kgv:NotEnoughEvidence`, `kgv:NotCheckable`), and
  `kgv:listedInFull` true where `kgv:statedInstead` is a page's list of the relation's values without the object,
  `kgv:ofSeveralValues` true where it is another value of a relation with several values,
  `kgv:confidence` and `kgv:probabilityTrue` (xsd:decimal), `kgv:searches`, `kgv:cites` for each passage it
  cites (`kgv:text`, `dcterms:title`, `dcterms:source`), and PROV-O: the verdict is a `prov:Entity`
  `prov:wasGeneratedBy` a `prov:Activity` (the run) with `kgv:method` and `prov:endedAtTime`;
- `<base>cleaned`: the triples judged true, as plain triples;
- `<base>flagged`: every other triple (false, not enough evidence, no answer), for a person to look at.

An export into an endpoint replaces those three graphs: a second export after a new run leaves the new
verdicts, not both.

A triple read from RDF (a file or an endpoint) keeps its own terms; any other gets IRIs from its ids
where they are IRIs or Wikidata ids, else `urn:agentkgv:` names, and a literal object.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox

from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.errors import DataError
from agentkgv.data.records import Triple

KGV = "https://w3id.org/agentkgv/ns#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
DCTERMS = "http://purl.org/dc/terms/"
XSD = "http://www.w3.org/2001/XMLSchema#"
DEFAULT_BASE = "urn:agentkgv:graph:"
FORMATS = {".trig": ox.RdfFormat.TRIG, ".nq": ox.RdfFormat.N_QUADS}


def _k(name: str) -> ox.NamedNode:
    return ox.NamedNode(KGV + name)


TYPE, SUBJECT, PREDICATE, OBJECT = (ox.NamedNode(RDF + n) for n in ("type", "subject", "predicate", "object"))
REIFIES = ox.NamedNode(RDF + "reifies")
OUTCOMES = {True: _k("True"), False: _k("False"), "undecided": _k("NotEnoughEvidence"), None: _k("NoAnswer")}
FINDINGS = {Finding.SUPPORTED.value: _k("Supported"), Finding.CONTRADICTED.value: _k("Contradicted"),
            Finding.NOT_ENOUGH_EVIDENCE.value: _k("NotEnoughEvidence"), Finding.NOT_CHECKABLE.value: _k("NotCheckable"),
            Finding.WRONG_KIND.value: _k("WrongKindOfValue"), Finding.GRAPH_CONTRADICTED.value: _k("ContradictedByGraph")}


@dataclass(frozen=True)
class Graphs:
    """The named graphs an export writes."""

    verdicts: ox.NamedNode
    cleaned: ox.NamedNode
    flagged: ox.NamedNode

    @staticmethod
    def under(base: str) -> Graphs:
        try:
            ox.NamedNode(base + "verdicts")
        except ValueError as error:
            raise DataError("--base", f"not an IRI to name graphs under: {base!r} ({error})") from None
        return Graphs(*(ox.NamedNode(base + name) for name in ("verdicts", "cleaned", "flagged")))


def statement(triple: Triple) -> tuple[ox.NamedNode | ox.BlankNode, ox.NamedNode, ox.NamedNode | ox.BlankNode | ox.Literal]:
    """The triple's RDF terms: its own where it was read from RDF, else made from its ids and labels."""
    if triple.rdf is not None:
        parsed = next(iter(ox.parse(f"{triple.rdf.subject} {triple.rdf.predicate} {triple.rdf.object} .",
                                    format=ox.RdfFormat.N_TRIPLES)))
        return parsed.subject, parsed.predicate, parsed.object
    subject = _iri(triple.subject_id, "entity", triple.subject)
    predicate = _iri(triple.predicate_id, "property", triple.predicate, wikidata="http://www.wikidata.org/prop/direct/")
    obj = _iri(triple.object_id, "entity", triple.object) if triple.object_id else ox.Literal(triple.object)
    return subject, predicate, obj


def _iri(id_: str | None, kind: str, label: str, wikidata: str = "http://www.wikidata.org/entity/") -> ox.NamedNode:
    if id_ and id_[0] in "QP" and id_[1:].isdigit():
        return ox.NamedNode(wikidata + id_)
    if id_ and ":" in id_:
        try:
            return ox.NamedNode(id_)
        except ValueError:
            pass  # not an IRI after all: named from the label below
    return ox.NamedNode(f"urn:agentkgv:{kind}:{quote(id_ or label, safe='')}")


def verdict_quads(verdicts: Iterable[Verdict], graphs: Graphs, run: str, ended: datetime,
                  triple_terms: bool = False) -> Iterator[ox.Quad]:
    """The quads of the three graphs for these verdicts; `run` names the run (its activity's IRI)."""
    activity = ox.NamedNode(f"urn:agentkgv:run:{hashlib.sha1(run.encode()).hexdigest()[:16]}")
    g = graphs.verdicts
    yield ox.Quad(activity, TYPE, ox.NamedNode(PROV + "Activity"), g)
    yield ox.Quad(activity, ox.NamedNode(PROV + "endedAtTime"),
                  ox.Literal(ended.isoformat(), datatype=ox.NamedNode(XSD + "dateTime")), g)
    methods = set()
    for verdict in verdicts:
        s, p, o = statement(verdict.triple)
        key = f"{run} {verdict.method} {s} {p} {o}"
        node = ox.NamedNode(f"urn:agentkgv:verdict:{hashlib.sha1(key.encode()).hexdigest()[:20]}")
        outcome = OUTCOMES["undecided" if verdict.undecided else verdict.verdict]
        yield from (ox.Quad(node, TYPE, _k("Verdict"), g), ox.Quad(node, TYPE, ox.NamedNode(RDF + "Statement"), g),
                    ox.Quad(node, TYPE, ox.NamedNode(PROV + "Entity"), g),
                    ox.Quad(node, SUBJECT, s, g), ox.Quad(node, PREDICATE, p, g), ox.Quad(node, OBJECT, o, g),
                    ox.Quad(node, _k("outcome"), outcome, g), ox.Quad(node, _k("tripleId"), ox.Literal(verdict.id), g),
                    ox.Quad(node, _k("searches"), ox.Literal(str(verdict.search_calls), datatype=ox.NamedNode(XSD + "integer")), g),
                    ox.Quad(node, ox.NamedNode(PROV + "wasGeneratedBy"), activity, g))
        if triple_terms:
            yield ox.Quad(node, REIFIES, ox.Triple(s, p, o), g)
        if verdict.outcome in FINDINGS:
            yield ox.Quad(node, _k("finding"), FINDINGS[verdict.outcome], g)
        if verdict.stated_instead:
            yield ox.Quad(node, _k("statedInstead"), ox.Literal(verdict.stated_instead), g)
        if verdict.listed:
            yield ox.Quad(node, _k("listedInFull"), ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean")), g)
        if verdict.several_valued:
            yield ox.Quad(node, _k("ofSeveralValues"), ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean")), g)
        if verdict.reason:
            yield ox.Quad(node, _k("reason"), ox.Literal(verdict.reason), g)
        if verdict.documents_outcome in FINDINGS:
            yield ox.Quad(node, _k("documentsFinding"), FINDINGS[verdict.documents_outcome], g)
        for number, finding in enumerate(verdict.graph):
            evidence = ox.NamedNode(f"{node.value}:graph:{number}")
            yield from (ox.Quad(node, _k("graphFinding"), evidence, g),
                        ox.Quad(evidence, _k("rule"), ox.Literal(finding.rule), g),
                        ox.Quad(evidence, _k("reason"), ox.Literal(finding.reason), g),
                        ox.Quad(evidence, _k("observed"), ox.Literal(str(finding.observed), datatype=ox.NamedNode(XSD + "integer")), g),
                        ox.Quad(evidence, _k("outOf"), ox.Literal(str(finding.out_of), datatype=ox.NamedNode(XSD + "integer")), g),
                        ox.Quad(evidence, _k("strong"), ox.Literal("true" if finding.strong else "false", datatype=ox.NamedNode(XSD + "boolean")), g))
        for name, value in (("confidence", verdict.confidence), ("probabilityTrue", verdict.p_true)):
            if value is not None:
                yield ox.Quad(node, _k(name), ox.Literal(f"{value:.4f}", datatype=ox.NamedNode(XSD + "decimal")), g)
        for ref in verdict.evidence:
            # Ids are unique within a source only (a user's passage table may number them 1, 2, ...).
            passage = ox.NamedNode(f"urn:agentkgv:passage:{hashlib.sha1(f'{ref.source} {ref.id}'.encode()).hexdigest()[:20]}")
            yield ox.Quad(node, _k("cites"), passage, g)
            yield ox.Quad(passage, _k("text"), ox.Literal(ref.text), g)
            if ref.title:
                yield ox.Quad(passage, ox.NamedNode(DCTERMS + "title"), ox.Literal(ref.title), g)
            if ref.source:
                yield ox.Quad(passage, ox.NamedNode(DCTERMS + "source"), ox.Literal(ref.source), g)
        yield ox.Quad(s, p, o, graphs.cleaned if verdict.verdict is True else graphs.flagged)
        methods.add(verdict.method)
    for method in sorted(methods):
        yield ox.Quad(activity, _k("method"), ox.Literal(method), g)


def write_rdf(quads: Iterable[ox.Quad], path: Path) -> None:
    """TriG or N-Quads, by the file's suffix."""
    if path.suffix.lower() not in FORMATS:
        raise DataError(path, f"write verdicts as {' or '.join(FORMATS)} (named graphs need a quad format)")
    if not path.parent.is_dir():
        raise DataError(path, f"no folder {path.parent} to write into: create it or choose another -o")
    try:
        ox.serialize(quads, str(path), FORMATS[path.suffix.lower()],
                     prefixes={"kgv": KGV, "prov": PROV, "dcterms": DCTERMS, "xsd": XSD, "rdf": RDF})
    except OSError as error:  # a read-only folder, a full disk: Oxigraph's error names no path
        raise DataError(path, f"cannot be written ({error.strerror or error}); choose another -o") from None


def insert_statements(quads: Iterable[ox.Quad], graphs: Graphs, chunk: int = 2000) -> Iterator[str]:
    """SPARQL Update requests that replace the three graphs with the quads: `DROP SILENT GRAPH` each, then
    `INSERT DATA`, `chunk` quads a request. The terms are serialized by pyoxigraph (escaped, validated),
    never pasted from text."""
    yield " ;\n".join(f"DROP SILENT GRAPH {g}" for g in (graphs.verdicts, graphs.cleaned, graphs.flagged))
    batch: list[ox.Quad] = []
    for quad in quads:
        batch.append(quad)
        if len(batch) == chunk:
            yield _insert(batch)
            batch = []
    if batch:
        yield _insert(batch)


def _insert(quads: list[ox.Quad]) -> str:
    by_graph: dict[str, list[str]] = {}
    for q in quads:
        by_graph.setdefault(str(q.graph_name), []).append(f"{q.subject} {q.predicate} {q.object} .")
    body = "\n".join(f"GRAPH {graph} {{\n" + "\n".join(lines) + "\n}" for graph, lines in by_graph.items())
    return f"INSERT DATA {{\n{body}\n}}"
