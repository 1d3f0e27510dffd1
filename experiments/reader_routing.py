"""Which reader judges which relation (BENCHMARKS.md, *Headline*): the shipped reader against the gloss reader
by how many facts the shipped one learned each relation from, on pairs neither reader trained on. It is what
`rare_below` (reader_agent/agent.py) was chosen on: below the first count where the gloss reader stops ranking
better.

The pairs: every pair past the first 32,000 of `agentkgv train-reader`'s shuffle that comes from Re-DocRED or
FewRel (relations learned from 1 to ~150 facts), and a fixed draw of 1,500 from the training split's
(relations of 300 or more). Both readers trained on the same first 32,000, so they compare fairly; the pairs
share triples and passages with trained-on ones, so the AUCs are optimistic for both.

python experiments/reader_routing.py [--default reader-corpora] [--gloss reader-gloss]   (about 4 minutes)
python experiments/reader_routing.py --paired reader-corpora routed   (seconds: two eval runs of the reader
    agent, the second's macro-F1 minus the first's on the same triples, with a paired bootstrap interval)
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from pathlib import Path

TRAIN = Path(".cache/train")
RUNS = Path(".cache/runs")
SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")
TRAINED = 32000
BUCKETS = (10, 30, 60, 100, 300)


def bucket(count: int) -> str:
    return next((f"{low}-{high - 1}" for low, high in zip((0, *BUCKETS), BUCKETS) if count < high), f">={BUCKETS[-1]}")


def main() -> None:
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.data.records import Triple

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default", default="reader-corpora")
    parser.add_argument("--gloss", default="reader-gloss")
    parser.add_argument("--paired", nargs=2, metavar="RUN")
    args = parser.parse_args()
    if args.paired:
        return paired(*args.paired)
    records = [json.loads(line) for line in (TRAIN / args.default / "pairs.jsonl").read_text().splitlines()]
    learned = Counter(r["triple"]["predicate_id"] for r in records[:TRAINED] if r["label"] > 0.5)
    unseen = records[TRAINED:]
    split = [r for r in unseen if r["source"] == "train"]
    random.Random(0).shuffle(split)
    pairs = [r for r in unseen if r["source"] != "train"] + split[:1500]
    inputs = [(Triple(**r["triple"]), r["text"], r["title"]) for r in pairs]
    scores = {run: CrossEncoderReader(ReaderFolder.open(TRAIN / run / "reader")).score(inputs) for run in (args.default, args.gloss)}
    gold = np.array([r["label"] > 0.5 for r in pairs])
    groups = defaultdict(list)
    for i, r in enumerate(pairs):
        groups[bucket(learned[r["triple"]["predicate_id"]])].append(i)
    print(f"{'facts learned':>14} {'pairs':>6} {'relations':>9}  AUC shipped  AUC gloss  (evidence against relation swaps)")
    for name in sorted(groups, key=lambda b: int(b.split("-")[0].lstrip(">="))):
        rows = np.array(groups[name])
        swaps = np.array([i for i in rows if pairs[i]["kind"] in ("evidence", "relation_swap")])
        auc = [roc_auc_score(gold[rows], scores[run][rows]) for run in scores]
        swap = [roc_auc_score(gold[swaps], scores[run][swaps]) if len(set(gold[swaps])) > 1 else float("nan")
                for run in scores]
        print(f"{name:>14} {len(rows):>6} {len({pairs[i]['triple']['predicate_id'] for i in rows}):>9}"
              f"  {auc[0]:11.3f}  {auc[1]:9.3f}  ({swap[0]:.3f} / {swap[1]:.3f})")


def paired(first: str, second: str, resamples: int = 2000) -> None:
    import numpy as np

    from agentkgv.eval.metrics import score

    rng = np.random.default_rng(0)
    for split in SPLITS:
        a, b = ({r["id"]: r for r in map(json.loads, (RUNS / run / f"agentkgv.{split}.jsonl").open())}
                for run in (first, second))
        ids = sorted(a)
        gold = np.array([a[i]["gold"] for i in ids])
        said = [np.array([run[i]["verdict"] is True for i in ids]) for run in (a, b)]

        def gain(rows):
            truth = gold[rows].tolist()
            return score(truth, said[1][rows].tolist()).macro_f1 - score(truth, said[0][rows].tolist()).macro_f1

        draws = [gain(rng.integers(0, len(ids), len(ids))) for _ in range(resamples)]
        low, high = np.percentile(draws, [2.5, 97.5])
        print(f"{split}: {gain(np.arange(len(ids))):+.4f} ({low:+.4f} to {high:+.4f}), "
              f"{int((said[0] != said[1]).sum())} verdicts differ")


if __name__ == "__main__":
    main()
