import random

from agentkgv.data.records import Triple
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


def test_a_subjects_facts_become_one_paragraph_read_with_each_value_under_each_relation():
    pairs = paragraph_pairs(FIRM, random.Random(0), composed_share=0.0)
    texts = {p.text for p in pairs}
    assert len(texts) == 1
    text = texts.pop()
    assert all(f.text in text for f in FIRM)
    positives = {(p.triple.predicate_id, p.triple.object) for p in pairs if p.label == 1.0}
    assert positives == {(f.triple.predicate_id, f.triple.object) for f in FIRM}
    negatives = {(p.triple.predicate_id, p.triple.object) for p in pairs if p.label == 0.0}
    # Every relation asked with each other sentence's value: the headquarters in the town it was founded in.
    assert ("P159", "Maranello") in negatives and ("P159", "Orla Penhallow") in negatives
    assert len(negatives) == 6
    assert {p.kind for p in pairs} == {"paragraph_evidence", "paragraph_other_value"}


def test_no_negative_is_a_known_fact_and_a_lone_fact_makes_no_paragraph():
    # The firm was founded where it is headquartered: that claim is a fact, never a negative.
    both = FIRM + [fact("Osterlund Holdings", "P131", "located in", "Maranello", "Osterlund Holdings is in Maranello.")]
    pairs = paragraph_pairs(both, random.Random(1), composed_share=0.0)
    assert not [p for p in pairs if p.label == 0.0 and (p.triple.predicate_id, p.triple.object) in
                {(f.triple.predicate_id, f.triple.object) for f in both}]
    assert paragraph_pairs([FIRM[0], fact("Lembrook", "P17", "country", "Elderland", "Lembrook is in Elderland.")],
                           random.Random(0), composed_share=0.0) == []


def test_sentences_that_name_anothers_value_or_share_a_relation_are_not_joined():
    town = "Ada Quill was born in Lembrook and died in Varnholm."
    born = fact("Ada Quill", "P19", "place of birth", "Lembrook", town)
    assert paragraph_pairs([born, fact("Ada Quill", "P20", "place of death", "Varnholm", town)], random.Random(0), 0.0) == []
    assert paragraph_pairs([born, fact("Ada Quill", "P19", "place of birth", "Dunholt", "Ada Quill, born in Dunholt.")],
                           random.Random(0), 0.0) == []
    many = [fact("Ada Quill", f"P{n}", f"relation {n}", f"Value{n}", f"Ada Quill had Value{n}.") for n in range(9)]
    assert max(len({p.triple.predicate_id for p in paragraph_pairs(many, random.Random(seed), 0.0)})
               for seed in range(5)) == MOST_FACTS


def test_a_composed_paragraph_writes_anothers_sentence_of_its_subject_and_asks_only_the_facts_relation():
    facts = [fact("Ada Quill", "P19", "place of birth", "Lembrook", "Ada Quill was born in Lembrook."),
             fact("Edwin Marsh", "P20", "place of death", "Varnholm", "In 1990 Edwin Marsh died in Varnholm."),
             fact("Tilda Vance", "P19", "place of birth", "Varnholm", "Tilda Vance was born in Varnholm.")]
    pairs = [p for p in paragraph_pairs(facts, random.Random(3), composed_share=1.0)
             if p.triple.subject == "Ada Quill"]
    assert pairs, "a composed paragraph for Ada's fact"
    for pair in pairs:
        assert "Ada Quill was born in Lembrook." in pair.text and "Ada Quill died in Varnholm." in pair.text
        assert pair.triple.predicate_id == "P19" and pair.kind.startswith("composed_")
    assert {(p.triple.object, p.label) for p in pairs} == {("Lembrook", 1.0), ("Varnholm", 0.0)}
    # No claim is made of the composed sentence: Ada's death in Varnholm is no fact.
    assert not [p for p in paragraph_pairs(facts, random.Random(3), 1.0) if p.triple.predicate_id == "P20"
                and p.triple.subject == "Ada Quill"]
