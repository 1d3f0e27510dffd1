"""Rare relations read through retrieval (BENCHMARKS.md, *Relation glosses*, "Rare relations read through
retrieval"): how the agent judges a relation its readers learned from fewer than 10 facts, or none, when it
must find the evidence itself, on training data rather than on test_unseen.

TekGen's triples (train/reader_corpora.rare_relation_pairs) of the relations each of the named readers learned
fewer than 10 facts of (their `relations.json`; the benchmark's unseen and long-tail relations and their
inverses are never among them): true ones, and three kinds of false one, the pair under another relation
(`relation_swap`: a property swap), the subject with another object its sentence states (`co_mention`), and
the claim made of another subject of the relation (`other_subject`). Their sentences are in the corpus. Each
reader reads every triple as the agent does (BM25 top-5, up to 3 searches, the settled rule) and its
calibration gives the verdict; AUC and ECE are of P(true) after the full budget, which the rule's verdict
agrees with (P(true) never falls as passages are added). The lexical check's verdict is whether a passage of
the first search names both entities. Readings are cached under <cache>/exp/rare_relations.

python experiments/rare_relations.py src/agentkgv/reader_agent/readers/minilm-kgv-gloss src/agentkgv/reader_agent/readers/minilm-kgv
    (2,185 triples of 41 relations: 3-5 minutes a reader on an Intel Xeon with AMX, about 10 on an AMD EPYC)
python experiments/rare_relations.py src/agentkgv/reader_agent/readers/minilm-kgv-gloss .cache/train/reader-tekgen3/reader
    (the relations a TekGen reader held out: a few hundred triples of 7 relations)
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path

PER_RELATION = 30


def main() -> None:
    import numpy as np
    from scipy import special
    from sklearn.metrics import roc_auc_score

    from agentkgv.reader_agent.calibration import Evidence
    from agentkgv.reader_agent.reader import CrossEncoderReader
    from agentkgv.reader_agent.reader_folder import ReaderFolder
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.eval.metrics import expected_calibration_error, score
    from agentkgv.paths import Workspace
    from agentkgv.commands.build import paraphrases, retriever_for
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.commands.train_reader import rare_relation_items, relations_learned

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readers", nargs="+", type=Path, help="reader folders")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--per-relation", type=int, default=PER_RELATION)
    args = parser.parse_args()
    ws = Workspace(args.data)
    learned = relations_learned(args.readers)
    items = rare_relation_items(ws, learned, args.per_relation)
    kinds = [kind for _, kind in items]
    gold = [item.label for item, _ in items]
    relations = sorted({item.triple.predicate_id for item, _ in items})
    print(f"{len(items)} triples of {len(relations)} relations the named readers learned fewer than 10 facts of: "
          + ", ".join(f"{k} {n}" for k, n in sorted(Counter(kinds).items())))
    retriever = retriever_for(ws, RetrieverConfig())
    cache = ws.cache / "exp" / "rare_relations"
    cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for folder in args.readers:
        opened = ReaderFolder.open(folder)
        path = cache / f"{opened.fingerprint}-{args.per_relation}.jsonl"
        done = {}
        if path.exists():
            done = {r["id"]: r["history"] for r in map(json.loads, path.read_text().splitlines())}
        todo = [item for item, _ in items if item.id not in done]
        if todo:
            config = ReadingConfig(reader=folder)
            # No calibration: every triple is read to the full budget.
            agent = ReadingAgent(retriever, ReaderJudge(CrossEncoderReader(opened), None), paraphrases(ws), config)
            with path.open("a") as out:  # appended a chunk at a time: a stopped run reads only what is left
                for start in range(0, len(todo), 64):
                    chunk = todo[start:start + 64]
                    for item, reading in zip(chunk, agent.run(chunk)):
                        done[item.id] = [asdict(h) for h in reading.history]
                        out.write(json.dumps({"id": item.id, "history": done[item.id]}) + "\n")
                    print(f"  {folder}: {start + len(chunk)} of {len(todo)} read", flush=True)
        calibration = opened.calibrated
        histories = [[Evidence(**h) for h in done[item.id]] for item, _ in items]
        final = [calibration.probability(h[-1]) for h in histories]
        verdicts = [p >= calibration.true_at for p in final]
        searches = [next((t for t, e in enumerate(h, 1) if calibration.settles(e)), len(h)) for h in histories]
        rows.append((str(folder), verdicts, final, float(np.mean(searches))))
    # The first search is the same query (`s,p,o`) whoever reads: whether one of its passages names both.
    rows.append(("lexical check", [h[0].named_both for h in histories], None, 1.0))
    names = sorted(set(kinds))
    print(f"{'judge':<48} {'macro-F1':>8} {'AUC':>6} {'ECE':>6} {'searches':>8}  "
          + "  ".join(f"{k:>14}" for k in names))
    for name, verdicts, probabilities, searches in rows:
        accuracy = [np.mean([v == g for v, g, k in zip(verdicts, gold, kinds) if k == kind]) for kind in names]
        auc = f"{roc_auc_score(gold, probabilities):6.3f}" if probabilities else f"{'':6}"
        ece = f"{expected_calibration_error(probabilities, gold):6.3f}" if probabilities else f"{'':6}"
        print(f"{name:<48} {score(gold, verdicts).macro_f1:8.3f} {auc} {ece} {searches:8.2f}  "
              + "  ".join(f"{a:14.3f}" for a in accuracy))
    print("(per kind: the share judged right; evidence = true triples accepted)")
    if len(args.readers) >= 2:  # an estimate of a two-reader judge: the mean of the first two readers' logits
        logit = lambda p: special.logit(np.clip(p, 1e-4, 1 - 1e-4))  # noqa: E731
        mean = logit(np.array(rows[0][2])) + logit(np.array(rows[1][2]))
        swaps = np.array([k in ("evidence", "relation_swap") for k in kinds])
        print(f"mean of the first two readers' P(true) logits: AUC {roc_auc_score(gold, mean):.3f}, true triples "
              f"against property swaps {roc_auc_score(np.array(gold)[swaps], mean[swaps]):.3f} (each reader: "
              + ", ".join(f"{roc_auc_score(np.array(gold)[swaps], np.array(r[2])[swaps]):.3f}" for r in rows[:2]) + ")")


if __name__ == "__main__":
    main()
