"""A second opinion on the gloss reader's best passage (BENCHMARKS.md, *Relation glosses*, "Rare relations read
through retrieval"): the gloss reader judges a rare relation as the default does (BM25 top-5, the settled rule,
up to 3 searches), and the shipped reader, which reads a bare claim and rejects more property swaps of
relations it barely learned, scores only the passage the gloss reader found best: one reader call more per
triple. A logistic over the gloss reader's three evidence features and that score, with the gloss features
alone beside it.

Fitted on the 2,000 held-out training triples and TekGen's triples of the 41 rare relations
(`experiments/rare_relations.py`), two-fold by relation for the rare-relation figure; applied to the test
triples the default's gloss reader judged (the run `--routed` says which), the other verdicts kept as logged.
Readings are cached under <cache>/exp/second_opinion.

python experiments/rare_second_opinion.py [--routed routed]   (about 12 minutes the first time)
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

READERS = Path("src/agentkgv/reader_agent/readers")
SPLITS = ("test_long_tail", "test_unseen", "factbench_docs")


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.calibration import Evidence
    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.data.records import LabeledTriple, Triple
    from agentkgv.eval.metrics import score
    from agentkgv.paths import Workspace
    from agentkgv.commands.build import paraphrases, retriever_for
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.commands.train_reader import held_out_training_items, reader_held_out_share, rare_relation_items

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--routed", default="routed")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    ws = Workspace(args.data)
    gloss_folder, shipped_folder = ReaderFolder.open(READERS / "minilm-kgv-gloss"), ReaderFolder.open(READERS / "minilm-kgv")
    gloss, shipped = CrossEncoderReader(gloss_folder), CrossEncoderReader(shipped_folder)
    # The gloss reader judges every triple with its calibration and the settled rule.
    agent = ReadingAgent(retriever_for(ws, RetrieverConfig()), ReaderJudge(gloss, gloss_folder.calibrated),
                         paraphrases(ws), ReadingConfig(reader=gloss_folder.path, rare_below=0))
    cache = ws.cache / "exp" / "second_opinion"
    cache.mkdir(parents=True, exist_ok=True)

    def read(name: str, items: list[LabeledTriple]) -> dict[str, tuple[Evidence, float]]:
        """id -> (the gloss reader's evidence, the shipped reader's score of its best passage)."""
        path = cache / f"{name}.jsonl"
        done = {}
        if path.exists():
            done = {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}
        todo = [item for item in items if item.id not in done]
        with path.open("a") as out:
            for start in range(0, len(todo), 64):
                chunk = todo[start:start + 64]
                readings = agent.run(chunk)
                best = [r.best(1)[0][0] for r in readings]
                second = shipped.score([(r.item.triple, hit.passage.text, hit.passage.title)
                                        for r, hit in zip(readings, best)])
                for r, s in zip(readings, second):
                    done[r.item.id] = {"id": r.item.id, "evidence": asdict(r.evidence), "second": float(s)}
                    out.write(json.dumps(done[r.item.id]) + "\n")
                print(f"  {name}: {start + len(chunk)} of {len(todo)} read", flush=True)
        return {i: (Evidence(**r["evidence"]), r["second"]) for i, r in done.items()}

    held = held_out_training_items(ws, reader_held_out_share(gloss_folder), 2000)
    rare = [item for item, _ in rare_relation_items(ws, shipped_folder.learned(), 30)]
    held_read, rare_read = read("held_out_training", held), read("rare_relations", rare)
    tests = {}
    for split in SPLITS:
        rows = [json.loads(line) for line in (ws.cache / "runs" / args.routed / f"agentkgv.{split}.jsonl").open()]
        judged = [LabeledTriple(r["id"], Triple(**r["triple"]), r["gold"]) for r in rows if r["trace"]["rare_relation"]]
        tests[split] = (rows, read(split, judged))

    def x(reading: tuple[Evidence, float], columns: list[int]) -> list[float]:
        return [[*reading[0].features(), reading[1]][c] for c in columns]

    relations = sorted({i.triple.predicate_id for i in rare})
    fold = {r: n % 2 for n, r in enumerate(relations)}

    def fit(items: list, readings: dict, columns: list[int]):
        xs, ys = np.array([x(readings[i.id], columns) for i in items]), [bool(i.label) for i in items]
        model = LogisticRegression(C=1e4, max_iter=2000).fit(xs, ys)
        p = model.predict_proba(xs)[:, 1]
        at = max(sorted(set(np.round(p, 4))), key=lambda t: score(ys, [q >= t for q in p]).macro_f1)
        return lambda reading: bool(model.predict_proba(np.array([x(reading, columns)]))[0, 1] >= at), \
            lambda reading: float(model.predict_proba(np.array([x(reading, columns)]))[0, 1])

    readings = {**held_read, **rare_read}
    judges = {"gloss reader": [0, 1, 2], "gloss reader + second opinion": [0, 1, 2, 3]}
    print(f"{'judge':<32} {'rare relations (2-fold)':>24} " + " ".join(f"{s:>15}" for s in SPLITS))
    for name, columns in judges.items():
        verdicts, probabilities, gold = [], [], []
        for half in (0, 1):
            decide, probability = fit(held + [i for i in rare if fold[i.triple.predicate_id] != half], readings, columns)
            mine = [i for i in rare if fold[i.triple.predicate_id] == half]
            verdicts += [decide(readings[i.id]) for i in mine]
            probabilities += [probability(readings[i.id]) for i in mine]
            gold += [bool(i.label) for i in mine]
        cells = [f"{score(gold, verdicts).macro_f1:.3f} (AUC {roc_auc_score(gold, probabilities):.3f})"]
        decide, _ = fit(held + rare, readings, columns)
        for split in SPLITS:
            rows, read_rare = tests[split]
            final = [decide(read_rare[r["id"]]) if r["trace"]["rare_relation"] else bool(r["verdict"]) for r in rows]
            cells.append(f"{score([r['gold'] for r in rows], final).macro_f1:.3f}")
        print(f"{name:<32} {cells[0]:>24} " + " ".join(f"{c:>15}" for c in cells[1:]))
    print("(test columns: the default's logged verdicts, those of the triples its gloss reader judged re-decided)")


if __name__ == "__main__":
    main()
