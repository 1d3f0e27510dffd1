"""Whether judging with both the LLM and the reader could beat either (BENCHMARKS.md, *The evidence reader*):
on the triples both logs hold, how often the two verdicts agree, and an optimistic estimate for a combined
judge: a logistic over the reader's P(true) (its calibration of all its evidence features) and the LLM's
verdict, fitted by 5-fold cross-validation on each split's test triples themselves. A judge that ships may
only be fitted on held-out training triples, so it would do no better than this.

python experiments/judges_combined.py [--llm-run sft-full --llm-prefix SFT] [--reader-run reader-corpora]
"""

from __future__ import annotations

import argparse
from pathlib import Path

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.model_selection import cross_val_predict

    import agentkgv.registry  # noqa: F401 (the reader agent's logs hold its traces)
    from agentkgv.core.runner import load_run

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-run", default="sft-full")
    parser.add_argument("--llm-prefix", default="SFT")
    parser.add_argument("--reader-run", default="reader-corpora")
    args = parser.parse_args()
    runs = Path(".cache/runs")
    for split in SPLITS:
        llm = load_run(runs / args.llm_run / f"{args.llm_prefix}.{split}.jsonl")
        reader = load_run(runs / args.reader_run / f"agentkgv.{split}.jsonl")
        ids = sorted(llm.keys() & reader.keys())
        gold = np.array([reader[i].gold for i in ids])
        said_llm = np.array([llm[i].verdict is True for i in ids])
        said_reader = np.array([reader[i].verdict is True for i in ids])
        x = np.array([[reader[i].p_true, float(llm[i].verdict is True)] for i in ids])
        both = cross_val_predict(LogisticRegression(), x, gold, cv=5, method="predict_proba")[:, 1] >= 0.5
        agree = said_llm == said_reader
        print(f"{split} ({len(ids)} triples): macro-F1 LLM {f1_score(gold, said_llm, average='macro'):.3f}, "
              f"reader {f1_score(gold, said_reader, average='macro'):.3f}, both (fitted on these triples) "
              f"{f1_score(gold, both, average='macro'):.3f}; they agree on {agree.mean():.1%} "
              f"({np.mean((said_llm == gold)[agree]):.1%} of those right)")


if __name__ == "__main__":
    main()
