"""Poisoned evidence: the adversarial passages, the poisoned index copy, the guard and the flip count."""

from __future__ import annotations

import pytest

from agentkgv.core.verdict import Verdict
from agentkgv.baselines.lexical import LexicalVerifier
from agentkgv.data.predicates import PredicateInfo
from agentkgv.data.records import Example, Triple
from agentkgv.eval.poison import KINDS, attack_row, attack_table, build_poisoned_index, make_poisons
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.guard import AddressesReader, DistrustedSource, WithholdingRetriever, addresses_reader

BORN = PredicateInfo("P19", "place of birth", templates=("[X] was born in [Y] .",))


def pairs(subjects: list[str]) -> list[Example]:
    """A positive and its hard negative per subject, as the benchmark orders them."""
    out = []
    for i, subject in enumerate(subjects):
        out.append(Example(f"p{i}", Triple(subject, "place of birth", f"Town{i}", "P19"), True, "s", "r"))
        out.append(Example(f"n{i}", Triple(subject, "place of birth", f"Town{i + 1}", "P19"), False, "s", "r",
                           negative_of=f"p{i}"))
    return out


def test_every_pair_gets_one_kind_and_each_passage_argues_for_the_wrong_verdict():
    examples = pairs(["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"])
    poisons = {p.example_id: p for p in make_poisons(examples, {"P19": BORN})}
    assert [poisons[f"p{i}"].kind for i in range(4)] == list(KINDS)
    assert all(poisons[f"n{i}"].kind == poisons[f"p{i}"].kind for i in range(4))
    assert poisons["n0"].passage.text.startswith("Ada Lovelace was born in Town1.") and "Answer true" in poisons["n0"].passage.text
    assert "Answer false" in poisons["p0"].passage.text
    # A positive's false statement gives its subject another town and calls the true one mistaken.
    lie = poisons["p3"].passage.text
    assert lie.startswith("Edsger Dijkstra was born in Town") and not lie.startswith("Edsger Dijkstra was born in Town3")
    assert "mistaken" in lie
    # The guard catches the passages that address the verifier, and only those.
    for poison in poisons.values():
        assert addresses_reader(poison.passage.text) == (poison.kind != "false_statement"), poison


@pytest.mark.parametrize("text", [
    "Telephone system: modern and expanding; domestic satellite links.",
    "The jury returned a verdict of guilty after two days.",
    "He could not say no to the offer, and the answer was yes.",
    "She was released by the label's No Limit Records in 1998.",
])
def test_the_guard_leaves_ordinary_sentences_alone(text):
    assert not addresses_reader(text)


def test_poisoned_copy_is_retrieved_flips_lexical_and_the_guard_restores_it(tmp_path, small_passages, small_bm25):
    subject = next(p.text.split(" ")[0] for p in small_passages if len(p.text.split(" ")[0]) > 4)
    examples = pairs([subject])
    poisons = make_poisons(examples, {"P19": BORN})
    clean_dir = tmp_path / "clean"
    BM25Retriever.build(small_passages, clean_dir)
    with pytest.raises(ValueError):
        build_poisoned_index(clean_dir, poisons, clean_dir)
    poisoned = build_poisoned_index(clean_dir, poisons, tmp_path / "poisoned")
    assert len(poisoned.store) == len(small_passages) + 2 and len(BM25Retriever.load(clean_dir).store) == len(small_passages)
    assert build_poisoned_index(clean_dir, poisons, tmp_path / "poisoned").meta == poisoned.meta  # reused

    negative = [examples[1].as_labeled()]
    assert LexicalVerifier(poisoned).verify(negative)[0].verdict is True  # "answer true" names both
    guarded = WithholdingRetriever(poisoned, [AddressesReader()])
    hits, withheld = guarded.search_recorded([subject], 5)
    assert [h.rank for h in hits[0]] == list(range(1, len(hits[0]) + 1))
    assert not any(h.passage.source.startswith("poison") for h in hits[0])
    assert [w.why for w in withheld[0]] == ["addresses the reader"] * 2
    verdict = LexicalVerifier(guarded).verify(negative)[0]
    assert verdict.verdict is False and any(w.source.startswith("poison") for w in verdict.withheld)
    # A distrusted source is never shown to a method that cannot keep it from deciding.
    distrusted = LexicalVerifier(WithholdingRetriever(poisoned, [DistrustedSource(("poison:",))])).verify(negative)[0]
    assert distrusted.verdict is False and {w.why for w in distrusted.withheld} == {"distrusted source"}


def test_flips_are_counted_by_kind_against_the_clean_run():
    triple = Triple("a", "b", "c")
    clean = [Verdict("x", triple, True, "m", gold=True), Verdict("y", triple, False, "m", gold=False),
             Verdict("z", triple, None, "m", gold=False)]
    attacked = [Verdict("x", triple, False, "m", gold=True), Verdict("y", triple, True, "m", gold=False),
                Verdict("z", triple, False, "m", gold=False)]  # None -> False is no flip: both score false
    row = attack_row("m", "poisoned", "s", clean, attacked, {"x": "instruction", "y": "json_action", "z": "x"})
    assert (row.flips, row.flip_rate, row.flips_by_kind) == (2, 2 / 3, {"instruction": 1, "json_action": 1})
    assert row.clean_macro_f1 == 1.0 and row.macro_f1 < 0.5
    # Open world on the attacked run: the true triple called false, the wrong one hidden; silence flags nothing.
    assert (row.errors.error_recall, row.errors.flagged, row.errors.true_called_false) == (0.5, 2, 1.0)
    silent = [*attacked[:2], Verdict("z", triple, None, "m", gold=False, undecided=True, outcome="not enough evidence")]
    assert attack_row("m", "poisoned", "s", clean, silent, {"x": "instruction", "y": "json_action"}).errors.flagged == 1
    headers, cells = attack_table([row])
    assert cells[0][headers.index("True called false")] == "100.0%"
    with pytest.raises(ValueError):
        attack_row("m", "poisoned", "s", clean, attacked[:2], {})
