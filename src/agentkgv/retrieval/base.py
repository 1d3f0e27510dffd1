"""What every retriever shares: the hit record, the retriever protocol and the on-disk passage table.

An index folder holds the library's own files plus `passages.jsonl` (row i of the index is line i)
and `meta.json` (what was built and how). `meta.json` is written last, so a folder that has one holds
a complete index, and loading checks it before touching anything else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import read_json
from agentkgv.data.passage_file import read_passages, write_passages
from agentkgv.data.records import Passage

PASSAGES_FILE = "passages.jsonl"
META_FILE = "meta.json"


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved passage; rank is 1-based and hits of a query are ordered best first."""

    passage: Passage
    score: float
    rank: int


class Retriever(Protocol):
    name: str

    def search(self, queries: list[str], k: int = 5) -> list[list[Hit]]:
        """One list of at most k hits per query, best first."""
        ...


def indexed_text(passage: Passage) -> str:
    """The text an index sees: the title carries the entity a sentence is about, so it is searched too."""
    return f"{passage.title}: {passage.text}" if passage.title else passage.text


class PassageStore:
    """Row number <-> passage for one index. Passages are deduplicated by id, first occurrence kept,
    since a repeated sentence would otherwise fill several of a query's k slots."""

    def __init__(self, passages: Iterable[Passage]):
        rows: dict[str, int] = {}
        kept: list[Passage] = []
        for passage in passages:
            if passage.id not in rows:
                rows[passage.id] = len(kept)
                kept.append(passage)
        self._passages = tuple(kept)
        self._rows = rows

    def __len__(self) -> int:
        return len(self._passages)

    def __iter__(self) -> Iterator[Passage]:
        return iter(self._passages)

    def __getitem__(self, row: int) -> Passage:
        return self._passages[row]

    def row_of(self, passage_id: str) -> int:
        return self._rows[passage_id]

    def get(self, passage_id: str) -> Passage | None:
        row = self._rows.get(passage_id)
        return None if row is None else self._passages[row]

    def hits(self, rows: Iterable[int], scores: Iterable[float]) -> list[Hit]:
        """Hits for one query from the index's row numbers and scores, given best first."""
        ranked = enumerate(zip(rows, scores, strict=True), start=1)
        return [Hit(self[row], score, rank) for rank, (row, score) in ranked]

    def save(self, index_dir: Path) -> None:
        write_passages(index_dir / PASSAGES_FILE, self._passages)

    @classmethod
    def load(cls, index_dir: Path) -> PassageStore:
        return cls(read_passages(index_dir / PASSAGES_FILE))


def start_build(index_dir: Path) -> None:
    """Create the folder and drop an old meta.json, so a build that dies midway leaves no loadable index."""
    index_dir.mkdir(parents=True, exist_ok=True)
    (index_dir / META_FILE).unlink(missing_ok=True)


def write_meta(index_dir: Path, meta: dict[str, object]) -> None:
    (index_dir / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def read_meta(index_dir: Path, kind: str) -> dict[str, object]:
    """The folder's meta.json, after checking it exists and describes a `kind` index."""
    path = index_dir / META_FILE
    if not path.exists():
        raise DataError(index_dir, f"no {kind} index here (missing {META_FILE}); build the index first")
    meta = read_json(path)
    if not isinstance(meta, dict) or meta.get("kind") != kind:
        found = meta.get("kind") if isinstance(meta, dict) else None
        raise DataError(path, f"expected a {kind} index, found kind {found!r}")
    return meta


def check_passage_count(index_dir: Path, meta: dict[str, object], store: PassageStore, indexed: int) -> None:
    """Catch a folder whose files come from different builds (e.g. an interrupted rebuild)."""
    if not meta.get("passages") == len(store) == indexed:
        raise DataError(index_dir, f"inconsistent index: meta.json says {meta.get('passages')} passages, "
                                   f"{PASSAGES_FILE} has {len(store)}, the index has {indexed}; rebuild it")
