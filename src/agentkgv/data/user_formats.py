"""The formats users keep their own graphs in: JSON Lines, CSV/TSV with a header, N-Triples and Turtle (read by
data/rdf_graphs.py).

Tabular rows name their columns `subject`/`predicate`/`object` (or `s`/`p`/`o`), with optional `id`,
`label` (true/false/1/0), `predicate_id`, `subject_id`, `object_id`, and `subject_aliases` /
`object_aliases` (a JSON list, or names joined by `|` in a table cell). A JSON line may instead nest those
fields under `triple`, as the benchmark's splits and `verify`'s own output do (whose `gold` is then the
label), so either file can be verified again. The formats share the record checks and error reporting (file
and line).
"""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path


from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import decoded_lines, raise_field_limit, read_jsonl, write_jsonl
from agentkgv.data.rdf_graphs import read_rdf
from agentkgv.data.records import LabeledTriple, Triple

SUPPORTED_FORMATS = ("jsonl", "csv", "tsv", "nt", "ttl", "nq", "trig")
_SUFFIXES = {".jsonl": "jsonl", ".csv": "csv", ".tsv": "tsv", ".nt": "nt", ".ttl": "ttl", ".nq": "nq", ".trig": "trig"}
# A quad format's graph names are not part of a claim: its triples are read as one graph.
_RDFLIB_FORMATS = {"nt": "nt", "ttl": "turtle", "nq": "nquads", "trig": "trig"}
_COLUMNS = {"subject": ("subject", "s"), "predicate": ("predicate", "p"), "object": ("object", "o")}
_OPTIONAL = ("predicate_id", "subject_id", "object_id")
_ALIASES = ("subject_aliases", "object_aliases")
_TRUE, _FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})


def read_triples(path: Path, fmt: str | None = None,
                 rejected: list[DataError] | None = None) -> Iterator[LabeledTriple]:
    """Triples of a user's file; `fmt` (one of SUPPORTED_FORMATS) defaults to what the suffix says.

    A bad row (broken JSON, not UTF-8, a missing field, a repeated id) raises DataError naming file:line,
    or, when a `rejected` list is given, is appended there and skipped so every good row is still read."""
    path = Path(path)
    fmt = fmt or _SUFFIXES.get(path.suffix.lower())
    if fmt not in SUPPORTED_FORMATS:
        supported = ", ".join(SUPPORTED_FORMATS)
        raise DataError(path, f"unknown format {fmt or path.suffix!r}; supported: {supported}")
    if not path.exists():
        raise DataError(path, "file not found")
    if path.is_dir():
        raise DataError(path, "a folder, not a file of triples: give the file inside it")
    if not path.is_file():
        raise DataError(path, "not a regular file (a pipe or a device): give a file of triples")
    on_error = None if rejected is None else rejected.append
    if fmt == "jsonl":
        rows = _read_jsonl(path, on_error)
    elif fmt in ("csv", "tsv"):
        rows = _read_table(path, on_error)
    else:
        return read_rdf(path, _RDFLIB_FORMATS[fmt], on_error)
    return _unique(_rows_to_triples(rows, path, on_error), path, on_error)


def _rows_to_triples(rows: Iterator[tuple[int, dict]], path: Path,
                     on_error: Callable[[DataError], None] | None) -> Iterator[tuple[int, LabeledTriple]]:
    for line, row in rows:
        try:
            yield line, _from_row(row, path, line)
        except DataError as error:
            if on_error is None:
                raise
            on_error(error)


def _unique(rows: Iterator[tuple[int, LabeledTriple]], path: Path,
            on_error: Callable[[DataError], None] | None) -> Iterator[LabeledTriple]:
    """A run log keys verdicts by id, so a repeated id would silently give two triples one verdict."""
    first_line: dict[str, int] = {}
    for line, item in rows:
        if item.id in first_line:
            error = DataError(path, f"duplicate id {item.id!r} (first at line {first_line[item.id]})", line, "id")
            if on_error is None:
                raise error
            on_error(error)
            continue
        first_line[item.id] = line
        yield item


def write_rejected(output: Path, rejected: list[DataError]) -> Path:
    """The rows a skip-mode run left out, with why, beside its output: `<output>.rejected.jsonl`."""
    path = Path(output).with_name(Path(output).name + ".rejected.jsonl")
    write_jsonl(path, ({"file": error.path, "line": error.line, "field": error.field, "error": str(error)}
                       for error in rejected))
    return path


def _read_jsonl(path: Path, on_error: Callable[[DataError], None] | None) -> Iterator[tuple[int, dict]]:
    for line, record in read_jsonl(path, on_error):
        if isinstance(record, dict) and isinstance(record.get("triple"), dict):
            yield line, {**record["triple"], "id": record.get("id"), "label": record.get("label", record.get("gold"))}
            continue
        if isinstance(record, dict):
            yield line, record
            continue
        error = DataError(path, f"expected a JSON object, got {type(record).__name__}", line)
        if on_error is None:
            raise error
        on_error(error)


def _read_table(path: Path, on_error: Callable[[DataError], None] | None) -> Iterator[tuple[int, dict]]:
    raise_field_limit()
    lines = iter(decoded_lines(path, on_error))
    header = next(lines, "")
    reader = csv.DictReader(itertools.chain([header], lines), delimiter="\t" if "\t" in header else ",")
    columns = {name.strip() for name in reader.fieldnames or []}
    for field, names in _COLUMNS.items():
        if not columns & set(names):
            raise DataError(path, f"header has no {' or '.join(map(repr, names))} column", 1, field)
    for row in reader:
        if None in row:
            error = DataError(path, "more cells than header columns", reader.line_num)
            if on_error is None:
                raise error
            on_error(error)
            continue
        yield reader.line_num, {key.strip(): value for key, value in row.items()}


def _from_row(row: dict, path: Path, line: int) -> LabeledTriple:
    values = {}
    for field, names in _COLUMNS.items():
        value = next((row[name] for name in names if row.get(name) not in (None, "")), None)
        if value is None or not str(value).strip():
            raise DataError(path, "missing or empty", line, field)
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise DataError(path, f"expected a name, got {type(value).__name__} {json.dumps(value)[:60]}", line, field)
        values[field] = _text(str(value).strip(), path, line, field)
    optional = {key: str(row[key]).strip() for key in _OPTIONAL if row.get(key) not in (None, "")}
    for key in _ALIASES:
        if row.get(key) not in (None, ""):
            optional[key] = _aliases(row[key], path, line, key)
    return LabeledTriple(
        id=str(row.get("id") or f"{path.stem}:{line}"),
        triple=Triple(**values, **optional),
        label=_label(row.get("label"), path, line),
        source=f"user:{path.name}",
    )


def _text(value: str, path: Path, line: int, field: str) -> str:
    """A name that can be written back: a lone surrogate (`"\\ud800"` in JSON) is no character."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise DataError(path, f"a lone surrogate (\\u{ord(value[error.start]):04x}) is no character", line, field) from None
    return value


def _aliases(value: object, path: Path, line: int, field: str) -> tuple[str, ...]:
    """A JSON list of names, or in a table cell names joined by `|`."""
    names = value.split("|") if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise DataError(path, f"expected a list of names or a '|'-joined string, got {json.dumps(value)}", line, field)
    return tuple(name.strip() for name in names if name.strip())


def _label(value: object, path: Path, line: int) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise DataError(path, f"expected true/false/1/0, got {json.dumps(value)}", line, "label")


