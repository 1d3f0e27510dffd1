"""FewRel's validation set: 16 Wikidata relations x 700 tokenized Wikipedia sentences with head and tail.

`fewrel/val_wiki.json` maps a relation id to records `{"tokens": [...], "h": [name, Q-id, [[token
positions], ...]], "t": [...]}`. The names are lowercased (`cape girardeau bridge`), so the subject and
object labels are taken from the tokens of the first mention instead, which keep the sentence's casing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json
from agentkgv.data.records import Fact, Triple

PATH = Path("fewrel") / "val_wiki.json"

_NO_SPACE_BEFORE = frozenset(
    {",", ".", ";", ":", "!", "?", ")", "]", "}", "%", "...", "..", "…", "”", "’"}
    | {"'s", "’s", "n't", "'re", "'ve", "'ll", "'d", "'m"}
)
_NO_SPACE_AFTER = frozenset({"(", "[", "{", "“", "‘", "$", "US$", "£", "€", "#"})
# Wikipedia writes hyphens, ranges (1987–1990) and dashes unspaced; tokenizers split them off.
_JOINERS = frozenset({"-", "–", "—", "/"})
_QUOTES = frozenset({'"', "'", "``", "''"})


def detokenize(tokens: list[str]) -> str:
    """Join word tokens into readable text: `Smith ( born 1950 ) , " Epistles "` ->
    `Smith (born 1950), "Epistles"`."""
    pieces: list[str] = []
    glue_next = False
    open_quotes: set[str] = set()
    for token in tokens:
        if not token.strip():
            continue  # stray whitespace tokens (non-breaking spaces, newlines)
        token = token.strip()
        space = bool(pieces) and not glue_next
        glue_next = False
        if token in _NO_SPACE_BEFORE:
            space = False
        elif token in _JOINERS:
            space, glue_next = False, True
        elif token in _NO_SPACE_AFTER:
            glue_next = True
        elif token in _QUOTES:
            kind = '"' if token != "'" else "'"
            if kind in open_quotes:
                open_quotes.discard(kind)
                space = False
            elif kind == "'" and pieces and pieces[-1].endswith("s"):
                space = False  # plural possessive: "the players ' union"
            else:
                open_quotes.add(kind)
                glue_next = True
            token = kind
        pieces.append(f" {token}" if space else token)
    return "".join(pieces)


def iter_fewrel(data_dir: Path, predicate_labels: dict[str, str] | None = None) -> Iterator[Fact]:
    """One fact per sentence; predicates are labelled from `predicate_labels` (id -> label), else by id."""
    path = data_dir / PATH
    relations = read_json(path)
    if not isinstance(relations, dict):
        raise DataError(path, f"expected an object of relation id -> records, got {type(relations).__name__}")
    labels = predicate_labels or {}
    for relation, records in relations.items():
        if not isinstance(records, list):
            raise DataError(path, "expected a list of records", field=relation)
        for index, record in enumerate(records):
            where = f"{relation}[{index}]"
            if not isinstance(record, dict):
                raise DataError(path, "expected a JSON object", field=where)
            tokens = record.get("tokens")
            if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
                raise DataError(path, "expected a non-empty list of strings", field=f"{where}.tokens")
            subject, subject_id = _entity(record.get("h"), tokens, path, f"{where}.h")
            obj, object_id = _entity(record.get("t"), tokens, path, f"{where}.t")
            triple = Triple(
                subject=subject,
                predicate=labels.get(relation, relation),
                object=obj,
                predicate_id=relation,
                subject_id=subject_id,
                object_id=object_id,
            )
            yield Fact(triple=triple, evidences=(detokenize(tokens),), source="fewrel")


def _entity(value: object, tokens: list[str], path: Path, field: str) -> tuple[str, str | None]:
    """(label, Q-id) of a head or tail: the first mention's tokens, or the name if they are out of range."""
    if not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], str) or not value[0]:
        raise DataError(path, "expected [name, Q-id, [[token positions], ...]]", field=field)
    name, qid, mentions = value
    first = mentions[0] if isinstance(mentions, list) and mentions else None
    positions = first if isinstance(first, list) else []
    if positions and all(isinstance(i, int) and 0 <= i < len(tokens) for i in positions):
        return detokenize([tokens[i] for i in positions]), qid or None
    return name, qid or None
