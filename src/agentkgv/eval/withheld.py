"""The evidence-withheld test: what a verifier says of triples whose evidence is not in the documents.

A fixed half of each split, stratified by relation (and by kind of fact on FactBench), has its evidence taken
out of the corpus: the gold passages of a T-REx positive, which its hard negative shares (they state the true
object), and a FactBench fact's own web pages. A verifier that reads its corpus as complete calls those
triples false; one that tells "the documents say otherwise" from "the documents say nothing" calls them not
enough evidence, and keeps "false" for the other half, where a passage states another value.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.factbench import factbench_kind
from agentkgv.data.records import Example
from agentkgv.eval.confidence import ReviewTally, p_true
from agentkgv.eval.metrics import expected_calibration_error, score

# Confidence at or above which a wrong "false" is a confident one.
CONFIDENT = 0.9


@dataclass(frozen=True)
class Halves:
    withheld: list[Example]
    kept: list[Example]

    @property
    def passage_ids(self) -> frozenset[str]:
        return frozenset(i for e in self.withheld for i in e.gold_passage_ids)

    @property
    def sources(self) -> frozenset[str]:
        return frozenset(f"factbench:{e.id}" for e in self.withheld if e.regime == "factbench")


def _order(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def halves(examples: list[Example]) -> Halves:
    """Every other positive of each stratum (relation, and FactBench's kind of fact), in a fixed hashed
    order, withheld with its hard negatives; on FactBench, where facts stand alone, every other fact."""
    strata: dict[tuple[str, str, bool], list[Example]] = defaultdict(list)
    for e in examples:
        if e.regime == "factbench":
            strata[(e.triple.predicate, factbench_kind(e.id), e.label)].append(e)
        elif e.label:
            strata[(e.triple.predicate_id or e.triple.predicate, "", True)].append(e)
    chosen = {e.id for group in strata.values() for e in sorted(group, key=lambda e: _order(e.id))[::2]}
    withheld = [e for e in examples if e.id in chosen or e.negative_of in chosen]
    return Halves(withheld, [e for e in examples if e.id not in {w.id for w in withheld}])


@dataclass(frozen=True)
class WithheldRow:
    HEADERS = ("Split", "Half", "Absence", "Triples", "Called false", "of them confident", "True called false",
               "Not enough evidence", "Contradicted", "False one-valued contradicted", "Macro-F1", "ECE",
               "To review", "Wrong verdicts in review")

    split: str
    half: str
    absence: str
    triples: int
    called_false: int
    confident_false: int
    true_called_false: int
    not_enough: int
    contradicted: int
    one_valued_false: int  # false triples of one-valued relations (or dates, numbers)
    one_valued_contradicted: int  # of those, contradicted with the stating passage cited
    macro_f1: float  # "not enough evidence" scored as false, as the paper scores a missing label
    ece: float
    review: ReviewTally

    def cells(self) -> list[str]:
        return [self.split, self.half, self.absence, str(self.triples), f"{self.called_false} ({self.share(self.called_false)})",
                str(self.confident_false), str(self.true_called_false), str(self.not_enough), str(self.contradicted),
                f"{self.one_valued_contradicted} / {self.one_valued_false}", f"{self.macro_f1:.3f}", f"{self.ece:.3f}",
                *self.review.cells(self.triples)]

    def share(self, count: int) -> str:
        return f"{count / max(1, self.triples):.0%}"


def withheld_row(split: str, half: str, absence: str, verdicts: list[Verdict],
                 contradictable: Callable[[Verdict], bool]) -> WithheldRow:
    """The figures of one half; `contradictable` tells the triples another stated value would contradict."""
    false = [v for v in verdicts if v.verdict is False]
    one_valued_false = [v for v in verdicts if v.gold is False and contradictable(v)]
    cited = [v for v in one_valued_false if v.outcome == Finding.CONTRADICTED.value and v.evidence]
    gold = [bool(v.gold) for v in verdicts]
    return WithheldRow(
        split, half, absence, len(verdicts), len(false),
        sum(v.confidence is not None and v.confidence >= CONFIDENT for v in false),
        sum(v.gold is True for v in false), sum(v.outcome == Finding.NOT_ENOUGH_EVIDENCE.value for v in verdicts),
        sum(v.outcome == Finding.CONTRADICTED.value for v in verdicts), len(one_valued_false), len(cited),
        score(gold, [v.verdict for v in verdicts]).macro_f1,
        expected_calibration_error([p_true(v) for v in verdicts], gold),
        ReviewTally.of(verdicts))
