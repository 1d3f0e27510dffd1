"""Measurements of the LLM agent's speed on this CPU (BENCHMARKS.md, *The bound for the agent on this CPU*
and the archived cuts in work per triple): kernels, token counts and state lengths.

Run one by its number: `python experiments/llm_agent_speed.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def measurement_1() -> None:
    """The measurement (run in the repo)"""
    import json, time, torch
    from pathlib import Path
    from agentkgv.llm.transformers_backend import TransformersLLM
    torch.set_num_threads(2)
    rows = [json.loads(l) for l in open(".cache/train/distill-v2/sft.jsonl") if '"judgment"' in l][:16]
    llm = TransformersLLM.load(adapter=Path("src/agentkgv/llm/adapters/agentkgv-smollm2"), dtype="float32")
    tok = llm.tokenizer
    enc = tok([tok.apply_chat_template(r["prompt"], tokenize=False, add_generation_prompt=True) for r in rows],
              return_tensors="pt", padding=True, add_special_tokens=False)
    def bench(model, name):
        with torch.no_grad():
            model(**enc); start = time.time(); model(**enc); prefill = time.time() - start
            out = model.generate(**enc, max_new_tokens=32, min_new_tokens=32, do_sample=False)
        print(name, f"prefill {enc.input_ids.numel() / prefill:.0f} tokens/s"); return out
    fp32 = bench(llm.model, "fp32")
    int8 = bench(torch.ao.quantization.quantize_dynamic(llm.model, {torch.nn.Linear}, dtype=torch.qint8), "int8")
    print("same continuation:", (fp32 == int8).all(-1).float().mean().item())


def measurement_2() -> None:
    """The matmul rate above can be re-measured on an idle machine with `python flops.py`, where `flops.py` is"""
    import time, torch
    torch.set_num_threads(2)
    for m, k, n in [(2048, 2048, 2048), (4096, 576, 1536), (16, 576, 1536)]:
        a, b = torch.randn(m, k), torch.randn(k, n)
        a @ b
        reps, start = 0, time.perf_counter()
        while time.perf_counter() - start < 3:
            a @ b; reps += 1
        print(f"{m}x{k}x{n}: {2 * m * k * n * reps / (time.perf_counter() - start) / 1e9:.1f} GFLOP/s")


def measurement_3() -> None:
    """unfounded.py RUN_LOG...: what the model did where no shown passage named both"""
    # unfounded.py RUN_LOG...: what the model did where no shown passage named both
    import sys
    from collections import Counter
    from agentkgv.llm_agent.config import AgentConfig
    from agentkgv.llm_agent.prompts import agent_view
    from agentkgv.data.corpus import load_corpus
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    from agentkgv.retrieval.base import Hit
    words = AgentConfig().max_passage_words
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for path in sys.argv[1:]:
        moves, triples = Counter(), 0
        for _, d in read_jsonl(path):
            t, turns, unfounded_here = Triple(**d["triple"]), d["trace"]["turns"], False
            for before, turn in zip(turns, turns[1:]):
                if not before.get("retrieved"):
                    continue
                views = [agent_view(t, Hit(corpus[i], 0.0, 0), words) for i in before["retrieved"]]
                if any(v.has_subject and v.has_object for v in views):
                    continue
                unfounded_here = True
                a = turn.get("action") or {}
                moves[(a.get("kind"), a.get("verdict"), turn.get("finish_reason"))] += 1
            triples += unfounded_here
        print(path, "triples with an unfounded turn:", triples, dict(moves))
    # python unfounded.py .cache/runs/s10-base/agentkgv.*.jsonl  ->  54, 47, 46 triples; ('answer', False, 'stop'): 54, 47, 46


def measurement_4() -> None:
    """compare.py A B: verdicts of two eval runs on the same triples"""
    # compare.py A B: verdicts of two eval runs on the same triples
    import sys
    from agentkgv.data.jsonl import read_jsonl
    a_run, b_run = sys.argv[1:3]
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        a = {d["id"]: d for _, d in read_jsonl(f".cache/runs/{a_run}/agentkgv.{split}.jsonl")}
        b = {d["id"]: d for _, d in read_jsonl(f".cache/runs/{b_run}/agentkgv.{split}.jsonl")}
        same = sum(a[i]["verdict"] == b[i]["verdict"] for i in b)
        rule = sum(d["trace"]["turns"][-1].get("finish_reason") == "rule" for d in b.values())
        print(split, f"{same}/{len(b)} verdicts equal; settled by rule: {rule}")


def measurement_5() -> None:
    """the decoded tokens of the s10-fast run that are free-text reasoning or query"""
    # the decoded tokens of the s10-fast run that are free-text reasoning or query
    import json
    from transformers import AutoTokenizer
    from agentkgv.llm.embedded import resolve_model_path
    from agentkgv.data.jsonl import read_jsonl
    tok = AutoTokenizer.from_pretrained(resolve_model_path("smollm2"))
    total = free = 0
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        for _, d in read_jsonl(f".cache/runs/s10-fast/agentkgv.{split}.jsonl"):
            for t in d["trace"]["turns"]:
                if t.get("finish_reason") == "rule":
                    continue
                a = json.loads(t["action_text"])
                total += t["completion_tokens"]
                free += sum(len(tok(str(a[k]), add_special_tokens=False).input_ids) for k in ("reasoning", "query") if k in a)
    print(total, free, f"free-text share {free / total:.2f}")    # 20629 8392 free-text share 0.41


def measurement_6() -> None:
    """The first-turn count (`turn1.py`, run in the repo; it asks the shipped adapter for the first turn of every triple, the model opening as before, and compares its query with the rule's)"""
    import sys
    from collections import Counter
    from agentkgv.commands.build import split_examples
    from agentkgv.commands.verify import load_verifier
    from agentkgv.llm_agent.actions import parse_action
    from agentkgv.core.combinations import compose_query
    from agentkgv.config import RunConfig, resolve
    from agentkgv.data.records import LabeledTriple
    from agentkgv.paths import Workspace
    ws = Workspace()
    # The LLM agent (the reader is the default judge), which resolving gives the shipped adapter, as `verify` runs it.
    run = resolve(RunConfig(judge="llm"), ws)
    agent = load_verifier(ws, run).verifier
    for split in sys.argv[1:]:
        examples, tally = split_examples(ws, split), Counter()
        for i in range(0, len(examples), 32):
            ts = [agent.start(LabeledTriple(e.id, e.triple, e.label)) for e in examples[i:i + 32]]
            for t, c in zip(ts, agent.policy.act(ts, [agent.state(t) for t in ts], [agent.schema(t, agent.facts(t)) for t in ts])):
                a = parse_action(c.text)
                tally[(a.kind, a.combination, a.query == compose_query(t.item.triple, "s,p,o"))] += 1
        print(split, dict(tally))
    # factbench_docs {('search', 's,p,o', True): 400}
    # test_unseen {('search', 's,p,o', True): 985, ('search', 's,p,o', False): 15}
    # test_long_tail {('search', 's,p,o', True): 990, ('search', 's,p,o', False): 10}


def measurement_7() -> None:
    """compare_full.py: the two full-split runs, triple by triple"""
    # compare_full.py: the two full-split runs, triple by triple
    from agentkgv.core.combinations import compose_query
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    a_name, b_name = "s11-model-opens/agentkgv (model opens)", "s11-open/agentkgv (opening rule)"
    for split in ["test_long_tail", "test_unseen", "factbench_docs"]:
        a = {d["id"]: d for _, d in read_jsonl(f".cache/runs/{a_name}.{split}.jsonl")}
        b = {d["id"]: d for _, d in read_jsonl(f".cache/runs/{b_name}.{split}.jsonl")}
        same = {i for i, d in a.items()
                if d["trace"]["turns"][0]["action"]["query"] == compose_query(Triple(**d["triple"]), "s,p,o")}
        differ = [i for i in a if a[i]["verdict"] != b[i]["verdict"]]
        print(split, len(same), "first queries = template;", len(differ), "verdicts differ,",
              sum(i in same for i in differ), "of them after the same first query")
    # test_long_tail 991 ... 1 verdicts differ, 0 ...; test_unseen 986 ... 0 ...; factbench_docs 400 ... 0 ...


def measurement_8() -> None:
    """rates.py RUN_LOG: prefill and decode rates of the shipped model, fp32, 2 threads"""
    # rates.py RUN_LOG: prefill and decode rates of the shipped model, fp32, 2 threads
    import json, sys, time, torch
    from pathlib import Path
    from agentkgv.llm.transformers_backend import TransformersLLM
    torch.set_num_threads(2)
    states = [t["messages"] for l in open(sys.argv[1]) for t in json.loads(l)["trace"]["turns"] if t["messages"]][:16]
    llm = TransformersLLM.load(adapter=Path("src/agentkgv/llm/adapters/agentkgv-smollm2"), dtype="float32")
    enc = llm.tokenizer([llm.render(m) for m in states], return_tensors="pt", padding=True, add_special_tokens=False)
    flop = 2 * sum(p.numel() for p in llm.model.parameters())
    with torch.no_grad():
        llm.model(**enc)
        start = time.perf_counter(); out = llm.model(**enc, use_cache=True); prefill = time.perf_counter() - start
        cache, mask, nxt = out.past_key_values, enc.attention_mask, out.logits[:, -1:].argmax(-1)
        start = time.perf_counter()
        for _ in range(32):
            mask = torch.cat([mask, torch.ones_like(nxt)], 1)
            out = llm.model(input_ids=nxt, attention_mask=mask, past_key_values=cache, use_cache=True)
            cache, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
        decode = time.perf_counter() - start
    n = enc.input_ids.numel()
    print(f"prefill {n / prefill:.0f} tok/s, {flop * n / prefill / 1e9:.0f} GFLOP/s; "
          f"decode {32 * len(states) / decode:.0f} tok/s, {flop * 32 * len(states) / decode / 1e9:.0f} GFLOP/s")


MEASUREMENTS = [measurement_1, measurement_2, measurement_3, measurement_4, measurement_5, measurement_6, measurement_7, measurement_8]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
