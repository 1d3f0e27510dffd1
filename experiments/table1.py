"""The paper's Table 1 on the current code, from run logs.

Each row names a run log folder under `.cache/runs/`, the method's file prefix there, and the triples per split
it was run on: the full splits for the rows that run at about 1 triple/s or faster on the idle machine, the fixed balanced subset of
300 (`eval --limit 300`: the first positives of each split's seeded order with their hard negatives, or for
FactBench-docs the first of each label) for the slower ones. Two tables: every row on its own sample, then every
row on the 300-triple subset, where all rows are compared on the same triples. A split a row has not finished shows how many triples its log holds.

    python experiments/table1.py            # after the eval runs BENCHMARKS.md lists under *Table 1*
"""

from __future__ import annotations

from functools import cache

from agentkgv.eval.report import markdown_table, summarize
import agentkgv.registry  # noqa: F401 (the run logs hold every family's traces)
from agentkgv.core.runner import load_run
from agentkgv.paths import Workspace

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")
FULL = None  # a row run on the full splits
SUBSET = 300
# (row label, run folder, method prefix, triples per split it was run on: FULL, or one count per split)
ROWS = (
    ("Direct LLM", "table1-base-full", "direct", FULL),
    ("Single-turn RAG", "table1-base-full", "single_rag", FULL),
    # 5,000-7,300 tokens a triple, 8-19 s on the Intel Xeon at batch 16.
    ("IRCoT", "table1-ircot", "ircot", (300, 300, 300)),
    ("AgentKGV, untrained (LLM judge)", "table1-untrained", "agentkgv", (300, 300, 300)),
    ("+ SFT (shipped adapter, LLM judge)", "sft-full", "SFT", FULL),
    ("Lexical check", "lexical-full", "lexical", FULL),
    ("Reader agent (default: trained reader judges, rule stop)", "routed", "agentkgv", FULL),
    ("Reader agent + GRPO stop policies", "routed-grpo6", "agentkgv", FULL),
    ("One reader for every relation, rule stop", "reader-corpora", "agentkgv", FULL),
)
HEADER = ["Method", "Triples / split", "long-tail P-F1 / N-F1 / Macro (95% CI)", "unseen", "FactBench-docs",
          "Searches / triple", "Tokens / triple", "s / triple"]


@cache
def subset_ids(ws: Workspace, split: str, limit: int | None) -> frozenset[str]:
    from agentkgv.commands.build import split_examples

    return frozenset(e.id for e in split_examples(ws, split, limit))


@cache
def logged(ws: Workspace, run: str, method: str, split: str) -> dict:
    return load_run(ws.cache / "runs" / run / f"{method}.{split}.jsonl")


def table(ws: Workspace, cap: int | None) -> str:
    """Every row on its own sample, each split's at most `cap` triples (None: as run)."""
    cells = []
    for label, run, method, ran in ROWS:
        sizes = [min(n or cap, cap or n) if (n or cap) else None for n in (ran or (None,) * len(SPLITS))]
        shown, row, cost = [], [label], []
        for split, n in zip(SPLITS, sizes):
            wanted = subset_ids(ws, split, n)
            verdicts = [v for key, v in logged(ws, run, method, split).items() if key in wanted]
            shown.append(f"{len(wanted):,}")
            if len(verdicts) < len(wanted):
                row.append(f"({len(verdicts)} of {len(wanted)})")
                continue
            r = summarize(label, split, verdicts)
            row.append(f"{r.positive_f1:.3f} / {r.negative_f1:.3f} / **{r.macro_f1:.3f}** ({r.macro_f1_low:.3f}–{r.macro_f1_high:.3f})")
            cost.append(r)
        row.insert(1, shown[0] if len(set(shown)) == 1 else " / ".join(shown))
        row += [" / ".join(f"{r.search_calls:.2f}" for r in cost),
                f"{sum(r.prompt_tokens + r.completion_tokens for r in cost) / len(cost):.0f}",
                f"{sum(r.seconds for r in cost) / len(cost):.3f}"] if cost else ["", "", ""]
        cells.append(row)
    return markdown_table(HEADER, cells)


def main() -> None:
    ws = Workspace()
    print("Each row on its own sample:\n")
    print(table(ws, None))
    print(f"\nEvery row on the fixed {SUBSET}-triple subset per split:\n")
    print(table(ws, SUBSET))


if __name__ == "__main__":
    main()
