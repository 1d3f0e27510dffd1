"""Both readers as the judge of rare relations, estimated from readings already made (BENCHMARKS.md, *Relation
glosses*, "Rare relations read through retrieval"): a logistic over the gloss reader's and the shipped reader's
evidence features (six numbers), fitted on held-out training triples alone or with TekGen's triples of rare
relations, then applied to the test logs of the triples the gloss reader judged.

The readings: the two readers' `train-search-policy` episodes of the same 2,000 held-out training triples
(`--gloss-run` must also hold the rare-relation episodes, `configs/search_policy_rare.toml`), paired by
position (both runs draw them with `commands.train_reader.held_out_training_items`, in one order), and
`experiments/rare_relations.py`'s cached readings of the rare relations by both readers. The rare-relation
figures are two-fold: fitted on the triples of half the relations, measured on the other half. The test figures
pair the default run's log (the gloss reader's evidence) with a one-reader run's (the shipped reader's). Both are
the evidence at the agent's stop, while the fit is on evidence after the full budget, and each reader stopped by
its own rule: an estimate, not a run of such an agent.

python experiments/two_readers_rare.py [--gloss-run search-policy-rare] [--shipped-run search-policy]
    [--routed routed] [--one-reader reader-corpora]   (seconds, once the runs and readings exist)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

CACHE = Path(".cache")
READERS = Path("src/agentkgv/reader_agent/readers")
SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.calibration import Evidence
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.eval.metrics import score
    from agentkgv.paths import Workspace
    from agentkgv.train.search_policy import HELD_OUT_TRAINING
    from agentkgv.commands.train_reader import rare_relation_items

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gloss-run", default="search-policy-rare")
    parser.add_argument("--shipped-run", default="search-policy")
    parser.add_argument("--routed", default="routed")
    parser.add_argument("--one-reader", default="reader-corpora")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    gloss_folder, shipped_folder = READERS / "minilm-kgv-gloss", READERS / "minilm-kgv"

    def episodes(run: str) -> list[dict]:
        return [json.loads(line) for line in (CACHE / "train" / run / "episodes.jsonl").open()]

    def features(gloss: dict, shipped: dict) -> list[float]:
        return [*Evidence(**gloss).features(), *Evidence(**shipped).features()]

    gloss_held = [e for e in episodes(args.gloss_run) if e["source"] == HELD_OUT_TRAINING]
    shipped_held = episodes(args.shipped_run)
    if [e["gold"] for e in gloss_held] != [e["gold"] for e in shipped_held]:
        raise SystemExit("the two runs did not read the same held-out training triples")
    held_x = [features(g["history"][-1], s["history"][-1]) for g, s in zip(gloss_held, shipped_held)]
    held_y = [e["gold"] for e in gloss_held]

    items = rare_relation_items(Workspace(args.data), ReaderFolder.open(shipped_folder).learned(), 30)
    readings = {}
    for folder in (gloss_folder, shipped_folder):
        path = CACHE / "exp" / "rare_relations" / f"{ReaderFolder.open(folder).fingerprint}-30.jsonl"
        readings[folder] = {r["id"]: r["history"][-1] for r in map(json.loads, path.open())}
    relations = sorted({item.triple.predicate_id for item, _ in items})
    fold = {r: i % 2 for i, r in enumerate(relations)}
    rare = [(features(readings[gloss_folder][i.id], readings[shipped_folder][i.id]), i.label,
              fold[i.triple.predicate_id]) for i, _ in items]

    def fit(x: list, y: list, columns: list[int]):
        model = LogisticRegression(C=1e4, max_iter=2000).fit(np.array(x)[:, columns], y)
        p = model.predict_proba(np.array(x)[:, columns])[:, 1]
        at = max(sorted(set(np.round(p, 4))), key=lambda t: score(y, [q >= t for q in p]).macro_f1)
        return model, at

    def judge(model, at, x: list, columns: list[int]) -> tuple[list[bool], list[float]]:
        p = model.predict_proba(np.array(x)[:, columns])[:, 1]
        return [bool(q >= at) for q in p], list(p)

    test = {}
    for split in SPLITS:
        routed = [json.loads(line) for line in (CACHE / "runs" / args.routed / f"agentkgv.{split}.jsonl").open()]
        shipped = {r["id"]: r for r in map(json.loads, (CACHE / "runs" / args.one_reader / f"agentkgv.{split}.jsonl").open())}
        test[split] = [(r, features(r["trace"]["evidence"], shipped[r["id"]]["trace"]["evidence"])) for r in routed]

    judges = {"gloss reader alone": [0, 1, 2], "shipped reader alone": [3, 4, 5], "both readers": [0, 1, 2, 3, 4, 5]}
    print(f"{'judge':<22} {'fitted on':<36} {'rare relations (2-fold)':>23} " + " ".join(f"{s:>15}" for s in SPLITS))
    for name, columns in judges.items():
        for fitted_on in ("held-out training", "held-out training + rare relations"):
            verdicts, probabilities, gold = [], [], []
            for half in (0, 1):
                extra = [(x, y) for x, y, f in rare if f != half] if "rare" in fitted_on else []
                model, at = fit(held_x + [x for x, _ in extra], held_y + [y for _, y in extra], columns)
                mine = [(x, y) for x, y, f in rare if f == half]
                v, p = judge(model, at, [x for x, _ in mine], columns)
                verdicts += v
                probabilities += p
                gold += [y for _, y in mine]
            cells = [f"{score(gold, verdicts).macro_f1:.3f} (AUC {roc_auc_score(gold, probabilities):.3f})"]
            extra = [(x, y) for x, y, _ in rare] if "rare" in fitted_on else []
            model, at = fit(held_x + [x for x, _ in extra], held_y + [y for _, y in extra], columns)
            for split in SPLITS:
                rows = test[split]
                judged = [i for i, (r, _) in enumerate(rows) if r["trace"]["rare_relation"]]
                v, _ = judge(model, at, [rows[i][1] for i in judged], columns)
                final = [bool(r["verdict"]) for r, _ in rows]
                for i, verdict in zip(judged, v):
                    final[i] = verdict
                cells.append(f"{score([r['gold'] for r, _ in rows], final).macro_f1:.3f}")
            print(f"{name:<22} {fitted_on:<36} {cells[0]:>23} " + " ".join(f"{c:>15}" for c in cells[1:]))
    print("(the test columns: the default's verdicts, with those of the triples its gloss reader judged replaced)")


if __name__ == "__main__":
    main()
