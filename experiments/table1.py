"""The paper's Table 1 on the current code, from run logs: every row scored on the same fixed subsets.

Each row names a run log folder under `.cache/runs/` and the method's file prefix there; it is scored on the
fixed balanced subset of `--limit` triples per split (`eval --limit`: the first positives of each split's
seeded order with their hard negatives, or for FactBench-docs the first of each label), so rows logged on
the full splits and rows run with `--limit` are compared on the same triples. A row run on a smaller limit
(the slow LLM rows) is scored on its own, smaller subset, which is the start of the larger one; a split
it has not reached shows how many of those triples its log holds.

    python experiments/table1.py            # after the eval runs BENCHMARKS.md lists under *Table 1*
"""

from __future__ import annotations

import argparse

from agentkgv.eval.report import markdown_table, summarize
from agentkgv.eval.runner import load_run
from agentkgv.paths import Workspace

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")
# (row label, run folder, method prefix, triples per split it was run on)
ROWS = (
    ("Direct LLM", "table1-base", "direct", 300),
    ("Single-turn RAG", "table1-base", "single_rag", 300),
    # IRCoT, about 5 s a triple on the idle machine: the first 100 per split (FactBench-docs not finished).
    ("IRCoT", "table1-ircot", "ircot", 100),
    ("AgentKGV, untrained (LLM judge)", "table1-base100", "agentkgv", 100),
    ("+ SFT (shipped adapter, LLM judge)", "table1-sft", "SFT", 300),
    ("Lexical check", "lexical-full", "lexical", 300),
    ("Reader agent (default: trained reader judge, rule stop)", "reader-corpora", "agentkgv", 300),
    ("Reader agent + GRPO stop policy", "reader-grpo", "agentkgv", 300),
)


def subset_ids(ws: Workspace, split: str, limit: int) -> set[str]:
    from agentkgv.pipeline import split_examples

    return {e.id for e in split_examples(ws, split, limit)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=300, help="triples per split the rows are scored on")
    args = parser.parse_args()
    ws = Workspace()
    ids = {(split, n): subset_ids(ws, split, n) for split in SPLITS for n in {min(ran, args.limit) for *_, ran in ROWS}}
    cells = []
    for label, run, method, ran in ROWS:
        n = min(ran, args.limit)
        row, cost = [label, str(n)], []
        for split in SPLITS:
            logged = load_run(ws.cache / "runs" / run / f"{method}.{split}.jsonl")
            verdicts = [v for key, v in logged.items() if key in ids[(split, n)]]
            if len(verdicts) < n:
                row.append(f"({len(verdicts)} of {n})")
                continue
            r = summarize(label, split, verdicts)
            row.append(f"{r.positive_f1:.3f} / {r.negative_f1:.3f} / **{r.macro_f1:.3f}** ({r.macro_f1_low:.3f}–{r.macro_f1_high:.3f})")
            cost.append(r)
        if cost:
            row += [" / ".join(f"{r.search_calls:.2f}" for r in cost),
                    f"{sum(r.prompt_tokens + r.completion_tokens for r in cost) / len(cost):.0f}",
                    f"{sum(r.seconds for r in cost) / len(cost):.3f}"]
        else:
            row += ["", "", ""]
        cells.append(row)
    print(markdown_table(["Method", "Triples / split", "long-tail P-F1 / N-F1 / Macro (95% CI)", "unseen",
                          "FactBench-docs", "Searches / triple", "Tokens / triple", "s / triple"], cells))


if __name__ == "__main__":
    main()
