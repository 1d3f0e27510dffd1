"""The T-REx JSON document format: a text, its sentences, and the Wikidata triples aligned to it.

Two files use it: `trex_format/sample-output.json` (a JSON list, with `sentences_boundaries`) and
`rebel/sample.jsonl` (one document a line, without sentence boundaries: we split the text ourselves).
Entity and predicate `uri`s are full Wikidata IRIs in the first and bare ids in the second; both are
reduced to the id (`Q228`, `P37`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json, read_jsonl
from agentkgv.data.records import Fact, Triple


@dataclass(frozen=True, slots=True)
class Document:
    """A text with its sentences and the facts aligned to it; the shape every document loader yields."""

    id: str
    title: str
    text: str
    sentences: tuple[str, ...]
    facts: tuple[Fact, ...]
    source: str


_WIKIDATA_ID = re.compile(r"[QPL][0-9]+")

# A sentence ends at . ! or ? (plus closing quotes/brackets) followed by space and a capital or digit,
# or at a blank line. Single newlines are not boundaries: REBEL's abstracts wrap lists across lines.
_BOUNDARY = re.compile(r"(?<=[.!?])([\"')\]’”]*)\s+(?=[\"'(\[“‘]?[A-Z0-9])|\n[ \t]*\n\s*")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr mt ft gen col lt sgt capt rev gov sen rep no vs etc inc ltd co corp"
    " jan feb mar apr jun jul aug sep sept oct nov dec ca c fig vol op".split()
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text`, whitespace trimmed, empty ones dropped."""
    spans = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(1) if match.group(1) is not None else match.start()
        if match.group(1) is not None and _ends_with_abbreviation(text[start:match.start()]):
            continue
        spans.append((start, end))
        start = match.end()
    spans.append((start, len(text)))
    return [trimmed for span in spans if (trimmed := _trim(text, span))]


def split_sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def _ends_with_abbreviation(chunk: str) -> bool:
    # "David M. Louie", "St. Rumbold's", "A.D. 988": the period is part of a word, not a full stop.
    words = chunk.rstrip(".!?").split()
    if not words or not chunk.endswith("."):
        return False
    word = words[-1].lstrip("(\"'“‘")
    return (len(word) == 1 and word.isupper()) or "." in word or word.lower() in _ABBREVIATIONS


def _trim(text: str, span: tuple[int, int]) -> tuple[int, int] | None:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def wikidata_id(uri: object) -> str | None:
    """`http://www.wikidata.org/prop/direct/P37` -> `P37`; None for a non-Wikidata uri, such as the
    `XMLSchema#dateTime` that REBEL gives date objects."""
    tail = str(uri or "").rstrip("/").rsplit("/", 1)[-1]
    return tail if _WIKIDATA_ID.fullmatch(tail) else None


def iter_trex_documents(
    path: Path, source: str, predicate_labels: dict[str, str] | None = None
) -> Iterator[Document]:
    """Documents of a T-REx `.json` list or `.jsonl` file.

    A predicate without a surface form (the T-REx sample has none) is labelled from `predicate_labels`
    (Wikidata id -> label), else with its id.
    """
    path = Path(path)
    if path.suffix == ".jsonl":
        for line, record in read_jsonl(path):
            yield _document(record, path, line, "", source, predicate_labels or {})
    else:
        records = read_json(path)
        if not isinstance(records, list):
            raise DataError(path, f"expected a JSON list of documents, got {type(records).__name__}")
        for index, record in enumerate(records):
            yield _document(record, path, None, f"[{index}].", source, predicate_labels or {})


def _document(
    record: object, path: Path, line: int | None, where: str, source: str, labels: dict[str, str]
) -> Document:
    # `where` prefixes field names with the document's index when there is no line to point at.
    if not isinstance(record, dict):
        message = f"expected a JSON object, got {type(record).__name__}"
        raise DataError(path, message, line, where.rstrip(".") or None)
    text = _string(record, "text", path, line, where)
    doc_id = str(record.get("docid") or record.get("uri") or "")
    if not doc_id:
        raise DataError(path, "missing or empty", line, f"{where}docid")
    boundaries = record.get("sentences_boundaries")
    if boundaries:
        spans = [
            span
            for i, item in enumerate(boundaries)
            if (span := _span(item, path, line, f"{where}sentences_boundaries[{i}]"))
            and text[span[0] : span[1]].strip()
        ]
    else:
        spans = sentence_spans(text)
    sentences = tuple(text[start:end].strip() for start, end in spans) or (text.strip(),)
    triples = record.get("triples") or []
    if not isinstance(triples, list):
        raise DataError(path, "expected a list", line, f"{where}triples")
    facts = tuple(
        _fact(item, spans, bool(boundaries), text, path, line, f"{where}triples[{i}].", source, labels)
        for i, item in enumerate(triples)
    )
    return Document(
        id=doc_id,
        title=str(record.get("title") or ""),
        text=text,
        sentences=sentences,
        facts=facts,
        source=source,
    )


def _fact(
    item: object,
    spans: list[tuple[int, int]],
    ids_match_spans: bool,
    text: str,
    path: Path,
    line: int | None,
    where: str,
    source: str,
    labels: dict[str, str],
) -> Fact:
    if not isinstance(item, dict):
        raise DataError(path, f"expected a JSON object, got {type(item).__name__}", line, where.rstrip("."))
    subject = _part(item, "subject", path, line, where)
    predicate = _part(item, "predicate", path, line, where)
    obj = _part(item, "object", path, line, where)
    predicate_uri = predicate.get("uri")
    if not predicate_uri and not predicate.get("surfaceform"):
        raise DataError(path, "needs a uri or a surfaceform", line, f"{where}predicate")
    predicate_id = wikidata_id(predicate_uri)
    label = predicate.get("surfaceform") or labels.get(predicate_id or "") or predicate_id
    triple = Triple(
        subject=_string(subject, "surfaceform", path, line, f"{where}subject."),
        predicate=str(label),
        object=_string(obj, "surfaceform", path, line, f"{where}object."),
        predicate_id=predicate_id,
        subject_id=wikidata_id(subject.get("uri")),
        object_id=wikidata_id(obj.get("uri")),
    )
    sentence = _evidence_span(item, subject, obj, spans, ids_match_spans, path, line, where)
    evidences = (text[sentence[0] : sentence[1]].strip(),) if sentence else ()
    return Fact(triple=triple, evidences=evidences, source=source)


def _evidence_span(
    item: dict,
    subject: dict,
    obj: dict,
    spans: list[tuple[int, int]],
    ids_match_spans: bool,
    path: Path,
    line: int | None,
    where: str,
) -> tuple[int, int] | None:
    """The sentence stating the fact: the object's sentence first, as the aligners anchor on the object
    (the NoSubject aligner takes the subject from the title, often sentences away); then `sentence_id`,
    trusted only when it indexes the file's own sentence boundaries; then the subject's sentence."""
    object_span = _span(obj.get("boundaries"), path, line, f"{where}object.boundaries")
    if object_span and (found := _containing(spans, object_span[0])):
        return found
    sentence_id = item.get("sentence_id")
    if ids_match_spans and isinstance(sentence_id, int) and 0 <= sentence_id < len(spans):
        return spans[sentence_id]
    subject_span = _span(subject.get("boundaries"), path, line, f"{where}subject.boundaries")
    if subject_span:
        return _containing(spans, subject_span[0])
    return None


def _containing(spans: list[tuple[int, int]], position: int) -> tuple[int, int] | None:
    return next(((start, end) for start, end in spans if start <= position < end), None)


def _part(item: dict, name: str, path: Path, line: int | None, where: str) -> dict:
    part = item.get(name)
    if not isinstance(part, dict):
        raise DataError(path, "missing or not an object", line, f"{where}{name}")
    return part


def _string(record: dict, name: str, path: Path, line: int | None, where: str) -> str:
    value = record.get(name)
    if value in (None, "") or not isinstance(value, str):
        raise DataError(path, "missing or empty", line, f"{where}{name}")
    return value


def _span(value: object, path: Path, line: int | None, field: str) -> tuple[int, int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) for v in value)
        or value[0] > value[1]
    ):
        raise DataError(path, f"expected [start, end] offsets, got {json.dumps(value)}", line, field)
    return value[0], value[1]
