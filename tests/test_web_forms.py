"""The reader's web-page pairs: each fact rendered as a page, with edits that change one thing each."""

import random
from collections import defaultdict

from agentkgv.reader_agent.reader import passage_text
from agentkgv.data.predicates import PredicateInfo
from agentkgv.data.records import Triple
from agentkgv.data.text import fold
from agentkgv.train.web_forms import Fact, relation_keys, web_form_pairs

PREDICATES = {"P19": PredicateInfo("P19", "place of birth", aliases=("birthplace", "POB", "b")),
              "P20": PredicateInfo("P20", "place of death", aliases=("died in",)),
              "P161": PredicateInfo("P161", "cast member", aliases=("starring",)),
              "P106": PredicateInfo("P106", "occupation")}
PLACES = ["Paris", "Leeds", "Holmby Hills", "Oslo", "Lyon", "Cork", "Bath", "Turin", "Graz", "Nice"]
PEOPLE = [f"{first} {last}" for first in ("Ann", "Bob", "Cy", "Di") for last in ("Lee", "Ray", "Fox", "Moss")]


def facts() -> list[Fact]:
    """Sixteen people, each born and dead somewhere, in films, with a job; one object holds regex
    metacharacters, one an alias, and one sentence names its subject only in the passage's title."""
    made = []
    for i, person in enumerate(PEOPLE):
        born, died = PLACES[i % 10], PLACES[(i * 3 + 1) % 10]
        made += [Fact(Triple(person, "place of birth", born, predicate_id="P19"), f"{person} was born in {born}."),
                 Fact(Triple(person, "place of death", died, predicate_id="P20"), f"{person} died in {died} in 1990."),
                 Fact(Triple(f"Film {i}", "cast member", person, predicate_id="P161"), f"Film {i} stars {person}."),
                 Fact(Triple(person, "occupation", "painter" if i % 2 else "poet", predicate_id="P106"),
                      f"{person} was a {'painter' if i % 2 else 'poet'}.")]
    made.append(Fact(Triple("Band X", "occupation", "AC\\DC (tribute)", predicate_id="P106",
                            object_aliases=("ACDC tribute",)), "Band X is an AC\\DC (tribute) act."))
    made.append(Fact(Triple("Tom Hay", "place of birth", "Derby", predicate_id="P19"), "He was born in Derby.",
                     title="Tom Hay"))
    made.append(Fact(Triple("Unknown", "knows", "Someone"), "Unknown knows Someone."))
    return made


def pairs_by_kind(seed: int = 3) -> dict:
    pairs = web_form_pairs(facts(), relation_keys(PREDICATES), random.Random(seed), one_valued=frozenset({"P19", "P20"}),
                           min_rival_facts=5)
    by_kind = defaultdict(list)
    for pair in pairs:
        by_kind[pair.kind].append(pair)
    return by_kind


def test_relation_keys_are_the_label_then_aliases_long_enough_to_head_a_line():
    assert relation_keys(PREDICATES)["P19"] == ("place of birth", "birthplace", "POB")


def test_each_fact_becomes_a_page_stating_it_and_edits_that_each_stop_it_stating_it():
    by_kind = pairs_by_kind()
    assert by_kind == pairs_by_kind()  # the seed decides everything
    pairs = [p for group in by_kind.values() for p in group]
    assert {p.source for p in pairs} == {"web"}
    assert all(p.triple.predicate_id for p in pairs)  # a relation no key is known for gets no page
    assert set(by_kind) == {"web_evidence", "web_value_edit", "web_key_edit", "web_relation_swap", "web_other_subject"}
    assert len(by_kind["web_evidence"]) == len(facts()) - 1  # each fact once
    assert {p.label for p in by_kind["web_evidence"]} == {1.0}
    assert {p.label for k in ("web_value_edit", "web_key_edit", "web_relation_swap", "web_other_subject")
            for p in by_kind[k]} == {0.0}
    for pair in by_kind["web_evidence"]:
        view = passage_text(pair.triple, pair.text, pair.title)
        assert fold(pair.triple.subject) in fold(f"{pair.title} {pair.text}")  # in a heading, a title, a sentence
        assert "[O:" in view  # even where a key runs into the value
    for pair in by_kind["web_value_edit"]:
        assert not any(fold(n) in fold(pair.text) for n in pair.triple.object_names)
    for pair in by_kind["web_other_subject"]:
        assert fold(pair.triple.subject) not in fold(f"{pair.title} {pair.text}")
    for pair in by_kind["web_key_edit"]:
        assert "[O:" in passage_text(pair.triple, pair.text, pair.title)
        object_at = min(pair.text.index(n) for n in pair.triple.object_names if n in pair.text)
        before = pair.text[:object_at].rstrip(" :-\t|").lower()
        assert not any(before.endswith(k.lower()) for k in relation_keys(PREDICATES)[pair.triple.predicate_id])
    given = {(f.triple.subject, f.triple.predicate_id, f.triple.object) for f in facts()}
    for pair in by_kind["web_relation_swap"]:  # the page of a fact, asked under a relation no fact gives the pair
        assert pair.triple.predicate == PREDICATES[pair.triple.predicate_id].label
        assert (pair.triple.subject, pair.triple.predicate_id, pair.triple.object) not in given
    # Lists ("Starring: Ann Lee, Bob Ray") only of relations that take several values.
    assert any(", " in p.text for p in by_kind["web_evidence"] if p.triple.predicate_id == "P161")
    every = web_form_pairs(facts(), relation_keys(PREDICATES), random.Random(3), one_valued=frozenset(PREDICATES))
    assert not any(", " in p.text for p in every if p.kind == "web_evidence")


def test_prose_keeps_its_sentence_and_title_among_boilerplate_and_edits_only_the_sentence():
    derby = [f for f in facts() if f.title] + facts()[:8]
    seen = 0
    for seed in range(40):
        for pair in web_form_pairs(derby, relation_keys(PREDICATES), random.Random(seed), min_rival_facts=1):
            if pair.triple.subject == "Tom Hay" and "He was born in" in pair.text:
                assert pair.title == "Tom Hay" and pair.text != "He was born in Derby."
                if pair.kind == "web_value_edit":
                    assert "Derby" not in pair.text and "He was born in " in pair.text
                seen += 1
    assert seen >= 3


def test_an_edit_changes_only_the_value_it_edits():
    by_kind = pairs_by_kind(11)
    evidence = {(p.triple, p.title): p for p in by_kind["web_evidence"] if p.title}
    checked = 0
    for edit in by_kind["web_value_edit"]:
        page = evidence.get((edit.triple, edit.title))
        if page is None:
            continue
        # Spaces aside: a space stands where the new value would run into the next key unreadably.
        before, after = "".join(page.text.split()), "".join(edit.text.split())
        head = before.split("".join(edit.triple.object.split()))[0]
        assert after.startswith(head) and before != after
        checked += 1
    assert checked >= 5
