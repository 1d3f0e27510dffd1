"""How the command line shows things: rich tables readable at any width, progress bars and status lines
(the `Hooks` of commands/build.py), and the tables of each command's results."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import (BarColumn, DownloadColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn, TransferSpeedColumn)
from rich.table import Table

from agentkgv.commands.verify import EvalResult, Hooks
from agentkgv.commands.graph import ProfileResult
from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.benchmark import SplitStats
from agentkgv.eval.compare import Comparison
from agentkgv.eval.report import HEADERS, markdown_table, row_cells
from agentkgv.eval.retrieval_bench import RecallRow
from agentkgv.memory import peak_memory_gib
from agentkgv.reader_agent.trace import ReadingTrace
from agentkgv.retrieval.user_index import IndexReport
from agentkgv.train.sft_data import SFTDataStats, SFTExample

# Redirected to a log file, rich would wrap tables at 80 columns and cut every figure short.
console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def print_table(title: str, headers: list[str] | tuple[str, ...], rows: list[list[str]]) -> None:
    table = Table(title=title)
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*row)
    # Piped into a file or a CI log there is no terminal width to fit: rich would fall back to 80 columns
    # and cut every cell, so the table gets room instead.
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def show(title: str, kind: type, rows: list) -> None:
    """Rows of a record type that names its own columns (`HEADERS`, `cells()`)."""
    print_table(title, kind.HEADERS, [row.cells() for row in rows])


@contextmanager
def progress_bar(description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn()]
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda advance: progress.advance(task, advance)


@contextmanager
def byte_bar(description: str) -> Iterator[Callable[[int, int], None]]:
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
               TimeElapsedColumn()]
    with Progress(*columns, console=console) as progress:
        task = progress.add_task(description, total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


@contextmanager
def status_line(description: str) -> Iterator[Callable[[str], None]]:
    with console.status(description) as status:
        yield lambda message: status.update(message)


def show_benchmark_stats(stats: list[SplitStats]) -> None:
    print_table("Hard-negative statistics (paper appendix C)",
                ["Split", "Pos / Neg", "Thresh.", "Mean Sim.", "Co-mention neg."],
                [[s.split, f"{s.positives} / {s.negatives}", f"{s.threshold:.2f}", f"{s.mean_similarity:.3f}",
                  str(s.co_mention)] for s in stats])


def show_corpus(counts: Counter) -> None:
    print_table("Corpus", ["Source", "Passages"], [[k, str(v)] for k, v in counts.most_common()]
                + [["total", str(sum(counts.values()))]])


HOOKS = Hooks(bar=progress_bar, byte_bar=byte_bar, status=status_line, note=console.print, benchmark_built=show_benchmark_stats,
              corpus_built=show_corpus)


def show_recall(rows: list[RecallRow], k: int, out: Path | None) -> None:
    """The retrieval benchmark's table, also written as Markdown to `out` when given."""
    cells = [[r.retriever, r.split, r.combination, f"{r.recall:.3f}", str(r.queries), f"{r.queries_per_second:.1f}"]
             for r in rows]
    headers = ["Retriever", "Split", "Query form", f"Recall@{k}", "Queries", "Queries/s"]
    print_table("Gold-evidence recall", headers, cells)
    if out:
        out.write_text(markdown_table(headers, cells))


def show_eval(result: EvalResult) -> None:
    print_table("Results", HEADERS, [row_cells(r) for r in result.rows])
    console.print(f"saved {result.report}")


def show_verdicts(verdicts: list[Verdict], output: Path) -> None:
    counts = Counter((verdict_word(v), v.finding, bool(v.graph)) for v in verdicts)
    n = max(1, len(verdicts))
    print_table(f"{len(verdicts)} triples -> {output}", ["Verdict", "The documents (or the graph)", "Graph findings", "Triples"],
                [[word, finding, "some" if graph else "none", str(count)]
                 for (word, finding, graph), count in sorted(counts.items())])
    console.print(f"per triple: {sum(v.search_calls for v in verdicts) / n:.2f} searches, "
                  f"{sum(v.prompt_tokens + v.completion_tokens for v in verdicts) / n:.0f} tokens, "
                  f"{sum(v.seconds for v in verdicts) / n:.2f} s")


def show_profile(result: ProfileResult, top: int = 15) -> None:
    profile = result.profile
    rows = []
    for predicate, counts in sorted(profile.predicates.items(), key=lambda item: -item[1].triples)[:top]:
        kind, n = max(counts.classes.items(), key=lambda item: item[1])
        rows.append([predicate, str(counts.triples), f"{kind} ({n / counts.triples:.0%})",
                     f"{counts.one_value_share:.0%}", str(len(counts.classes))])
    print_table(f"{profile.triples} triples, {profile.subjects} subjects, {len(profile.predicates)} predicates -> "
                f"{result.path}", ["Predicate", "Triples", "Mostly", "One value", "Kinds"], rows)
    console.print(f"{result.seconds:.1f} s, peak {result.peak_gib:.2f} GiB"
                  + (f"; shapes -> {result.shapes}" if result.shapes else ""))


def show_sft_data(examples: list[SFTExample], stats: SFTDataStats, path: Path) -> None:
    print_table(f"SFT data -> {path}", ["Trajectories", "Correct", "Dropped (hint leak)", "Routing", "Search",
                                        "Judgment", "Examples"],
                [[str(stats.trajectories), str(stats.correct), str(stats.leaked), str(stats.examples["routing"]),
                  str(stats.examples["search"]), str(stats.examples["judgment"]), str(len(examples))]])


def show_sft_run(summary: dict) -> None:
    print_table("SFT run", ["Examples", "Steps", "Minutes", "Peak GiB", "Final loss", "Adapter"],
                [[str(summary["examples"]), str(summary["steps"]), f"{summary['minutes_this_run']:.1f}",
                  f"{summary['peak_memory_gib']:.2f}", f"{summary['final_train_loss']:.3f}", summary["adapter"]]])


def show_grpo_run(summary: dict, run_dir: Path) -> None:
    last = summary["last"]
    print_table(f"GRPO run -> {run_dir}", ["Steps", "Minutes", "Peak GiB", "Reward", "Accuracy", "Searches", "KL",
                                           "Adapter"],
                [[str(summary["steps"]), f"{summary['minutes_this_run']:.1f}", f"{summary['peak_memory_gib']:.2f}",
                  f"{last['reward']:.3f}", f"{last['accuracy']:.3f}", f"{last['searches']:.2f}", f"{last['kl']:.4f}",
                  summary["adapter"]]])


def show_index_report(report: IndexReport) -> None:
    if report.discarded:
        console.print(f"discarded what a killed update left: {', '.join(report.discarded)}")
    for label, problems in (("skipped", report.skipped), ("warning", report.warnings)):
        for problem in problems:
            console.print(f"[yellow]{label}[/] {problem}")
    megabytes, minutes = report.bytes_parsed / 1e6, (report.parse_seconds + report.build_seconds) / 60
    print_table(f"index {report.manifest.name} -> {report.index_dir / report.generation}",
                ["Files read", "Unchanged", "Skipped", "Passages", "MB read", "Seconds", "MB/min", "Peak GiB",
                 "Fingerprint"],
                [[str(len(report.parsed)), str(len(report.unchanged)), str(len(report.skipped)), str(report.passages),
                  f"{megabytes:.2f}", f"{minutes * 60:.1f}", f"{megabytes / max(minutes, 1e-9):.1f}",
                  f"{peak_memory_gib():.2f}", report.manifest.fingerprint]])
    if report.manifest.distrusted:
        console.print("distrusted (their passages alone decide nothing): " + ", ".join(report.manifest.distrusted))


def verdict_word(v: Verdict) -> str:
    return "not enough evidence" if v.undecided else "-" if v.verdict is None else str(v.verdict).lower()


def show_check(verdict: Verdict) -> None:
    own = verdict.finding == Finding.CONTRADICTED.value and not verdict.several_valued
    stated = verdict.stated_instead if own else None
    finding = verdict.finding + (f": {stated}" if stated else f": {verdict.reason}" if verdict.reason else "")
    print_table(verdict.triple.verbalize(), ["Verdict", "The documents", "P(true)", "Confidence", "Searches"],
                [[verdict_word(verdict), finding, "-" if verdict.p_true is None else f"{verdict.p_true:.3f}",
                  "-" if verdict.confidence is None else f"{verdict.confidence:.3f}", str(verdict.search_calls)]])
    if isinstance(verdict.trace, ReadingTrace):
        searches = [[str(number), step.query, step.note] for number, step in enumerate(verdict.trace.steps, start=1)]
    else:
        searches = [[str(t.turn), t.action.query, t.reasoning or ""] for t in verdict.turns
                    if t.action is not None and t.action.query]
    if searches:
        print_table("Searches", ["#", "Query", "What it found"], searches)
    print_table("Cited evidence", ["#", "Source", "Passage"],
                [[str(i), e.source or e.id, clipped(e.text, 400)] for i, e in enumerate(verdict.evidence, start=1)])


def clipped(text: str, chars: int) -> str:
    """A passage on a few lines: its whitespace (a page's list of names, one a line) folded, its tail cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[:chars - 1] + "…"


def show_comparison(c: Comparison, first: str, second: str, limit: int | None) -> None:
    rows = [["triples in both", str(c.common), ""], [f"only in {first} / {second}", str(c.only_first), str(c.only_second)],
            ["same verdict", str(c.agree), f"{c.agree / max(1, c.common):.1%}"]]
    if c.first_scores and c.second_scores:
        rows += [[f"macro-F1 {first}", f"{c.first_scores.macro_f1:.3f}", ""],
                 [f"macro-F1 {second}", f"{c.second_scores.macro_f1:.3f}", ""],
                 ["differing triples each got right", str(c.first_right), str(c.second_right)]]
    print_table(f"{first} vs {second}", ["", "", ""], rows)
    shown = c.differences if limit is None else c.differences[:limit]
    if shown:
        print_table(f"Where they differ ({len(shown)} of {len(c.differences)})", ["Id", "Triple", "Gold", first, second],
                    [[d.id, d.triple, "" if d.gold is None else str(d.gold).lower(), d.first, d.second] for d in shown])


def show_demo_differences(differences: list[tuple[Verdict, Verdict]]) -> None:
    """Where the default verifier and the string match disagree, with what the verifier read."""
    rows = [[a.triple.verbalize(), "" if a.gold is None else str(a.gold).lower(), verdict_word(b),
             f"{verdict_word(a)} (P {a.p_true:.2f})" if a.p_true is not None else verdict_word(a),
             clipped(a.evidence[0].text, 140) if a.evidence else ""] for a, b in differences]
    right = sum(a.gold is not None and bool(a.verdict) == a.gold for a, _ in differences)
    print_table(f"Where the default verifier and the string match differ: the verifier right on {right} of "
                f"{len(differences)}", ["Triple", "Gold", "String match", "Default verifier", "Best passage it read"], rows)
