"""One error type for bad input, so the CLI can print `file:line: what is wrong` instead of a traceback."""

from __future__ import annotations

import os
from pathlib import Path


class DataError(ValueError):
    """Raised for input that cannot be read; always names the file and, where known, line and field."""

    def __init__(self, path: str | Path, message: str, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        where = self.path if line is None else f"{self.path}:{line}"
        what = message if field is None else f"field {field!r}: {message}"
        super().__init__(f"{where}: {what}")


def require(record: dict, field: str, path: str | Path, line: int | None) -> object:
    """Return `record[field]`, or raise a DataError naming file, line and the missing field."""
    if not isinstance(record, dict):
        raise DataError(path, f"expected a JSON object, got {type(record).__name__}", line)
    if field not in record or record[field] in (None, ""):
        raise DataError(path, "missing or empty", line, field)
    return record[field]


def refuse_overwriting(inputs: list[Path | None], outputs: list[Path | None]) -> None:
    """Refuse, before anything is written, an output that is one of the command's inputs: the same path, or the
    same file reached through a link."""
    for output in (Path(o) for o in outputs if o is not None):
        for given in (Path(i) for i in inputs if i is not None):
            same = output.resolve() == given.resolve() or (
                output.exists() and given.exists() and os.path.samefile(output, given))
            if same:
                raise DataError(output, f"is an input of this command ({given}): choose another output")
