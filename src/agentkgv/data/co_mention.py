"""Co-mention negatives: false triples whose object does appear next to the subject in the corpus.

Embedding-mined hard negatives (s, p, o') seldom have o' anywhere near s, so a verifier trained only on
them learns "object present -> true", which is string matching. Real extraction errors are the opposite:
(Ray Charles, spouse, Beverly Hills) comes from a sentence where both names stand, under another relation.
A co-mention negative is made the same way: o2 is a value of the predicate p (it is in p's object pool, so
it is type-plausible) that an evidence sentence of s mentions, and (s, p, o2) is not a known fact.

Only single-valued predicates (X-FACTR's N-1 and 1-1: place of birth, headquarters) get them: for a
many-valued one (occupation, languages spoken) another value named next to s is often simply another
true fact that the facts files do not list. Two filters keep the labels right for the single-valued ones:
- never a known object of (s, p) in any facts file, nor a surface variant of the true object;
- never a name standing right after the true object in its own evidence (`born in Alexandra, Australia`):
  that is the place that contains it, and "born in Australia" is true.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass

from agentkgv.data.records import Fact, Passage
from agentkgv.data.text import fold, folded_words, label_key

MAX_NAME_WORDS = 4
# How far after the true object a name counts as its container (`Alexandra, Victoria, Australia`).
CONTAINER_WINDOW = 3


@dataclass(frozen=True, slots=True)
class CoMention:
    object_id: str
    object_label: str
    passage_ids: tuple[str, ...]
    # The label of a relation the facts files do state between s and o2 (`place of death`), else "".
    stated_relation: str


class ObjectNames:
    """A predicate's object pool looked up by folded word n-grams, so a sentence is scanned in one pass."""

    def __init__(self, pool: list[tuple[str, str]]):
        self.by_words: dict[tuple[str, ...], tuple[str, str]] = {}
        for obj_id, label in pool:
            words = tuple(folded_words(label))
            if 0 < len(words) <= MAX_NAME_WORDS:
                self.by_words.setdefault(words, (obj_id, label))

    def found_in(self, sentence: str) -> list[tuple[str, str]]:
        words = folded_words(sentence)
        found = {}
        for size in range(1, MAX_NAME_WORDS + 1):
            for start in range(len(words) - size + 1):
                hit = self.by_words.get(tuple(words[start:start + size]))
                if hit:
                    found[hit[1]] = hit
        return list(found.values())


def _positions(words: list[str], name: list[str]) -> list[int]:
    return [i for i in range(len(words) - len(name) + 1) if name and words[i:i + len(name)] == name]


def containers(fact: Fact) -> set[str]:
    """Folded names that start within a few words after the true object in its own evidence."""
    object_words = folded_words(fact.triple.object)
    near: set[str] = set()
    for sentence in fact.evidences:
        words = folded_words(sentence)
        for start in _positions(words, object_words):
            end = start + len(object_words)
            for first in range(end, min(end + CONTAINER_WINDOW, len(words))):
                for size in range(1, MAX_NAME_WORDS + 1):
                    near.add(" ".join(words[first:first + size]))
    return near


def find_co_mentions(fact: Fact, sentences: list[tuple[str, str]], names: ObjectNames, excluded: set[str],
                     stated: dict[str, str], is_variant) -> list[CoMention]:
    """Every eligible o2 for the positive `fact`, given the (passage id, sentence) pairs about its subject.

    `excluded` holds the label keys and ids of objects known for (s, p); `stated` maps an o2 label key to a
    relation the facts files state between s and it; `is_variant(a, b)` tells surface variants apart.
    """
    triple = fact.triple
    subject = fold(triple.subject)
    blocked = containers(fact)
    found: dict[str, tuple[str, str, list[str]]] = {}
    for passage_id, sentence in sentences:
        if subject not in fold(sentence):
            continue
        for obj_id, label in names.found_in(sentence):
            if not _cased_mention(label, sentence):
                continue
            key = label_key(label)
            folded = " ".join(folded_words(label))
            if (key in excluded or (obj_id and obj_id in excluded) or folded in blocked
                    or f" {folded} " in subject or is_variant(label, triple.object)):
                continue
            found.setdefault(key, (obj_id, label, []))[2].append(passage_id)
    return [CoMention(obj_id, label, tuple(dict.fromkeys(ids)), stated.get(key, ""))
            for key, (obj_id, label, ids) in sorted(found.items())]


def _cased_mention(label: str, sentence: str) -> bool:
    """The label as written, case included: folded matching alone takes the common words `most` and `media`
    for the towns Most and Media."""
    return re.search(rf"(?<!\w){re.escape(label)}(?!\w)", sentence) is not None


def sentences_by_subject(facts: list[Fact]) -> dict[str, list[tuple[str, str]]]:
    """Every evidence sentence, with its corpus passage id, under its fact's subject (label key)."""
    table: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for fact in facts:
        for sentence in fact.evidences:
            table[label_key(fact.triple.subject)].append(
                (Passage.make_id(fact.source, sentence), sentence))
    return table


def choose(candidates: list[CoMention], rng: random.Random) -> CoMention:
    """One candidate, preferring those under a relation the facts files state: they are the most like a
    real extraction error (the value of another relation of the same subject)."""
    stated = [c for c in candidates if c.stated_relation]
    return rng.choice(stated or candidates)
