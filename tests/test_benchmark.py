"""The benchmark builder: regime invariants, hard-negative rules and the pure helpers behind them."""

from __future__ import annotations

import random

import numpy as np

from agentkgv.data.benchmark import build_benchmark, load_split, triple_key
from agentkgv.data.hard_negatives import (KnownPositives, Pair, choose_threshold, is_surface_variant,
                                          mine_hard_negatives, take_stratified)
from agentkgv.data.lama import iter_known_triples
from agentkgv.data.records import Fact, Triple


def _splits(small_benchmark):
    out, _ = small_benchmark
    return {name: load_split(out, name) for name in ("train", "test_long_tail", "test_unseen")}


def test_unseen_predicates_never_in_train(small_benchmark, small_config):
    train = _splits(small_benchmark)["train"]
    assert train, "train split is empty"
    assert not {e.triple.predicate_id for e in train} & set(small_config.regimes.unseen)


def test_long_tail_capped_in_train(small_benchmark, small_config):
    train = _splits(small_benchmark)["train"]
    for predicate in small_config.regimes.long_tail:
        count = sum(e.triple.predicate_id == predicate for e in train)
        assert 0 < count <= small_config.long_tail_train_cap, (predicate, count)


def test_test_splits_hold_only_their_regime(small_benchmark, small_config):
    splits = _splits(small_benchmark)
    assert {e.triple.predicate_id for e in splits["test_long_tail"]} <= set(small_config.regimes.long_tail)
    assert {e.triple.predicate_id for e in splits["test_unseen"]} <= set(small_config.regimes.unseen)


def test_no_triple_in_two_splits(small_benchmark):
    splits = _splits(small_benchmark)
    keys = {name: {triple_key(e.triple) for e in examples} for name, examples in splits.items()}
    names = list(keys)
    for i, a in enumerate(names):
        assert len(keys[a]) == len(splits[a]), f"duplicate triple inside {a}"
        for b in names[i + 1:]:
            assert not keys[a] & keys[b], (a, b)


def test_test_splits_balanced_with_requested_size(small_benchmark, small_config):
    _, stats = small_benchmark
    for row in stats:
        assert row.positives == row.negatives
        if row.split != "train":
            assert row.positives == small_config.positives_per_test_split
            assert row.mean_similarity >= row.threshold


def test_negatives_keep_predicate_and_are_never_known_positives(small_benchmark, data):
    splits = _splits(small_benchmark)
    known = KnownPositives(iter_known_triples(data))
    for examples in splits.values():
        by_id = {e.id: e for e in examples}
        for negative in (e for e in examples if not e.label):
            positive = by_id[negative.negative_of]
            assert negative.triple.predicate_id == positive.triple.predicate_id
            assert negative.triple.subject == positive.triple.subject
            assert negative.triple.object != positive.triple.object
            objects = known.objects_of(negative.triple.predicate_id, negative.triple)
            assert negative.triple.object_id not in objects
            assert " ".join(negative.triple.object.lower().split()) not in objects


def test_positives_carry_gold_evidence_ids(small_benchmark):
    for example in _splits(small_benchmark)["test_unseen"]:
        assert example.gold_passage_ids and all(i.startswith("lama_trex-") for i in example.gold_passage_ids)


def test_build_is_deterministic(small_benchmark, small_config, data, tmp_path):
    out, _ = small_benchmark
    build_benchmark(data, tmp_path, small_config)
    for name in ("train", "test_long_tail", "test_unseen"):
        assert (out / f"{name}.jsonl").read_text() == (tmp_path / f"{name}.jsonl").read_text()


def _fact(subject: str, obj: str, obj_id: str) -> Fact:
    return Fact(Triple(subject, "religion", obj, "P140", f"Q-{subject}", obj_id), ("s",), "lama_trex:P140")


def test_mine_picks_most_similar_eligible_object():
    pool = [("Q1", "Islam"), ("Q2", "Christianity"), ("Q3", "Judaism"), ("Q4", "Islamic")]
    vectors = np.eye(4, dtype=np.float32)
    vectors[2] = [0.9, 0.1, 0.0, 0.0]  # Judaism closest to Islam after Islam itself
    vectors[3] = [1.0, 0.0, 0.0, 0.0]  # a surface variant, identical vector: must be skipped
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    known = KnownPositives([("P140", "Q-a", "a", "Q1", "Islam"), ("P140", "Q-b", "b", "Q3", "Judaism")])
    pairs = mine_hard_negatives([_fact("a", "Islam", "Q1"), _fact("b", "Islam", "Q1")], pool,
                                vectors, vectors[[0, 0]], known)
    assert pairs[0].negative_object == ("Q3", "Judaism")
    # b is known to be Jewish, so Judaism would be a true triple: the next most similar is taken.
    assert pairs[1].negative_object == ("Q2", "Christianity")


def test_surface_variants():
    assert is_surface_variant("reggae", "reggaeton")
    assert is_surface_variant("astronomy", "astronomer")
    assert not is_surface_variant("Islam", "Judaism")


def _pair(predicate: str, similarity: float) -> Pair:
    return Pair(Fact(Triple("s", "p", "o", predicate)), ("Q", "x"), similarity)


def test_threshold_respects_per_predicate_quota():
    # P1 alone could fill the split at 0.9, but each predicate may supply only half of it.
    pairs = [_pair("P1", 0.9)] * 10 + [_pair("P2", 0.55)] * 3 + [_pair("P2", 0.45)] * 5
    assert choose_threshold(pairs, [0.9, 0.7, 0.5, 0.4], needed=6) == 0.5
    assert choose_threshold(pairs, [0.9, 0.7, 0.5, 0.4], needed=8) == 0.4


def test_take_stratified_round_robin():
    pairs = [_pair("P1", 0.9)] * 10 + [_pair("P2", 0.9)] * 2
    taken = take_stratified(pairs, 6, random.Random(0))
    assert sum(p.positive.triple.predicate_id == "P2" for p in taken) == 2
    assert len(taken) == 6


def test_aliases_are_learned_from_training_facts_only(small_benchmark, data, small_config):
    """Every alias a triple carries is a surface form that the evidence of at least MIN_COUNT distinct
    training facts used for that entity; a form only test facts use teaches nothing."""
    from collections import Counter
    from agentkgv.data.aliases import ALIAS_FILE, MIN_COUNT, name_key, read_alias_table
    from agentkgv.data.lama import iter_evidence_facts
    splits = _splits(small_benchmark)
    train_keys = {triple_key(e.triple) for e in splits["train"] if e.label}
    facts = {triple_key(f.triple): f for pid in {*small_config.regimes.head, *small_config.regimes.long_tail,
                                                 *small_config.regimes.unseen}
             for f in iter_evidence_facts(data, pid)}
    seen = Counter((name_key(name), form) for key, f in facts.items() if key in train_keys
                   for name, forms in ((f.triple.subject, f.subject_surfaces), (f.triple.object, f.object_surfaces))
                   for form in set(forms))
    carried = {(name_key(name), alias) for split in splits.values() for e in split
               for name, aliases in ((e.triple.subject, e.triple.subject_aliases),
                                     (e.triple.object, e.triple.object_aliases)) for alias in aliases}
    assert carried, "the small benchmark should teach some aliases"
    assert all(seen[pair] >= MIN_COUNT for pair in carried)
    # the table it learned is written for `verify --aliases`
    written = read_alias_table(small_benchmark[0] / ALIAS_FILE)
    assert all(alias in written[key] for key, alias in carried)


def test_surface_aliases_need_distinct_facts_and_a_new_name():
    from agentkgv.data.aliases import surface_aliases, with_aliases

    def fact(subject, obj, subject_forms, object_forms):
        return Fact(Triple(subject, "p", obj), (), "x", subject_forms, object_forms)

    facts = [fact(f"Painter {i}", "Denmark", (f"Painter {i}",), ("Danish", "Danish", "Denmark, Europe"))
             for i in range(3)]
    facts += [fact("Paul Fischer", "Denmark", ("Fischer", "Fischer", "Fischer"), ("DK", "DK", "DK")),
              *(fact("Paul Fischer", f"x{i}", ("Fischer",), ()) for i in range(3)),
              *(fact(f"P{i}", "United States of America", (), ("United States",)) for i in range(3))]
    table = surface_aliases(facts)
    # "Denmark, Europe" matches through the label; "DK" repeats within one fact only; "Fischer" is one word
    # of the longer name; "United States" is two words of it, a name of its own.
    assert table == {"denmark": ("Danish",), "united states of america": ("United States",)}
    triple = with_aliases(Triple("Karen Blixen", "citizenship", "DENMARK", object_aliases=("Dansk",)), table)
    assert triple.object_aliases == ("Dansk", "Danish") and triple.subject_aliases == ()
