"""Archived error analyses of the LLM agent against the string match (BENCHMARKS.md archive).

Run one by its number: `python experiments/archive_error_analysis.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def measurement_1() -> None:
    """The per-triple analysis above reads the logged states back through the agent's own view (run in the repo with the venv; before the fix for the bug counts, after it for the "left" counts)"""
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.corpus import load_corpus
    from agentkgv.data.records import Triple
    from agentkgv.retrieval.base import Hit
    from agentkgv.agent.prompts import reader_view
    from sklearn.metrics import roc_auc_score
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        runs = [d for _, d in read_jsonl(f".cache/runs/sft-distill/+ SFT (distilled).{split}.jsonl")]
        gold, p_true = [], []
        for d in runs:
            t = Triple(**d["triple"]); hits = [x for x in d["trajectory"] if x.get("retrieved")][-1]["retrieved"]
            if any(v.has_subject and v.has_object for v in (reader_view(t, Hit(corpus[i], 0.0, 0), 26) for i in hits)):
                gold.append(d["gold"]); p_true.append(d["confidence"] if d["verdict"] else 1 - d["confidence"])
        print(split, len(gold), roc_auc_score(gold, p_true))


def measurement_2() -> None:
    """The table comes from the logs (run in the repo)"""
    from collections import Counter
    from agentkgv.agent.prompts import reader_view
    from agentkgv.data.corpus import load_corpus
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    from agentkgv.retrieval.base import Hit
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        cells = Counter()
        for _, d in read_jsonl(f".cache/runs/i11-view/+ SFT view fix.{split}.jsonl"):
            t, hits = Triple(**d["triple"]), [x for x in d["trajectory"] if x.get("retrieved")][-1]["retrieved"]
            both = sum(v.has_subject and v.has_object for v in (reader_view(t, Hit(corpus[i], 0.0, 0), 26) for i in hits))
            cells[(d["gold"], min(both, 2), d["verdict"])] += 1
        print(split, sorted(cells.items(), key=str))


MEASUREMENTS = [measurement_1, measurement_2]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
