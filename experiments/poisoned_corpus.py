"""The poisoned-evidence corpus of BENCHMARKS.md, *Poisoned evidence*: how the planted passages read.

Run one by its number: `python experiments/poisoned_corpus.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def measurement_1() -> None:
    """It stays unbuilt; the defence that fits is a reader trained on states with conflicting passages (a GPU retrain)."""
    import sys, glob
    from collections import Counter
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    from agentkgv.data.corpus import load_corpus
    from agentkgv.llm_agent.prompts import agent_view
    from agentkgv.retrieval.base import Hit
    from agentkgv.eval.metrics import score
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for path in sorted(glob.glob(f".cache/runs/{sys.argv[1]}*.jsonl")):
        rows = [d for _, d in read_jsonl(path)]
        c = Counter(); new = []
        for d in rows:
            t = Triple(**d["triple"])
            last = [x for x in d["trace"]["turns"] if x.get("retrieved")][-1]["retrieved"]
            views = [agent_view(t, Hit(corpus[i], 0.0, 0), 26) for i in last if i in corpus]
            n = len({v.text for v in views if v.has_subject and v.has_object})
            v = d["verdict"]
            if v and n < 2:
                c["gold true" if d["gold"] else "gold false"] += 1
                v = False
            new.append(v)
        gold = [d["gold"] for d in rows]
        print(path.split("/")[-1], dict(c), round(score(gold, [d["verdict"] for d in rows]).macro_f1, 3), "->",
              round(score(gold, new).macro_f1, 3))


MEASUREMENTS = [measurement_1]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
