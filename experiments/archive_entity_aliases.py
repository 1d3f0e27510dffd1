"""Archived measurements behind entity aliases (BENCHMARKS.md archive: entity aliases, so "Danish" names
Denmark). Some read run logs of that time.

Run one by its number: `python experiments/archive_entity_aliases.py N`; with no number, list them. Arguments after
the number are the measurement’s own (`sys.argv[1:]` inside it).
"""

from __future__ import annotations


def name_variants(name, mode):
    """Looser forms of a subject's name: no qualifier (mode 0), first + last word (1), the surname (2)."""
    import re
    base = re.sub(r"\s*\([^)]*\)$", "", name).split(",")[0].strip()
    w = base.split()
    out = [base] if base != name else []
    cap = len(w) >= 2 and all(x[:1].isupper() or x in ("de","van","von","der","da","di","le","la","del") for x in w)
    if mode >= 1 and len(w) >= 3 and cap: out.append(f"{w[0]} {w[-1]}")
    if mode >= 2 and cap and len(w[-1]) >= 4: out.append(w[-1])
    return tuple(out)


def measurement_1() -> None:
    """The figures (1,229 and 1,221 of 1,521 positives) come from this snippet (labels only, as before aliases)"""
    import random
    from dataclasses import replace
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import retriever_for, split_examples
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.agent.combinations import compose_query
    from agentkgv.agent.prompts import reader_view
    from agentkgv.data.corpus import load_corpus
    from agentkgv.retrieval.base import Hit
    ws = Workspace(); bm25 = retriever_for(ws, RetrieverConfig())
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    ex = split_examples(ws, "train"); random.Random(0).shuffle(ex)
    pos = [replace(e.triple, subject_aliases=(), object_aliases=()) for e in ex[:3000] if e.label]  # labels only
    gold = [[corpus[p] for p in e.gold_passage_ids if p in corpus] for e in ex[:3000] if e.label]
    both = lambda t, hits: any(v.has_subject and v.has_object for v in (reader_view(t, h, 26) for h in hits))
    found = bm25.search([compose_query(t, "s,p,o") for t in pos], 5)
    print(len(pos), "positives; gold sentence names both:", sum(both(t, [Hit(p, 0.0, 0) for p in g]) for t, g in zip(pos, gold)),
          "; s,p,o top 5 shows one naming both:", sum(both(t, hs) for t, hs in zip(pos, found)))


def measurement_2() -> None:
    """LAMA also repeats evidence: 8,728 of the 34,569 evidence records of the training positives' facts repeat a masked sentence of the same fact, so anything that counts evidence must count facts (below)"""
    import json, glob
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import split_examples
    keys = {(e.triple.subject.lower(), e.triple.predicate_id, e.triple.object.lower())
            for e in split_examples(Workspace(), "train") if e.label}
    items = repeats = 0; seen = set()
    for f in glob.glob("../shared/data/lama_trex/TREx_all/*/test.jsonl"):
        for line in open(f):
            d = json.loads(line); k = (d["sub_label"].lower(), d["predicate_id"], d["obj_label"].lower())
            if k in keys and k not in seen:
                seen.add(k); ms = [e["masked_sentence"] for e in d.get("evidences", [])]
                items += len(ms); repeats += len(ms) - len(set(ms))
    print(items, repeats)


def measurement_3() -> None:
    """For a reader that trusts a passage marking both, that is +94 right against +16 wrong per 4,000 triples."""
    import zlib
    from collections import Counter
    from dataclasses import replace
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import retriever_for, split_examples
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.agent.combinations import compose_query
    from agentkgv.agent.prompts import reader_view
    from agentkgv.data.aliases import surface_aliases, with_aliases
    from agentkgv.data.benchmark import triple_key
    from agentkgv.data.lama import iter_evidence_facts, relations_with_evidence
    ws = Workspace(); bm25 = retriever_for(ws, RetrieverConfig())
    train = split_examples(ws, "train")
    half = lambda e: zlib.crc32(e.triple.subject.encode()) % 2
    learn = {triple_key(e.triple) for e in train if e.label and half(e) == 0}
    facts = [f for pid in relations_with_evidence(ws.data) for f in iter_evidence_facts(ws.data, pid)
             if (f.triple.subject.lower(), pid, f.triple.object.lower()) in learn]
    table = surface_aliases(facts)
    held = [e for e in train if half(e) == 1][:4000]
    hits = bm25.search([compose_query(e.triple, "s,p,o") for e in held], 5)
    both = lambda t, hs: any(v.has_subject and v.has_object for v in (reader_view(t, h, 26) for h in hs))
    count = Counter()
    for e, hs in zip(held, hits):
        bare = replace(e.triple, subject_aliases=(), object_aliases=())
        kind = "positive" if e.label else e.extra.get("negative", "similar-object negative")
        count[kind, "n"] += 1
        count[kind, "labels only"] += both(bare, hs)
        count[kind, "with aliases"] += both(with_aliases(bare, table), hs)
    for kind in sorted({k for k, _ in count}):
        print(kind, {m: count[kind, m] for k, m in count if k == kind})


def measurement_4() -> None:
    """The table comes from `python errs.py s12-alias2/agentkgv`"""
    import sys, glob
    from collections import Counter
    from agentkgv.data.jsonl import read_jsonl
    from agentkgv.data.records import Triple
    from agentkgv.data.corpus import load_corpus
    from agentkgv.agent.prompts import reader_view
    from agentkgv.retrieval.base import Hit
    corpus = {p.id: p for p in load_corpus(".cache/corpus/passages.jsonl")}
    for path in sorted(glob.glob(f".cache/runs/{sys.argv[1]}*.jsonl")):
        c = Counter()
        for _, d in read_jsonl(path):
            t = Triple(**d["triple"])
            last = [x for x in d["trajectory"] if x.get("retrieved")][-1]["retrieved"]
            n = sum(v.has_subject and v.has_object for v in (reader_view(t, Hit(corpus[i], 0.0, 0), 26) for i in last))
            c[("pos" if d["gold"] else "neg"), min(n, 2), "says " + str(d["verdict"])] += 1
        print(path.split("/")[-1], sorted(c.items()))


def measurement_5() -> None:
    """The surname nearly triples the negatives that mark both (another person of that name next to the object), and the other two forms add 1.4 points of positives: too little to change what a reader gets."""
    import zlib
    from collections import Counter
    from dataclasses import replace
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import retriever_for, split_examples
    from agentkgv.retrieval.factory import RetrieverConfig
    from agentkgv.agent.combinations import compose_query
    from agentkgv.agent.prompts import reader_view
    ws = Workspace(); bm25 = retriever_for(ws, RetrieverConfig())
    held = [e for e in split_examples(ws, "train") if zlib.crc32(e.triple.subject.encode()) % 2 == 1][:4000]
    hits = bm25.search([compose_query(e.triple, "s,p,o") for e in held], 5)
    both = lambda t, hs: any(v.has_subject and v.has_object for v in (reader_view(t, h, 26) for h in hs))
    c = Counter()
    for e, hs in zip(held, hits):
        kind = "positive" if e.label else e.extra.get("negative", "sim")
        c[kind, "base"] += both(e.triple, hs)
        for mode in (0, 1, 2):
            c[kind, mode] += both(replace(e.triple, subject_aliases=e.triple.subject_aliases + name_variants(e.triple.subject, mode)), hs)
    print(sorted(c.items(), key=str))


MEASUREMENTS = [measurement_1, measurement_2, measurement_3, measurement_4, measurement_5]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
