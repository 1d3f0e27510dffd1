"""Training pairs for the evidence reader, from the training split and the corpus only.

Each pair is (triple, passage, label): 1 when the passage states the triple. What the pairs teach:
- `evidence`: a true training triple and a gold evidence sentence of its fact (the sentence names the
  object as written there: `Danish` for Denmark, `Alexandra, Victoria`, a nickname for the subject);
- `retrieved`: a true triple and a passage its own search returned that is not its evidence (0);
- `negative`: a false training triple (another object of the same predicate, or one named beside the
  subject) and the passages its search returned (0);
- `other_object`: the false triple beside its positive's evidence, which states another object of the same
  predicate (0);
- `relation_swap`: the same subject and object under another training relation, beside the sentence that
  states the true one (0), so naming both is never enough. A `compatible_swap_share` of them take a
  relation that takes this very object in another training fact (`born in London` asked as `died in
  London`): such a swap cannot be told by the object's type, only by reading the relation.

The triples are split by subject into the reader's training triples and held-out ones, on which the
verdict's calibration and thresholds are chosen; no test-split triple, FactBench fact or test_unseen
relation enters (`check_reader_pairs`; tests/test_reader.py checks it).
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from agentkgv.core.combinations import compose_query
from agentkgv.data.records import Example, Passage, Triple
from agentkgv.data.text import label_key
from agentkgv.retrieval.base import Retriever

# Wikidata's inverse properties among the relations the benchmark and its sources use: a test_unseen
# relation's inverse is as unseen as the relation.
INVERSES = {"P527": "P361", "P361": "P527", "P127": "P1830", "P1830": "P127", "P131": "P150", "P150": "P131",
            "P355": "P749", "P749": "P355", "P40": "P22", "P22": "P40"}
# Relations so close that a sentence stating one often states the other: never swapped for each other.
NEAR_SYNONYMS = ({"P27", "P495", "P17"}, {"P101", "P106"}, {"P1412", "P364", "P37", "P103"}, {"P31", "P279"})


@dataclass(frozen=True, slots=True)
class ReaderPair:
    triple: Triple
    text: str
    title: str
    label: float
    kind: str
    source: str = "train"  # the training split, or the corpus it came from (agentkgv.train.reader_corpora)

    def to_json(self) -> dict:
        return {"triple": {"subject": self.triple.subject, "predicate": self.triple.predicate,
                           "object": self.triple.object, "predicate_id": self.triple.predicate_id,
                           "subject_aliases": list(self.triple.subject_aliases),
                           "object_aliases": list(self.triple.object_aliases)},
                "text": self.text, "title": self.title, "label": self.label, "kind": self.kind,
                "source": self.source}

    @staticmethod
    def from_json(record: dict) -> ReaderPair:
        return ReaderPair(Triple(**record["triple"]), record["text"], record["title"], float(record["label"]),
                          record["kind"], record["source"])


def held_out(example: Example, share: float) -> bool:
    """Whether the example's subject is held out of the reader's training (for calibration): a hash of the
    subject, so a positive and its negatives fall on the same side."""
    return held_out_name(example.triple.subject, share)


def held_out_name(name: str, share: float) -> bool:
    digest = int(hashlib.sha1(label_key(name).encode()).hexdigest()[:8], 16)
    return digest % 1000 < share * 1000


def synonyms(a: str, b: str) -> bool:
    return any(a in group and b in group for group in NEAR_SYNONYMS)


def build_reader_pairs(train: list[Example], retriever: Retriever, passage: Callable[[str], Passage | None],
                       seed: int = 13, swap_share: float = 0.35, min_swap_facts: int = 100, batch: int = 256,
                       compatible_swap_share: float = 0.0,
                       progress: Callable[[int], None] = lambda done: None) -> list[ReaderPair]:
    """Pairs from the training examples given (the caller leaves out the held-out subjects); `passage` looks a
    corpus passage up by id."""
    rng = random.Random(seed)
    by_id = {e.id: e for e in train}
    # Only relations with many facts stand in for another: a rare (long-tail) relation seen mostly as a swap
    # would be learned as "false" whatever the passage says.
    facts = defaultdict(int)
    for e in train:
        facts[(e.triple.predicate_id, e.triple.predicate)] += e.label and e.triple.predicate_id is not None
    predicates = sorted(p for p, n in facts.items() if n >= min_swap_facts)
    known = {(label_key(e.triple.subject), e.triple.predicate_id, label_key(e.triple.object)) for e in train if e.label}
    taking = relations_by_object(train, set(predicates))
    pairs: list[ReaderPair] = []
    for start in range(0, len(train), batch):
        chunk = train[start:start + batch]
        results = retriever.search([compose_query(e.triple, "s,p,o") for e in chunk], 5)
        for example, hits in zip(chunk, results):
            gold = set(example.gold_passage_ids)
            t = example.triple
            if example.label:
                shown = [h.passage for h in hits if h.passage.id in gold][:2]
                if not shown:
                    first = next((p for p in map(passage, example.gold_passage_ids) if p is not None), None)
                    shown = [first] if first is not None else []
                pairs += [ReaderPair(t, p.text, p.title, 1.0, "evidence") for p in shown]
                other = next((h.passage for h in hits if h.passage.id not in gold), None)
                if other is not None:
                    pairs.append(ReaderPair(t, other.text, other.title, 0.0, "retrieved"))
                if shown and predicates and rng.random() < swap_share:
                    # the draw only when asked for, so a set built without compatible swaps stays as it was
                    compatible = (compatible_relations(t, taking)
                                  if compatible_swap_share and rng.random() < compatible_swap_share else [])
                    swap = _relation_swap(t, compatible or predicates, known, rng)
                    if swap is not None:
                        pairs.append(ReaderPair(swap, shown[0].text, shown[0].title, 0.0, "relation_swap"))
            else:
                pairs += [ReaderPair(t, h.passage.text, h.passage.title, 0.0, "negative") for h in hits[:2]]
                positive = by_id.get(example.negative_of or "")
                stated = next((p for p in map(passage, positive.gold_passage_ids) if p is not None), None) if positive else None
                if stated is not None:
                    pairs.append(ReaderPair(t, stated.text, stated.title, 0.0, "other_object"))
        progress(len(chunk))
    rng.shuffle(pairs)
    return pairs


def relations_by_object(train: Iterable[Example], predicates: set[tuple[str, str]]) -> dict[str, set[tuple[str, str]]]:
    """Each object of a true training fact -> the relations (id, label) among `predicates` that take it."""
    taking: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for e in train:
        if e.label and (e.triple.predicate_id, e.triple.predicate) in predicates:
            taking[label_key(e.triple.object)].add((e.triple.predicate_id, e.triple.predicate))
    return taking


def compatible_relations(triple: Triple, taking: dict[str, set[tuple[str, str]]]) -> list[tuple[str, str]]:
    """The other relations that take this triple's object in some training fact (`relations_by_object`)."""
    return sorted(p for p in taking.get(label_key(triple.object), ()) if p[0] != triple.predicate_id)


def _relation_swap(triple: Triple, predicates: list[tuple[str, str]], known: set[tuple[str, str, str]],
                   rng: random.Random) -> Triple | None:
    """The triple under another training relation that no training fact asserts for this pair."""
    for _ in range(8):
        pid, label = rng.choice(predicates)
        if pid == triple.predicate_id or synonyms(pid, triple.predicate_id or ""):
            continue
        if (label_key(triple.subject), pid, label_key(triple.object)) in known:
            continue
        return replace(triple, predicate=label, predicate_id=pid)
    return None


def kind_counts(pairs: Iterable[ReaderPair]) -> dict[str, dict[str, tuple[int, int]]]:
    """(pairs, positives) per source and kind."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for pair in pairs:
        counts[pair.source][pair.kind][0] += 1
        counts[pair.source][pair.kind][1] += int(pair.label > 0.5)
    return {source: {kind: (n, positives) for kind, (n, positives) in kinds.items()} for source, kinds in counts.items()}


def check_reader_pairs(pairs: Iterable[ReaderPair], forbidden: set[tuple[str, str, str]],
                       forbidden_pairs: set[tuple[str, str]], unseen_predicates: set[str]) -> None:
    """Fail on a pair about a test-split triple, a FactBench fact (its subject and object, under any
    relation) or a test_unseen relation or its inverse: the reader must never train on them."""
    from agentkgv.data.benchmark import triple_key

    unseen = unseen_predicates | {INVERSES[p] for p in unseen_predicates if p in INVERSES}
    for number, pair in enumerate(pairs, start=1):
        t = pair.triple
        if t.predicate_id in unseen:
            raise ValueError(f"reader pair {number} is about unseen relation {t.predicate_id}: {t.verbalize()}")
        if triple_key(t) in forbidden:
            raise ValueError(f"reader pair {number} is about a test triple: {t.verbalize()}")
        if (label_key(t.subject), label_key(t.object)) in forbidden_pairs:
            raise ValueError(f"reader pair {number} is about a FactBench fact: {t.verbalize()}")
