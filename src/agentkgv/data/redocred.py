"""Re-DocRED's revised dev and test sets: 1,000 Wikipedia abstracts with document-level Wikidata triples.

Each document has tokenized `sents`, a `vertexSet` (entities, each a list of mentions with a `name`, a
`sent_id` and a `type`) and `labels` (`{"r": P-id, "h": entity index, "t": entity index, "evidence":
[sentence ids]}`). More than half the labels have no evidence sentence: the revision added triples without
marking any. The revision also made the labels close to exhaustive, so two entities named in one sentence
with no label between them are, as far as the annotators saw, unrelated: the reader learns from that.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.fewrel import detokenize
from agentkgv.data.jsonl import read_json
from agentkgv.data.records import Fact, Triple
from agentkgv.data.trex_json import Document

ROOT = Path("redocred")
SPLITS = ("dev", "test")


@dataclass(frozen=True, slots=True)
class Entity:
    names: tuple[str, ...]  # the mentions' names, first mention first, no repeats
    sentences: frozenset[int]  # ids of the sentences that mention it
    type: str  # PER, ORG, LOC, TIME, NUM or MISC


@dataclass(frozen=True, slots=True)
class Relation:
    head: int
    predicate_id: str
    tail: int
    evidence: tuple[int, ...]  # sentence ids; often empty


@dataclass(frozen=True, slots=True)
class AnnotatedDocument:
    id: str
    title: str
    sentences: tuple[str, ...]
    entities: tuple[Entity, ...]
    relations: tuple[Relation, ...]
    source: str

    def triple(self, relation: Relation, predicate_labels: dict[str, str]) -> Triple:
        head, tail = self.entities[relation.head], self.entities[relation.tail]
        return Triple(subject=head.names[0], predicate=predicate_labels.get(relation.predicate_id, relation.predicate_id),
                      object=tail.names[0], predicate_id=relation.predicate_id)


def iter_redocred(data_dir: Path) -> Iterator[AnnotatedDocument]:
    """Documents of both splits with their entities and relations, as annotated."""
    for split in SPLITS:
        path = data_dir / ROOT / f"{split}_revised.json"
        documents = read_json(path)
        if not isinstance(documents, list):
            raise DataError(path, f"expected a JSON list of documents, got {type(documents).__name__}")
        for index, record in enumerate(documents):
            yield _document(record, f"{split}:{index}", f"redocred:{split}", path, f"[{index}]")


def iter_redocred_documents(
    data_dir: Path, predicate_labels: dict[str, str] | None = None
) -> Iterator[Document]:
    """Documents of both splits; predicates are labelled from `predicate_labels` (id -> label), else by id."""
    labels = predicate_labels or {}
    for document in iter_redocred(data_dir):
        facts = tuple(Fact(triple=document.triple(r, labels), evidences=tuple(document.sentences[s] for s in r.evidence),
                           source=document.source) for r in document.relations)
        yield Document(id=document.id, title=document.title, text=" ".join(document.sentences),
                       sentences=document.sentences, facts=facts, source=document.source)


def _document(record: object, doc_id: str, source: str, path: Path, where: str) -> AnnotatedDocument:
    if not isinstance(record, dict):
        raise DataError(path, "expected a JSON object", field=where)
    sents = record.get("sents")
    if not isinstance(sents, list) or not sents or not all(isinstance(s, list) for s in sents):
        raise DataError(path, "expected a non-empty list of token lists", field=f"{where}.sents")
    sentences = tuple(detokenize(tokens) for tokens in sents)
    entities = record.get("vertexSet")
    if not isinstance(entities, list):
        raise DataError(path, "expected a list of entities", field=f"{where}.vertexSet")
    parsed = tuple(_entity(entity, len(sentences), path, f"{where}.vertexSet[{i}]") for i, entity in enumerate(entities))
    relations = []
    for i, label in enumerate(record.get("labels") or []):
        field = f"{where}.labels[{i}]"
        if not isinstance(label, dict):
            raise DataError(path, "expected a JSON object", field=field)
        relation = label.get("r")
        if not isinstance(relation, str) or not relation:
            raise DataError(path, "missing or empty", field=f"{field}.r")
        evidence = label.get("evidence") or []
        if not isinstance(evidence, list):
            raise DataError(path, "expected a list of sentence ids", field=f"{field}.evidence")
        relations.append(Relation(
            head=_index(label.get("h"), len(parsed), path, f"{field}.h"),
            predicate_id=relation,
            tail=_index(label.get("t"), len(parsed), path, f"{field}.t"),
            evidence=tuple(_index(s, len(sentences), path, f"{field}.evidence") for s in evidence)))
    return AnnotatedDocument(id=doc_id, title=str(record.get("title") or ""), sentences=sentences, entities=parsed,
                             relations=tuple(relations), source=source)


def _entity(entity: object, sentences: int, path: Path, field: str) -> Entity:
    if not isinstance(entity, list) or not entity or not all(isinstance(m, dict) for m in entity):
        raise DataError(path, "expected a non-empty list of mentions", field=field)
    names = []
    for j, mention in enumerate(entity):
        name = mention.get("name")
        if not isinstance(name, str) or not name.strip():
            raise DataError(path, "expected a mention with a name", field=f"{field}[{j}]")
        # Names are the mention's tokens joined by spaces (`February 2 , 1971`): detokenize them again.
        names.append(detokenize(name.split(" ")))
    ids = frozenset(_index(m.get("sent_id"), sentences, path, f"{field}.sent_id") for m in entity if "sent_id" in m)
    return Entity(names=tuple(dict.fromkeys(names)), sentences=ids, type=str(entity[0].get("type") or ""))


def _index(value: object, size: int, path: Path, field: str) -> int:
    if not isinstance(value, int) or not 0 <= value < size:
        raise DataError(path, f"expected an index below {size}, got {value!r}", field=field)
    return value
