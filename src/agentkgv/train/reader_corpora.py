"""Reader pairs from the relation-extraction corpora: Re-DocRED, FewRel and TekGen.

The training split teaches the benchmark's 30-odd relations; these teach the reader to read the relation
itself over about a hundred more, which is what a relation it never saw needs. What they add:
- `evidence`: a Re-DocRED triple beside its evidence sentences (one or two), its entities named by any of
  their mentions (the subject's aliases are the document's other names for it), or a FewRel sentence (1);
- `relation_swap`: the same pair under another relation that the annotators did not give it (0); a
  `compatible_swap_share` of them take a relation the corpus gives to entities of the same two types
  (a person and a place: born in / died in / lived in), which only reading the relation tells apart;
- `co_mention`: the triple with its object (or subject) replaced by another entity named in the same
  sentences that the annotators left unrelated to the other end (0): both names are shown and the
  relation is the one asked, yet the passage does not state it, which is the string match's blind spot.
TekGen adds relations neither of the others has (a film's tracklist, a peak's mountain range, an
astronaut's mission), with its own `co_mention`: the subject with an object its sentence states under
another relation (`directed by` asked of the film's star), and `other_subject`: the claim made of another
subject of the relation, beside a sentence that states it of this one (0).

Relations the corpora must not teach (test_unseen and their inverses, and the long-tail relations, which
training sees only a capped number of times) are left out by the caller's `excluded`; the caller also drops
pairs about test or FactBench entity pairs and held-out subjects, and `check_reader_pairs` checks every
pair again with the training split's.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from agentkgv.data.fewrel import iter_fewrel
from agentkgv.data.records import Triple
from agentkgv.data.redocred import AnnotatedDocument, Relation, iter_redocred
from agentkgv.data.tekgen import iter_tekgen_facts
from agentkgv.data.text import label_key
from agentkgv.reader_agent.reader import reader_view
from agentkgv.train.reader_data import ReaderPair, held_out_name, synonyms

# A relation stands in for another only if it labels this many Re-DocRED facts (see `min_swap_facts` in
# reader_data: a rare relation mostly seen as a swap would be learned as "false").
MIN_SWAP_FACTS = 50
# A TekGen relation with fewer facts than this (most have 80 to 140) is not a swap's stand-in: see MIN_SWAP_FACTS.
MIN_TEKGEN_SWAP_FACTS = 20


def redocred_pairs(data_dir: Path, labels: dict[str, str], excluded: set[str], rng: random.Random,
                   per_relation: int = 120, swap_share: float = 0.5, co_mention_share: float = 1.0,
                   compatible_swap_share: float = 0.0) -> list[ReaderPair]:
    """At most `per_relation` evidence pairs per relation (P131 alone labels a fifth of the corpus), each
    with a relation swap and a co-mention negative at the given rates."""
    documents = list(iter_redocred(data_dir))
    # A negative that another document states (the same names, the same relation) is no negative.
    stated = {_key(d, r.head, r.predicate_id, r.tail) for d in documents for r in d.relations}
    counts = Counter(r.predicate_id for d in documents for r in d.relations)
    swaps = sorted(p for p, n in counts.items() if n >= MIN_SWAP_FACTS and p not in excluded and p in labels)
    typed: dict[tuple[str, str], set[str]] = defaultdict(set)  # (head type, tail type) -> relations between them
    for d in documents:
        for r in d.relations:
            if r.predicate_id in swaps:
                typed[_types(d, r)].add(r.predicate_id)
    candidates = [(d, r) for d in documents for r in d.relations
                  if r.evidence and len(r.evidence) <= 2 and r.predicate_id in labels and r.predicate_id not in excluded]
    rng.shuffle(candidates)
    taken: Counter[str] = Counter()
    pairs: list[ReaderPair] = []
    for document, relation in candidates:
        if taken[relation.predicate_id] >= per_relation:
            continue
        taken[relation.predicate_id] += 1
        triple, text = _named(document, relation, labels), " ".join(document.sentences[s] for s in sorted(relation.evidence))
        pairs.append(ReaderPair(triple, text, document.title, 1.0, "evidence", "redocred"))
        if rng.random() < swap_share:
            given = {r.predicate_id for r in document.relations if (r.head, r.tail) == (relation.head, relation.tail)}
            compatible = (sorted(typed[_types(document, relation)] - {relation.predicate_id})
                          if compatible_swap_share and rng.random() < compatible_swap_share else [])
            pid = rng.choice(compatible or swaps)
            if (pid not in given and not any(synonyms(pid, p) for p in given)
                    and _key(document, relation.head, pid, relation.tail) not in stated):
                pairs.append(ReaderPair(replace(triple, predicate=labels[pid], predicate_id=pid), text, document.title,
                                        0.0, "relation_swap", "redocred"))
        if rng.random() < co_mention_share:
            other = _co_mention(document, relation, rng)
            if other is not None and _key(document, other.head, other.predicate_id, other.tail) not in stated:
                pairs.append(ReaderPair(_named(document, other, labels), text, document.title, 0.0, "co_mention", "redocred"))
    return pairs


def _key(document: AnnotatedDocument, head: int, predicate_id: str, tail: int) -> tuple[str, str, str]:
    return label_key(document.entities[head].names[0]), predicate_id, label_key(document.entities[tail].names[0])


def _types(document: AnnotatedDocument, relation: Relation) -> tuple[str, str]:
    return document.entities[relation.head].type, document.entities[relation.tail].type


def _named(document: AnnotatedDocument, relation: Relation, labels: dict[str, str]) -> Triple:
    head, tail = document.entities[relation.head], document.entities[relation.tail]
    return replace(document.triple(relation, labels), subject_aliases=head.names[1:], object_aliases=tail.names[1:])


def _co_mention(document: AnnotatedDocument, relation: Relation, rng: random.Random) -> Relation | None:
    """The relation with one end swapped for an entity of the same type named in its evidence sentences
    and related to the other end in neither direction."""
    related = defaultdict(set)
    for r in document.relations:
        related[r.head].add(r.tail)
        related[r.tail].add(r.head)
    shown = set(relation.evidence)
    keep_head = rng.random() < 0.7  # most false triples in a graph have a wrong object, not a wrong subject
    kept, swapped = (relation.head, relation.tail) if keep_head else (relation.tail, relation.head)
    others = [i for i, e in enumerate(document.entities)
              if i not in (relation.head, relation.tail) and e.sentences & shown and i not in related[kept]
              and e.type == document.entities[swapped].type]
    if not others:
        return None
    other = rng.choice(others)
    return replace(relation, tail=other) if keep_head else replace(relation, head=other)


def fewrel_pairs(data_dir: Path, labels: dict[str, str], excluded: set[str], rng: random.Random,
                 per_relation: int = 150, swap_share: float = 0.5) -> list[ReaderPair]:
    """`per_relation` sentences of each FewRel relation (1), and relation swaps among them (0): FewRel gives
    each sentence one relation, so another of its 16 is stated there only by accident."""
    by_relation = defaultdict(list)
    for fact in iter_fewrel(data_dir, labels):
        if fact.triple.predicate_id not in excluded:
            by_relation[fact.triple.predicate_id].append(fact)
    relations = sorted(by_relation)
    pairs: list[ReaderPair] = []
    for pid in relations:
        for fact in rng.sample(by_relation[pid], min(per_relation, len(by_relation[pid]))):
            pairs.append(ReaderPair(fact.triple, fact.evidences[0], "", 1.0, "evidence", "fewrel"))
            swap = rng.choice(relations)
            if rng.random() < swap_share and swap != pid and not synonyms(swap, pid) and swap in labels:
                pairs.append(ReaderPair(replace(fact.triple, predicate=labels[swap], predicate_id=swap),
                                        fact.evidences[0], "", 0.0, "relation_swap", "fewrel"))
    return pairs


def tekgen_pairs(data_dir: Path, labels: dict[str, str], excluded: set[str], rng: random.Random,
                 per_relation: int = 80, swap_share: float = 0.5,
                 held_out_share: float = 0.0) -> tuple[list[ReaderPair], list[ReaderPair]]:
    """At most `per_relation` TekGen triples per relation beside their sentence (1), each with a relation
    swap among TekGen's relations at the given rate, an other-subject and a co-mention negative (0).
    Returned as (pairs to train on, held-out pairs): a `held_out_share` of the relations (by a hash of the
    id) is held out, so a reader's reading of relations it never trained on can be measured on pairs of
    the same kind."""
    pairs = _tekgen_pairs(data_dir, labels, excluded, rng, per_relation, swap_share)
    held = [held_out_name(p.triple.predicate_id, held_out_share) for p in pairs]
    return [p for p, h in zip(pairs, held) if not h], [p for p, h in zip(pairs, held) if h]


def rare_relation_pairs(data_dir: Path, labels: dict[str, str], excluded: set[str], learned: Mapping[str, int],
                        below: int, rng: random.Random, per_relation: int = 30) -> list[ReaderPair]:
    """TekGen's pairs (true, relation swap, co-mention, other subject) of the relations a reader learned fewer
    than `below` facts of (`learned`: its relations.json), each triple once: what the reader of rare relations
    judges, to be read through retrieval rather than beside its sentence (the sentences are in the corpus).
    A relation swap here is a property swap on a relation the reader barely or never learned."""
    seen, pairs = set(), []
    for pair in _tekgen_pairs(data_dir, labels, excluded, rng, per_relation, 0.5):
        t = pair.triple
        key = (label_key(t.subject), t.predicate_id, label_key(t.object))
        if learned.get(t.predicate_id or "", 0) < below and key not in seen:
            seen.add(key)
            pairs.append(pair)
    return pairs


def _tekgen_pairs(data_dir: Path, labels: dict[str, str], excluded: set[str], rng: random.Random,
                  per_relation: int, swap_share: float) -> list[ReaderPair]:
    facts = [f for f in iter_tekgen_facts(data_dir)
             if f.triple.predicate_id in labels and f.triple.predicate_id not in excluded]
    stated = {(label_key(f.triple.subject), f.triple.predicate_id, label_key(f.triple.object)) for f in facts}
    in_sentence = defaultdict(list)  # sentence -> the triples it states
    by_relation = defaultdict(list)
    for fact in facts:
        # A third of TekGen's sentences name their subject only by a pronoun or "the team": as positives they
        # taught a reader that a passage need not name the subject. Those are left out.
        if not reader_view(fact.triple, fact.evidences[0]).has_subject:
            continue
        if fact.triple not in in_sentence[fact.evidences[0]]:
            in_sentence[fact.evidences[0]].append(fact.triple)
            by_relation[fact.triple.predicate_id].append(fact)
    swaps = sorted(p for p, group in by_relation.items() if len(group) >= MIN_TEKGEN_SWAP_FACTS)
    pairs: list[ReaderPair] = []
    for pid in sorted(by_relation):
        for fact in rng.sample(by_relation[pid], min(per_relation, len(by_relation[pid]))):
            triple, text = replace(fact.triple, predicate=labels[pid]), fact.evidences[0]
            pairs.append(ReaderPair(triple, text, "", 1.0, "evidence", "tekgen"))
            subject, obj = label_key(triple.subject), label_key(triple.object)
            if swaps and rng.random() < swap_share:
                swap = rng.choice(swaps)
                if swap != pid and not synonyms(swap, pid) and (subject, swap, obj) not in stated:
                    pairs.append(ReaderPair(replace(triple, predicate=labels[swap], predicate_id=swap), text, "",
                                            0.0, "relation_swap", "tekgen"))
            # The same claim about another subject of the relation: the passage states the relation and the
            # object, but of someone else (`Albania national football team | member of | CONCACAF` beside a
            # sentence about Panama's federation, which a reader of TekGen without these read true).
            stranger = replace(triple, subject=rng.choice(by_relation[pid]).triple.subject, subject_id=None)
            if (label_key(stranger.subject) != subject and (label_key(stranger.subject), pid, obj) not in stated
                    and not reader_view(stranger, text).has_subject):
                pairs.append(ReaderPair(stranger, text, "", 0.0, "other_subject", "tekgen"))
            others = [t.object for t in in_sentence[text] if label_key(t.subject) == subject
                      and label_key(t.object) != obj and (subject, pid, label_key(t.object)) not in stated]
            if others:
                pairs.append(ReaderPair(replace(triple, object=rng.choice(others), object_id=None), text, "",
                                        0.0, "co_mention", "tekgen"))
    return pairs
