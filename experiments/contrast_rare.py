"""Does the best passage's support under other relations tell a rare relation's true triples from its false
ones? (BENCHMARKS.md, *Relation glosses*, "Relation contrast for rare relations")

The gloss reader judges the relations the shipped reader learned from few facts or none; on them it acts
much as a name match (a passage that names both entities supports any relation between them). Here each
triple of the rare-relation set (experiments/rare_relations.py: training data) is read by the gloss reader
to the full budget, and its best passage is scored again with the predicate replaced by each of
`ALTERNATIVES`, common relations a reader learned well. A passage that states another relation between the
pair (`serving Belgrade, Serbia` for `named after | Serbia`) should score that one higher than the claim's
own. A fact stated in several passages should also find several that support it (corroboration: the
second-best support among the passages naming both entities, how many of them score above 0, and the sum of
their sigmoids). Compared two-fold on the set (fit on one half, score the other, by a hash of the id): the
shipped calibration's three features, with the contrast (own support minus the best / the mean of the
alternatives'), with corroboration, and with both.

    python experiments/contrast_rare.py [--reader FOLDER] [--alternatives-from FOLDER ...]
    (about 4 min reading and 4 min of alternatives a reader on the Intel Xeon; cached under
    <cache>/exp/contrast_rare)
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import asdict, astuple, replace
from pathlib import Path

import numpy as np

# Common relations both readers learned from hundreds of facts, none of the benchmark's held-out ones.
ALTERNATIVES = ("P17", "P131", "P27", "P106", "P19", "P20", "P31", "P495", "P54", "P69", "P50", "P57", "P175",
                "P26", "P159", "P36", "P1412", "P276", "P740", "P37", "P30")


def read_rare(ws, folder: Path, per_relation: int) -> list[dict]:
    """Each rare-relation triple read to the full budget: its kind, label, evidence and best passage."""
    from agentkgv.reader_agent.reader import CrossEncoderReader, reader_view
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.commands.build import paraphrases, retriever_for
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.commands.train_reader import rare_relation_items

    items = rare_relation_items(ws, ReaderFolder.shipped().learned(), per_relation)
    opened = ReaderFolder.open(folder)
    path = ws.cache / "exp" / "contrast_rare" / f"{opened.fingerprint}-{per_relation}-read.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())} if path.exists() else {}
    todo = [(item, kind) for item, kind in items if item.id not in done]
    if todo:
        # No calibration: every triple is read to the full budget.
        agent = ReadingAgent(retriever_for(ws, RetrieverConfig()), ReaderJudge(CrossEncoderReader(opened), None),
                             paraphrases(ws), ReadingConfig(reader=folder))
        with path.open("a") as out:
            for start in range(0, len(todo), 64):
                chunk = todo[start:start + 64]
                for (item, kind), reading in zip(chunk, agent.run([i for i, _ in chunk])):
                    best = reading.best(1)
                    names = [reader_view(item.triple, hit.passage.text) for hit, _ in reading.read.values()]
                    row = {"id": item.id, "kind": kind, "label": item.label, "triple": asdict(item.triple),
                           "features": astuple(reading.evidence),
                           "best": [best[0][0].passage.text, best[0][0].passage.title] if best else None,
                           "read": sorted(([s, v.has_subject and v.has_object] for (_, s), v
                                           in zip(reading.read.values(), names)), reverse=True)}
                    done[item.id] = row
                    out.write(json.dumps(row) + "\n")
                print(f"  {start + len(chunk)} of {len(todo)} read", flush=True)
    return [done[item.id] for item, _ in items]


def alternative_scores(ws, rows: list[dict], folder: Path) -> None:
    """Adds `others`: the best passage's support under each alternative relation (cached by reader)."""
    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.data.records import Triple
    from agentkgv.commands.train_reader import relation_labels

    labels = relation_labels(ws)
    opened = ReaderFolder.open(folder)
    path = ws.cache / "exp" / "contrast_rare" / f"others-{opened.fingerprint}.jsonl"
    done = {r["id"]: r["others"] for r in map(json.loads, path.read_text().splitlines())} if path.exists() else {}
    todo = [r for r in rows if r["id"] not in done and r["best"]]
    reader = CrossEncoderReader(opened) if todo else None
    with path.open("a") as out:
        for start in range(0, len(todo), 32):
            chunk, asks = todo[start:start + 32], []
            for row in chunk:
                t = Triple(**row["triple"])
                asks += [(replace(t, predicate=labels[p], predicate_id=p), *row["best"])
                         for p in ALTERNATIVES]
            scores = reader.score(asks).reshape(len(chunk), len(ALTERNATIVES))
            for row, own in zip(chunk, scores):
                done[row["id"]] = [None if p == row["triple"]["predicate_id"] else float(s)
                                   for p, s in zip(ALTERNATIVES, own)]
                out.write(json.dumps({"id": row["id"], "others": done[row["id"]]}) + "\n")
            print(f"  alternatives: {start + len(chunk)} of {len(todo)}", flush=True)
    for row in rows:
        row["others"] = [s for s in done.get(row["id"], []) if s is not None]


def features(row: dict, kind: str) -> list[float]:
    x = list(row["features"])
    if "contrast" in kind:
        others = np.array(row["others"] or [-10.0])
        x += [x[0] - others.max(), x[0] - others.mean()]
    if "corroboration" in kind:
        named = [score for score, names in row["read"] if names]
        x += [named[1] if len(named) > 1 else -10.0, sum(score > 0 for score in named),
              sum(1 / (1 + np.exp(-score)) for score in named)]
    return x


def two_fold(rows: list[dict], kind: str) -> tuple[float, float, dict[str, float]]:
    """Macro-F1 (threshold chosen on the fitting half), AUC and per-kind accuracy, over both halves."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score, roc_auc_score

    x, y = np.array([features(r, kind) for r in rows]), np.array([int(r["label"]) for r in rows])
    fold_of = np.array([int(r["id"][-1], 16) % 2 for r in rows])
    p, verdict = np.zeros(len(y)), np.zeros(len(y), dtype=bool)
    for fold in range(2):
        fit = fold_of != fold
        model = LogisticRegression(C=1e4, max_iter=5000).fit(x[fit], y[fit])
        q = model.predict_proba(x[fit])[:, 1]
        threshold = max(np.unique(np.round(q, 3)), key=lambda t: f1_score(y[fit], q >= t, average="macro"))
        p[~fit] = model.predict_proba(x[~fit])[:, 1]
        verdict[~fit] = p[~fit] >= threshold
    kinds = Counter(r["kind"] for r in rows)
    right = {k: float(np.mean([v == bool(r["label"]) for v, r in zip(verdict, rows) if r["kind"] == k])) for k in kinds}
    return f1_score(y, verdict, average="macro"), roc_auc_score(y, p), right


def main() -> None:
    from agentkgv.paths import Workspace

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", type=Path, default=Path("src/agentkgv/reader_agent/readers/minilm-kgv-gloss"))
    parser.add_argument("--alternatives-from", type=Path, action="append", default=None,
                        help="reader(s) that score the alternatives (default: --reader)")
    parser.add_argument("--per-relation", type=int, default=30)
    args = parser.parse_args()
    ws = Workspace()
    rows = read_rare(ws, args.reader, args.per_relation)
    print(f"{len(rows)} triples: " + ", ".join(f"{k} {n}" for k, n in sorted(Counter(r['kind'] for r in rows).items())))
    for folder in args.alternatives_from or [args.reader]:
        alternative_scores(ws, rows, folder)
        print(f"alternatives scored by {folder}")
        for kind in ("calibration features", "+ contrast", "+ corroboration", "+ contrast + corroboration"):
            f1, auc, right = two_fold(rows, kind)
            print(f"  {kind:22} macro-F1 {f1:.4f}  AUC {auc:.4f}  " + "  ".join(f"{k} {a:.3f}" for k, a in sorted(right.items())))


if __name__ == "__main__":
    main()
