"""Two eval runs of the reader agent as one judge, estimated from their logs (BENCHMARKS.md, *Backbone*).

Without `--held-out`: the AUC of each run's P(true) per split, and of the mean of the two runs' P(true) logits
(a ranking only: the mean is not calibrated). With it: a logistic over both readers' evidence features (best
support, a passage names both, best support among those), fitted on the held-out training triples both read,
its threshold the best macro-F1 there, applied to the triples the runs' reader of rare relations judged (the
others keep the first run's verdict). Each run read its own passages, so this estimates a judge that reads
every passage with both readers.

python experiments/two_reader_mean.py routed routed-mpnet   (seconds)
python experiments/two_reader_mean.py routed routed-mpnet --held-out .cache/train/search-policy-gloss/episodes.jsonl \
    .cache/train/reader-mpnet-gloss/held_out_evidence.jsonl
    (the held-out readings of the first run's and the second run's reader of rare relations, in the calibration
    draw's order: a `train-search-policy` run's episodes, or a `train-reader` run's held-out evidence)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")


def held_out_features(path: Path) -> tuple[list[list[float]], list[bool]]:
    """Evidence features and labels from a `train-reader` held-out file or a `train-search-policy` episode file."""
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    evidence = [r["history"][-1] if "history" in r else r for r in rows]
    return ([[e["support"], float(e["named_both"]), e["named_support"]] for e in evidence],
            [bool(r.get("gold", r.get("label"))) for r in rows])


def main() -> None:
    import numpy as np
    from scipy import special
    from sklearn.metrics import f1_score, roc_auc_score

    from agentkgv.core.runner import load_run
    from agentkgv.paths import Workspace
    from agentkgv.reader_agent.trace import by_rare_reader, reading_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--held-out", nargs=2, type=Path, default=None)
    args = parser.parse_args()
    runs = Workspace().runs
    logit = lambda p: special.logit(np.clip(p, 1e-4, 1 - 1e-4))  # noqa: E731
    model = threshold = None
    if args.held_out:
        (a, gold), (b, gold_b) = (held_out_features(path) for path in args.held_out)
        if gold != gold_b:
            raise SystemExit("the two held-out files are not the same triples in the same order")
        y = np.array(gold)
        model, threshold, f1 = fit(np.hstack([a, b]), y)
        print(f"fitted on {len(y)} held-out triples: macro-F1 {f1:.4f} at {threshold:.3f} (each reader alone, "
              "refitted: " + ", ".join(f"{fit(np.array(f), y)[2]:.4f}" for f in (a, b)) + ")")
    for split in SPLITS:
        first, second = (load_run(runs / name / f"agentkgv.{split}.jsonl") for name in (args.first, args.second))
        ids = [i for i in first if i in second]
        gold = [first[i].gold for i in ids]
        a, b = (np.array([run[i].p_true or 0.0 for i in ids]) for run in (first, second))
        line = (f"{split} ({len(ids)} triples): AUC {args.first} {roc_auc_score(gold, a):.3f}, {args.second} "
                f"{roc_auc_score(gold, b):.3f}, mean of logits {roc_auc_score(gold, logit(a) + logit(b)):.3f}")
        if model is not None:
            verdicts = [model.predict_proba([[*reading_of(first[i]).features(), *reading_of(second[i]).features()]])[0, 1]
                        >= threshold if by_rare_reader(first[i]) else bool(first[i].verdict) for i in ids]
            line += (f"; macro-F1 {args.first} {f1_score(gold, [bool(first[i].verdict) for i in ids], average='macro'):.3f}, "
                     f"both fitted {f1_score(gold, verdicts, average='macro'):.3f}")
        print(line)


def fit(x, y):
    """A logistic over the features and the threshold of best macro-F1 on the same triples, with that F1."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    model = LogisticRegression(C=1e4, max_iter=2000).fit(x, y)
    p = model.predict_proba(x)[:, 1]
    threshold = max(np.unique(np.round(p, 3)), key=lambda t: f1_score(y, p >= t, average="macro"))
    return model, threshold, f1_score(y, p >= threshold, average="macro")


if __name__ == "__main__":
    main()
