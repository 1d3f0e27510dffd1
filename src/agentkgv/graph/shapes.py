"""SHACL: a user's shapes held against the graph, each violation evidence against the triple it names; and a
graph's profile written as shapes a user can read, edit and pass back.

The validation is pyshacl-turbo's: pySHACL's API over a Rust engine, the same violations in half the time or
less (BENCHMARKS.md). A violation names a focus node, a path and (for most
constraints) a value: it is held against every triple of that subject, predicate and value, or, where the
violation has no value (a `sh:maxCount`), every triple of that subject and predicate.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.graph.evidence import SHAPE_RULE, GraphFinding
from agentkgv.graph.profile import GraphProfile, GraphTriple
from agentkgv.graph.values import AUXILIARY_NODE, NUMERIC_DATATYPES, Term, local_part

KGV_SHAPES = "https://w3id.org/agentkgv/shapes#"
# A profile's predicate becomes a constraint only where nearly all its values already meet it.
CONFORMING = 0.95


def _node(term: Term, where: str):
    """An rdflib node of a term, built from its parts, so that a violation's nodes are the triple's own
    (parsing text again would relabel blank nodes and normalise literals such as `"09"^^xsd:integer`)."""
    from rdflib import BNode, Literal, URIRef

    if term.kind == "iri":
        return URIRef(term.value)
    if term.kind == "bnode":
        return BNode(term.value)
    if where == "subject":
        raise DataError("--shapes", f"the triples are not an RDF graph (a subject is the text {term.value[:60]!r}): "
                                    "shapes validate a graph file (.nt .ttl ...) or a SPARQL source")
    return Literal(term.value, datatype=URIRef(term.datatype) if term.datatype else None)


def shape_findings(triples: Sequence[GraphTriple], shapes: Path) -> dict[GraphTriple, list[GraphFinding]]:
    """Each triple a violation of `shapes` (a SHACL file, Turtle or any format rdflib reads) names, with the
    violation's message and shape as the reason."""
    import pyshacl_turbo
    from rdflib import Graph, Namespace, URIRef
    from rdflib.namespace import RDF

    sh = Namespace("http://www.w3.org/ns/shacl#")
    if not shapes.is_file():
        raise DataError(shapes, "no shapes file here (--shapes)")
    try:
        shapes_graph = Graph().parse(shapes)
    except Exception as error:  # rdflib raises many kinds for a malformed file
        raise DataError(shapes, f"not a shapes graph rdflib reads: {error}") from None
    data, by_key = Graph(), {}
    for triple in triples:
        nodes = (_node(triple.subject, "subject"), URIRef(triple.predicate), _node(triple.object, "object"))
        data.add(nodes)
        by_key.setdefault(nodes[:2], []).append((nodes[2], triple))
    _, report, _ = pyshacl_turbo.validate(data, shacl_graph=shapes_graph, inference="none", allow_warnings=True)
    found: dict[GraphTriple, list[GraphFinding]] = {}
    for result in report.subjects(RDF.type, sh.ValidationResult):
        focus, path = report.value(result, sh.focusNode), report.value(result, sh.resultPath)
        if focus is None or path is None:
            continue
        value = report.value(result, sh.value)
        message = report.value(result, sh.resultMessage)
        shape = report.value(result, sh.sourceShape)
        named = [triple for node, triple in by_key.get((focus, path), []) if value is None or node == value]
        # A property shape is mostly a blank node: cite the node shape that holds it.
        named_shape = shapes_graph.value(predicate=sh.property, object=shape) or shape
        reason = f"{message or 'violates a shape'} (shape {named_shape})"
        for triple in named:
            found.setdefault(triple, []).append(GraphFinding(SHAPE_RULE, reason, 0, len(named), strong=True))
    return found


def profile_shapes(profile: GraphProfile, conforming: float = CONFORMING) -> str:
    """The profile as SHACL shapes (Turtle): for each predicate the graph holds enough triples of, a node
    shape over its subjects with the constraints nearly all its values meet (node kind, datatype, one value,
    numeric range), each annotated with the share that conforms."""
    from rdflib import BNode, Graph, Literal, Namespace, URIRef
    from rdflib.namespace import RDF, RDFS, XSD

    sh = Namespace("http://www.w3.org/ns/shacl#")
    graph = Graph()
    graph.bind("sh", sh)
    graph.bind("kgvs", KGV_SHAPES)
    for predicate, counts in profile.predicates.items():
        if counts.triples < 20:
            continue
        # Named by the predicate, so that a user's edits and a regenerated profile line up.
        name = re.sub(r"\W+", "_", local_part(predicate)) + "-" + hashlib.sha1(predicate.encode()).hexdigest()[:6]
        node, prop = URIRef(f"{KGV_SHAPES}{name}"), BNode()
        graph.add((node, RDF.type, sh.NodeShape))
        graph.add((node, sh.targetSubjectsOf, URIRef(predicate)))
        graph.add((node, sh.property, prop))
        graph.add((prop, sh.path, URIRef(predicate)))
        iris = sum(n for kind, n in counts.classes.items()
                   if kind.startswith("an IRI") or kind.endswith(" page") or kind == AUXILIARY_NODE)
        notes = [f"{counts.triples} triples, {counts.subjects} subjects"]
        if iris >= conforming * counts.triples:
            graph.add((prop, sh.nodeKind, sh.IRI))
            notes.append(f"{iris} IRIs")
        elif counts.classes.get("a blank node", 0) + iris == 0:
            graph.add((prop, sh.nodeKind, sh.Literal))
            notes.append("all literals")
        if counts.datatypes:
            datatype, n = max(counts.datatypes.items(), key=lambda item: item[1])
            if n >= conforming * counts.triples:
                graph.add((prop, sh.datatype, URIRef(datatype)))
                notes.append(f"{n} of datatype {datatype}")
        if counts.one_value_share >= conforming:
            graph.add((prop, sh.maxCount, Literal(1)))
            notes.append(f"{counts.one_value_subjects} of {counts.subjects} subjects with one value")
        # A range is a numeric datatype's (a gYear's lexical form reads as a number, but is no xsd:double).
        numeric = counts.datatypes and max(counts.datatypes.items(), key=lambda item: item[1])[0] in NUMERIC_DATATYPES
        if counts.numbers is not None and counts.numbers.count >= conforming * counts.triples and numeric:
            graph.add((prop, sh.minInclusive, Literal(counts.numbers.minimum, datatype=XSD.double)))
            graph.add((prop, sh.maxInclusive, Literal(counts.numbers.maximum, datatype=XSD.double)))
        graph.add((prop, RDFS.comment, Literal("; ".join(notes))))
    return graph.serialize(format="turtle")

