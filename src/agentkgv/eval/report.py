"""Results tables: one row per (method, split) with the paper's metrics plus cost, and a per-predicate view."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from agentkgv.core.verdict import Verdict
from agentkgv.eval.metrics import bootstrap_macro_f1, error_finding, score


@dataclass(frozen=True, slots=True)
class ResultRow:
    method: str
    split: str
    triples: int
    positive_f1: float
    negative_f1: float
    macro_f1: float
    macro_f1_low: float
    macro_f1_high: float
    search_calls: float
    prompt_tokens: float
    completion_tokens: float
    seconds: float
    unparsable: int
    undecided: int = 0  # "not enough evidence": no verdict, by the reader's calibration
    # Open world (eval/metrics.ErrorFinding): what the wrong triples it flags are worth to a person cleaning a
    # graph, where a triple the documents are silent on is flagged by nothing.
    error_recall: float = 0.0
    false_precision: float = 1.0
    true_called_false: float = 0.0


def called_false(verdict: Verdict) -> bool:
    """Whether a verdict flags its triple as wrong, open world: false on what the documents say. A triple
    called false only because the run counts silence against it (closed world, as the benchmark scores) is
    not enough evidence; a method that gives no outcome is taken at its word."""
    return verdict.verdict is False and verdict.outcome != "not enough evidence"


def summarize(method: str, split: str, verdicts: list[Verdict]) -> ResultRow:
    gold = [bool(v.gold) for v in verdicts]
    predicted = [v.verdict for v in verdicts]
    scores = score(gold, predicted)
    low, high = bootstrap_macro_f1(gold, predicted)
    errors = error_finding(gold, [called_false(v) for v in verdicts])
    n = max(1, len(verdicts))
    return ResultRow(
        method=method, split=split, triples=len(verdicts),
        positive_f1=scores.positive_f1, negative_f1=scores.negative_f1, macro_f1=scores.macro_f1,
        macro_f1_low=low, macro_f1_high=high,
        search_calls=sum(v.search_calls for v in verdicts) / n,
        prompt_tokens=sum(v.prompt_tokens for v in verdicts) / n,
        completion_tokens=sum(v.completion_tokens for v in verdicts) / n,
        seconds=sum(v.seconds for v in verdicts) / n,
        unparsable=sum(v.verdict is None and not v.undecided for v in verdicts),
        undecided=sum(v.undecided for v in verdicts),
        error_recall=errors.error_recall, false_precision=errors.false_precision,
        true_called_false=errors.true_called_false,
    )


def per_predicate(method: str, split: str, verdicts: list[Verdict]) -> list[ResultRow]:
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        groups[verdict.triple.predicate_id or verdict.triple.predicate].append(verdict)
    return [summarize(method, f"{split}/{predicate}", group) for predicate, group in sorted(groups.items())]


HEADERS = ("Method", "Split", "N", "P-F1", "N-F1", "Macro (95% CI)", "Calls", "Prompt tok", "Compl. tok",
           "s/triple", "Unparsable", "Undecided", "Errors found", "Precision of false", "True called false")


def row_cells(row: ResultRow) -> list[str]:
    return [row.method, row.split, str(row.triples), f"{row.positive_f1:.3f}", f"{row.negative_f1:.3f}",
            f"{row.macro_f1:.3f} ({row.macro_f1_low:.3f}-{row.macro_f1_high:.3f})", f"{row.search_calls:.2f}",
            f"{row.prompt_tokens:.0f}", f"{row.completion_tokens:.0f}", f"{row.seconds:.3f}", str(row.unparsable),
            str(row.undecided), f"{row.error_recall:.3f}", f"{row.false_precision:.3f}",
            f"{row.true_called_false:.3f}"]


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_markdown(rows: list[ResultRow]) -> str:
    return markdown_table(HEADERS, [row_cells(row) for row in rows])


def save_report(rows: list[ResultRow], out_dir: Path, name: str = "results") -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    markdown, js = out_dir / f"{name}.md", out_dir / f"{name}.json"
    markdown.write_text(to_markdown(rows), encoding="utf-8")
    js.write_text(json.dumps([asdict(r) for r in rows], indent=2), encoding="utf-8")
    return markdown, js
