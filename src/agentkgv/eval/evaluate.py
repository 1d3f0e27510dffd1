"""The evaluation loop: every entrant on every split through the resumable runner, scored overall and per
predicate (the paper's Table 1 plus cost)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agentkgv.core.runner import Bar, no_bar, run_verifier
from agentkgv.core.verdict import Verifier
from agentkgv.data.records import Example
from agentkgv.eval.report import ResultRow, per_predicate, summarize


@dataclass
class Entrant:
    """One row group of the table: a verifier, its name, and the settings its run logs pin."""

    name: str
    verifier: Verifier
    settings: dict


def log_stem(name: str) -> str:
    """An entrant's run-log file stem: its row name with anything but letters, digits, `.`, `_` and `-` made a
    dash (`+ SFT` -> `SFT`), so the logs sit in any shell without quoting."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "run"


def log_path(out_dir: Path, name: str, split: str) -> Path:
    return out_dir / f"{log_stem(name)}.{split}.jsonl"


def evaluate(entrants: list[Entrant], splits: dict[str, list[Example]], out_dir: Path, batch_size: int = 8,
             bar: Bar = no_bar) -> tuple[list[ResultRow], list[ResultRow]]:
    """(one row per entrant and split, one per entrant, split and predicate); each entrant's verdicts are
    logged to `out_dir/<log_stem(name)>.<split>.jsonl`, so a stopped evaluation resumes."""
    rows: list[ResultRow] = []
    breakdown: list[ResultRow] = []
    for entrant in entrants:
        for split, examples in splits.items():
            items = [e.as_labeled() for e in examples]
            with bar(f"{entrant.name} on {split}", len(items)) as advance:
                verdicts = run_verifier(entrant.verifier, items, log_path(out_dir, entrant.name, split),
                                        batch_size, advance, entrant.settings)
            rows.append(summarize(entrant.name, split, verdicts))
            breakdown += per_predicate(entrant.name, split, verdicts)
    return rows, breakdown
