import random

from agentkgv.data.records import Triple
from agentkgv.reader_agent.relation_cues import stems
from agentkgv.train.paragraphs import MOST_FACTS, paragraph_pairs
from agentkgv.train.web_forms import Fact


def fact(subject: str, pid: str, predicate: str, obj: str, text: str) -> Fact:
    return Fact(Triple(subject, predicate, obj, predicate_id=pid), text, subject)


FIRM = [
    fact("Osterlund Holdings", "P740", "location of formation", "Maranello",
         "Osterlund Holdings was founded in Maranello in 1962."),
    fact("Osterlund Holdings", "P159", "headquarters location", "Rotterdam",
         "The company is headquartered in Rotterdam."),
    fact("Osterlund Holdings", "P112", "founded by", "Orla Penhallow", "Its founder was Orla Penhallow."),
]


def asked(pairs, label: float) -> set[tuple[str, str]]:
    return {(p.triple.predicate_id, p.triple.object) for p in pairs if p.label == label}


def test_a_subjects_facts_become_one_paragraph_read_with_each_value_under_each_relation():
    pairs = paragraph_pairs(FIRM, random.Random(0), composed_share=0.0)
    texts = {p.text for p in pairs}
    assert len(texts) == 1
    text = texts.pop()
    assert all(f.text in text for f in FIRM)
    assert asked(pairs, 1.0) == {(f.triple.predicate_id, f.triple.object) for f in FIRM}
    # Every relation asked with each other sentence's value: the headquarters in the town it was founded in.
    negatives = asked(pairs, 0.0)
    assert ("P159", "Maranello") in negatives and ("P159", "Orla Penhallow") in negatives
    assert len(negatives) == 6
    assert {p.kind for p in pairs} == {"paragraph_evidence", "paragraph_other_value"}


def test_no_negative_is_a_known_fact_nor_a_place_that_may_hold_another():
    # The firm moved its head office from Maranello: (P159, Maranello) is a fact, and never a negative, where the
    # paragraph joins the Rotterdam headquarters and the Maranello foundation.
    moved = fact("Osterlund Holdings", "P159", "headquarters location", "Maranello",
                 "Its first offices were in Maranello.")
    country = fact("Osterlund Holdings", "P17", "country", "Elderland", "Osterlund Holdings trades in Elderland.")
    joined = 0
    for seed in range(40):
        pairs = paragraph_pairs([*FIRM, moved, country], random.Random(seed), composed_share=0.0)
        if ("P159", "Rotterdam") in asked(pairs, 1.0) and ("P740", "Maranello") in asked(pairs, 1.0):
            joined += 1
            assert ("P159", "Maranello") not in asked(pairs, 0.0)
        # A country holds the town of any other relation: no negative is asked with it.
        assert not {obj for _, obj in asked(pairs, 0.0)} & {"Elderland"}
    assert joined
    assert paragraph_pairs([FIRM[0], fact("Lembrook", "P17", "country", "Elderland", "Lembrook is in Elderland.")],
                           random.Random(0), composed_share=0.0) == []


def test_sentences_that_name_anothers_value_or_share_a_relation_are_not_joined():
    town = "Ada Quill was born in Lembrook and died in Varnholm."
    born = fact("Ada Quill", "P19", "place of birth", "Lembrook", town)
    assert paragraph_pairs([born, fact("Ada Quill", "P20", "place of death", "Varnholm", town)], random.Random(0),
                           composed_share=0.0) == []
    assert paragraph_pairs([born, fact("Ada Quill", "P19", "place of birth", "Dunholt", "Ada Quill, born in Dunholt.")],
                           random.Random(0), composed_share=0.0) == []
    many = [fact("Ada Quill", f"P{n}", f"relation {n}", f"Value{n}", f"Ada Quill had Value{n}.") for n in range(9)]
    assert max(len(asked(paragraph_pairs(many, random.Random(seed), composed_share=0.0), 1.0))
               for seed in range(5)) == MOST_FACTS


BORN = fact("Ada Quill", "P19", "place of birth", "Lembrook", "Ada Quill was born in Lembrook.")
CUES = {"P19": stems(["born", "birthplace"]), "P20": stems(["died", "death"])}


def composed_for_ada(other: Fact, seeds: int = 20) -> list:
    return [p for seed in range(seeds) for p in paragraph_pairs([BORN, other], random.Random(seed), 1.0, CUES)
            if p.triple.subject == "Ada Quill"]


def test_a_composed_paragraph_writes_anothers_sentence_of_its_subject_and_asks_only_the_facts_relation():
    pairs = composed_for_ada(fact("Edwin Marsh", "P20", "place of death", "Varnholm",
                                  "In 1990 Edwin Marsh died in Varnholm."))
    assert pairs, "a composed paragraph for Ada's fact"
    for pair in pairs:
        assert "Ada Quill was born in Lembrook." in pair.text and "In 1990 Ada Quill died in Varnholm." in pair.text
        assert pair.triple.predicate_id == "P19" and pair.kind.startswith("composed_")
    # No claim is made of the composed sentence: Ada's death in Varnholm is no fact.
    assert asked(pairs, 1.0) == {("P19", "Lembrook")} and asked(pairs, 0.0) == {("P19", "Varnholm")}


def test_no_composed_sentence_states_the_facts_relation_or_names_its_subject_twice_or_inside_a_longer_name():
    # "born and died in Varnholm", written of Ada, would state her birth there: it holds the birth's own words.
    assert composed_for_ada(fact("Edwin Marsh", "P20", "place of death", "Varnholm",
                                 "Edwin Marsh was born and died in Varnholm.")) == []
    # The second mention would stay Edwin's; a name inside a longer one names another thing.
    assert composed_for_ada(fact("Edwin Marsh", "P20", "place of death", "Varnholm",
                                 "Edwin Marsh retired, and Edwin Marsh died in Varnholm.")) == []
    assert composed_for_ada(fact("Marsh", "P20", "place of death", "Varnholm",
                                 "The Marsh Gallery director died in Varnholm.")) == []
    # A name inside the subject's own longer name is that one mention.
    edwin = Fact(Triple("Edwin Marsh", "place of death", "Varnholm", predicate_id="P20", subject_aliases=("Marsh",)),
                 "Edwin Marsh died in Varnholm.", "")
    assert {p.text for p in composed_for_ada(edwin)} >= {"Ada Quill was born in Lembrook. Ada Quill died in Varnholm."}
