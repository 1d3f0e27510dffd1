"""Fixed evaluation subsets, for when time does not allow a full split."""

from __future__ import annotations

from agentkgv.data.records import Example


def balanced_subset(examples: list[Example], size: int) -> list[Example]:
    """The first size/2 positives in the split's (seeded) order, each with its own hard negative.

    Keeping pairs together keeps the subset balanced and as hard as the full split; the split order is
    fixed at build time, so the subset is the same on every run.
    """
    if size >= len(examples):
        return examples
    negatives = {e.negative_of: e for e in examples if not e.label and e.negative_of}
    chosen: list[Example] = []
    for example in examples:
        if len(chosen) + 2 > size:
            break
        if example.label and example.id in negatives:
            chosen += [example, negatives[example.id]]
    return chosen
