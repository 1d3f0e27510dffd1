"""Metrics on inputs whose answers are worked out by hand."""

from __future__ import annotations

import pytest

from agentkgv.eval.metrics import bootstrap_macro_f1, error_finding, ranking_auc, score


def test_per_class_f1_by_hand():
    gold = [True, True, True, False, False]
    predicted = [True, True, False, False, True]
    # positive: tp=2 fp=1 fn=1 -> 4/6; negative: tp=1 fp=1 fn=1 -> 2/4
    result = score(gold, predicted)
    assert result.positive_f1 == pytest.approx(2 / 3)
    assert result.negative_f1 == pytest.approx(0.5)
    assert result.macro_f1 == pytest.approx((2 / 3 + 0.5) / 2)
    assert result.accuracy == pytest.approx(3 / 5)


def test_unparsable_counts_as_negative():
    assert score([True, False], [None, None]) == score([True, False], [False, False])
    assert score([True, False], [None, None]).positive_f1 == 0.0


def test_perfect_and_length_mismatch():
    assert score([True, False], [True, False]).macro_f1 == 1.0
    with pytest.raises(ValueError):
        score([True], [True, False])


def test_bootstrap_interval_brackets_the_point_estimate():
    gold = [True, False] * 50
    predicted = [True, False] * 40 + [False, True] * 10
    low, high = bootstrap_macro_f1(gold, predicted, samples=300)
    assert low <= score(gold, predicted).macro_f1 <= high
    assert high - low < 0.3
    assert bootstrap_macro_f1(gold, gold, samples=50) == (1.0, 1.0)


def test_balanced_subset_of_a_split_without_paired_negatives():
    """FactBench's negatives are real errors, not made from its positives: the subset still takes half of
    each label, in the split's order."""
    from agentkgv.data.records import Example, Triple
    from agentkgv.eval.subsets import balanced_subset

    examples = [Example(f"f{i}", Triple(f"s{i}", "p", "o"), i % 3 == 0, "factbench_docs", "factbench")
                for i in range(30)]
    subset = balanced_subset(examples, 8)
    assert [e.id for e in subset] == ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f9"]
    assert sum(e.label for e in subset) == 4


def test_error_finding_counts_only_what_is_called_false_by_hand():
    gold = [True, True, True, True, False, False, False, False]
    flagged = [True, False, False, False, True, True, False, False]
    found = error_finding(gold, flagged)
    assert (found.error_recall, found.false_precision, found.true_called_false) == (0.5, pytest.approx(2 / 3), 0.25)
    assert (found.flagged, found.wrong) == (3, 4)
    assert error_finding([True, False], [False, False]).false_precision == 1.0  # nothing flagged, nothing wrong flagged


def test_ranking_auc_by_hand():
    assert ranking_auc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert ranking_auc([0.5, 0.5], [True, False]) == 0.5
    assert ranking_auc([0.2, 0.9, 0.4], [True, False, False]) == 0.0
    assert ranking_auc([0.3, 0.7], [True, True]) == 0.5  # one class: no ranking to score
