"""Does scoring the best passage under other relations help the calibration? (BENCHMARKS.md, *The evidence reader*)

Reads 2,000 held-out training triples (the calibration's own draw) to the full search budget with a reader,
scores each triple's best passage again with its predicate replaced by each of `ALTERNATIVES`, and compares,
two-fold on those triples (fit on one half, score the other), the shipped calibration's three features with
and without the contrast (own score minus the best / the mean of the others) and a few more aggregates.

    python experiments/relation_contrast.py [--reader FOLDER] [--triples 2000] [--runs RUN [--rare]]
    (the readings are cached under <cache>/exp/relation_contrast)
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import numpy as np

# The training split's relations and common Wikidata ones: relations the reader knows.
ALTERNATIVES = ("languages spoken, written or signed", "headquarters location", "country of citizenship", "occupation",
                "place of death", "place of birth", "instance of", "country of origin",
                "located in the administrative territorial entity", "part of", "member of sports team",
                "educated at", "author", "director", "performer", "spouse")


def read_held_out(folder, count: int) -> list[dict]:
    from agentkgv.commands.build import paraphrases, retriever_for
    from agentkgv.data.text import label_key
    from agentkgv.eval.subsets import balanced_subset
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.commands.train_reader import reader_forbidden
    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.data.benchmark import load_split
    from agentkgv.paths import Workspace
    from agentkgv.train.reader_data import held_out

    ws = Workspace()
    factbench = reader_forbidden(ws)[1]
    examples = balanced_subset([e for e in load_split(ws.benchmark, "train") if held_out(e, 0.15) and
                                         (label_key(e.triple.subject), label_key(e.triple.object))
                                         not in factbench], count)
    reader = CrossEncoderReader(folder)
    # No calibration: every triple is read to the full budget.
    agent = ReadingAgent(retriever_for(ws, RetrieverConfig()), ReaderJudge(reader, None), paraphrases(ws),
                         ReadingConfig())
    rows: list[dict] = []
    for start in range(0, len(examples), 64):
        readings = agent.run([e.as_labeled() for e in examples[start:start + 64]])
        asks = []
        for r in readings:
            ranked = sorted(r.read.values(), key=lambda pair: -pair[1])
            alternatives = [a for a in ALTERNATIVES if a != r.item.triple.predicate]
            if ranked:
                hit = ranked[0][0]
                asks += [(replace(r.item.triple, predicate=a, predicate_id=None), hit.passage.text, hit.passage.title) for a in alternatives]
            rows.append({"label": r.item.label, "features": r.evidence.features(), "scores": [s for _, s in ranked],
                         "alternatives": len(alternatives) if ranked else 0})
        scores = iter(reader.score(asks))
        for row in rows[start:]:
            row["others"] = [float(next(scores)) for _ in range(row.pop("alternatives"))]
        print(f"{start + len(readings)} / {len(examples)} read", flush=True)
    return rows


def features(row: dict, kind: str) -> list[float]:
    x = list(row["features"])
    own = row["scores"][0] if row["scores"] else -10.0
    others = np.array(row["others"] or [-10.0])
    if "contrast" in kind:
        x += [own - others.max(), own - others.mean()]
    if "more" in kind:
        x += [row["scores"][1] if len(row["scores"]) > 1 else -10.0, sum(s > 0 for s in row["scores"])]
    return x


def two_fold(rows: list[dict], kind: str) -> tuple[float, float]:
    """Macro-F1 (threshold chosen on the fitting half) and AUC, averaged over the two halves; positives and
    their hard negatives stay together."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score, roc_auc_score

    x, y = np.array([features(r, kind) for r in rows]), np.array([int(r["label"]) for r in rows])
    results = []
    for fold in range(2):
        fit = (np.arange(len(y)) // 2) % 2 != fold
        model = LogisticRegression(C=1e4, max_iter=2000).fit(x[fit], y[fit])
        p = model.predict_proba(x[fit])[:, 1]
        threshold = max(np.unique(np.round(p, 3)), key=lambda t: f1_score(y[fit], p >= t, average="macro"))
        q = model.predict_proba(x[~fit])[:, 1]
        results.append((f1_score(y[~fit], q >= threshold, average="macro"), roc_auc_score(y[~fit], q)))
    return tuple(np.mean(results, axis=0))


def on_runs(rows: list[dict], folder, run: str, rare: bool) -> None:
    """Re-decides the run's triples this reader judged (its rare relations, when it is the gloss reader) from
    their logged evidence, with a logistic fitted on all the held-out rows with and without the contrast,
    each at the threshold that is best there; the best cited passage is the one scored under the
    alternatives. Both rows are refits, so read the difference between them, not their level."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.core.runner import load_run
    from agentkgv.paths import Workspace
    from agentkgv.reader_agent.trace import by_rare_reader, reading_of

    y = np.array([int(r["label"]) for r in rows])
    models = {}
    for kind in ("calibration features", "+ contrast"):
        x = np.array([features(r, kind) for r in rows])
        model = LogisticRegression(C=1e4, max_iter=2000).fit(x, y)
        p = model.predict_proba(x)[:, 1]
        models[kind] = (model, max(np.unique(np.round(p, 3)), key=lambda t: f1_score(y, p >= t, average="macro")))
    reader = CrossEncoderReader(folder)
    for log in sorted((Workspace().cache / "runs" / run).glob("agentkgv.*.jsonl")):
        logged = list(load_run(log).values())
        mine = [v for v in logged if by_rare_reader(v) == rare]
        asks, counts = [], []
        for v in mine:
            alternatives = [a for a in ALTERNATIVES if a != v.triple.predicate] if v.evidence else []
            asks += [(replace(v.triple, predicate=a, predicate_id=None), v.evidence[0].text, v.evidence[0].title)
                     for a in alternatives]
            counts.append(len(alternatives))
        scores, at = reader.score(asks), 0
        decided = {}
        for v, n in zip(mine, counts):
            row = {"features": reading_of(v).features(), "scores": [reading_of(v).support],
                   "others": [float(s) for s in scores[at:at + n]]}
            at += n
            decided[v.id] = {k: m.predict_proba([features(row, k)])[0, 1] >= t for k, (m, t) in models.items()}
        gold = [v.gold for v in logged]
        line = [f"{log.stem.split('.')[-1]} ({len(mine)} of {len(logged)} re-decided):",
                f"logged {f1_score(gold, [bool(v.verdict) for v in logged], average='macro'):.3f}"]
        for kind in models:
            verdicts = [decided[v.id][kind] if v.id in decided else bool(v.verdict) for v in logged]
            line.append(f"{kind} {f1_score(gold, verdicts, average='macro'):.3f}")
        print("  ".join(line), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", default=None, help="reader folder (default: the shipped one)")
    parser.add_argument("--triples", type=int, default=2000)
    parser.add_argument("--runs", default=None, help="a run name: re-decide its logged test triples this reader "
                                                     "judged with the held-out fits, with and without the contrast")
    parser.add_argument("--rare", action="store_true", help="the reader is the run's judge of rare relations")
    args = parser.parse_args()
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.paths import Workspace

    folder = ReaderFolder.open(args.reader) if args.reader else ReaderFolder.shipped()
    path = Workspace().cache / "exp" / "relation_contrast" / f"{folder.fingerprint}-{args.triples}.jsonl"
    if path.exists():
        rows = [json.loads(line) for line in path.read_text().splitlines()]
    else:
        rows = read_held_out(folder, args.triples)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for kind in ("calibration features", "+ contrast", "+ more", "+ contrast + more"):
        f1, auc = two_fold(rows, kind)
        print(f"{kind:24} macro-F1 {f1:.4f}  AUC {auc:.4f}")
    if args.runs:
        on_runs(rows, folder, args.runs, args.rare)


if __name__ == "__main__":
    main()
