"""The relation-gloss readers against the shipped one, from their eval logs (BENCHMARKS.md, *Relation glosses*):
AUC of each triple's best support per split, and the two-reader estimate (a logistic over the shipped and the
gloss reader's supports, fitted on the 2,000 held-out training triples both read, applied to the logged
supports of each run).

python experiments/reader_glosses.py [--shipped reader-corpora] [--gloss reader-gloss] [--runs reader-alias ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")
CACHE = Path(".cache")


def logged(run: str, split: str) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (CACHE / "runs" / run / f"agentkgv.{split}.jsonl").open())}


def held_out(run: str) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (CACHE / "train" / run / "held_out_evidence.jsonl").open())}


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score, roc_auc_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shipped", default="reader-corpora")
    parser.add_argument("--gloss", default="reader-gloss")
    parser.add_argument("--runs", nargs="*", default=["reader-alias"])
    args = parser.parse_args()
    for run in [args.shipped, args.gloss, *args.runs]:
        aucs = []
        for split in SPLITS:
            rows = list(logged(run, split).values())
            aucs.append(roc_auc_score([r["gold"] for r in rows], [r["trace"]["evidence"]["support"] for r in rows]))
        print(run, "AUC of the best support:", " / ".join(f"{a:.3f}" for a in aucs))
    a, b = held_out(args.shipped), held_out(args.gloss)
    ids = sorted(a)
    model = LogisticRegression().fit([[a[i]["support"], b[i]["support"]] for i in ids], [a[i]["label"] for i in ids])
    gold = np.array([a[i]["label"] for i in ids])
    p = model.predict_proba([[a[i]["support"], b[i]["support"]] for i in ids])[:, 1]
    at = max(np.linspace(0.2, 0.8, 61), key=lambda t: f1_score(gold, p >= t, average="macro"))
    print(f"two readers: weights {model.coef_[0].round(3)}, held-out macro-F1 "
          f"{f1_score(gold, p >= at, average='macro'):.4f} at P(true) >= {at:.2f}")
    for split in SPLITS:
        first, second = logged(args.shipped, split), logged(args.gloss, split)
        keys = sorted(first)
        y = np.array([first[k]["gold"] for k in keys])
        q = model.predict_proba([[first[k]["trace"]["evidence"]["support"], second[k]["trace"]["evidence"]["support"]] for k in keys])[:, 1]
        print(f"  {split}: macro-F1 {f1_score(y, q >= at, average='macro'):.3f}, AUC {roc_auc_score(y, q):.3f}")


if __name__ == "__main__":
    main()
