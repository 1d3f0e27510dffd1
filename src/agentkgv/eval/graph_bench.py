"""The graph's word on a labelled graph (the DBpedia development set): its rules alone, learned without labels;
the P(true) the graph gives, fitted on labels by cross-validation so that no triple is scored by a model that
saw its label; and the graph with the documents, beside the documents alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from agentkgv.core.graph_checked import GRAPH_FALSE_BELOW, as_read, as_reviewed, compose, documents_side
from agentkgv.core.verdict import Finding, Verdict
from agentkgv.data.records import LabeledTriple
from agentkgv.graph.checker import GraphChecker
from agentkgv.graph.prior import GraphPrior, fit_prior, refit_from_reviews
from agentkgv.graph.profile import GraphTriple, build_profile, claim_triple

FOLDS = 5


@dataclass
class LabelledGraph:
    """A labelled graph read for the graph's word: its triples, as stated, and a checker over its own profile
    (learned without labels) whose prior is a placeholder until fitted."""

    items: list[LabeledTriple]
    triples: list[GraphTriple]
    checker: GraphChecker

    @staticmethod
    def of(items: Sequence[LabeledTriple], name: str) -> LabelledGraph:
        triples = [claim_triple(item.triple) for item in items]
        profile = build_profile(lambda: triples, name)
        return LabelledGraph(list(items), triples, GraphChecker(profile, triples, GraphPrior(weights={}, intercept=0.0,
                                                                                             fitted_on="nothing")))

    def rows(self, documents: dict[str, Verdict]) -> np.ndarray:
        return np.array([self.checker.row(triple, documents_side(as_read(documents[item.id], self.checker))
                                          if item.id in documents else None)
                         for item, triple in zip(self.items, self.triples)])

    def labels(self) -> np.ndarray:
        return np.array([bool(item.label) for item in self.items])

    def predicates(self) -> list[str]:
        return [triple.predicate for triple in self.triples]


def _unread(item: LabeledTriple) -> Verdict:
    """A triple no documents were read for: no verdict yet, for the graph to decide."""
    return Verdict(item.id, item.triple, None, "graph", gold=item.label)


def rules_only(graph: LabelledGraph) -> list[Verdict]:
    """The rules' strong findings alone, no labels: false where one holds, else undecided."""
    verdicts = []
    for item, triple in zip(graph.items, graph.triples):
        findings = graph.checker.findings(triple)
        strong = [finding for finding in findings if finding.strong]
        verdict = replace(_unread(item), graph=findings)
        if strong:
            verdict = replace(verdict, verdict=False, undecided=False, outcome=Finding.GRAPH_CONTRADICTED.value,
                              reason=strong[0].reason)
        verdicts.append(verdict)
    return verdicts


def cross_validated(graph: LabelledGraph, documents: dict[str, Verdict], false_below: float = GRAPH_FALSE_BELOW,
                    reviews: bool = False, folds: int = FOLDS, seed: int = 0) -> list[Verdict]:
    """Every triple's verdict composed with the graph's word (core/graph_checked.py), the prior fitted on the
    other folds' labels (stratified folds, fixed seed); a triple with documents starts from their verdict.
    `reviews`: the other folds' labels also refit the prior as `learn` does from reviews (`refit_from_reviews`),
    from their verdicts composed with the fold's prior."""
    from sklearn.model_selection import StratifiedKFold

    rows, labels, predicates = graph.rows(documents), graph.labels(), graph.predicates()
    verdicts: list[Verdict | None] = [None] * len(graph.items)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(rows, labels):
        fitted = fit_prior(rows[train], labels[train], [predicates[k] for k in train], "fold")
        checker = graph.checker.with_prior(fitted)
        if reviews:
            checker = _learned(graph, documents, list(train), checker, false_below)
        for k in test:
            verdicts[k] = _composed(graph, documents, int(k), checker, false_below)
    return verdicts


def _composed(graph: LabelledGraph, documents: dict[str, Verdict], k: int, checker: GraphChecker,
              false_below: float) -> Verdict:
    """The `k`th triple's verdict composed with the graph's word: from the documents' verdict where they were read."""
    item = graph.items[k]
    return compose(replace(documents.get(item.id) or _unread(item), gold=item.label), checker, false_below)


def _learned(graph: LabelledGraph, documents: dict[str, Verdict], reviewed: list[int], checker: GraphChecker,
             false_below: float) -> GraphChecker:
    """`checker` with its prior refitted from the `reviewed` triples' labels as `learn` does: from their verdicts
    composed with it."""
    labelled = [as_reviewed(verdict, bool(graph.items[k].label)) for k in reviewed
                if (verdict := _composed(graph, documents, k, checker, false_below)).p_true is not None]
    return checker.with_prior(refit_from_reviews(checker.prior, labelled))


def reviewed_then_scored(graph: LabelledGraph, documents: dict[str, Verdict], reviewed: int = 100,
                         false_below: float = GRAPH_FALSE_BELOW) -> tuple[int, list[Verdict]]:
    """A user who reviews `reviewed` of the triples with documents, then verifies the rest: the prior is fitted on
    the labels of the triples without documents only (so it learns nothing of how much documents count, and no
    scored triple's label), the reviewed triples are composed with it and `refit_from_reviews` refits it from their
    verdicts as `learn` does, and the other triples with documents are composed with the refit prior. The reviewed
    are the first of each label in file order, in the labels' proportion (fixed, stratified). Returns how many
    were reviewed, and the others' verdicts."""
    rows, labels = graph.rows(documents), graph.labels()
    unread = [k for k, item in enumerate(graph.items) if item.id not in documents]
    predicates = graph.predicates()
    prior = fit_prior(rows[unread], labels[unread], [predicates[k] for k in unread], "the triples without documents")
    read = [k for k, item in enumerate(graph.items) if item.id in documents]
    wrong = [k for k in read if not labels[k]]
    take = {False: round(reviewed * len(wrong) / len(read))}
    take[True] = reviewed - take[False]
    picked = [k for label in (False, True) for k in [k for k in read if bool(labels[k]) == label][:take[label]]]
    refit = _learned(graph, documents, picked, graph.checker.with_prior(prior), false_below)
    chosen = set(picked)
    return len(picked), [_composed(graph, documents, k, refit, false_below) for k in read if k not in chosen]
