"""Archived measurements of the shipped LLM agent against the string match (BENCHMARKS.md archive).

Run one by its number: `python experiments/archive_llm_agent_quality.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def measurement_1() -> None:
    """The recall figures of point 2, this table and the data counts of point 3 come from this snippet (run in the repo with the venv, 68 s; the "before" recall is the same snippet at commit d863bee, before the half windows)"""
    import json, re, numpy as np
    from sklearn.metrics import roc_auc_score
    from transformers import AutoTokenizer
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import retriever_for, split_examples
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.agent.combinations import compose_query
    from agentkgv.agent.prompts import reader_view
    from agentkgv.agent.lexical import mentions_any
    from agentkgv.llm.embedded import transformers_dir

    ws = Workspace(); bm25 = retriever_for(ws, RetrieverConfig())
    # 1. Recall of "a shown passage marks both" (positives) after the first s,p,o search, and the lexical check's.
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        pos = [e.triple for e in split_examples(ws, split) if e.label]
        spo = bm25.search([compose_query(t, "s,p,o") for t in pos], 5)
        lex = bm25.search([t.subject for t in pos], 5)
        marked = np.mean([any(v.has_subject and v.has_object for v in (reader_view(t, h, 26) for h in hits)) for t, hits in zip(pos, spo)])
        lexical = np.mean([any(mentions_any(h.passage.text, (t.subject,)) and mentions_any(h.passage.text, (t.object,)) for h in hits) for t, hits in zip(pos, lex)])
        print(f"{split}: positives marked after s,p,o {marked:.3f}; lexical check's search {lexical:.3f}")
    # 2. The student's verdicts where its last search shows a passage marking both names (H100 full-split logs).
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        rows = [json.loads(l) for l in open(f".cache/runs/sft-v3/+ SFT (decision-weighted).{split}.jsonl")]
        both = [r for r in rows if len(r["trajectory"]) > 1 and any("[S:" in p and "[O:" in p for p in
                re.findall(r"<passage[^>]*>(.*?)</passage>", r["trajectory"][-1]["messages"][-1]["content"], re.S))]
        gold = [r["gold"] for r in both]
        p_true = [r["confidence"] if r["verdict"] else 1 - r["confidence"] for r in both]
        print(f"{split}: {len(both)} such states, {sum(gold)} positive; negatives called true "
              f"{sum(r['verdict'] and not r['gold'] for r in both)} of {len(gold) - sum(gold)}; positives called false "
              f"{sum(r['gold'] and not r['verdict'] for r in both)}; AUC {roc_auc_score(gold, p_true):.2f}")
    # 3. SFT data: pairs by kind, verdicts where a passage marks both, state length in tokens.
    pairs = [json.loads(l) for l in open(".cache/train/distill-v3/sft.jsonl")]
    tok = AutoTokenizer.from_pretrained(transformers_dir())
    lengths = [len(x) for x in tok([tok.apply_chat_template(p["prompt"], tokenize=False, add_generation_prompt=True)
                                    for p in pairs], add_special_tokens=False).input_ids]
    print({k: sum(p["kind"] == k for p in pairs) for k in ("routing", "search", "judgment")},
          "state tokens p50/p95", np.percentile(lengths, 50), np.percentile(lengths, 95))
    marked = [p for p in pairs if p["kind"] == "judgment" and any("[S:" in x and "[O:" in x for x in
              re.findall(r"<passage[^>]*>(.*?)</passage>", p["prompt"][-1]["content"], re.S))]
    print("both-marked judgments: true", sum('"verdict": "true"' in p["completion"][0]["content"] for p in marked),
          "of", len(marked))


def measurement_2() -> None:
    """Run in the repo; reads the run logs BENCHMARKS.md names beside it."""
    import json, re, sys
    from agentkgv.eval.metrics import score, bootstrap_macro_f1
    def grounded(r):
        v, t = r["verdict"], r["trajectory"][-1]
        shown = re.findall(r"<passage[^>]*>(.*?)</passage>", t["messages"][-1]["content"])
        both = any("[S:" in p and "[O:" in p for p in shown)
        return False if v is True and len(r["trajectory"]) > 1 and not both else v
    for path in sys.argv[1:]:
        rows = [json.loads(l) for l in open(path)]
        gold, pred = [r["gold"] for r in rows], [grounded(r) for r in rows]
        print(path, score(gold, pred), bootstrap_macro_f1(gold, pred))


MEASUREMENTS = [measurement_1, measurement_2]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
