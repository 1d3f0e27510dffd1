"""Hard negatives for the benchmark (paper section 4.1): another object of the same relation, near the true one in
embedding space, never a known positive or a surface variant of the true object; and the similarity threshold
that leaves enough of them.
"""

from __future__ import annotations

from typing import TypeVar

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from agentkgv.data.records import Fact, Triple
from agentkgv.data.text import label_key

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Pair:
    """A positive fact and its hard negative (None when no eligible object exists)."""

    positive: Fact
    negative_object: tuple[str, str] | None  # (object id, object label)
    similarity: float


class KnownPositives:
    """Every (predicate, subject) -> objects pair asserted by any facts file, by id and by label."""

    def __init__(self, rows: Iterable[tuple[str, str, str, str, str]]):
        self.objects: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.pools: dict[str, dict[str, str]] = defaultdict(dict)  # predicate -> label key -> object id
        self.labels: dict[str, dict[str, str]] = defaultdict(dict)  # predicate -> label key -> label
        for predicate, sub_id, sub_label, obj_id, obj_label in rows:
            for subject in (sub_id, label_key(sub_label)):
                if subject:
                    self.objects[(predicate, subject)].update(k for k in (obj_id, label_key(obj_label)) if k)
            if obj_label.strip():
                self.pools[predicate].setdefault(label_key(obj_label), obj_id)
                self.labels[predicate].setdefault(label_key(obj_label), obj_label)

    def objects_of(self, predicate: str, triple: Triple) -> set[str]:
        """Ids and label keys of every object known for this subject and predicate."""
        return self.objects.get((predicate, triple.subject_id or ""), set()) | self.objects.get(
            (predicate, label_key(triple.subject)), set())

    def pool(self, predicate: str) -> list[tuple[str, str]]:
        """Distinct objects of a predicate as (id, label), sorted so the build is deterministic."""
        return sorted((self.pools[predicate][k], self.labels[predicate][k]) for k in self.pools[predicate])


def mine_hard_negatives(facts: list[Fact], pool: list[tuple[str, str]], pool_vectors: np.ndarray,
                        object_vectors: np.ndarray, known: KnownPositives) -> list[Pair]:
    """For each fact, the pool object most similar to its object that is neither it nor a known positive."""
    similarities = object_vectors @ pool_vectors.T
    columns: dict[str, list[int]] = defaultdict(list)  # object id or label key -> pool columns
    for column, (obj_id, obj_label) in enumerate(pool):
        columns[label_key(obj_label)].append(column)
        if obj_id:
            columns[obj_id].append(column)
    variants: dict[str, list[int]] = {}  # object label -> pool columns that are surface variants of it
    pairs = []
    for row, fact in enumerate(facts):
        predicate = fact.triple.predicate_id or fact.triple.predicate
        excluded = known.objects_of(predicate, fact.triple) | {label_key(fact.triple.object)}
        if fact.triple.object_id:
            excluded.add(fact.triple.object_id)
        scores = similarities[row].copy()
        for key in excluded:
            scores[columns.get(key, [])] = -np.inf
        if fact.triple.object not in variants:  # objects repeat across facts; check the pool once each
            variants[fact.triple.object] = [column for column, (_, label) in enumerate(pool)
                                            if is_surface_variant(label, fact.triple.object)]
        scores[variants[fact.triple.object]] = -np.inf
        best = int(np.argmax(scores)) if len(scores) else -1
        if best < 0 or not np.isfinite(scores[best]):
            pairs.append(Pair(fact, None, float("nan")))
        else:
            pairs.append(Pair(fact, pool[best], float(scores[best])))
    return pairs


def choose_threshold(pairs: list[Pair], grid: list[float], needed: int) -> float:
    """The highest grid value at which a stratified draw can still fill the split.

    Each predicate may supply at most an equal share (`needed / predicates`, rounded up), so a threshold
    only counts as feasible when the relations with many near-duplicate objects cannot fill the split on
    their own; otherwise the hardest split would be mostly one relation.
    """
    by_predicate: dict[str, list[float]] = defaultdict(list)
    for pair in pairs:
        by_predicate[pair.positive.triple.predicate_id or ""].append(pair.similarity)
    quota = -(-needed // max(1, len(by_predicate)))
    for threshold in sorted(grid, reverse=True):
        available = sum(min(quota, sum(s >= threshold for s in sims)) for sims in by_predicate.values())
        if available >= needed:
            return threshold
    return min(grid)


def is_surface_variant(a: str, b: str) -> bool:
    """`reggae`/`reggaeton`, `astronomy`/`astronomer`: one label inside the other or a long shared stem.

    Such objects are usually the same fact written differently, so using one as the negative of the
    other would make a true triple a "false" label.
    """
    a, b = label_key(a), label_key(b)
    if a in b or b in a:
        return True
    stem = 0
    for x, y in zip(a, b):
        if x != y:
            break
        stem += 1
    return stem >= 5 and stem >= 0.8 * min(len(a), len(b))


def take_stratified(pairs: list[Pair], count: int, rng: random.Random) -> list[Pair]:
    """Round-robin over predicates so no single relation dominates a split (the quota of choose_threshold)."""
    by_predicate: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_predicate[pair.positive.triple.predicate_id or ""].append(pair)
    return round_robin([rng.sample(items, len(items)) for _, items in sorted(by_predicate.items())], count)


def round_robin(queues: list[list[T]], count: int) -> list[T]:
    """Up to `count` items, one from the end of each queue in turn, so a long queue cannot crowd out the
    short ones (the rare predicates). The queues are emptied as they are read."""
    taken: list[T] = []
    while len(taken) < count and any(queues):
        for queue in queues:
            if queue and len(taken) < count:
                taken.append(queue.pop())
    return taken
