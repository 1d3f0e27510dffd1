"""Two eval runs of the reader agent as one judge, estimated from their logs (BENCHMARKS.md, *Backbone*): the AUC
of each run's P(true) per split, and of the mean of the two runs' P(true) logits. A ranking estimate only: the
mean is not calibrated, and each run read its own passages.

python experiments/two_reader_mean.py routed routed-mpnet   (seconds)
"""

from __future__ import annotations

import argparse

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")


def main() -> None:
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from agentkgv.eval.runner import load_run
    from agentkgv.paths import Workspace

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    args = parser.parse_args()
    runs = Workspace().runs
    logit = lambda p: np.log(np.clip(p, 1e-4, 1 - 1e-4) / (1 - np.clip(p, 1e-4, 1 - 1e-4)))  # noqa: E731
    for split in SPLITS:
        first, second = (load_run(runs / name / f"agentkgv.{split}.jsonl") for name in (args.first, args.second))
        ids = [i for i in first if i in second]
        gold = [first[i].gold for i in ids]
        a, b = (np.array([run[i].p_true or 0.0 for i in ids]) for run in (first, second))
        print(f"{split} ({len(ids)} triples): AUC {args.first} {roc_auc_score(gold, a):.3f}, {args.second} "
              f"{roc_auc_score(gold, b):.3f}, mean of logits {roc_auc_score(gold, logit(a) + logit(b)):.3f}")


if __name__ == "__main__":
    main()
