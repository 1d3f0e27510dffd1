"""Fixed evaluation subsets, for when time does not allow a full split."""

from __future__ import annotations

from agentkgv.data.records import Example


def hard_negative_pairs(examples: list[Example]) -> list[tuple[Example, Example]]:
    """(positive, its hard negative) for every positive whose negative is among `examples`, in their order."""
    negatives = {e.negative_of: e for e in examples if not e.label and e.negative_of}
    return [(e, negatives[e.id]) for e in examples if e.label and e.id in negatives]


def balanced_subset(examples: list[Example], size: int) -> list[Example]:
    """The first size/2 positives in the split's (seeded) order, each with its own hard negative.

    Keeping pairs together keeps the subset balanced and as hard as the full split; the split order is
    fixed at build time, so the subset is the same on every run.
    """
    if size >= len(examples):
        return examples
    pairs = hard_negative_pairs(examples)
    if pairs:
        return [e for pair in pairs[:size // 2] for e in pair]
    # A split whose negatives are not made from its positives (FactBench's real errors): the first size/2
    # of each label, in the split's fixed order.
    chosen = {id(e) for label in (True, False) for e in [e for e in examples if e.label is label][:size // 2]}
    return [e for e in examples if id(e) in chosen]
