"""A calibration of its own for relations no reader knows by name or gloss (BENCHMARKS.md, *Headline*, "What
the calibration cannot see"): FactBench's `foundation place` and `office` reach the gloss reader as bare claims
and are the worst-calibrated triples of the splits. Here the gloss reader reads the rare-relation set
(TekGen relations the readers learned from fewer than 10 facts, experiments/rare_relations.py) with its glosses
removed, a logistic over the evidence features is fitted there, and it re-decides the default's logged
FactBench-docs triples that were read bare; then the same triples judged by the shipped reader, which
reads bare claims as it was trained. Readings are cached under <cache>/exp/unknown_relations_bare.

python experiments/unknown_relations_bare.py [--run routed]   (4 minutes reading the first time, on an Intel Xeon)
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path

PER_RELATION = 30


def main() -> None:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from agentkgv.reader_agent.calibration import Evidence
    from agentkgv.reader_agent.reader import CrossEncoderReader, gloss_of
    from agentkgv.reader_agent.reader_folder import SHIPPED_GLOSS_READER, ReaderFolder, shipped_reader_dir
    from agentkgv.reader_agent.agent import ReadingAgent
    from agentkgv.reader_agent.config import ReadingConfig
    from agentkgv.reader_agent.judges import ReaderJudge
    from agentkgv.reader_agent.trace import by_rare_reader, reading_of
    from agentkgv.eval.metrics import expected_calibration_error, score
    from agentkgv.core.runner import load_run
    from agentkgv.paths import Workspace
    from agentkgv.commands.build import paraphrases, retriever_for
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.commands.train_reader import rare_relation_items, relations_learned

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default="routed", help="an eval run of the default reader agent")
    parser.add_argument("--one-reader", default="reader-corpora",
                        help="an eval run with the shipped reader judging every relation (configs/eval_one_reader.toml)")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    ws = Workspace(args.data)
    gloss, main_reader = shipped_reader_dir(SHIPPED_GLOSS_READER), shipped_reader_dir()
    learned = relations_learned([gloss, main_reader])
    items = [item for item, _ in rare_relation_items(ws, learned, PER_RELATION)]
    gloss_folder = ReaderFolder.open(gloss)
    path = ws.cache / "exp" / "unknown_relations_bare" / f"{gloss_folder.fingerprint}-{PER_RELATION}.jsonl"
    done = {r["id"]: r["evidence"] for r in map(json.loads, path.read_text().splitlines())} if path.exists() else {}
    todo = [item for item in items if item.id not in done]
    if todo:
        reader = CrossEncoderReader(gloss_folder)
        reader.glosses = {}  # every claim bare, as a relation with no known gloss reaches it
        # No calibration: every triple is read to the full budget.
        agent = ReadingAgent(retriever_for(ws, RetrieverConfig()), ReaderJudge(reader, None), paraphrases(ws),
                             ReadingConfig(reader=gloss))
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as out:  # a chunk at a time, by id: a stopped run reads only what is left
            for start in range(0, len(todo), 64):
                chunk = todo[start:start + 64]
                for item, reading in zip(chunk, agent.run(chunk)):
                    done[item.id] = asdict(reading.evidence)
                    out.write(json.dumps({"id": item.id, "evidence": done[item.id]}) + "\n")
                print(f"  {start + len(chunk)} of {len(todo)} read", flush=True)
    evidence = [Evidence(**done[item.id]) for item in items]
    gold = [item.label for item in items]
    x = np.array([e.features() for e in evidence])
    # The shipped fitter requires a positive weight on the support; here it comes out negative beside the
    # support among passages naming both, so the model is fitted on the other two features.
    print(f"{len(items)} rare-relation triples read bare; logistic weights over (support, names both, support "
          f"among those): {np.round(LogisticRegression(C=1e4, max_iter=1000).fit(x, gold).coef_[0], 3)}")
    model = LogisticRegression(C=1e4, max_iter=1000).fit(x[:, 1:], gold)
    fitted = model.predict_proba(x[:, 1:])[:, 1]
    true_at = max(np.unique(fitted), key=lambda t: score(gold, list(fitted >= t)).macro_f1)
    verdicts = list(load_run(Path(".cache/runs") / args.run / "agentkgv.factbench_docs.jsonl").values())
    glosses = gloss_folder.glosses
    bare = [v for v in verdicts if by_rare_reader(v) and not gloss_of(glosses, v.triple)]
    refit = model.predict_proba(np.array([reading_of(v).features() for v in bare])[:, 1:])[:, 1]

    def figures(judged: list) -> str:
        gold_of = [v.gold for v in judged]
        return (f"macro-F1 {score(gold_of, [v.verdict is True for v in judged]).macro_f1:.3f}, "
                f"ECE {expected_calibration_error([v.p_true for v in judged], gold_of):.3f}")

    refitted = [replace(v, p_true=float(p), verdict=bool(p >= true_at)) for v, p in zip(bare, refit)]
    # The same triples judged by the shipped reader, which reads bare claims as it was trained: its verdicts in a
    # one-reader run are what that routing would give (no triple's reading depends on another's).
    one = load_run(Path(".cache/runs") / args.one_reader / "agentkgv.factbench_docs.jsonl")
    print(f"the {len(bare)} FactBench-docs triples read bare, by the shipped gloss calibration: {figures(bare)}; "
          f"by one fitted on rare relations read bare: {figures(refitted)}; judged by the shipped reader: "
          f"{figures([one[v.id] for v in bare])}")
    print(f"all of FactBench-docs: the default {figures(verdicts)}; with those judged by the shipped reader "
          f"{figures([one[v.id] if by_rare_reader(v) else v for v in verdicts])}")


if __name__ == "__main__":
    main()
