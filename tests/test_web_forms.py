"""The reader's web-page pairs: each fact rendered as a page, with edits that change one thing each."""

import random
from collections import defaultdict

from agentkgv.agent.reader import passage_text
from agentkgv.data.predicates import PredicateInfo
from agentkgv.data.records import Triple
from agentkgv.data.text import fold
from agentkgv.train.web_forms import Fact, relation_keys, web_form_pairs

PREDICATES = {"P19": PredicateInfo("P19", "place of birth", aliases=("birthplace", "POB", "b")),
              "P20": PredicateInfo("P20", "place of death", aliases=("died in",)),
              "P161": PredicateInfo("P161", "cast member", aliases=("starring",)),
              "P106": PredicateInfo("P106", "occupation")}
FACTS = [Fact(Triple("Mike Stone", "place of death", "Holmby Hills", predicate_id="P20"), "Mike Stone died in Holmby Hills."),
         Fact(Triple("Ann Lee", "place of death", "Paris", predicate_id="P20"), "Ann Lee died in Paris in 1990."),
         Fact(Triple("Bob Ray", "place of birth", "Leeds", predicate_id="P19"), "Bob Ray was born in Leeds."),
         Fact(Triple("Sue Bo", "place of birth", "Paris", predicate_id="P19"), "Sue Bo was born in Paris."),
         Fact(Triple("Tom Fox", "cast member", "Joe Bloggs", predicate_id="P161"), "Tom Fox stars Joe Bloggs."),
         Fact(Triple("Zed", "cast member", "Ann Lee", predicate_id="P161"), "Zed stars Ann Lee."),
         Fact(Triple("Kim Ho", "occupation", "painter", predicate_id="P106"), "Kim Ho is a painter."),
         Fact(Triple("Al Wu", "occupation", "poet", predicate_id="P106"), "Al Wu is a poet."),
         Fact(Triple("Unknown", "knows", "Someone"), "Unknown knows Someone.")]


def test_relation_keys_are_the_label_then_aliases_long_enough_to_head_a_line():
    assert relation_keys(PREDICATES)["P19"] == ("place of birth", "birthplace", "POB")


def test_each_fact_becomes_a_page_stating_it_and_edits_that_each_stop_it_stating_it():
    pairs = web_form_pairs(FACTS * 20, relation_keys(PREDICATES), random.Random(3))
    assert pairs == web_form_pairs(FACTS * 20, relation_keys(PREDICATES), random.Random(3))
    assert {p.source for p in pairs} == {"web"}
    assert all(p.triple.predicate_id for p in pairs)  # a relation no key is known for gets no page
    by_kind = defaultdict(list)
    for pair in pairs:
        by_kind[pair.kind].append(pair)
    assert set(by_kind) == {"web_evidence", "web_value_edit", "web_key_edit", "web_relation_swap",
                            "web_other_subject"}
    assert {p.label for p in by_kind["web_evidence"]} == {1.0}
    assert {p.label for k in ("web_value_edit", "web_key_edit", "web_relation_swap", "web_other_subject") for p in by_kind[k]} == {0.0}
    for pair in by_kind["web_evidence"]:
        page = fold(f"{pair.title} {pair.text}")
        view = passage_text(pair.triple, pair.text, pair.title)
        assert fold(pair.triple.subject) in page and "[O:" in view  # even where a key runs into the value
    for pair in by_kind["web_value_edit"]:
        assert fold(pair.triple.object) not in fold(pair.text)
    for pair in by_kind["web_other_subject"]:
        assert fold(pair.triple.subject) not in fold(f"{pair.title} {pair.text}")
    for pair in by_kind["web_key_edit"]:
        assert "[O:" in passage_text(pair.triple, pair.text, pair.title)
        before = pair.text[:pair.text.index(pair.triple.object)].rstrip(" :-\t|").lower()
        assert not any(before.endswith(k.lower()) for k in relation_keys(PREDICATES)[pair.triple.predicate_id])
    facts = {(f.triple.subject, f.triple.predicate_id, f.triple.object) for f in FACTS}
    for pair in by_kind["web_relation_swap"]:  # the page of a fact, asked under a relation no fact gives the pair
        assert pair.triple.predicate == PREDICATES[pair.triple.predicate_id].label
        assert (pair.triple.subject, pair.triple.predicate_id, pair.triple.object) not in facts
        assert any((pair.triple.subject, pid, pair.triple.object) in facts for pid in PREDICATES)
    # A list names the object among others of its relation; prose keeps the sentence among boilerplate.
    assert any(", " in p.text and "cast member" in p.text.lower() for p in by_kind["web_evidence"])
    assert any("stars Joe Bloggs" in p.text and p.text != "Tom Fox stars Joe Bloggs." for p in by_kind["web_evidence"])


def test_an_edit_changes_only_the_value_it_edits():
    pairs = web_form_pairs(FACTS[:8] * 5, relation_keys(PREDICATES), random.Random(11))
    edited = [(a, b) for a, b in zip(pairs, pairs[1:]) if (a.kind, b.kind) == ("web_evidence", "web_value_edit") and a.title]
    assert len(edited) >= 5
    for evidence, edit in edited:
        # Spaces aside: a space stands where the new value would run into the next key unreadably.
        before, after = "".join(evidence.text.split()).split("".join(evidence.triple.object.split())), "".join(edit.text.split())
        assert after.startswith(before[0]) and after.endswith(before[-1].split(",")[-1])
