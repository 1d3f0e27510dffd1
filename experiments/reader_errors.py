"""Where a reader agent's errors sit, from its full-split eval log (BENCHMARKS.md, *The evidence reader*): per
split, macro-F1 at the shipped threshold against the best threshold in hindsight (what calibration could still
win), and the AUC of P(true) among triples whose read passages name both entities and among those that do not
(what the reader adds to the name match), the ECE by which reader judged, and the verdicts in each group (a
group with no rejection among those naming both is judged there as a name match over every passage read);
then the unseen split's false positives that name both, by (predicate, object given, the object of the true
triple the negative was made from).

python experiments/reader_errors.py [--run reader-corpora]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")


def main() -> None:
    import numpy as np
    from sklearn.metrics import f1_score, roc_auc_score

    from agentkgv.eval.metrics import expected_calibration_error
    from agentkgv.core.runner import load_run
    from agentkgv.reader_agent.trace import by_rare_reader, reading_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default="reader-corpora")
    args = parser.parse_args()
    for split in SPLITS:
        verdicts = list(load_run(Path(".cache/runs") / args.run / f"agentkgv.{split}.jsonl").values())
        gold = np.array([v.gold for v in verdicts])
        p_true = np.array([v.p_true for v in verdicts])
        named = np.array([reading_of(v).named_both for v in verdicts])
        shipped = f1_score(gold, [v.verdict is True for v in verdicts], average="macro")
        hindsight = max(f1_score(gold, p_true >= t, average="macro") for t in np.unique(p_true))
        print(f"{split}: macro-F1 {shipped:.3f} (best threshold in hindsight {hindsight:.3f}); AUC of P(true) "
              f"{roc_auc_score(gold, p_true):.3f}, among the {named.sum()} naming both "
              f"{roc_auc_score(gold[named], p_true[named]):.3f}, among the rest {roc_auc_score(gold[~named], p_true[~named]):.3f}")
        said = np.array([v.verdict is True for v in verdicts])
        rare = np.array([by_rare_reader(v) for v in verdicts])
        print("  ECE " + ", ".join(f"{name} {expected_calibration_error(list(p_true[group]), list(gold[group])):.3f} "
                                   f"({group.sum()} triples)" for name, group in
                                   (("judged by the shipped reader", ~rare), ("by the reader of rare relations", rare))
                                   if group.any()))
        for name, group in (("naming both", named), ("the rest", ~named)):
            print(f"  {name}: true accepted {np.sum(group & gold & said)}, rejected {np.sum(group & gold & ~said)}; "
                  f"false accepted {np.sum(group & ~gold & said)}, rejected {np.sum(group & ~gold & ~said)}")
    examples = {r["id"]: r for r in map(json.loads, Path(".cache/benchmark/test_unseen.jsonl").open())}
    wrong = Counter()
    for v in load_run(Path(".cache/runs") / args.run / "agentkgv.test_unseen.jsonl").values():
        if v.gold is False and v.verdict is True and reading_of(v).named_both:
            positive = examples.get(examples[v.id].get("negative_of") or "")
            wrong[(v.triple.predicate, v.triple.object, positive["triple"]["object"] if positive else "?")] += 1
    print(f"test_unseen false positives naming both: {sum(wrong.values())}; most common "
          "(predicate, object given, object of the true triple):")
    for key, n in wrong.most_common(10):
        print(f"  {n:3d}  {key}")


if __name__ == "__main__":
    main()
