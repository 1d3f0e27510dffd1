"""A run's verdicts as one self-contained HTML page, and the review queue a person should check by hand.

The page holds counts, scores when the triples had gold labels, a per-predicate table, a confidence
histogram and every triple with its verdict, confidence and cited passages, the subject and object
marked in them. It loads nothing from the network: CSS and JavaScript are inline (see the template).

The review queue (CSV) lists the triples with no verdict or a confidence under a threshold, lowest
first, with empty columns for the reviewer's verdict and note: the human-in-the-loop step the paper
names as future work.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, select_autoescape
from markupsafe import Markup, escape

import agentkgv.registry  # noqa: F401 (loads every family, whose traces the run logs read back hold)
from agentkgv.core.runner import load_run
from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.errors import DataError, refuse_overwriting
from agentkgv.data.spreadsheet import inert
from agentkgv.eval.metrics import score

HISTOGRAM_BINS = 10
# An object like "Beverly Hills, California" is often written only in part ("Beverly Hills"), and a
# person by the surname alone, so each comma or parenthesis separated part of a name is marked too, and
# each capitalized word long enough not to be "The" or "Sir".
_NAME_PARTS = re.compile(r"\s*[,()]\s*")
_MIN_PART_CHARS = 3
_MIN_WORD_CHARS = 4
REVIEW_COLUMNS = ("id", "subject", "predicate", "object", "verdict", "outcome", "confidence", "why",
                  "first_evidence", "reviewer_verdict", "reviewer_note")


@dataclass(frozen=True)
class ReportSummary:
    triples: int
    review: int


@dataclass(frozen=True)
class PredicateRow:
    predicate: str
    triples: int
    true: int
    false: int
    none: int
    mean_confidence: float | None
    macro_f1: float | None


def write_report(verdicts_path: Path, output: Path, review_path: Path, review_below: float) -> ReportSummary:
    if not 0.0 <= review_below <= 1.0:  # NaN fails this too
        raise DataError("--review-below", f"a confidence from 0 to 1, not {review_below}")
    refuse_overwriting([verdicts_path], [output, review_path])
    if not verdicts_path.is_file():
        raise DataError(verdicts_path, "no verdicts file here: give the file `agentkgv verify -o` wrote")
    verdicts = list(load_run(verdicts_path).values())
    settings_path = verdicts_path.with_name(verdicts_path.name + ".settings.json")
    settings = json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.exists() else {}
    queue = review_queue(verdicts, review_below)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(verdicts, settings, verdicts_path.name, review_below, len(queue)), encoding="utf-8")
    write_review_csv(review_path, queue, review_below)
    return ReportSummary(len(verdicts), len(queue))


def needs_review(verdict: Verdict, below: float) -> bool:
    return verdict.verdict is None or verdict.confidence is None or verdict.confidence < below


def review_queue(verdicts: list[Verdict], below: float) -> list[Verdict]:
    """What a person settles fastest first: a contradiction the verifier doubts (the cited passage states
    another value: one read decides), then "not enough evidence" with P(true) nearest the middle (the prior
    says least) and another value of a relation with several (the subject may have both), then the other
    doubtful verdicts by rising confidence; triples no text can check last."""
    def order(v: Verdict) -> tuple[int, float]:
        if v.several_valued or v.verdict is None and v.outcome in (Finding.SUPPORTED.value, Finding.CONTRADICTED.value):
            return 1, abs((v.p_true if v.p_true is not None else 0.5) - 0.5)  # the documents and the graph disagree
        if v.outcome in (Finding.CONTRADICTED.value, Finding.WRONG_KIND.value, Finding.GRAPH_CONTRADICTED.value):
            return 0, v.confidence if v.confidence is not None else 0.0
        if v.outcome == Finding.NOT_CHECKABLE.value:
            return 3, 0.0
        if v.verdict is None:
            return 1, abs((v.p_true if v.p_true is not None else 0.5) - 0.5)
        return 2, v.confidence if v.confidence is not None else -1.0

    return sorted((v for v in verdicts if needs_review(v, below)), key=order)


def write_review_csv(path: Path, queue: list[Verdict], below: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(REVIEW_COLUMNS)
        for v in queue:
            # Cells come from triples and documents: none may run as a formula in the reviewer's spreadsheet.
            writer.writerow([inert(cell) for cell in (
                v.id, v.triple.subject, v.triple.predicate, v.triple.object, _verdict_word(v.verdict), v.finding,
                "" if v.confidence is None else f"{v.confidence:.3f}", _why(v, below),
                v.evidence[0].text if v.evidence else "", "", "")])


def _why(v: Verdict, below: float) -> str:
    if v.verdict is None and v.reason:  # the documents decided, the graph disagreed
        return v.reason
    if v.outcome == Finding.CONTRADICTED.value:
        # Another of several values, or another author of the object's, says why in its reason.
        return v.reason or f"the first passage states {v.stated_instead!r} instead"
    if v.outcome == Finding.NOT_CHECKABLE.value:
        return "a link or an identifier: no text can check it"
    if v.reason:
        return v.reason
    if v.graph:
        return "the graph: " + "; ".join(finding.reason for finding in v.graph)
    if v.undecided:
        return "not enough evidence" if v.p_true is None else f"not enough evidence (P(true) {v.p_true:.2f})"
    if v.verdict is None:
        return "no verdict"
    return "no confidence" if v.confidence is None else f"confidence {v.confidence:.2f} < {below:.2f}"


def highlight(text: str, names: dict[str, Sequence[str]]) -> Markup:
    """`text` escaped, each occurrence of a name (a label or an alias, or a long enough part of one) wrapped
    in <mark class=...>."""
    terms: dict[str, str] = {}
    for css_class, forms in names.items():
        for name in forms:
            words = [w for w in name.split() if len(w) >= _MIN_WORD_CHARS and w[0].isupper()]
            for term in [name, *_NAME_PARTS.split(name), *words]:
                if len(term.strip(" ,()")) >= _MIN_PART_CHARS:
                    terms.setdefault(term.strip(" ,()").lower(), css_class)
    if not terms:
        return escape(text)
    # Whole words only: a short alias ("Elf") must not light up inside another word ("himself").
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
    pieces, last = [], 0
    for match in pattern.finditer(text):
        pieces += [escape(text[last:match.start()]),
                   Markup('<mark class="{}">{}</mark>').format(terms[match.group().lower()], match.group())]
        last = match.end()
    pieces.append(escape(text[last:]))
    return Markup("").join(pieces)


def histogram(verdicts: list[Verdict], bins: int = HISTOGRAM_BINS) -> list[dict]:
    """Counts of true and false verdicts per confidence bin over [0, 1]."""
    rows = [{"low": i / bins, "high": (i + 1) / bins, "true": 0, "false": 0} for i in range(bins)]
    for v in verdicts:
        if v.verdict is None or v.confidence is None:
            continue
        rows[min(bins - 1, int(v.confidence * bins))]["true" if v.verdict else "false"] += 1
    return rows


def per_predicate_rows(verdicts: list[Verdict]) -> list[PredicateRow]:
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.triple.predicate].append(v)
    rows = []
    for predicate, group in sorted(groups.items()):
        confidences = [v.confidence for v in group if v.confidence is not None]
        labeled = [v for v in group if v.gold is not None]
        rows.append(PredicateRow(
            predicate, len(group), sum(v.verdict is True for v in group), sum(v.verdict is False for v in group),
            sum(v.verdict is None for v in group), sum(confidences) / len(confidences) if confidences else None,
            score([bool(v.gold) for v in labeled], [v.verdict for v in labeled]).macro_f1 if labeled else None))
    return rows


def render(verdicts: list[Verdict], settings: dict, source_name: str, review_below: float, review_count: int) -> str:
    labeled = [v for v in verdicts if v.gold is not None]
    scores = score([bool(v.gold) for v in labeled], [v.verdict for v in labeled]) if labeled else None
    environment = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    environment.filters["verdict_word"] = _verdict_word
    environment.globals["highlight"] = highlight
    template = environment.from_string(files("agentkgv.eval").joinpath("report.html.j2").read_text(encoding="utf-8"))
    counts = {"true": sum(v.verdict is True for v in verdicts), "false": sum(v.verdict is False for v in verdicts),
              "no verdict": sum(v.verdict is None for v in verdicts)}
    findings = Counter(v.outcome for v in verdicts if v.outcome is not None)
    bins = histogram(verdicts)
    return template.render(
        source_name=source_name, verdicts=verdicts, counts=counts, findings=dict(findings.most_common()),
        scores=scores, labeled=len(labeled),
        predicates=per_predicate_rows(verdicts), bins=bins, tallest=max([b["true"] + b["false"] for b in bins] + [1]),
        method=settings.get("method", "?"), index=settings.get("index"), review_below=review_below,
        review_count=review_count, needs_review=lambda v: needs_review(v, review_below))


def _verdict_word(value: bool | None) -> str:
    return "no verdict" if value is None else ("true" if value else "false")
