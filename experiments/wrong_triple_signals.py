"""Signals that might tell a wrong triple from a true one, measured before building any (BENCHMARKS.md, *Finding
the wrong triples*: "eight more signals measured, none built"). Each counts, on the labelled sets, how many true and how many wrong
triples a candidate rule would flag beyond what the verifier flags already; none was built, since each flags
as many true triples as wrong ones or more.

1. Value kinds from stricter centroid similarity: the value-kind model's kinds rebuilt with another
   `max_kind_similarity` (the shipped classifier, thresholds reset as training sets them), its misfits counted;
   with `centered`, the centroids' cosine taken less the mean embedding, and each threshold also uncapped.
2. A value that reads confidently as another relation's (the classifier's top class, at or above a probability,
   among relations whose values the relation never shares), on top of the shipped misfits.
3. The reader asked every FactBench relation of the best cited passage of each supported triple: how often another
   relation scores higher than the claim's own.
4. Subject and object in one sentence (or a pronoun after a sentence naming the subject, or a page about the
   subject) in the best cited passage of each supported triple.
5. In the DBpedia set as a graph: an object the graph states under other predicates only, whose values this
   predicate never shares (the known-values rule, read off the user's own graph).
6. The value reader asked the claim's relation of each supported triple's best passage: whether one of its five
   best spans names the object, at its shipped margin over "no answer" and at two lower ones.
7. More graph features for the graph's P(true) (how often the object occurs, whether it is a subject too, its
   length, the subject's triples, the words subject and object share, a predicate name of three letters or
   fewer, the predicate's distinct values, DBpedia's raw infobox namespace): cross-validated AUC on DBpedia.
8. FactBench's pages about a claim's subject (title or first line) with a key-value line of the claim's relation,
   and whether the object is among the values listed there: what "a list that leaves the object out" could reach.
9. What open-world evidence could reach at all on FactBench-docs: each wrong triple put in the first class that
   could show it false (an end of a kind its relation never takes, by FactBench's own true facts; another value of a
   one-valued end named on its pages; another value named and the object never; nothing), beside what a run called
   false of each. Not a signal: the ceiling any verifier that calls false only on evidence has on these pages.
10. The graph prior's per-predicate offsets on DBpedia, cross-validated as `bench dbpedia-graph` does: the 400 with
   documents called false below lower thresholds; the offsets' values with the graph knowing only predicates of
   `MIN_SUPPORT` triples (not those it has labels of too); and offsets by namespace first, each predicate's shrunk
   toward its namespace's.
11. Kinds read off the graph itself: each triple's subject and object read by the value-kind classifier (a
   distribution over the relations whose values a name is like) against the mean of its predicate's other triples
   in the same graph (leave one out, overlap as `kind_overlap`), flagged under the overlap that 0.5% of true
   triples fall under in graphs of 40 training facts per relation; and the direction a graph writes each predicate
   in (a triple that fits its relation only read the way under a fifth of the predicate's triples fit). On
   FactBench-docs and on the DBpedia set as graphs.

12. Three readings of support and silence, over each run's verdicts: the best cited passage of a supported triple
   naming the object only inside longer names, none of which the value-kind model would take for it ("Boston
   Celtics" for Boston); support from a passage that does not name both; and, where the documents were silent, their
   best support as a score (AUC) of true against wrong.
13. The graph prior's model on DBpedia, cross-validated as `bench dbpedia-graph` folds it: gradient-boosted trees
   (scikit-learn) beside the shipped logistic model, on the same features and each predicate's share of true
   triples in the other folds; and, for the 400 with documents, how many wrong and true triples each threshold on
   graph + documents P(true) calls false.
14. Two readings of a place, over every labelled set's claims (the DBpedia set's 8,893 among them), by label: the
   shipped misfits that are towns written with their region (built: `ValueKinds.misfits`); and a name that a known
   place heads, the rest capitalised, unknown to the gazetteer as a whole ("Minnesota Timberwolves", "Orenburg
   Governorate"), as a value of a relation that takes places (not built).
15. What the documents could reach on the DBpedia set's 400 with pages: each triple put in a class by what its
   object is (a link, a photo collection or a node made for the subject; the subject's name or a title; a category;
   a literal under a raw infobox key that the predicates table does not name; a number or a date; a name under a
   relation), beside what a run called false of each, by label. Not a signal: what a verifier that reads documents
   only could hope to show false there.
16. How many wrong triples any score of graph and documents could call false within the true triples the DBpedia bar
   allows (3%: the 9th of the 400's 300 true triples, the 228th of all 8,893's 7,612), each score cross-validated
   as `bench dbpedia-graph` folds it: the shipped model's P(true) before it is composed (every threshold tried),
   the composed P(true), and gradient-boosted trees on the same features with the predicate, the family of value,
   the namespace, the object's and the subject's counts in the graph, the object being a subject, its length, and
   the words subject and object share. Not a signal: the ceiling of these features.

python experiments/wrong_triple_signals.py N [ARGS]   (1: [centered] similarities, default 0.75 0.78 0.8 0.85 0.9,
centered 0.3 0.4 0.5 0.6;
2: probabilities, default 0.5 0.6 0.7 0.8; 3: the run, default known67e; 4: run:split pairs, default
known67e:factbench_docs known67e:test_long_tail dbpedia-67e:iri;
5: the fewest values a predicate needs, default 20; 6: run:split pairs, default known67e:factbench_docs
dbpedia-67e:iri known67e:test_long_tail; 7: the documents' run, default dbpedia-67e; 9: the run, default known67e;
10: the documents' run, default dbpedia-75p; 11: the FactBench-docs run, default fb76a; 12: run:split pairs,
default fb114:factbench_docs t114:test_long_tail t114:test_unseen dbpedia-116:iri; 13: the documents' run,
default dbpedia-116; 15 and 16: the documents' run, default dbpedia-131 and dbpedia-160)
Measurements 1 and 2 embed the training facts' values once (about 5 minutes) into the cache's experiments/.
"""

from __future__ import annotations

import json
import pickle
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import replace

import numpy as np


def _sets():
    """The labelled sets' triples the value kinds judge, read as claims: (triple, label)."""
    import agentkgv.registry  # noqa: F401
    from agentkgv.data.benchmark import load_split
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.paths import Workspace
    from agentkgv.reader_agent.claims import Claim, Kind

    ws = Workspace()
    sets = {"dbpedia": [(i.triple, i.label) for i in iter_dbpedia(ws.data)]}
    for split in ("factbench_docs", "test_long_tail", "test_unseen"):
        sets[split] = [(e.triple, e.label) for e in load_split(ws.benchmark, split)]
    return {name: [(Claim.of(t).triple, label) for t, label in items
                   if Claim.of(t).kind in (Kind.ENTITY, Kind.DATE, Kind.NUMBER)] for name, items in sets.items()}


def _pools() -> dict:
    """The value-kind training's pools of values per relation, its held-out facts, and every value's embedding."""
    import agentkgv.registry  # noqa: F401
    from agentkgv.paths import Workspace

    saved = Workspace().cache / "experiments" / "value_kind_pools.pkl"
    if saved.exists():
        return pickle.loads(saved.read_bytes())
    from agentkgv.commands.train_reader import value_kind_facts
    from agentkgv.encoders import embed
    from agentkgv.train.value_kinds import ValueKindSettings, _pools as pools_of, held_out

    settings = ValueKindSettings()
    facts = value_kind_facts(Workspace())
    counts = Counter(t.predicate_id or "" for t in facts)
    judged = {p for p, n in counts.items() if p and n >= settings.min_facts}
    rng = random.Random(settings.seed)
    train = [t for t in facts if not held_out(t.subject, settings.held_out_share)]
    held = [t for t in facts if held_out(t.subject, settings.held_out_share) and t.predicate_id in judged]
    objects, subjects = pools_of(train, judged, "object", settings, rng), pools_of(train, judged, "subject", settings, rng)
    every = sorted({v for pool in (objects, subjects) for values in pool.values() for v in values}
                   | {t.object for t in held})
    print(f"embedding {len(every)} values", flush=True)
    found = {"relations": sorted(objects), "objects": objects, "subjects": subjects,
             "held": [(t.subject, t.predicate_id, t.object) for t in held], "train": [(t.subject, t.predicate_id, t.object) for t in train],
             "vectors": dict(zip(every, embed(every)))}
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_bytes(pickle.dumps(found))
    return found


def _shipped():
    from agentkgv.reader_agent.value_kinds import ValueKinds, shipped_value_kinds

    return ValueKinds.open(shipped_value_kinds())


def kind_similarity() -> None:
    """Value kinds from stricter centroid similarity: misfits on each set, by label"""
    from agentkgv.reader_agent.value_kinds import kind_fit
    from agentkgv.train.value_kinds import ValueKindSettings, _same_kind

    vk, pools, sets = _shipped(), _pools(), _sets()
    m, vectors, relations = vk.model, pools["vectors"], pools["relations"]
    objects, subjects, settings = pools["objects"], pools["subjects"], ValueKindSettings()
    # "centered": the cosine of the centroids less the mean of every value's embedding (MiniLM's names share a
    # large common direction, so raw centroids of people, places and teams lie near one another), each kind's
    # threshold then also taken as the relation's own quantile alone, not capped by the pooled one.
    args = sys.argv[1:]
    centered = bool(args) and args[0] == "centered"
    args = args[1:] if centered else args
    mean = np.mean(np.stack(list(vectors.values())), axis=0) if centered else 0.0

    def centroid(values: list[str]) -> np.ndarray:
        c = np.mean([vectors[v] for v in values], axis=0) - mean
        return c / np.linalg.norm(c)
    oc, sc = {p: centroid(objects[p]) for p in relations}, {p: centroid(subjects[p]) for p in relations}
    held: dict[str, list[str]] = defaultdict(list)
    for _, p, o in pools["held"]:
        held[p].append(o)
    defaults = [0.3, 0.4, 0.5, 0.6] if centered else [0.75, 0.78, 0.8, 0.85, 0.9]
    for similarity in [float(x) for x in args] or defaults:
        kinds = {p: [j for j, q in enumerate(relations) if q == p or _same_kind(
            objects[p], objects[q], oc[p], oc[q], settings.max_shared, similarity)] for p in relations}
        subject_at = similarity if centered else max(similarity, settings.max_subject_kind_similarity)
        subject_kinds = {p: [j for j, q in enumerate(relations) if _same_kind(
            subjects[p], objects[q], sc[p], oc[q], settings.max_shared, subject_at)] for p in relations}
        scores = {p: kind_fit(m.coef, m.intercept, np.stack([vectors[v] for v in vs]), [kinds[p]] * len(vs))
                  for p, vs in held.items()}
        pooled = np.sort(np.concatenate(list(scores.values())))
        overall = float(pooled[int(settings.flag_true_share * len(pooled))])
        own = {p: float(np.sort(scores[p])[int(settings.flag_true_share * len(scores[p]))])
               for p in relations if len(scores.get(p, ())) >= settings.min_held_out}
        for capped in (True, False) if centered else (True,):
            thresholds = {p: (min(overall, own[p]) if capped else own[p]) if p in own else overall for p in relations}
            held_flagged = np.mean(np.concatenate([s < thresholds[p] for p, s in scores.items()]))
            model = replace(vk, model=replace(m, kinds=kinds, subject_kinds=subject_kinds, thresholds=thresholds))
            counts = {name: dict(Counter(label for (_, label), misfit in zip(items, model.misfits([t for t, _ in items]))
                                         if misfit)) for name, items in sets.items()}
            print(f"similarity {similarity}{' centered' if centered else ''}{'' if capped else ', own thresholds'}: "
                  f"pooled threshold {overall:.3f}, classes a kind {np.mean([len(k) for k in kinds.values()]):.1f}, "
                  f"held-out true flagged {held_flagged:.4f}; flagged by label (True = true triples) {counts}", flush=True)


def confident_other() -> None:
    """A value read confidently as another relation's, beyond the shipped misfits: flagged by label"""
    from agentkgv.data.records import Triple
    from agentkgv.encoders import embed
    from agentkgv.reader_agent.value_kinds import relation_softmax
    from agentkgv.train.value_kinds import ValueKindSettings, compatible_relations

    vk, pools, sets = _shipped(), _pools(), _sets()
    m, relations = vk.model, pools["relations"]
    train = [Triple(s, p, o, predicate_id=p) for s, p, o in pools["train"]]
    none = {p: np.zeros(len(relations)) for p in relations}
    # The relations whose values each shares in the facts, with no confusion counted.
    shared = compatible_relations(relations, train, none, none, replace(ValueKindSettings(), compatible_confusion=2.0))
    held = pools["held"]
    p_held = relation_softmax(m.coef, m.intercept, np.stack([pools["vectors"][o] for _, _, o in held]))
    judged = {}
    for name, items in sets.items():
        items = [(t, label, r) for t, label in items if (r := vk.relation(t)) in m.kinds]
        if items:
            judged[name] = (items, vk.misfits([t for t, _, _ in items]),
                            relation_softmax(m.coef, m.intercept, embed([t.object for t, _, _ in items])))
    for at in [float(x) for x in sys.argv[1:]] or [0.5, 0.6, 0.7, 0.8]:
        def other(relation: str, value: str, p: np.ndarray) -> bool:
            j = int(p.argmax())
            return p[j] >= at and j not in shared[relation] and m.known_fit(relation, value) is not True
        flagged_held = np.mean([other(r, o, p) for (_, r, o), p in zip(held, p_held)])
        counts = {name: dict(Counter(label for (t, label, r), misfit, p in zip(*data) if misfit is None
                                     and other(r, t.object, p))) for name, data in judged.items()}
        print(f"at {at}: held-out true values flagged {flagged_held:.4f}; flagged by label {counts}", flush=True)


def _agent():
    import agentkgv.registry  # noqa: F401
    from agentkgv import KGVerifier

    verifier = KGVerifier()
    verifier.check("a", "b", "c")  # loads the default
    agent = verifier._loaded
    while not hasattr(agent, "main"):
        agent = getattr(agent, "agent", None) or getattr(agent, "inner", None) or agent.verifier
    return agent


def _supported(run: str, split: str):
    from agentkgv.paths import Workspace

    for line in (Workspace().runs / run / f"agentkgv.{split}.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["outcome"] == "supported" and record["evidence"]:
            yield record


def rival_relations() -> None:
    """The reader asked every FactBench relation of each supported triple's best passage: another scoring higher"""
    from agentkgv.data.records import Triple
    from agentkgv.reader_agent.claims import Claim

    run = sys.argv[1] if len(sys.argv) > 1 else "known67e"
    agent = _agent()
    records = list(_supported(run, "factbench_docs"))
    relations = sorted({r["triple"]["predicate"] for r in records})
    counts: Counter = Counter()
    for record in records:
        t, passage = record["triple"], record["evidence"][0]
        claim = Claim.of(Triple(t["subject"], t["predicate"], t["object"])).triple
        scores = agent.main.reader.score([(Triple(claim.subject, p, claim.object), passage["text"], passage["title"])
                                          for p in relations])
        own = scores[relations.index(t["predicate"])]
        counts[(record["gold"], bool(max(s for s, p in zip(scores, relations) if p != t["predicate"]) > own))] += 1
    print(f"{run}, FactBench-docs supported: (label, another relation scores higher) {sorted(counts.items())}")


def sentence_locality() -> None:
    """Subject and object in one sentence of each supported triple's best passage, by label"""
    import agentkgv.registry  # noqa: F401
    from agentkgv.data.records import Triple
    from agentkgv.reader_agent.claims import Claim
    from agentkgv.reader_agent.form_lines import first_line
    from agentkgv.reader_agent.reader import reader_view

    pronoun = re.compile(r"\b(he|she|his|her|him|it|its|they|their)\b", re.I)

    def where(t: Triple, text: str, title: str) -> str:
        if any(reader_view(t, x).has_subject for x in (title, first_line(text))):
            return "page about the subject"
        units = [u for u in re.split(r"(?<=[.!?])\s+|\n+", text) if u.strip()]
        for k, unit in enumerate(units):
            view = reader_view(t, unit)
            if view.has_object and view.has_subject:
                return "one sentence"
            if view.has_object and pronoun.search(unit) and k and reader_view(t, units[k - 1]).has_subject:
                return "a pronoun after the subject"
        return "apart"

    runs = sys.argv[1:] or ["known67e:factbench_docs", "known67e:test_long_tail", "dbpedia-67e:iri"]
    for spec in runs:
        run, split = spec.split(":")
        counts: Counter = Counter()
        for record in _supported(run, split):
            t, passage = record["triple"], record["evidence"][0]
            claim = Claim.of(Triple(t["subject"], t["predicate"], t["object"])).triple
            counts[(record["gold"], where(claim, passage["text"], passage["title"]))] += 1
        print(f"{spec}: (label, where) {sorted(counts.items())}")


def graph_elsewhere() -> None:
    """The DBpedia set as a graph: an object stated under other predicates only, whose values this one never shares"""
    from agentkgv.paths import Workspace

    fewest = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rows = [json.loads(line) for line in (Workspace().data / "dbpedia" / "facts.jsonl").read_text(encoding="utf-8").splitlines()]
    values: dict[str, set[str]] = defaultdict(set)
    under: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        values[r["predicate"]].add(r["object"])
        under[r["object"]][r["predicate"]] += 1
    both: Counter = Counter()
    for predicates in under.values():
        ps = sorted(predicates)
        both.update((a, b) for i, a in enumerate(ps) for b in ps[i + 1:])

    def overlap(p: str, q: str) -> float:
        return both[tuple(sorted((p, q)))] / max(1, min(len(values[p]), len(values[q])))
    counts: Counter = Counter()
    for r in rows:
        p, o = r["predicate"], r["object"]
        others = {q for q in under[o] if q != p}
        if (len(values[p]) >= fewest and others and under[o][p] == 1
                and all(len(values[q]) >= fewest and overlap(p, q) < 0.05 for q in others)):
            counts["true" if r["label"] else "wrong"] += 1
    print(f"predicates of {fewest} values or more: flagged {dict(counts)}")


def value_reader_confirms() -> None:
    """The value reader asked the claim's relation of each supported triple's best passage: the object among its spans"""
    from agentkgv.data.records import Triple
    from agentkgv.reader_agent.claims import Claim, same_name
    from agentkgv.reader_agent.reader import reader_view

    agent = _agent()
    values, shipped = agent.values, agent.values.margin
    for spec in sys.argv[1:] or ["known67e:factbench_docs", "dbpedia-67e:iri", "known67e:test_long_tail"]:
        records = list(_supported(*spec.split(":")))
        claims = [Claim.of(Triple(r["triple"]["subject"], r["triple"]["predicate"], r["triple"]["object"],
                                  predicate_id=r["triple"].get("predicate_id"))).triple for r in records]
        asked = [(c.subject, agent.relations.label(c), r["evidence"][0]["text"], r["evidence"][0]["title"])
                 for c, r in zip(claims, records)]
        for margin in (shipped, -2.0, -5.0):
            values.margin = margin
            counts: Counter = Counter()
            for record, claim, spans in zip(records, claims, values.read(asked, count=5)):
                named = any(reader_view(claim, s.text).has_object or any(same_name(s.text, o) for o in claim.object_names)
                            for s in spans)
                counts[(record["gold"], "the object" if named else "another span" if spans else "no span")] += 1
            print(f"{spec}, margin {margin:.2f}: (label, spans) {sorted(counts.items())}", flush=True)
        values.margin = shipped


def graph_features() -> None:
    """More graph features for the graph's P(true): cross-validated AUC on DBpedia, all triples and the 400"""
    import math

    import agentkgv.registry  # noqa: F401
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    from agentkgv.core.runner import load_run
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.eval.graph_bench import LabelledGraph
    from agentkgv.paths import Workspace

    ws = Workspace()
    documents = load_run(ws.runs / (sys.argv[1] if len(sys.argv) > 1 else "dbpedia-67e") / "agentkgv.iri.jsonl")
    items = list(iter_dbpedia(ws.data))
    graph = LabelledGraph.of(items, "dbpedia")
    rows, labels, triples = graph.rows(documents), graph.labels(), graph.triples
    objects = Counter(t.object.value for t in triples)
    subjects = Counter(t.subject.value for t in triples)
    pairs = Counter((t.object.value, t.predicate) for t in triples)
    distinct: dict[str, set[str]] = defaultdict(set)
    for t in triples:
        distinct[t.predicate].add(t.object.value)
    sizes = Counter(t.predicate for t in triples)

    def name(value: str) -> str:
        return (value.rsplit("/", 1)[-1] if value.startswith("http") else value).replace("_", " ")

    def words(text: str) -> set[str]:
        return set(re.findall(r"\w+", text.lower()))
    extra = np.array([[
        math.log1p(objects[t.object.value]) / 5, float(t.object.value in subjects), math.log1p(len(name(t.object.value))) / 5,
        min(len(name(t.object.value).split()), 10) / 10, math.log1p(subjects[t.subject.value]) / 5,
        len(words(name(t.subject.value)) & words(name(t.object.value))) / max(1, len(words(name(t.subject.value)) | words(name(t.object.value)))),
        float(len(t.predicate.rsplit("/", 1)[-1].rsplit("#", 1)[-1]) <= 3), len(distinct[t.predicate]) / sizes[t.predicate],
        math.log1p(pairs[(t.object.value, t.predicate)]) / 5, float("/property/" in t.predicate)] for t in triples])
    names = ["object's triples", "object is a subject", "object's length", "object's words", "subject's triples",
             "words shared", "predicate of <= 3 letters", "predicate's distinct values", "object's triples of the predicate",
             "DBpedia raw infobox key"]
    read = np.array([item.id in documents for item in items])

    def cross_validated(x: np.ndarray) -> str:
        p = np.zeros(len(labels))
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(x, labels):
            p[test] = LogisticRegression(max_iter=3000).fit(x[train], labels[train]).predict_proba(x[test])[:, 1]
        return f"all {roc_auc_score(labels, p):.3f}, the 400 {roc_auc_score(labels[read], p[read]):.3f}"
    print("the shipped features:", cross_validated(rows))
    print("with all of them:", cross_validated(np.hstack([rows, extra])))
    print("with all but DBpedia's namespace:", cross_validated(np.hstack([rows, extra[:, :-1]])))
    for i, feature in enumerate(names):
        print(f"  + {feature}:", cross_validated(np.hstack([rows, extra[:, [i]]])))


def listed_values() -> None:
    """FactBench's pages about each claim's subject with a key-value line of its relation: the object listed or not"""
    import agentkgv.registry  # noqa: F401
    from agentkgv.data.benchmark import load_split
    from agentkgv.data.factbench import iter_factbench_passages
    from agentkgv.paths import Workspace
    from agentkgv.reader_agent.claims import Claim, same_name
    from agentkgv.reader_agent.form_lines import first_line, stated_in_lines
    from agentkgv.reader_agent.reader import reader_view
    from agentkgv.reader_agent.relation_facts import RelationFacts

    ws = Workspace()
    relations = RelationFacts.load(ws.data, cache=ws.cache)
    passages = list(iter_factbench_passages(ws.data))
    counts: Counter = Counter()
    for example in load_split(ws.benchmark, "factbench_docs"):
        claim = Claim.of(example.triple).triple
        listed = [value for p in passages if any(reader_view(claim, x).has_subject for x in (p.title, first_line(p.text)))
                  for value in stated_in_lines(relations.names_of(claim), p.text)]
        items = [x.strip() for value in listed for x in re.split(r",|;| and |/", value) if x.strip()]
        named = any(reader_view(claim, x).has_object or any(same_name(x, o) for o in claim.object_names) for x in items)
        counts[(example.label, "no such line" if not listed else "listed" if named else "not listed")] += 1
    print(f"FactBench-docs claims: (label, the object on its subject's key-value lines) {sorted(counts.items())}")


# FactBench's ten relations, as DBpedia's ontology types their ends (FactBench's `author` goes from the writer to
# the book, `office` from the office holder to the country), and which end holds one value: a person is born in one
# place, a book has one author, a company one parent.
_FACTBENCH_ENDS = {"award": ("person", "award"), "birthPlace": ("person", "place"), "deathPlace": ("person", "place"),
                   "foundationPlace": ("organisation", "place"), "office": ("person", "place"),
                   "team": ("person", "team"), "author": ("person", "book"), "spouse": ("person", "person"),
                   "starring": ("film", "person"), "subsidiary": ("organisation", "organisation")}
_ONE_OBJECT, _ONE_SUBJECT = {"birthPlace", "deathPlace", "foundationPlace"}, {"author", "subsidiary"}


def open_world_reach() -> None:
    """What open-world evidence could reach at all on FactBench-docs' wrong triples, beside what a run called false"""
    import agentkgv.registry  # noqa: F401
    from agentkgv.data.factbench import factbench_kind, iter_factbench, iter_factbench_passages
    from agentkgv.paths import Workspace

    run = sys.argv[1] if len(sys.argv) > 1 else "known67e"
    ws = Workspace()
    facts = list(iter_factbench(ws.data))
    kinds, objects, subjects = defaultdict(set), defaultdict(set), defaultdict(set)
    for fact in facts:
        if fact.label:
            t = fact.triple
            domain, range_ = _FACTBENCH_ENDS[t.predicate_id]
            kinds[t.subject].add(domain)
            kinds[t.object].add(range_)
            objects[(t.subject, t.predicate_id)].add(t.object)
            subjects[(t.object, t.predicate_id)].add(t.subject)
    pages: dict[str, list[str]] = defaultdict(list)
    for passage in iter_factbench_passages(ws.data):
        pages[passage.source.removeprefix("factbench:")].append(" ".join(passage.text.lower().split()))

    def named(value: str, text: str) -> bool:  # generous: the name's head anywhere on the fact's pages
        return value.lower().split(",")[0].split(" (")[0] in text

    called = {}
    for line in (ws.runs / run / "agentkgv.factbench_docs.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        called[record["id"]] = record["outcome"] in ("contradicted", "wrong kind of value")
    counts: Counter = Counter()
    for fact in facts:
        if fact.label or fact.id not in pages:
            continue
        t, text = fact.triple, " ".join(pages[fact.id])
        domain, range_ = _FACTBENCH_ENDS[t.predicate_id]
        if kinds[t.object] and range_ not in kinds[t.object]:
            reach = "1 object of a kind the relation never takes"
        elif kinds[t.subject] and domain not in kinds[t.subject]:
            reach = "2 subject of a kind the relation never takes"
        elif t.predicate_id in _ONE_OBJECT and any(named(v, text) for v in objects[(t.subject, t.predicate_id)] - {t.object}):
            reach = "3 the subject's one value, another, named"
        elif t.predicate_id in _ONE_SUBJECT and any(named(v, text) for v in subjects[(t.object, t.predicate_id)] - {t.subject}):
            reach = "4 the object's one subject, another, named"
        elif (any(named(v, text) for v in objects[(t.subject, t.predicate_id)] - {t.object})
              and not named(t.object, text)):
            reach = "5 another value named, the object never"
        else:
            reach = "6 nothing on the pages"
        counts[(reach, factbench_kind(fact.id), called.get(fact.id))] += 1
    total = sum(counts.values())
    print(f"FactBench-docs' {total} wrong triples: (class, FactBench's kind, called false by {run}) count")
    for key, n in sorted(counts.items(), key=str):
        print(" ", key, n)
    for reach in sorted({k[0] for k in counts}):
        n = sum(v for k, v in counts.items() if k[0] == reach)
        found = sum(v for k, v in counts.items() if k[0] == reach and k[2])
        print(f"{reach}: {n} ({n / total:.1%}), called false {found}")


def prior_offsets() -> None:
    """The graph prior's offsets on DBpedia: lower thresholds, the offsets without the predicates they make known, and
    offsets by namespace first"""
    import math

    import agentkgv.registry  # noqa: F401
    from sklearn.model_selection import StratifiedKFold

    from agentkgv.core.runner import load_run
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.eval.graph_bench import LabelledGraph, _composed
    from agentkgv.eval.real_graph import real_graph_row
    from agentkgv.graph.checker import GraphChecker
    from agentkgv.graph.evidence import MIN_SUPPORT
    from agentkgv.graph.prior import SHRINKAGE, fit_prior
    from agentkgv.paths import Workspace

    ws = Workspace()
    documents = load_run(ws.runs / (sys.argv[1] if len(sys.argv) > 1 else "dbpedia-75p") / "agentkgv.iri.jsonl")
    graph = LabelledGraph.of(list(iter_dbpedia(ws.data)), "dbpedia")
    labels, predicates = graph.labels(), graph.predicates()

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    def namespace(predicate: str) -> str:
        return re.split(r"[/#](?=[^/#]*$)", predicate)[0]

    def by_namespace(rows, train) -> object:
        base = fit_prior(rows[train], labels[train], [predicates[k] for k in train], "fold").model_copy(
            update={"offsets": {}, "families": {}})
        groups: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        for k in train:
            groups[namespace(predicates[k])].append((base.p_true(rows[k], predicates[k]), bool(labels[k])))
        shifts = {}
        for name, pairs in groups.items():
            expected = sum(p for p, _ in pairs) / len(pairs)
            shifts[name] = logit((sum(l for _, l in pairs) + SHRINKAGE * expected) / (len(pairs) + SHRINKAGE)) - logit(expected)
        first = base.model_copy(update={"offsets": {p: shifts.get(namespace(p), 0.0) for p in set(predicates)}})
        return first.refit_offsets([predicates[k] for k in train], [first.p_true(rows[k], predicates[k]) for k in train],
                                   labels[train])

    def composed(fit, read) -> list:
        rows = graph.rows(read)  # as `bench dbpedia-graph` reads them: the graph alone fits on rows without documents
        verdicts = [None] * len(rows)
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(rows, labels):
            checker = graph.checker.with_prior(fit(rows, train))
            for k in test:
                verdicts[k] = _composed(graph, read, int(k), checker, 0.3)
        return verdicts

    def shipped_fit(rows, train):
        return fit_prior(rows[train], labels[train], [predicates[k] for k in train], "fold")

    def report(name: str, fit) -> list:
        together, alone = composed(fit, documents), composed(fit, {})
        for rows_name, verdicts in (("the 400, graph + documents", [v for v in together if v.id in documents]),
                                    ("all, the graph alone", alone)):
            row = real_graph_row(rows_name, verdicts)
            print(f"{name}, {rows_name}: {row.error_recall * row.wrong:.0f} found at {row.false_precision:.2f} of "
                  f"{row.flagged}, AUC {row.auc:.3f}", flush=True)
        return together
    together = report("as shipped", shipped_fit)
    pages = [(v.p_true if v.p_true is not None else 0.5, bool(v.gold)) for v in together if v.id in documents]
    for below in (0.3, 0.35, 0.4, 0.45, 0.5):
        print(f"  P(true) below {below}: {sum(not g for p, g in pages if p < below)} wrong, "
              f"{sum(g for p, g in pages if p < below)} true")
    knows = GraphChecker.knows
    GraphChecker.knows = lambda self, predicate: (self.profile.predicates.get(predicate) is not None and
                                                  self.profile.predicates[predicate].triples >= MIN_SUPPORT)
    try:
        report(f"the graph knowing only predicates of {MIN_SUPPORT} triples", shipped_fit)
    finally:
        GraphChecker.knows = knows
    report("offsets by namespace first", by_namespace)


def graph_kinds() -> None:
    """Kinds read off the graph: each end against its predicate's other triples, and the direction a predicate is written in"""
    import agentkgv.registry  # noqa: F401
    from agentkgv.commands.train_reader import value_kind_facts
    from agentkgv.core.runner import load_run
    from agentkgv.data.benchmark import load_split
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.encoders import embed
    from agentkgv.graph.profile import build_profile, claim_triple
    from agentkgv.graph.values import local_part
    from agentkgv.paths import Workspace
    from agentkgv.train.value_kinds import held_out

    ws = Workspace()
    shipped = _shipped()
    model = shipped.model
    cache: dict[str, np.ndarray] = {}

    def kinds(names: list[str]) -> list[np.ndarray]:
        new = sorted({n for n in names if n not in cache})
        if new:
            cache.update(zip(new, _softmax(model, embed(new))))
        return [cache[n] for n in names]

    def overlaps(groups: dict[str, list[str]]) -> dict[str, list[float]]:
        """Each name's overlap with the mean of the other names of its group (a predicate's subjects, say)."""
        out = {}
        for key, names in groups.items():
            x = np.stack(kinds(names))
            total = x.sum(axis=0)
            out[key] = [float(np.sqrt(x[i] * (total - x[i]) / (len(names) - 1)).sum()) for i in range(len(names))]
        return out

    # The thresholds: graphs of 40 held-out training facts per relation, all true.
    rng = random.Random(0)
    by_relation: dict[str, list] = defaultdict(list)
    for t in value_kind_facts(ws):
        if held_out(t.subject, 0.2):
            by_relation[t.predicate_id].append(t)
    graphs = {p: rng.sample(ts, 40) for p, ts in by_relation.items() if len(ts) >= 40}
    at = {}
    for end in ("subject", "object"):
        seen = overlaps({p: [getattr(t, end) for t in ts] for p, ts in graphs.items()})
        at[end] = float(np.quantile([o for values in seen.values() for o in values], 0.005))
    print(f"{len(graphs)} relations of 40 true training facts: 0.5% of subjects under {at['subject']:.3f}, of objects "
          f"under {at['object']:.3f}")

    def flagged(name: str, triples: list[tuple[str | None, str, str | None]], labels: list[bool], found: list[bool]):
        """`triples`: (subject's name, predicate, object's name), a name None where the end names no entity."""
        counts: Counter = Counter()
        for e, end in enumerate(("subject", "object")):
            groups: dict[str, list[int]] = defaultdict(list)
            for k, t in enumerate(triples):
                if t[2 * e] is not None:
                    groups[t[1]].append(k)
            groups = {p: ks for p, ks in groups.items() if len(ks) >= 20}
            seen = overlaps({p: [triples[k][2 * e] for k in ks] for p, ks in groups.items()})
            for p, ks in groups.items():
                for k, o in zip(ks, seen[p]):
                    if o < at[end]:
                        counts[end, "true" if labels[k] else "wrong, found already" if found[k] else "wrong, new"] += 1
        print(f"{name}: " + "; ".join(f"{end} {kind} {n}" for (end, kind), n in sorted(counts.items())))

    run = load_run(ws.runs / (sys.argv[1] if len(sys.argv) > 1 else "fb76a") / "agentkgv.factbench_docs.jsonl")
    factbench = load_split(ws.benchmark, "factbench_docs")
    flagged("FactBench-docs", [(e.triple.subject, e.triple.predicate, e.triple.object) for e in factbench],
            [bool(e.label) for e in factbench],
            [run[e.id].outcome in ("contradicted", "wrong kind of value") for e in factbench])
    items = list(iter_dbpedia(ws.data))
    graph = [claim_triple(item.triple) for item in items]
    profile = build_profile(lambda: graph, "dbpedia")

    def entity(term) -> str | None:
        kind = profile.value_class(term)
        if term.kind == "iri":
            return (local_part(term.value) or "").replace("_", " ") or None if kind.startswith("an IRI of ") else None
        return term.value if kind == "a name" else None
    flagged("DBpedia, all 8,893", [(entity(t.subject), t.predicate, entity(t.object)) for t in graph],
            [bool(item.label) for item in items], [False] * len(items))

    # The direction: which way each FactBench-docs triple fits its relation, against its predicate's majority.
    ways = []
    claims = [e.triple for e in factbench]
    objects, subjects = kinds([t.object for t in claims]), kinds([t.subject for t in claims])
    for t, p, q in zip(claims, objects, subjects):
        r = shipped.relation(t)
        if r is None or r not in model.kinds:
            ways.append(None)
            continue
        limit = model.thresholds[r]
        ways.append((p[model.kinds[r]].sum() >= limit and q[model.subject_kinds[r]].sum() >= limit,
                     p[model.subject_kinds[r]].sum() >= limit and q[model.kinds[r]].sum() >= limit))
    against: Counter = Counter()
    for predicate in sorted({t.predicate for t in claims}):
        ks = [k for k, t in enumerate(claims) if t.predicate == predicate and ways[k]]
        for way in (0, 1):
            only = [k for k in ks if ways[k][way] and not ways[k][1 - way]]
            if len(only) < 0.2 * len(ks):
                for k in only:
                    against["true" if factbench[k].label else "wrong"] += 1
    print(f"FactBench-docs, read the way few of its predicate's triples are: {dict(against)}")


def support_signals() -> None:
    """Support from an object inside a longer name of another kind, from passages not naming both, and the documents'
    best support where they were silent"""
    import agentkgv.registry  # noqa: F401
    from sklearn.metrics import roc_auc_score

    from agentkgv.core.runner import load_run
    from agentkgv.paths import Workspace
    from agentkgv.reader_agent.claims import Claim, Kind
    from agentkgv.reader_agent.contradiction import whole_name

    kinds, ws = _shipped(), Workspace()

    def only_inside(v) -> bool:
        """Whether the best cited passage names the object only inside longer names the kinds would not take for it."""
        text, names = v.evidence[0].text or "", {n.lower() for n in v.triple.object_names}
        wholes = list(dict.fromkeys(whole_name(text, m.start(), m.end()) for n in v.triple.object_names
                                    for m in re.finditer(rf"(?<!\w){re.escape(n)}(?!\w)", text)))
        return bool(wholes) and all(w.lower() not in names for w in wholes) and not any(
            kinds.could_replace([v.triple] * len(wholes), wholes))

    for pair in sys.argv[1:] or ["fb114:factbench_docs", "t114:test_long_tail", "t114:test_unseen", "dbpedia-116:iri"]:
        run, split = pair.split(":")
        verdicts = list(load_run(ws.runs / run / f"agentkgv.{split}.jsonl").values())
        supported = [v for v in verdicts if v.outcome == "supported" and v.evidence and v.trace and v.trace.evidence]
        inside = Counter("true" if v.gold else "wrong" for v in supported
                         if Claim.of(v.triple).kind is Kind.ENTITY and only_inside(v))
        both = Counter(("true" if v.gold else "wrong", "both" if v.trace.evidence.named_both else "not both")
                       for v in supported)
        silent = [v for v in verdicts if v.outcome == "not enough evidence" and v.trace and v.trace.evidence]
        gold = [bool(v.gold) for v in silent]
        auc = roc_auc_score(gold, [v.trace.evidence.support for v in silent]) if 0 < sum(gold) < len(gold) else None
        print(f"{pair}: the object only inside longer names of another kind in the best passage {dict(inside)}; "
              f"supported, by whether a passage names both {dict(both)}; silent {len(silent)} ({sum(gold)} true), "
              f"AUC of their best support {auc if auc is None else round(auc, 3)}")


def prior_model() -> None:
    """The graph prior as gradient-boosted trees beside the logistic model; thresholds on graph + documents"""
    import agentkgv.registry  # noqa: F401
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    from agentkgv.core.runner import load_run
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.eval.graph_bench import LabelledGraph, cross_validated
    from agentkgv.graph.prior import fit_prior
    from agentkgv.paths import Workspace

    ws = Workspace()
    documents = load_run(ws.runs / (sys.argv[1] if len(sys.argv) > 1 else "dbpedia-116") / "agentkgv.iri.jsonl")
    graph = LabelledGraph.of(list(iter_dbpedia(ws.data)), "dbpedia")
    rows, labels, predicates = graph.rows(documents), graph.labels(), graph.predicates()
    read = np.array([item.id in documents for item in graph.items])
    logistic, trees = np.zeros(len(labels)), np.zeros(len(labels))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(rows, labels):
        prior = fit_prior(rows[train], labels[train], [predicates[k] for k in train], "fold")
        logistic[test] = [prior.p_true(rows[k], predicates[k]) for k in test]
        seen, true = Counter(predicates[k] for k in train), Counter(predicates[k] for k in train if labels[k])
        base = labels[train].mean()
        share = np.array([(true[p] + 10 * base) / (seen[p] + 10) for p in predicates])[:, None]
        model = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0)
        trees[test] = model.fit(np.hstack([rows, share])[train], labels[train]).predict_proba(
            np.hstack([rows, share])[test])[:, 1]
    for name, p in (("logistic (shipped)", logistic), ("gradient-boosted trees", trees)):
        print(f"{name}: AUC all {roc_auc_score(labels, p):.3f}, the 400 {roc_auc_score(labels[read], p[read]):.3f}")
    together = [v for v in cross_validated(graph, documents) if v.id in documents]
    for at in (0.3, 0.4, 0.5, 0.55, 0.6, 0.65):
        flagged = [v for v in together if (v.p_true if v.p_true is not None else 0.5) < at]
        wrong = sum(1 for v in flagged if v.gold is False)
        print(f"graph + documents P(true) under {at}: {wrong} wrong of {sum(1 for v in together if v.gold is False)}, "
              f"{len(flagged) - wrong} true of {sum(1 for v in together if v.gold)}")


def place_readings() -> None:
    """Towns written with their region as misfits, and names a known place heads, by label"""
    from agentkgv.data.places import gazetteer

    kinds, places = _shipped(), gazetteer()

    def headed(value: str) -> bool:  # a known place, then capitalised words, the whole no place the gazetteer knows
        words = value.replace(",", " ").split()
        return places.lie_in(value) is None and any(
            places.lie_in(" ".join(words[:k])) is not None and all(w[:1].isupper() for w in words[k:])
            for k in range(1, len(words)))

    for name, items in _sets().items():
        found = kinds.misfits([t for t, _ in items])
        region = Counter(label for (_, label), misfit in zip(items, found) if misfit is not None and misfit.region)
        taking = Counter(label for t, label in items if kinds.place_shares.get(kinds.relation(t) or "", 0.0) >= 0.5
                         and headed(t.object))
        print(f"{name}: towns written with their region flagged {dict(region)}; names a place heads, as a value of a "
              f"relation that takes places {dict(taking)}", flush=True)


def dbpedia_reach() -> None:
    """What the documents could reach on the DBpedia set's 400 with pages: its triples by what their object is, and
    what a run called false of each, by label"""
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.data.predicates import by_name, predicate_key, shipped_predicates
    from agentkgv.paths import Workspace

    run = sys.argv[1] if len(sys.argv) > 1 else "dbpedia-131"
    ws = Workspace()
    predicates = shipped_predicates()
    named = by_name(predicates, {pid: pid for pid in predicates})
    called = {}
    for line in (ws.runs / run / "agentkgv.iri.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        called[record["id"]] = record["outcome"] in ("contradicted", "wrong kind of value")
    number = re.compile(r"-?[\d.,]+|--\d.*|\d{4}-\d\d-\d\d")
    counts: Counter = Counter()
    for item in iter_dbpedia(ws.data, with_docs=True):
        t, iri = item.triple, str(item.triple.rdf and item.triple.rdf.object or "")
        local = (t.predicate_id or "").rsplit("/", 1)[-1]
        if iri.startswith("<http") and ("dbpedia.org/resource/" not in iri or re.search(r"__\d+>$", iri)):
            kind = "1 a link, a photo collection or a node made for the subject"
        elif local in ("name", "label", "title"):
            kind = "2 the subject's name or a title"
        elif local == "subject":
            kind = "3 a category"
        elif number.fullmatch(t.object.strip()):
            kind = "5 a number or a date"
        elif predicate_key(named, t) is None and not iri.startswith("<http"):
            kind = "4 a literal under a raw key no relation names"
        else:
            kind = "6 a name under a relation"
        counts[(kind, bool(item.label), called.get(item.id, False))] += 1
    print(f"The DBpedia set's triples with pages, by what their object is (called false by {run}):")
    for kind in sorted({k[0] for k in counts}):
        row = {label: (sum(v for k, v in counts.items() if k[:2] == (kind, label)),
                       sum(v for k, v in counts.items() if k == (kind, label, True))) for label in (False, True)}
        print(f"  {kind}: wrong {row[False][0]} (called false {row[False][1]}), true {row[True][0]} "
              f"(called false {row[True][1]})")


def within_allowed_true() -> None:
    """The most wrong triples a cross-validated score of graph and documents puts before the true triples the
    DBpedia bar allows (3%), for three scores"""
    import agentkgv.registry  # noqa: F401
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import StratifiedKFold

    from agentkgv.core.runner import load_run
    from agentkgv.data.dbpedia import iter_dbpedia
    from agentkgv.eval.graph_bench import LabelledGraph, cross_validated
    from agentkgv.graph.prior import fit_prior, row_family
    from agentkgv.graph.values import vocabulary
    from agentkgv.paths import Workspace

    ws = Workspace()
    documents = load_run(ws.runs / (sys.argv[1] if len(sys.argv) > 1 else "dbpedia-160") / "agentkgv.iri.jsonl")
    items = list(iter_dbpedia(ws.data))
    graph = LabelledGraph.of(items, "dbpedia")
    rows, labels, predicates = graph.rows(documents), graph.labels(), graph.predicates()
    read = np.array([item.id in documents for item in items])
    subjects = Counter(item.triple.subject_id for item in items)
    objects = Counter(item.triple.object for item in items)
    common = {p: k for k, (p, _) in enumerate(Counter(predicates).most_common(250))}  # trees take 255 categories
    families = {name: k for k, name in enumerate(sorted({row_family(row) for row in rows}))}
    spaces = {name: k for k, name in enumerate(sorted({vocabulary(p) for p in predicates}))}

    def words(text: str) -> set[str]:
        return set(re.findall(r"\w{3,}", text.lower()))

    extra = np.array([[common.get(p, 250), families[row_family(row)], spaces[vocabulary(p)],
                       subjects[item.triple.subject_id], objects[item.triple.object], item.triple.object_id in subjects,
                       len(item.triple.object), len(words(item.triple.subject) & words(item.triple.object))]
                      for item, p, row in zip(items, predicates, rows)], float)
    wide = np.hstack([rows, extra])
    logistic, trees = np.zeros(len(labels)), np.zeros(len(labels))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(rows, labels):
        prior = fit_prior(rows[train], labels[train], [predicates[k] for k in train], "fold")
        logistic[test] = [prior.p_true(rows[k], predicates[k]) for k in test]
        model = HistGradientBoostingClassifier(categorical_features=[rows.shape[1] + k for k in range(3)], max_iter=300,
                                               learning_rate=0.05, min_samples_leaf=10, random_state=0)
        trees[test] = model.fit(wide[train], labels[train]).predict_proba(wide[test])[:, 1]
    verdicts = cross_validated(graph, documents)
    composed = np.array([v.p_true if v.p_true is not None else 0.5 for v in verdicts])

    def before_allowed(p: np.ndarray, gold: np.ndarray) -> int:
        allowed, true, wrong, best = int(0.03 * gold.sum()), 0, 0, 0
        for k in np.argsort(p, kind="stable"):
            true, wrong = true + bool(gold[k]), wrong + (not gold[k])
            if true <= allowed:
                best = wrong
        return best

    # Where the wrong triples the composed verdicts leave lie: the share of wrong triples among all the graph's triples
    # of their predicate and family of value (labels of all 8,893: a description, not a model).
    group = Counter((p, row_family(row)) for p, row in zip(predicates, rows))
    wrong_in = Counter((p, row_family(row)) for p, row, label in zip(predicates, rows, labels) if not label)
    left = [k for k, v in enumerate(verdicts) if read[k] and not labels[k] and v.verdict is not False]

    def where(key: tuple[str, str]) -> str:  # the triple itself left out
        others, wrong = group[key] - 1, wrong_in[key] - 1
        if others < 5:
            return "no other triple" if not others else "under 5 others"
        share = wrong / others
        return ("under a quarter wrong" if share < 0.25 else "a quarter to a half wrong" if share < 0.5
                else "half or more wrong")

    shares = Counter(where((predicates[k], row_family(rows[k]))) for k in left)
    print(f"the 400's wrong triples not called false ({len(left)}), by the graph's other triples of their predicate "
          f"and family of value: {dict(shares)}")
    for name, p in (("the shipped model's P(true), not composed", logistic), ("the composed P(true)", composed),
                    ("gradient-boosted trees, more features", trees)):
        print(f"{name}: the 400 with pages {before_allowed(p[read], labels[read])} of "
              f"{int((~labels[read]).sum())} wrong, "
              f"all 8,893 {before_allowed(p, labels)} of {int((~labels).sum())}")


def _softmax(model, vectors: np.ndarray) -> np.ndarray:
    from agentkgv.reader_agent.value_kinds import relation_softmax

    return relation_softmax(model.coef, model.intercept, vectors)


MEASUREMENTS = [kind_similarity, confident_other, rival_relations, sentence_locality, graph_elsewhere,
                value_reader_confirms, graph_features, listed_values, open_world_reach, prior_offsets, graph_kinds,
                support_signals, prior_model, place_readings, dbpedia_reach, within_allowed_true]


def main() -> None:
    from _menu import run_menu  # experiments/ is on the path when a file here runs as a script

    run_menu(MEASUREMENTS)


if __name__ == "__main__":
    main()
