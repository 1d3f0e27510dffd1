"""Re-DocRED's revised dev and test sets: 1,000 Wikipedia abstracts with document-level Wikidata triples.

Each document has tokenized `sents`, a `vertexSet` (entities, each a list of mentions with a `name`)
and `labels` (`{"r": P-id, "h": entity index, "t": entity index, "evidence": [sentence ids]}`). More
than half the labels have no evidence sentence: the revision added triples without marking any.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.fewrel import detokenize
from agentkgv.data.jsonl import read_json
from agentkgv.data.records import Fact, Triple
from agentkgv.data.trex_json import Document

ROOT = Path("redocred")
SPLITS = ("dev", "test")


def iter_redocred_documents(
    data_dir: Path, predicate_labels: dict[str, str] | None = None
) -> Iterator[Document]:
    """Documents of both splits; predicates are labelled from `predicate_labels` (id -> label), else by id."""
    labels = predicate_labels or {}
    for split in SPLITS:
        path = data_dir / ROOT / f"{split}_revised.json"
        documents = read_json(path)
        if not isinstance(documents, list):
            raise DataError(path, f"expected a JSON list of documents, got {type(documents).__name__}")
        for index, record in enumerate(documents):
            yield _document(record, f"{split}:{index}", f"redocred:{split}", labels, path, f"[{index}]")


def _document(
    record: object, doc_id: str, source: str, labels: dict[str, str], path: Path, where: str
) -> Document:
    if not isinstance(record, dict):
        raise DataError(path, "expected a JSON object", field=where)
    sents = record.get("sents")
    if not isinstance(sents, list) or not sents or not all(isinstance(s, list) for s in sents):
        raise DataError(path, "expected a non-empty list of token lists", field=f"{where}.sents")
    sentences = tuple(detokenize(tokens) for tokens in sents)
    entities = record.get("vertexSet")
    if not isinstance(entities, list):
        raise DataError(path, "expected a list of entities", field=f"{where}.vertexSet")
    names = [_entity_name(entity, path, f"{where}.vertexSet[{i}]") for i, entity in enumerate(entities)]
    facts = []
    for i, label in enumerate(record.get("labels") or []):
        field = f"{where}.labels[{i}]"
        if not isinstance(label, dict):
            raise DataError(path, "expected a JSON object", field=field)
        relation = label.get("r")
        if not isinstance(relation, str) or not relation:
            raise DataError(path, "missing or empty", field=f"{field}.r")
        head = _index(label.get("h"), len(names), path, f"{field}.h")
        tail = _index(label.get("t"), len(names), path, f"{field}.t")
        evidence = label.get("evidence") or []
        if not isinstance(evidence, list):
            raise DataError(path, "expected a list of sentence ids", field=f"{field}.evidence")
        evidences = tuple(sentences[_index(s, len(sentences), path, f"{field}.evidence")] for s in evidence)
        triple = Triple(
            subject=names[head],
            predicate=labels.get(relation, relation),
            object=names[tail],
            predicate_id=relation,
        )
        facts.append(Fact(triple=triple, evidences=evidences, source=source))
    return Document(
        id=doc_id,
        title=str(record.get("title") or ""),
        text=" ".join(sentences),
        sentences=sentences,
        facts=tuple(facts),
        source=source,
    )


def _entity_name(entity: object, path: Path, field: str) -> str:
    # Names are the mention's tokens joined by spaces (`February 2 , 1971`): detokenize them again.
    first = entity[0] if isinstance(entity, list) and entity else None
    name = first.get("name") if isinstance(first, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise DataError(path, "expected a list of mentions, the first with a name", field=field)
    return detokenize(name.split(" "))


def _index(value: object, size: int, path: Path, field: str) -> int:
    if not isinstance(value, int) or not 0 <= value < size:
        raise DataError(path, f"expected an index below {size}, got {value!r}", field=field)
    return value
