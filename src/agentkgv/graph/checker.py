"""What the graph says of each of its triples: the findings of the profile's rules and of a user's shapes, and
the P(true) they give, alone or with the documents' word (graph/prior.py)."""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from agentkgv.graph.evidence import DEFAULT_RULES, MIN_SUPPORT, GraphEvidence, GraphFinding, GraphRule
from agentkgv.graph.prior import DocumentSide, GraphPrior, PredicateStats, features, prior_digest, value_family
from agentkgv.graph.profile import GraphProfile, GraphTriple, Strict, build_profile
from agentkgv.graph.shapes import shape_findings
from agentkgv.graph.values import vocabulary

# The share of a predicate's subjects (of MIN_SUPPORT or more) that the graph gives several values of, from which
# the predicate takes several in this graph whatever its name says elsewhere: DBpedia's `genre` (24% of its
# subjects there), `capital` (28%: a state's capitals over time) and `deathPlace` (30%: a city and its borough).
# A second value then states nothing against the first. Below it, a second value is more likely an error
# (`SecondValue` flags one where 95% of subjects have one).
MANY_VALUES_SHARE = 0.2
# The P(true) under which the graph contradicts a triple no trusted passage supports, where it knows the triple. Of
# 0.3, 0.35, 0.4, 0.45 and 0.5 on the DBpedia development set (cross-validated, BENCHMARKS.md), the highest at which the
# precision of "false" stays at 0.8 or more and true triples called false under 3%, over the 400 with pages and over
# all 8,893 triples (0.45: 0.82 and 0.73).
GRAPH_FALSE_BELOW = 0.4


class GraphChecker:
    """`profile`: the graph's (or a larger graph's, the triples being a sample of it); `triples`: the graph
    as stated; `shapes`: findings of a SHACL validation, by triple (graph/shapes.py)."""

    def __init__(self, profile: GraphProfile, triples: Sequence[GraphTriple], prior: GraphPrior,
                 shapes: Mapping[GraphTriple, list[GraphFinding]] | None = None,
                 rules: Sequence[GraphRule] = DEFAULT_RULES):
        self.profile, self.prior, self.shapes = profile, prior, dict(shapes or {})
        self.evidence = GraphEvidence(profile, triples, rules)
        flagged: Counter[str] = Counter()
        seen: Counter[str] = Counter(triple.predicate for triple in triples)
        for triple in triples:
            if self.findings(triple):
                flagged[triple.predicate] += 1
        self.stats = PredicateStats(profile, dict(flagged), dict(seen))

    def with_prior(self, prior: GraphPrior) -> GraphChecker:
        """The same reading of the same graph, with another prior."""
        checker = copy.copy(self)
        checker.prior = prior
        return checker

    def knows(self, predicate: str) -> bool:
        """Whether the graph says enough of a predicate for its P(true) alone to decide: the prior has labels of it
        (a user's reviews, or the labelled graph the prior was fitted on) or was fitted on labels of many of its
        vocabulary's (`GraphPrior.vocabularies`: DBpedia's rarest raw infobox keys are wrong as often as the others
        it learned from), or the profile holds enough of its triples."""
        counts = self.profile.predicates.get(predicate)
        return (predicate in self.prior.offsets or vocabulary(predicate) in self.prior.vocabularies
                or (counts is not None and counts.triples >= MIN_SUPPORT))

    def several_values(self, predicate: str) -> str | None:
        """Where the graph gives enough of the predicate's subjects several values of it, how many, in words."""
        counts = self.profile.predicates.get(predicate)
        if counts is None or counts.subjects < MIN_SUPPORT:
            return None
        several = counts.subjects - counts.one_value_subjects
        if several < MANY_VALUES_SHARE * counts.subjects:
            return None
        return f"the graph gives {several} of this predicate's {counts.subjects} subjects more than one value"

    def value_family(self, triple: GraphTriple) -> str:
        """The family of the triple's value as the prior weighs it."""
        return value_family(self.profile.value_class(triple.object))

    def findings(self, triple: GraphTriple) -> list[GraphFinding]:
        return self.evidence.findings(triple) + self.shapes.get(triple, [])

    def p_true(self, triple: GraphTriple, findings: Sequence[GraphFinding], documents: DocumentSide | None) -> float:
        row = features(triple, self.profile.value_class(triple.object), findings, self.stats, documents)
        return self.prior.p_true(row, triple.predicate)

    def lowered_by(self, triple: GraphTriple, findings: Sequence[GraphFinding], documents: DocumentSide | None) -> str:
        """In words, what lowers the triple's P(true) most."""
        row = features(triple, self.profile.value_class(triple.object), findings, self.stats, documents)
        name = self.prior.lowest(row, triple.predicate)
        if name.startswith("value: "):
            return f"its value is {name.removeprefix('value: ')}, a kind of value often wrong in such graphs"
        if name.startswith("predicate: "):
            return f"its predicate ({name.removeprefix('predicate: ')}) is one whose triples are often wrong"
        if name.startswith("documents"):
            return "the documents do not state it"
        if name.startswith(("labels: ", "base: ")):
            return name.split(": ", 1)[1]
        # A finding's weight, its rule's or the one all findings of its strength share ("any finding (strong)"): what
        # the finding itself says, of those of that strength the one whose rule's own weight lowers P(true) most.
        rule, strength = name.removesuffix(")").rsplit(" (", 1)
        alike = [finding for finding in findings
                 if finding.strong == (strength == "strong") and rule in ("any finding", finding.rule)]
        cited = min(alike, key=lambda finding: self.prior.weights.get(f"{finding.rule} ({strength})", 0.0), default=None)
        return name if cited is None else f"{cited.rule}: {cited.reason}"

    def row(self, triple: GraphTriple, documents: DocumentSide | None) -> list[float]:
        """The model's features of a triple: what `GraphPrior` is fitted and refitted on."""
        return features(triple, self.profile.value_class(triple.object), self.findings(triple), self.stats, documents)


class GraphSettings(Strict):
    """How a run reads the graph: a saved profile (of a larger graph the triples are a sample of; else the
    triples' own), a user's SHACL shapes, a refitted prior (else the shipped one), and the P(true) under which
    the graph contradicts a triple no trusted passage supports."""

    profile: Path | None = None
    shapes: Path | None = None
    prior: Path | None = None
    false_below: float = Field(GRAPH_FALSE_BELOW, ge=0.0, le=1.0)


@dataclass(frozen=True)
class OpenGraph:
    checker: GraphChecker
    pins: dict[str, str]  # what a run log pins of it: a resume over another graph reading is refused


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def open_graph(settings: GraphSettings, triples: Sequence[GraphTriple], name: str) -> OpenGraph:
    """The graph reading `settings` asks for over `triples` (the graph as stated)."""
    profile = GraphProfile.load(settings.profile) if settings.profile else build_profile(lambda: triples, name)
    shapes = shape_findings(triples, settings.shapes) if settings.shapes else None
    prior = GraphPrior.load(settings.prior)
    # The triples' own profile is not pinned: a graph that grew resumes, each verdict written keeping the
    # findings of the graph it was read from. A saved profile, shapes and prior are.
    pins = {"profile": _digest(settings.profile) if settings.profile else "the triples' own",
            "false_below": f"{settings.false_below:g}",
            "prior": prior_digest(prior)}
    if settings.shapes:
        pins["shapes"] = _digest(settings.shapes)
    return OpenGraph(GraphChecker(profile, triples, prior, shapes), pins)
