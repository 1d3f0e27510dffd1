"""The passages JSONL format shared by the corpus and every index folder."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from agentkgv.data.errors import require
from agentkgv.data.jsonl import read_jsonl, write_jsonl
from agentkgv.data.records import Passage


def write_passages(path: Path, passages: Iterable[Passage]) -> int:
    return write_jsonl(path, (asdict(passage) for passage in passages))


def read_passages(path: Path) -> list[Passage]:
    return [Passage(id=str(require(record, "id", path, line)), text=str(require(record, "text", path, line)),
                    title=str(record.get("title", "")), source=str(record.get("source", "")))
            for line, record in read_jsonl(path)]
