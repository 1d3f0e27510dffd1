"""A graph shaped like a real one, made from FactBench: mostly true, with labels, dates, categories and links
beside the relation facts, checked against web pages that state only some of it.

FactBench's 400 facts with gathered pages give the relation facts (every true one, a quarter of the false
ones, stratified by kind). Each true fact also gives the triples a real encyclopedic graph holds about the same
things: the subject's label, the date FactBench records with the fact (a birth or death date, a founding,
publication or release year), a category naming that year or the award, an image link and a page id. A fixed
share of the labels, dates and categories is wrong the way extraction gets them wrong: another entity's name,
a year off by a few, another award. The pages were gathered for the relation facts, so they state some dates
and categories and not others, and no link: what a user's documents do.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass

from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.factbench import factbench_kind
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.eval.confidence import ReviewTally, p_true
from agentkgv.eval.metrics import expected_calibration_error

# FactBench's date for a true fact of each relation: what it dates, and the triple it makes.
DATED = {"birthPlace": ("subject", "birth date"), "deathPlace": ("subject", "death date"),
         "foundationPlace": ("subject", "founding year"), "author": ("object", "publication date"),
         "starring": ("subject", "release date")}
# Of the false relation facts with pages, the share kept: a real graph is mostly true.
FALSE_FACT_SHARE = 0.25
# Of the labels, dates and categories, the share made wrong.
WRONG_SHARE = 0.15


def _draw(key: str) -> float:
    """A fixed draw in [0, 1) for a key."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 2**32


@dataclass(frozen=True)
class ShapedTriple:
    item: LabeledTriple
    kind: str  # relation, label, date, category, link


def shaped_graph(facts: list[LabeledTriple], dates: dict[str, tuple[str, str]]) -> list[ShapedTriple]:
    """The graph from FactBench's facts with pages (`facts`) and the dates `kg.json` gives them (`dates`)."""
    out: list[ShapedTriple] = []
    by_kind: dict[str, list[LabeledTriple]] = defaultdict(list)
    for fact in facts:
        by_kind["correct" if fact.label else f"{factbench_kind(fact.id)}:{fact.triple.predicate}"].append(fact)
    for kind, group in sorted(by_kind.items()):
        ranked = sorted(group, key=lambda f: _draw(f.id))
        kept = ranked if kind == "correct" else ranked[:max(1, round(FALSE_FACT_SHARE * len(ranked)))]
        out += [ShapedTriple(f, "relation") for f in kept]
    true_facts = [f for f in facts if f.label]
    names = sorted({f.triple.subject for f in true_facts})
    awards = sorted({f.triple.object for f in true_facts if f.triple.predicate_id == "award"})

    def add(key: str, kind: str, triple: Triple, wrong: Triple | None) -> None:
        bad = wrong is not None and _draw(key + ":wrong") < WRONG_SHARE
        out.append(ShapedTriple(LabeledTriple(f"{kind}:{key}", wrong if bad else triple, not bad), kind))

    for name in names:
        other = names[int(_draw(name) * len(names))]
        add(name, "label", Triple(name, "rdfs:label", name), Triple(name, "rdfs:label", other) if other != name else None)
        page = name.replace(" ", "_")
        out.append(ShapedTriple(LabeledTriple(f"link:{name}", Triple(
            name, "thumbnail", f"http://commons.wikimedia.org/wiki/Special:FilePath/{page}.jpg"), True), "link"))
    for fact in true_facts:
        t, start = fact.triple, dates.get(fact.id, ("", ""))[0]
        year = start[:4]
        if fact.triple.predicate_id in DATED and year.isdigit():
            role, relation = DATED[fact.triple.predicate_id]
            entity = t.subject if role == "subject" else t.object
            value = start if relation.endswith("date") and len(start) == 10 else year
            shift = 1 + int(_draw(fact.id + ":shift") * 12)
            wrong = str(int(year) + shift) + value[4:]
            add(fact.id, "date", Triple(entity, relation, value), Triple(entity, relation, wrong))
        if fact.triple.predicate_id == "award" and len(awards) > 1:
            other = awards[(awards.index(t.object) + 1 + int(_draw(fact.id) * (len(awards) - 1))) % len(awards)]
            add(fact.id, "category", Triple(t.subject, "subject", f"Category:{t.object} laureates"),
                Triple(t.subject, "subject", f"Category:{other} laureates"))
        elif fact.triple.predicate_id in ("foundationPlace", "starring") and year.isdigit():
            noun = "Companies established" if fact.triple.predicate_id == "foundationPlace" else "Films released"
            shift = 1 + int(_draw(fact.id + ":category") * 12)
            add(fact.id, "category", Triple(t.subject, "subject", f"Category:{noun} in {year}"),
                Triple(t.subject, "subject", f"Category:{noun} in {int(year) + shift}"))
    seen: set[str] = set()
    return [s for s in out if not (s.item.id in seen or seen.add(s.item.id))]


@dataclass(frozen=True)
class ShapedRow:
    HEADERS = ("Method", "Kind", "Triples", "True", "Called true", "Called false", "True called false",
               "Not enough evidence", "Not checkable", "Precision of false", "Base rate of false", "ECE",
               "To review", "Wrong verdicts in review")

    method: str
    kind: str
    triples: int
    true: int
    called_true: int
    called_false: int
    true_called_false: int
    not_enough: int
    not_checkable: int
    ece: float
    review: ReviewTally

    def cells(self) -> list[str]:
        precision = "-" if not self.called_false else f"{1 - self.true_called_false / self.called_false:.2f}"
        return [self.method, self.kind, str(self.triples), str(self.true), str(self.called_true), str(self.called_false),
                str(self.true_called_false), str(self.not_enough), str(self.not_checkable), precision,
                f"{1 - self.true / max(1, self.triples):.2f}", f"{self.ece:.3f}",
                *self.review.cells(self.triples)]


def shaped_rows(method: str, graph: list[ShapedTriple], verdicts: dict[str, Verdict]) -> list[ShapedRow]:
    """One row per kind of triple and one for all."""
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for s in graph:
        if s.item.id in verdicts:
            groups[s.kind].append(verdicts[s.item.id])
            groups["all"].append(verdicts[s.item.id])
    rows = []
    for kind in ("relation", "label", "date", "category", "link", "all"):
        group = groups.get(kind, [])
        if not group:
            continue
        # A triple no text can check carries no P(true) to calibrate.
        scored = [v for v in group if v.finding != Finding.NOT_CHECKABLE.value]
        rows.append(ShapedRow(
            method, kind, len(group), sum(bool(v.gold) for v in group), sum(v.verdict is True for v in group),
            sum(v.verdict is False for v in group), sum(v.verdict is False and v.gold is True for v in group),
            sum(v.finding == Finding.NOT_ENOUGH_EVIDENCE.value for v in group),
            sum(v.finding == Finding.NOT_CHECKABLE.value for v in group),
            expected_calibration_error([p_true(v) for v in scored], [bool(v.gold) for v in scored]) if scored else 0.0,
            ReviewTally.of(group)))
    return rows
