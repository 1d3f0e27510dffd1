"""Line-numbered JSON Lines reading and append-only writing, shared by every loader and run log."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from agentkgv.data.errors import DataError


def decoded_lines(path: str | Path, on_error: Callable[[DataError], None] | None = None) -> Iterator[str]:
    """The file's lines as text (a leading BOM dropped). A line that is not UTF-8 raises DataError naming it,
    or, with `on_error`, is reported there and yielded empty, so line numbers still count it."""
    path = Path(path)
    if not path.exists():
        raise DataError(path, "file not found")
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                problem = DataError(path, f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column "
                                          f"{error.start + 1}); save the file as UTF-8", number)
                if on_error is None:
                    raise problem from None
                on_error(problem)
                yield "\n"


def read_jsonl(path: str | Path, on_error: Callable[[DataError], None] | None = None) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; a broken line raises DataError naming it, or,
    with `on_error`, is reported there and skipped."""
    for number, line in enumerate(decoded_lines(path, on_error), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problem = DataError(path, f"not valid JSON ({error.msg} at column {error.colno})", number)
        except RecursionError:  # Python's JSON reader recurses once per level of nesting
            problem = DataError(path, "JSON nested too deep to be a record", number)
        else:
            yield number, record
            continue
        if on_error is None:
            raise problem
        on_error(problem)


def raise_field_limit() -> None:
    """Let the csv module read a cell of any size (its default limit is 128 KiB: a long passage in a table)."""
    import csv
    import sys

    csv.field_size_limit(sys.maxsize)


def read_json(path: str | Path) -> object:
    path = Path(path)
    if not path.exists():
        raise DataError(path, "file not found")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(path, f"not valid JSON ({error.msg} at column {error.colno})", error.lineno) from None


def write_jsonl(path: str | Path, records: Iterable[dict]) -> int:
    """Write records atomically (temp file + rename) so a crash never leaves a half-written split."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    count = 0
    with tmp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    tmp.replace(path)
    return count
