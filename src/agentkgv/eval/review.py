"""The review queue read back: what a person said about the triples the verifier was least sure of.

The queue is the CSV `agentkgv report` writes (html_report.REVIEW_COLUMNS); a reviewer fills
`reviewer_verdict` (true/false, yes/no, 1/0) and may leave a note. Rows left blank were not reviewed.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from agentkgv.data.errors import DataError
from agentkgv.data.spreadsheet import revived
from agentkgv.eval.html_report import REVIEW_COLUMNS

_TRUE, _FALSE = frozenset({"true", "yes", "1", "t", "y"}), frozenset({"false", "no", "0", "f", "n"})


@dataclass(frozen=True, slots=True)
class Review:
    id: str
    label: bool
    note: str
    line: int


def read_reviews(path: Path) -> list[Review]:
    """The reviewed rows; a row with a verdict that is not true or false, or a repeated id, is an error
    naming the file and line (the CSV itself is never changed)."""
    if not path.exists():
        raise DataError(path, "file not found")
    try:
        return _read_reviews(path)
    except UnicodeDecodeError:
        raise DataError(path, "not UTF-8 text: save the queue as CSV UTF-8") from None


def _read_reviews(path: Path) -> list[Review]:
    reviews: dict[str, Review] = {}
    # utf-8-sig: a spreadsheet's "CSV UTF-8" starts with a byte-order mark.
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.DictReader(handle)
        missing = {"id", "reviewer_verdict"} - set(rows.fieldnames or ())
        if missing:
            raise DataError(path, f"not a review queue: no {', '.join(sorted(missing))} column "
                                  f"(expected {', '.join(REVIEW_COLUMNS)})", 1)
        for row in _rows(rows, path):
            line = rows.line_num  # a quoted field may span lines: the row's last line
            said = (row.get("reviewer_verdict") or "").strip().lower()
            if not said:
                continue
            if said not in _TRUE | _FALSE:
                raise DataError(path, f"expected true or false, got {said!r}", line, "reviewer_verdict")
            triple_id = (row.get("id") or "").strip()
            if not triple_id:
                raise DataError(path, "missing or empty", line, "id")
            if triple_id in reviews:
                raise DataError(path, f"triple {triple_id} reviewed twice (first on line {reviews[triple_id].line})", line, "id")
            reviews[triple_id] = Review(triple_id, said in _TRUE, (row.get("reviewer_note") or "").strip(), line)
    return list(reviews.values())


def _rows(rows: csv.DictReader, path: Path):
    """Each row, its cells as they were before the queue made them inert (data/spreadsheet.py)."""
    try:
        for row in rows:
            yield {key: revived(value) if isinstance(value, str) else value for key, value in row.items()}
    except csv.Error as error:
        raise DataError(path, f"not a CSV row: {error}", rows.line_num) from None
