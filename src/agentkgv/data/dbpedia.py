"""The DBpedia development set (from the FactCheck benchmark): triples of a real, automatically built graph
with human labels of its extraction errors.

`dbpedia/facts.jsonl` holds one triple a line: full IRIs for the subject and predicate, the object an IRI or
a plain literal, `label` 1 (true) or 0 (false), FactCheck's one-sentence `verbalized` form and `has_docs`;
for the triples with documents, `docs/<id>/*.txt` holds the web pages gathered as their evidence.

A triple is read as a user's N-Triples file of it would be (data/rdf_graphs.py): each IRI named by its local
name, the predicate as words, the object a literal where it is no IRI. Unlike a graph file, a label triple is
kept: its label is the claim. The `verbalized` form keeps the names and words the relation as FactCheck's
sentence does, a claim read as a sentence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from agentkgv.data.errors import DataError, require
from agentkgv.data.rdf_graphs import local_name, n_triples, predicate_words, term_id
from agentkgv.data.records import LabeledTriple, RdfTerms, Triple

ROOT = Path("dbpedia")
FACTS_FILE = ROOT / "facts.jsonl"
DOCS = ROOT / "docs"


def _is_iri(value: str) -> bool:
    return value.startswith(("http://", "https://")) and " " not in value


def _triple(record: dict, path: Path, line: int) -> Triple:
    from rdflib import Literal, URIRef

    subject, predicate, obj = (str(require(record, f, path, line)) for f in ("subject", "predicate", "object"))
    if not _is_iri(predicate):
        raise DataError(path, f"expected an IRI, got {predicate[:80]!r}", line, "predicate")
    # The set's own extraction errors include a subject that is no IRI (a fragment of another record): it is
    # kept as the text the graph holds, a triple that cannot be written back as RDF.
    rdf = RdfTerms(*(n_triples(term, path) for term in (URIRef(subject), URIRef(predicate),
                                                          URIRef(obj) if _is_iri(obj) else Literal(obj)))
                   ) if _is_iri(subject) else None
    return Triple(
        subject=local_name(subject).replace("_", " ") if _is_iri(subject) else subject,
        predicate=predicate_words(local_name(predicate)),
        object=local_name(obj).replace("_", " ") if _is_iri(obj) else obj,
        predicate_id=term_id(predicate), subject_id=term_id(subject) if _is_iri(subject) else None,
        object_id=term_id(obj) if _is_iri(obj) else None, rdf=rdf,
    )


_LEADING = {"the", "s", "'s"}
_TRAILING = {"the", "is", "are", "of", "was", "a", "an"}


def verbalized(triple: Triple, sentence: str) -> Triple:
    """The triple with its relation as FactCheck's sentence words it: the sentence less the subject's and the
    object's names ("Erich Mende was born in German Empire." -> `was born in`); as it was where the sentence
    does not name both as whole words, subject first."""
    found = [re.search(rf"(?<!\w){re.escape(name)}(?!\w)", sentence, re.IGNORECASE)
             for name in (triple.subject, triple.object)]
    # A sentence that names the object first ("Freddie Cunliffe stars in The War Zone.") words the relation
    # from the object's end: read between the names, it would say the reverse.
    if not all(found) or not triple.object.strip() or found[1].start() < found[0].start():
        return triple
    (a, b), (c, d) = (m.span() for m in found)
    if b > c:
        return triple
    words = f"{sentence[:a]} {sentence[b:c]} {sentence[d:]}".replace("'s ", " ").strip(" .'\"").split()
    # What is left of "The length of X is Y." around the names: `length`.
    while words and words[0].lower() in _LEADING:
        words = words[1:]
    while words and words[-1].lower() in _TRAILING:
        words = words[:-1]
    return replace(triple, predicate=" ".join(words)) if words else triple


def iter_dbpedia(data_dir: Path, with_docs: bool = False, form: str = "iri") -> Iterator[LabeledTriple]:
    """Every labelled triple (`with_docs`: only those with web pages), id `dbpedia:<id>`; `form` "verbalized"
    words each relation as FactCheck's sentence does."""
    path = data_dir / FACTS_FILE
    if not path.exists():
        raise DataError(path, "DBpedia facts not found (is the data folder set right?)")
    with path.open(encoding="utf-8") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as error:
                raise DataError(path, f"not JSON: {error.msg}", line) from None
            label = require(record, "label", path, line) if record.get("label") != 0 else 0
            if label not in (0, 1):
                raise DataError(path, f"expected 1 or 0, got {label!r}", line, "label")
            if with_docs and not record.get("has_docs"):
                continue
            triple = _triple(record, path, line)
            if form == "verbalized" and isinstance(record.get("verbalized"), str):
                triple = verbalized(triple, record["verbalized"])
            yield LabeledTriple(f"dbpedia:{require(record, 'id', path, line)}", triple, label == 1, "dbpedia")


def docs_folder(data_dir: Path) -> Path:
    folder = data_dir / DOCS
    if not folder.is_dir():
        raise DataError(folder, "DBpedia documents folder not found (is the data folder set right?)")
    return folder
