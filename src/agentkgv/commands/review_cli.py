"""The review commands: learn from a reviewed queue, and measure what learning buys."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.commands.display import HOOKS, console, print_table, show
from agentkgv.commands.options import REVIEW, CacheOpt, DataOpt, ReaderOpt
from agentkgv.commands.review import bench_review
from agentkgv.commands.review import learn as learn_lesson
from agentkgv.paths import Workspace
from agentkgv.train.learn import ReviewLoopRow

app = typer.Typer()


@app.command(rich_help_panel=REVIEW)
def learn(review: Annotated[Path, typer.Argument(help="The review queue CSV with reviewer_verdict filled in.")],
          verdicts: Annotated[Path, typer.Option(help="The verdicts JSONL the queue was made from.")],
          name: Annotated[str, typer.Option(help="Name of the adapted reader (under <cache>/readers).")],
          reader: ReaderOpt = None,
          rare: Annotated[bool, typer.Option("--rare", help="Adapt the reader of rare relations, from the reviewed "
                                                            "triples it judged (default: the main reader).")] = False,
          graph_prior: Annotated[Optional[Path], typer.Option(help="The graph prior the verdicts were made with (default: the shipped one).")] = None,
          data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Adapt the verifier to your domain from what your reviewers said: the reader's calibration is refitted
    on the reviewed triples it judged, and from 50 of them on the reader itself is tuned on their passages (about
    a minute on a CPU); where the run read the graph, the graph prior is refitted too (how much the documents count,
    its per-predicate offsets and those of each predicate's families of value), from the reviews of the triples the
    graph decided as well. Run it with --reader (with --rare: --rare-reader) <the folder printed>."""
    lesson = learn_lesson(Workspace(data_dir, cache_dir), review, verdicts, name, reader, HOOKS, rare, graph_prior)
    if lesson.learned is None:
        console.print(f"the reader is left as it was: {lesson.reader_unchanged}")
    else:
        learned = lesson.learned
        after, before = learned.calibration_after, learned.calibration_before
        print_table(f"Learned from {learned.reviews} reviewed triples ({learned.true_reviews} true) -> {lesson.reader}",
                    ["", "Before", "After"],
                    [["macro-F1 on the reviewed triples", f"{learned.macro_f1_before:.3f}",
                      f"{learned.macro_f1_after:.3f}"],
                     ["true at P(true) >=", f"{before['true_at']:.3f}", f"{after['true_at']:.3f}"],
                     ["false below P(true)", f"{before['false_at']:.3f}", f"{after['false_at']:.3f}"],
                     ["verdicts changed", "", str(learned.changed)],
                     ["reader tuned on passages", "", str(learned.tuned_pairs) if learned.tuned_pairs else "no"]])
    console.print("use it: agentkgv verify ..."
                  + (f" {'--rare-reader' if rare else '--reader'} {lesson.reader}" if lesson.reader else "")
                  + (f" --graph-prior {lesson.graph_prior}" if lesson.graph_prior else ""))


@app.command("bench-review", rich_help_panel=REVIEW)
def bench_review_command(run_name: Annotated[str, typer.Option(help="Eval run of the reader agent, under the cache.")] = "eval",
                         split: Annotated[str, typer.Option(help="The split whose verdicts are reviewed and scored.")] = "factbench_docs",
                         reviewed: Annotated[list[int], typer.Option("--reviewed", help="Reviewed triples to learn from.")] = [50, 100],
                         folds: Annotated[int, typer.Option(help="Folds: each is scored once, never reviewed.")] = 4,
                         tune: Annotated[bool, typer.Option(help="Also tune the reader on each fold's reviews and read the fold again.")] = False,
                         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """What learning from reviewed triples buys, k-fold: macro-F1 on the unreviewed triples before and after
    the calibration is refitted on N reviewed ones drawn from the other folds (--tune: and after the reader
    is tuned on them too)."""
    rows = bench_review(Workspace(data_dir, cache_dir), run_name, split, reviewed, folds, tune, HOOKS)
    show(f"The review loop on {split} ({run_name})", ReviewLoopRow, rows)
