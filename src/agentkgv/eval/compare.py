"""Two runs of verdicts side by side: the scores of each on the triples both hold, and where they differ."""

from __future__ import annotations

from dataclasses import dataclass

from agentkgv.core.verdict import Verdict
from agentkgv.eval.metrics import Scores, score


@dataclass(frozen=True)
class Difference:
    id: str
    triple: str
    gold: bool | None
    first: str
    second: str


@dataclass(frozen=True)
class Comparison:
    common: int
    only_first: int
    only_second: int
    agree: int
    first_scores: Scores | None  # where the triples carry gold labels
    second_scores: Scores | None
    differences: list[Difference]
    # Of the differing triples with a gold label: which run was right.
    first_right: int
    second_right: int


def _decision(v: Verdict) -> str:
    return "not enough evidence" if v.undecided else "no verdict" if v.verdict is None else str(v.verdict).lower()


def _word(v: Verdict) -> str:
    word = _decision(v)
    return word if v.outcome is None or v.outcome == word else f"{word} ({v.outcome})"


def _differ(a: Verdict, b: Verdict) -> bool:
    """Another decision, or the same one for another reason where both runs give one (a method without
    outcomes, the lexical check, agrees with "true (supported)" when it says true)."""
    return _decision(a) != _decision(b) or (a.outcome is not None and b.outcome is not None and a.outcome != b.outcome)


def compare_runs(first: dict[str, Verdict], second: dict[str, Verdict]) -> Comparison:
    common = [i for i in first if i in second]
    differ = [i for i in common if _differ(first[i], second[i])]
    gold = [i for i in common if first[i].gold is not None]
    scores = lambda run: score([run[i].gold for i in gold], [run[i].verdict for i in gold]) if gold else None  # noqa: E731
    right = lambda run: sum(run[i].gold is not None and bool(run[i].verdict) == run[i].gold  # noqa: E731
                            and bool(first[i].verdict) != bool(second[i].verdict) for i in differ)
    return Comparison(len(common), len(first) - len(common), len(second) - len(common), len(common) - len(differ),
                      scores(first), scores(second),
                      [Difference(i, first[i].triple.verbalize(), first[i].gold, _word(first[i]), _word(second[i]))
                       for i in differ], right(first), right(second))
