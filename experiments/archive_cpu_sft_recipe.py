"""Archived measurements of the CPU SFT recipe and the window anchor (BENCHMARKS.md archive).

Run one by its number: `python experiments/archive_cpu_sft_recipe.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def measurement_1() -> None:
    """The step times come from this script (`python steptime.py all`, then `python steptime.py 20`; 32 judgment pairs of `train/distill-v3/sft.jsonl`, 4 steps each, nothing else running)"""
    import sys, time
    from pathlib import Path
    from agentkgv.train.sft import SFTSettings, build_trainer
    rows = [l for l in open(".cache/train/distill-v3/sft.jsonl") if '"kind": "judgment"' in l]
    open("j32.jsonl", "w").writelines(rows[:32])
    layers = None if sys.argv[1] == "all" else list(range(int(sys.argv[1]), 30))
    settings = SFTSettings(dtype="float32", init_adapter="agentkgv-smollm2", layers_to_transform=layers, epochs=1,
                           batch_size=8, gradient_accumulation_steps=1, max_length=768, decision_weight=5,
                           save_steps=1000, learning_rate=1e-4)
    trainer = build_trainer(Path("j32.jsonl"), Path(f"steptime-{sys.argv[1]}"), settings, threads=2)
    start = time.perf_counter(); trainer.train(); print(sys.argv[1], "s/step", (time.perf_counter() - start) / 4)


def measurement_2() -> None:
    """The quarter holds in the 2,400- and 4,400-triple draws (co-mention first), not over every triple."""
    from pathlib import Path
    import agentkgv.data.benchmark as B
    counts, choose = [], B.choose
    B.choose = lambda candidates, rng: (counts.append(len(candidates)), choose(candidates, rng))[1]
    B.build_benchmark(Path("../shared/data"), Path("/tmp/bench-count"), B.BenchmarkConfig.load())
    print(len(counts), "positives,", sum(counts), "candidates")


def measurement_3() -> None:
    """The affected triples come from this snippet, run in the repo with the change (commit 6355930) applied to `agent/evidence_view.py` (it reads the old view from commit 21d3059); each `affected.<split>.jsonl` then went through `agentkgv verify """
    import json, subprocess
    from agentkgv.data.corpus import load_corpus
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    import agentkgv.agent.evidence_view as new
    old = {}
    exec(subprocess.run(["git", "show", "21d3059:src/agentkgv/agent/evidence_view.py"], capture_output=True, text=True).stdout, old)
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        rows = []
        for _, d in read_jsonl(f".cache/runs/sft-v3/+ SFT (decision-weighted).{split}.jsonl"):
            t = Triple(**d["triple"])
            ids = [i for turn in d["trajectory"] for i in turn.get("retrieved") or []]
            if any(old["view_passage"](corpus[i].text, t.subject, t.object, 26).text
                   != new.view_passage(corpus[i].text, t.subject, t.object, 26).text for i in ids):
                rows.append({"id": d["id"], **{k: v for k, v in d["triple"].items() if v is not None},
                             "label": d["gold"], "h100_verdict": d["verdict"]})
        open(f"affected.{split}.jsonl", "w").writelines(json.dumps(r) + "\n" for r in rows)


MEASUREMENTS = [measurement_1, measurement_2, measurement_3]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
