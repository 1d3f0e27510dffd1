"""Training the value-kind model (reader_agent/value_kinds.py): which relations take a value of this kind.

One softmax classifier over the relations learned (scikit-learn's multinomial logistic regression on the values'
MiniLM embeddings): given a value, which relation's training facts it is an object of, each relation's objects
weighted alike. Relations of one kind share its probability: two relations that have a few objects in common, or
whose objects lie near each other's on average, take the same kind (a place of birth and a place of death both
take cities; a spouse and an author both take people). A value fits a relation by the probability of that
relation's kind: an award given as a notable work, a town as an award or a year as a spouse falls to another.

Graphs name a relation from either end (FactBench's `author` goes from the writer to the book), so each relation
also has the kind of its subjects, read by the same classifier: the relations whose objects are of the kind its
subjects are (an author's books are the objects of `notable work`). Names alone do not tell subjects' kinds
apart well enough for a classifier of their own: the mean embeddings of the subjects of most relations are
alike, people and works and places.

The classifier learns from the facts of four of five subjects. Each relation's threshold is the P(fits) under
which at most `flag_true_share` of the fifth's true objects of it fall; where it has few, of the fifth's true
objects of the relations of its kind, read as its own (and never above the whole set's). So it is fitted on
training facts only.

Beside it the model keeps what the facts know: every value of theirs with the relations it is a value of
(`known_values`), and for each relation the relations whose values it takes (`compatible_relations`), so that a
known value is judged by the relations it is known by rather than by its name.
"""

from __future__ import annotations

import random
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from agentkgv.data.records import Triple
from agentkgv.data.text import label_key
from agentkgv.reader_agent.value_kinds import KindModel, kind_fit, kind_overlap, relation_softmax


@dataclass(frozen=True)
class ValueKindSettings:
    min_facts: int = 40  # a relation with fewer training facts is not judged
    max_values: int = 400  # per relation and end, the distinct values learned from
    # Jaccard overlap of two relations' values, or cosine of their mean value embeddings, above which they take
    # one kind (authors' and spouses' people share no name: 0.92; authors and awards 0.59, places and years 0.4).
    max_shared: float = 0.03
    max_kind_similarity: float = 0.75
    # The same for a relation's subjects against another's objects: subjects' mean embeddings are nearer every
    # kind's (names of people, works and places alike), so only a closer one is the same kind.
    max_subject_kind_similarity: float = 0.85
    flag_true_share: float = 0.005  # held-out true objects under the threshold, at most
    # Two held-out objects of one relation whose kinds (the classifier's distributions) are told apart, at most:
    # a fifth, the price of never taking a place a passage names for a religion (a religion, like any relation the
    # benchmark holds out, is no class of the classifier, so only the overlap of kinds tells them apart).
    split_same_kind_share: float = 0.2
    min_held_out: int = 20  # held-out objects a relation needs for a threshold of its own
    # Two relations take each other's values where this share of either's values (its subjects', read backwards)
    # are also the other's, or where the classifier gives the other's class this share of their probability on
    # average: spouses and actors are both people, though few actors are spouses in the facts.
    compatible_overlap: float = 0.05
    compatible_confusion: float = 0.01
    held_out_share: float = 0.2
    regularization: float = 10.0  # scikit-learn's C
    seed: int = 13


def held_out(name: str, share: float) -> bool:
    return zlib.crc32(label_key(name).encode()) % 1000 < share * 1000


def _pools(facts: list[Triple], judged: set[str], end: str, settings: ValueKindSettings,
           rng: random.Random) -> dict[str, list[str]]:
    pools: dict[str, set[str]] = defaultdict(set)
    for t in facts:
        if t.predicate_id in judged:
            pools[t.predicate_id].add(t.object if end == "object" else t.subject)
    return {p: sorted(rng.sample(sorted(v), settings.max_values)) if len(v) > settings.max_values else sorted(v)
            for p, v in sorted(pools.items())}


def _same_kind(a: list[str], b: list[str], centroid_a: np.ndarray, centroid_b: np.ndarray, max_shared: float,
               max_similarity: float) -> bool:
    shared = len(set(a) & set(b)) / max(1, len(set(a) | set(b)))
    return shared > max_shared or float(centroid_a @ centroid_b) > max_similarity


def fit_value_kinds(facts: list[Triple], embed: Callable[[list[str]], np.ndarray],
                    settings: ValueKindSettings = ValueKindSettings(),
                    progress: Callable[[str], None] = lambda note: None) -> tuple[KindModel, dict]:
    """The classifier over the relations with at least `min_facts` facts, each relation's kind of objects and of
    subjects, and its threshold; with what it measured on held-out subjects."""
    from sklearn.linear_model import LogisticRegression

    rng = random.Random(settings.seed)
    counts: dict[str, int] = defaultdict(int)
    for t in facts:
        counts[t.predicate_id or ""] += 1
    judged = {p for p, n in counts.items() if p and n >= settings.min_facts}
    train = [t for t in facts if not held_out(t.subject, settings.held_out_share)]
    held = [t for t in facts if held_out(t.subject, settings.held_out_share) and t.predicate_id in judged]
    objects, subjects = _pools(train, judged, "object", settings, rng), _pools(train, judged, "subject", settings, rng)
    relations = sorted(objects)
    every = sorted({v for pool in (objects, subjects) for values in pool.values() for v in values}
                   | {t.object for t in held})
    progress(f"embedding {len(every)} values")
    vectors = dict(zip(every, embed(every)))

    def centroid(values: list[str]) -> np.ndarray:
        c = np.mean([vectors[v] for v in values], axis=0)
        return c / max(float(np.linalg.norm(c)), 1e-9)

    x = np.stack([vectors[v] for p in relations for v in objects[p]])
    y = np.array([i for i, p in enumerate(relations) for _ in objects[p]])
    weights = np.array([1.0 / len(objects[p]) for p in relations for _ in objects[p]]) * len(y) / len(relations)
    progress(f"fitting the classifier over {len(relations)} relations")
    model = LogisticRegression(C=settings.regularization, max_iter=300).fit(x, y, sample_weight=weights)
    coef, intercept = model.coef_.astype(np.float32), model.intercept_.astype(np.float32)
    object_centroids = {p: centroid(objects[p]) for p in relations}
    kinds = {p: [j for j, q in enumerate(relations) if q == p or _same_kind(
        objects[p], objects[q], object_centroids[p], object_centroids[q], settings.max_shared,
        settings.max_kind_similarity)] for p in relations}
    subject_kinds = {p: [j for j, q in enumerate(relations) if _same_kind(
        subjects[p], objects[q], centroid(subjects[p]), object_centroids[q], settings.max_shared,
        settings.max_subject_kind_similarity)] for p in relations}
    held_objects: dict[str, list[str]] = defaultdict(list)
    for t in held:
        if t.predicate_id in kinds:
            held_objects[t.predicate_id].append(t.object)
    scores = {p: kind_fit(coef, intercept, np.stack([vectors[v] for v in vs]), [kinds[p]] * len(vs))
              for p, vs in held_objects.items()}
    pooled = np.sort(np.concatenate(list(scores.values())))
    overall = float(pooled[int(settings.flag_true_share * len(pooled))])

    def share_under(fits: np.ndarray) -> float:
        return float(np.sort(fits)[int(settings.flag_true_share * len(fits))])

    def threshold(p: str) -> float:
        """Set on the relation's own held-out values where it has enough; else on those of the relations of its
        kind, read as its values: a relation known from a few facts (`location of formation`: bands' home towns)
        has a kind too narrow for the whole set's threshold, which took one in six of its kind's places for no
        place it takes."""
        if len(scores.get(p, ())) >= settings.min_held_out:
            return min(overall, share_under(scores[p]))
        alike = [v for j in kinds[p] for v in held_objects.get(relations[j], [])]
        if len(alike) < settings.min_held_out:
            return overall
        return min(overall, share_under(kind_fit(coef, intercept, np.stack([vectors[v] for v in alike]),
                                                 [kinds[p]] * len(alike))))

    thresholds = {p: threshold(p) for p in relations}
    # As a measure only: other relations' held-out objects of another kind, read as this relation's.
    foreign = []
    for p, vs in held_objects.items():
        others = [v for q, ws in held_objects.items() if relations.index(q) not in kinds[p] for v in ws]
        if others:
            drawn = rng.sample(others, min(len(others), len(vs)))
            foreign += list(kind_fit(coef, intercept, np.stack([vectors[v] for v in drawn]), [kinds[p]] * len(drawn))
                            < thresholds[p])
    # Two values of one kind: the overlap of the classifier's distributions (Bhattacharyya) of two held-out
    # objects of one relation, under which at most `split_same_kind_share` of such pairs fall.
    pairs = [tuple(rng.sample(sorted(set(vs)), 2)) for vs in held_objects.values() if len(set(vs)) > 1
             for _ in range(min(20, len(set(vs))))]
    overlaps = np.sort(kind_overlap(coef, intercept, np.stack([vectors[a] for a, _ in pairs]),
                                    np.stack([vectors[b] for _, b in pairs])))
    same_kind_at = float(overlaps[int(settings.split_same_kind_share * len(overlaps))])
    flagged = [float(np.mean(s < thresholds[p])) for p, s in scores.items()]

    def mean_probability(values: list[str]) -> np.ndarray:
        return relation_softmax(coef, intercept, np.stack([vectors[v] for v in values])).mean(axis=0)

    # Read on held-out values where a relation has enough, so the confusions are those the classifier makes on
    # values it never saw (which makes the held-out measure below a little optimistic).
    confusion = {p: mean_probability(vs if len(vs := held_objects.get(p, [])) >= settings.min_held_out else objects[p])
                 for p in relations}
    compatible = compatible_relations(relations, train, confusion, {p: mean_probability(subjects[p]) for p in relations},
                                      settings)
    # As a measure: the held-out true values that the other subjects' facts know as values of relations only that
    # their own does not take, and whose names do not read as its kind (the rule `ValueKinds.misfits` applies).
    model = KindModel(coef, intercept, kinds, subject_kinds, thresholds, same_kind_at, compatible,
                      known_values(train, relations))
    held_values = [(p, v, score) for p, vs in held_objects.items() for v, score in zip(vs, scores[p])]
    report = {"relations": len(relations), "facts": len(facts), "held_out_true_objects": int(len(pooled)),
              "held_out_true_flagged": round(float(np.mean(np.concatenate([s < thresholds[p] for p, s in scores.items()]))), 5),
              "worst_relation_flagged": round(max(flagged), 4) if flagged else 0.0,
              "held_out_foreign_objects": len(foreign),
              "held_out_foreign_flagged": round(float(np.mean(foreign)), 4) if foreign else 0.0,
              "same_kind_pairs": len(pairs), "same_kind_at": round(same_kind_at, 5),
              "held_out_true_known": sum(model.known_fit(p, v) is not None for p, v, _ in held_values),
              "held_out_true_known_misfits": round(float(np.mean([model.known_misfit(p, v, score)
                                                                  for p, v, score in held_values])), 5)}
    return replace(model, known=known_values(facts, relations)), report


def known_values(facts: list[Triple], relations: list[str]) -> dict[str, dict[int, int]]:
    """Each value (`label_key`) of the facts of `relations` -> the relations' classes it is a value of, and how
    often."""
    index = {p: i for i, p in enumerate(relations)}
    known: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for t in facts:
        if t.predicate_id in index:
            known[label_key(t.object)][index[t.predicate_id]] += 1
    return {name: dict(seen) for name, seen in known.items()}


def compatible_relations(relations: list[str], facts: list[Triple], confusion: dict[str, np.ndarray],
                         subject_confusion: dict[str, np.ndarray],
                         settings: ValueKindSettings) -> dict[str, list[int]]:
    """For each relation, the classes whose values it takes: its own, those whose values overlap its values or
    (read backwards) its subjects, and those the classifier confuses with it either way (`confusion`: its mean
    distribution over each relation's values, `subject_confusion` over its subjects)."""
    values: dict[str, set[str]] = defaultdict(set)
    subjects: dict[str, set[str]] = defaultdict(set)
    for t in facts:
        values[t.predicate_id or ""].add(label_key(t.object))
        subjects[t.predicate_id or ""].add(label_key(t.subject))
    at, confused = settings.compatible_overlap, settings.compatible_confusion

    def takes(p: str, i: int, q: str, j: int) -> bool:
        shared = len(values[p] & values[q])
        return (i == j or shared >= at * min(len(values[p]), len(values[q])) > 0
                or len(values[q] & subjects[p]) >= at * len(values[q]) > 0
                or max(confusion[p][j], confusion[q][i], subject_confusion[p][j]) >= confused)

    return {p: [j for j, q in enumerate(relations) if takes(p, i, q, j)] for i, p in enumerate(relations)}
