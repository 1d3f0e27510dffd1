"""Cells of the CSV files a person opens in a spreadsheet, made inert: a cell a spreadsheet would run as a
formula (one starting with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's rule for CSV injection)
is written with a leading `'`, which spreadsheets show as text. A cell that starts with `'` gets one more, so
that reading strips exactly one and every value comes back as it was.
"""

from __future__ import annotations

_ACTIVE = ("=", "+", "-", "@", "\t", "\r", "'")


def inert(cell: str) -> str:
    return "'" + cell if cell.startswith(_ACTIVE) else cell


def revived(cell: str) -> str:
    """A cell `inert` wrote, as it was."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(_ACTIVE) else cell
