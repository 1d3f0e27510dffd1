"""The value reader: which span of a passage gives the subject's value of a relation, and when that value is
another than the claim's."""

from __future__ import annotations

import numpy as np

from agentkgv.data.records import Triple
from agentkgv.reader_agent.claims import Claim
from agentkgv.reader_agent.contradiction import stated_other
from agentkgv.reader_agent.value_reader import base_value_model, best_spans, encode, ranked_spans
from agentkgv.train.reader_data import ReaderPair
from agentkgv.train.value_reader import _targets, value_examples


def test_a_value_is_another_only_where_it_names_neither_side_and_differs_as_a_value():
    born = Claim.of(Triple("Fennimore Quillfeather", "place of birth", "Marrowick"))
    assert stated_other(born, "Dunholt") == "Dunholt"
    assert stated_other(born, "Marrowick") is None and stated_other(born, "Marrowick, Elderland") is None
    assert stated_other(born, "Quillfeather") is None
    genre = Claim.of(Triple("Ansel Brightwater", "genre", "symphony"))
    assert stated_other(genre, "symphonies") is None and stated_other(genre, "sympathy") == "sympathy"
    job = Claim.of(Triple("Edda Quillfeather", "occupation", "actor"))  # one occupation, in either gender
    assert stated_other(job, "actress") is None and stated_other(job, "actresses") is None
    assert stated_other(job, "singer") == "singer" and stated_other(Claim.of(Triple("Edda", "occupation", "poetess")),
                                                                    "poet") is None
    # Only a word in lower case is put in the singular: a name's final s is its own; nor are two words of one stem one.
    assert stated_other(Claim.of(Triple("Ansel Brightwater", "named after", "William")), "Williams") == "Williams"
    assert stated_other(Claim.of(Triple("Ansel Brightwater", "genre", "animation")), "anime") == "anime"
    date = Claim.of(Triple("Ansel Brightwater", "date of birth", "1931-03-12"))
    assert stated_other(date, "12 March 1931") is None and stated_other(date, "4 May 2004") == "4 May 2004"
    people = Claim.of(Triple("Marrowick", "population", "31,000"))
    assert stated_other(people, "19,450") == "19,450" and stated_other(people, "31,000") is None
    # A possessive names the one it is of; initials name their subject; a name with an apostrophe stays as written.
    wed = Claim.of(Triple("Tobiah Venn", "spouse", "Corin Halloway-Venn"))
    assert stated_other(wed, "Corin Halloway\u2019s") is None and stated_other(wed, "Wenna Pollard's") == "Wenna Pollard's"
    owned = Claim.of(Triple("Osterlund Freight", "subsidiary", "Brightwater Looms"))
    assert stated_other(owned, "OF") is None and stated_other(owned, "OFL") == "OFL"
    assert stated_other(born, "St John's") == "St John's"


def test_the_examples_mark_the_object_in_true_pairs_and_no_answer_in_relation_swaps():
    true = ReaderPair(Triple("Ansel Brightwater", "place of birth", "Lembrook"), "Ansel Brightwater was born in Lembrook.",
                      "", 1.0, "evidence", "train")
    swap = ReaderPair(Triple("Ansel Brightwater", "place of death", "Lembrook"), "Ansel Brightwater was born in Lembrook.",
                      "", 0.0, "relation_swap", "train")
    other = ReaderPair(Triple("Ansel Brightwater", "place of birth", "Varnholm"), "Ansel Brightwater lived in Lembrook.",
                       "", 0.0, "other_object", "train")
    examples = value_examples([true, swap, other])
    assert len(examples) == 2
    assert examples[0].context[slice(*examples[0].answer)] == "Lembrook" and examples[1].answer is None
    _, tokenizer = base_value_model()
    encoded = encode(tokenizer, [e.question for e in examples], [e.context for e in examples])
    starts, ends = _targets(encoded, examples)
    offsets = encoded["offset_mapping"][0].tolist()
    assert examples[0].context[offsets[int(starts[0])][0]:offsets[int(ends[0])][1]] == "Lembrook"
    assert int(starts[1]) == int(ends[1]) == 0


def test_the_best_span_is_kept_only_where_it_beats_no_answer_by_the_margin():
    _, tokenizer = base_value_model()
    contexts = ["Population 19,450 (2020)", "Population 19,450 (2020)"]
    encoded = encode(tokenizer, ["Marrowick | population"] * 2, contexts)
    ids = [encoded.sequence_ids(i) for i in range(2)]
    offsets = encoded.pop("offset_mapping").numpy()
    tokens = encoded["input_ids"].shape[1]
    start, end = np.zeros((2, tokens)), np.zeros((2, tokens))
    first = ids[0].index(1) + 1  # the token after "population"
    start[:, first], end[:, first + 2] = 3.0, 3.0  # 19 , 450
    start[1, 0] = end[1, 0] = 5.0  # the second row's no-answer scores higher
    spans = best_spans(start, end, ids, offsets, contexts, margin=0.0)
    assert spans[0] is not None and spans[0].text == "19,450" and spans[1] is None


def _one_context(question: str, context: str):
    """One (question, context) pair encoded: its sequence ids, offsets and length in tokens, and the first and last
    token of a word of the context."""
    _, tokenizer = base_value_model()
    encoded = encode(tokenizer, [question], [context])
    ids = [encoded.sequence_ids(0)]
    offsets = encoded.pop("offset_mapping").numpy()
    tokens = encoded["input_ids"].shape[1]
    inside = [k for k in range(tokens) if ids[0][k] == 1]

    def pieces(word: str) -> tuple[int, int]:
        a = context.index(word)
        return (next(k for k in inside if offsets[0, k, 0] == a),
                next(k for k in inside if offsets[0, k, 1] == a + len(word)))

    return ids, offsets, tokens, pieces


def test_the_spans_after_the_best_share_no_token_with_a_better_one():
    contexts = ["Born in Kelvercombe in 1901 and died in Porthkennack"]
    ids, offsets, tokens, pieces = _one_context("Jory Pendarves | place of death", contexts[0])
    (k1, k2), (p1, p2) = pieces("Kelvercombe"), pieces("Porthkennack")
    start, end = np.zeros((1, tokens)), np.zeros((1, tokens))
    start[0, k1], end[0, k2] = 4.0, 4.0
    start[0, k1 - 1] = 3.9  # "in Kelvercombe": overlaps the best, so never ranked
    start[0, p1], end[0, p2] = 3.0, 3.0
    ranked = ranked_spans(start, end, ids, offsets, contexts, margin=0.0, count=3)[0]
    assert [span.text for span in ranked[:2]] == ["Kelvercombe", "Porthkennack"]
    assert [span.score for span in ranked] == sorted((span.score for span in ranked), reverse=True)
    assert ranked_spans(start, end, ids, offsets, contexts, margin=7.0, count=3)[0] == [ranked[0]]


def test_a_span_never_runs_across_a_sentences_end():
    contexts = ["He lives in Lembrook. He was born in Dunholt in 1961. St. Ives is near."]
    ids, offsets, tokens, pieces = _one_context("Osric Fell | place of birth", contexts[0])
    start, end = np.zeros((1, tokens)), np.zeros((1, tokens))
    start[0, pieces("Lembrook")[0]], end[0, pieces("Dunholt")[1]] = 4.0, 4.0  # the best pair runs across the stop
    start[0, pieces("Dunholt")[0]], end[0, pieces("Lembrook")[1]] = 1.0, 1.0
    start[0, pieces("St.")[0]], end[0, pieces("Ives")[1]] = 0.5, 0.5  # an abbreviation's point ends no sentence
    ranked = ranked_spans(start, end, ids, offsets, contexts, margin=0.0, count=3)[0]
    assert [span.text for span in ranked] == ["Lembrook", "Dunholt", "St. Ives"]
