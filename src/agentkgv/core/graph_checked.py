"""A verifier whose verdicts hear the graph too (graph/checker.py): after the documents are read, each triple's
graph findings join its verdict, and its P(true) is the one the graph and the documents give together.

The graph's P(true) counts only where the graph knows the triple (a finding, a predicate it holds enough triples
of, labels of it, or labels of many of its vocabulary's: `GraphChecker.knows`): its model was fitted on a real
graph's base rates, which need not be this graph's, and would put a small graph's supported population under 0.5
on DBpedia's share of wrong numbers.
- Where the documents decided (supported, contradicted, or a value of a kind its relation never takes): a graph
  with no finding on the triple leaves their verdict. Its model weighs documents as they read on DBpedia's
  pages, where they were little better than chance, so from base rates alone it would send every contradiction
  a user's own documents make to review (FactBench's facts against their pages: 49 of 49). But pages support a
  wrong value as readily as a true one where both names occur, so where the graph knows the predicate, its
  P(true) ranks the supported triples (at 0.5 or above: a supported triple it doubts stands at 0.5); this ranks
  better than the documents' own P(true) on DBpedia's pages and on FactBench's (BENCHMARKS.md). A finding gives
  the P(true) of both, and where that is on the other side of 0.5 from their verdict, the triple goes to review
  (no verdict, the documents' outcome kept, the graph's reason given).
- A contradiction (another value stated) of a predicate the graph itself gives many subjects several values of
  (`GraphChecker.several_values`) does not stand: another genre, another capital over time or a city's borough
  for its city states nothing against the triple's value in such a graph. The documents' outcome is kept beside
  it, and the triple is read as one they were silent on.
- Where they did not: the graph contradicts a triple that a strong finding is against, or whose P(true) falls
  below `GRAPH_FALSE_BELOW` where it knows the triple. The verdict is then false, its outcome "contradicted by
  the graph", its reason the finding's (or, for a low P(true), what lowered it most), and the documents' own
  outcome kept beside it.
"""

from __future__ import annotations

from dataclasses import replace

from agentkgv.core.verdict import Finding, Verdict, Verifier
from agentkgv.data.records import LabeledTriple
from agentkgv.graph.checker import GRAPH_FALSE_BELOW, GraphChecker
from agentkgv.graph.prior import DocumentSide, Reviewed
from agentkgv.graph.profile import claim_triple

# The outcomes where the documents (or the relation's kinds of value) decided, with a P(true) of their own.
DOCUMENTS_DECIDE = frozenset({Finding.SUPPORTED.value, Finding.CONTRADICTED.value, Finding.WRONG_KIND.value})


def compose(verdict: Verdict, checker: GraphChecker, false_below: float = GRAPH_FALSE_BELOW) -> Verdict:
    """The verdict with what the graph says of its triple, its P(true) and confidence to 4 places as a reader's are
    (decided before they are rounded)."""
    composed = _composed(verdict, checker, false_below)
    return replace(composed, p_true=None if composed.p_true is None else round(composed.p_true, 4),
                   confidence=None if composed.confidence is None else round(composed.confidence, 4))


def _composed(verdict: Verdict, checker: GraphChecker, false_below: float) -> Verdict:
    voided = as_read(verdict, checker)
    if voided is not verdict:
        composed = _composed(voided, checker, false_below)
        # It is a triple the documents were silent on now: its confidence is the graph's, and where the graph calls
        # it false, the reason says what the documents stated too.
        if composed.verdict is None:
            return replace(composed, confidence=None if composed.p_true is None else max(composed.p_true, 1 - composed.p_true))
        return replace(composed, reason=f"{composed.reason} ({voided.reason})")
    triple = claim_triple(verdict.triple)
    findings, family = checker.findings(triple), checker.value_family(triple)
    # The graph's P(true) counts only where the graph has something to say of this triple: a finding, or a predicate
    # it knows (`GraphChecker.knows`). The model's base rates are a real graph's, not necessarily this one's.
    knows = bool(findings) or checker.knows(triple.predicate)
    decided = verdict.finding in DOCUMENTS_DECIDE and verdict.p_true is not None
    # Pages support a wrong value as readily as a true one where both names occur (DBpedia's `name | Mssassi,
    # Abderrahmane`): support the graph has no finding against stands, but where the graph knows the predicate
    # its P(true) ranks what the pages support, at 0.5 or above. Any other decision it leaves as it is.
    ranked = decided and not findings and knows and verdict.finding == Finding.SUPPORTED.value
    if decided and not findings and not ranked:
        return replace(verdict, graph=findings, value_family=family)
    side = documents_side(verdict)
    p = checker.p_true(triple, findings, side)
    # A supported triple the model doubts stands at 0.5, a P(true) the model did not give: `learn` refits the
    # model from the P(true) it gave only.
    given = not ranked or p >= 0.5
    p = max(p, 0.5) if ranked else p
    composed = replace(verdict, graph=findings, value_family=family, p_true=p, p_true_by_graph=given,
                       documents_p_true=None if side is None else side.p_true,
                       confidence=(p if verdict.verdict else 1 - p) if verdict.verdict is not None else verdict.confidence)
    if ranked:
        return composed
    if decided:
        if (p >= 0.5) == bool(verdict.verdict):
            return composed
        # The documents decided one way and the graph puts the triple on the other side: a person decides.
        said = "support" if verdict.verdict else "contradict"
        return replace(composed, verdict=None, undecided=True, confidence=max(p, 1 - p), documents_outcome=verdict.outcome,
                       reason=f"the documents {said} it, but the graph puts P(true) at {p:.2f}: "
                              f"{checker.lowered_by(triple, findings, side)}")
    if verdict.finding == Finding.SUPPORTED.value:  # a method without a P(true) of its own
        return composed
    strong = [finding for finding in findings if finding.strong]
    low = p < false_below and knows
    if not strong and not low:
        return composed
    reason = (strong[0].reason if strong else
              f"the graph puts P(true) at {p:.2f}: {checker.lowered_by(triple, findings, side)}")
    return replace(composed, verdict=False, undecided=False, confidence=1 - p, outcome=Finding.GRAPH_CONTRADICTED.value,
                   documents_outcome=verdict.documents_outcome or verdict.outcome, reason=reason)


def as_read(verdict: Verdict, checker: GraphChecker) -> Verdict:
    """The documents' verdict as the graph reads it: a contradiction of a predicate the graph gives many subjects
    several values of (`GraphChecker.several_values`) is a triple they were silent on, their outcome and the value
    they stated kept beside it, unless it was read as another of several values already. Any other verdict as it is.
    What the graph prior is fitted on (eval/graph_bench.py) and what it scores."""
    # Another of several values was weighed as excluding nothing already (reader_agent/contradiction.py).
    if verdict.finding != Finding.CONTRADICTED.value or verdict.several_valued:
        return verdict
    several = checker.several_values(claim_triple(verdict.triple).predicate)
    if several is None:
        return verdict
    stated = f"state {verdict.stated_instead!r} instead" if verdict.stated_instead else "state another value"
    return replace(verdict, verdict=None, undecided=True, confidence=None, p_true=None,
                   outcome=Finding.NOT_ENOUGH_EVIDENCE.value, documents_outcome=Finding.CONTRADICTED.value,
                   reason=f"the documents {stated}, but {several}: another value contradicts nothing here")


def as_reviewed(verdict: Verdict, label: bool) -> Reviewed:
    """A composed verdict a person labelled, as the graph prior is refitted from it (graph/prior.py)."""
    assert verdict.p_true is not None
    return Reviewed(claim_triple(verdict.triple).predicate, verdict.p_true, verdict.p_true_by_graph,
                    verdict.documents_p_true, label, verdict.value_family)


def documents_side(verdict: Verdict) -> DocumentSide | None:
    """What the documents said, where the method read any: its outcome (or, for a method that reads support
    only, whether it found support) and its P(true) (or its confidence in its verdict)."""
    if verdict.outcome is None and verdict.verdict is None and not verdict.undecided:
        return None
    p = verdict.p_true
    if p is None and verdict.verdict is not None and verdict.confidence is not None:
        p = verdict.confidence if verdict.verdict else 1 - verdict.confidence
    return DocumentSide(verdict.finding, p)


class GraphChecked:
    """`verifier`'s verdicts, each composed with the graph's word (`compose`)."""

    def __init__(self, verifier: Verifier, checker: GraphChecker, false_below: float = GRAPH_FALSE_BELOW):
        self.verifier, self.checker, self.false_below, self.name = verifier, checker, false_below, verifier.name

    def verify(self, items: list[LabeledTriple]) -> list[Verdict]:
        return [compose(verdict, self.checker, self.false_below) for verdict in self.verifier.verify(items)]
