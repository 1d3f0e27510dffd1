"""One calibrated P(true) from what the graph says and what the documents say.

A logistic model reads a triple's graph features (the family of its value, each rule's finding, how varied
and how often flagged its predicate is in the profile) beside the documents' outcome and P(true), where
documents were read. A triple nothing decides gets its P(true) from the graph, never a constant. A user's
reviews (`learn`) refit two things on top. How much the documents count: the model was fitted where the documents
read little better than chance (DBpedia's gathered pages), and a user's own documents may say much more, so the
model's log-odds are rescaled and the documents' log-odds weighed anew on the reviewed triples whose P(true) the
model gave (`refit_from_reviews`). Then a per-predicate offset: each predicate's reviewed share of true triples,
shrunk toward what the model expects of them, so that a predicate with few reviews moves little; and within a
predicate, one per family of value, shrunk toward what its other families' labels say: its labels and its links,
its numbers and its names, are wrong at different rates (DBpedia's `name` given as another page's IRI, `years` as a
number).

The shipped model (`prior.json`) is fitted on the DBpedia development set (`agentkgv train-graph-prior`),
whose labels are of a real, automatically built graph; a user's reviews refit it as above.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path


from agentkgv.data.errors import DataError
from agentkgv.graph.evidence import DEFAULT_RULES, SHAPE_RULE, GraphFinding
from agentkgv.graph.profile import GraphProfile, GraphTriple, Strict
from agentkgv.graph.values import AUXILIARY_NODE, MALFORMED, family, vocabulary

SHIPPED = "prior.json"
# How many labels of a predicate (or of a family of value within it) weigh as much as the expectation they are shrunk
# toward: the model's for a predicate, the predicate's other families' for a family.
SHRINKAGE = 10.0
# The fewest predicates with labels that make a vocabulary (a namespace, `graph/values.vocabulary`) one the prior
# knows: its rarest predicates are then judged on its base rates (DBpedia's raw infobox keys, its ontology's).
MIN_VOCABULARY = 20
_FAMILIES = ("an IRI of the graph", "an IRI of another site", "a namespaced page", AUXILIARY_NODE, "a blank node",
             "a name", "a number", "a quantity with a unit", "a year", "a date", "a year and month", "a month and day",
             "a range of years", "a URL", "a malformed value")
# The outcomes common enough to learn a weight of their own from a graph's labels; a rarer one (a contradiction)
# speaks through the documents' P(true) alone.
_OUTCOMES = ("supported", "not enough evidence")
# The fewest reviewed triples whose P(true) the prior gave from which `refit_from_reviews` refits how much the
# documents count, and how strongly that holds to no change (`fit_refit`).
MIN_REFIT = 20
REFIT_STRENGTH = 1.0


class DocumentsRefit(Strict):
    """From reviews: the prior's log-odds `z` become `shift + scale * z + weight * d`, `d` the documents'
    log-odds. The identity until a user's reviews refit it."""

    shift: float = 0.0
    scale: float = 1.0
    weight: float = 0.0

    def apply(self, z: float, d: float) -> float:
        return self.shift + self.scale * z + self.weight * d

    def then(self, change: DocumentsRefit) -> DocumentsRefit:
        """This refit followed by `change` of its output."""
        return DocumentsRefit(shift=change.shift + change.scale * self.shift, scale=change.scale * self.scale,
                              weight=change.scale * self.weight + change.weight)


def value_family(kind: str) -> str:
    """The family of a value's kind (graph/values.py) that the model weighs: a malformed value, a link of the graph
    or of another site, a namespaced page, or its kind's family."""
    if kind in MALFORMED:
        return "a malformed value"
    if kind.startswith("an IRI of "):
        return "an IRI of another site" if kind == "an IRI of another site" else "an IRI of the graph"
    if kind.endswith(" page"):
        return "a namespaced page"
    return family(kind) if family(kind) in _FAMILIES else "other"


def feature_names() -> list[str]:
    rules = [rule.name for rule in DEFAULT_RULES] + [SHAPE_RULE]
    return ([f"value: {name}" for name in (*_FAMILIES, "other")]
            + [f"{rule} ({'strong' if strong else 'weak'})" for rule in rules for strong in (True, False)]
            # Shared by every rule, so that one the fitting labels never saw (a user's shapes) still counts.
            + ["any finding (strong)", "any finding (weak)"]
            + ["predicate: log triples", "predicate: kinds of value", "predicate: share flagged",
               "predicate: one value per subject", "documents read", "documents: log-odds"]
            + [f"documents: {outcome}" for outcome in _OUTCOMES])


_DOCUMENTS_LOG_ODDS = feature_names().index("documents: log-odds")
_VALUES = [(k, name.removeprefix("value: ")) for k, name in enumerate(feature_names()) if name.startswith("value: ")]


def row_family(row: Sequence[float]) -> str:
    """The family of value a feature row was made for."""
    found = next((name for k, name in _VALUES if row[k]), None)
    if found is None:
        raise ValueError("a feature row names no family of value: rows are made by `features`")
    return found


@dataclass(frozen=True, slots=True)
class DocumentSide:
    """What the documents said of a triple: its outcome and P(true); None where no documents were read."""

    outcome: str | None
    p_true: float | None


def _logit(p: float) -> float:
    p = min(max(p, 1e-3), 1 - 1e-3)
    return math.log(p / (1 - p))


class PredicateStats:
    """A predicate's features from the profile, with the share of the graph's triples of it the rules flag
    (`flagged` of `seen`: of the triples read, which may be a sample of the profiled graph)."""

    def __init__(self, profile: GraphProfile, flagged: dict[str, int], seen: dict[str, int]):
        self.profile, self.flagged, self.seen = profile, flagged, seen

    def features(self, predicate: str) -> tuple[float, float, float, float]:
        counts = self.profile.predicates.get(predicate)
        if counts is None or not counts.triples:
            return 0.0, 0.0, 0.0, 0.0
        total = counts.triples
        entropy = -sum(n / total * math.log(n / total) for n in counts.classes.values() if n)
        share = self.flagged.get(predicate, 0) / max(1, self.seen.get(predicate, 0))
        return math.log1p(total) / 10, entropy, share, counts.one_value_share


def features(triple: GraphTriple, value_kind: str, findings: Sequence[GraphFinding], stats: PredicateStats,
             documents: DocumentSide | None) -> list[float]:
    names = feature_names()
    row = dict.fromkeys(names, 0.0)
    row[f"value: {value_family(value_kind)}"] = 1.0
    for finding in findings:
        strength = "strong" if finding.strong else "weak"
        row[f"{finding.rule} ({strength})"] = row[f"any finding ({strength})"] = 1.0
    (row["predicate: log triples"], row["predicate: kinds of value"], row["predicate: share flagged"],
     row["predicate: one value per subject"]) = stats.features(triple.predicate)
    if documents is not None:
        row["documents read"] = 1.0
        row["documents: log-odds"] = _logit(documents.p_true if documents.p_true is not None else 0.5)
        if documents.outcome in _OUTCOMES:
            row[f"documents: {documents.outcome}"] = 1.0
    return [row[name] for name in names]


class GraphPrior(Strict):
    """The fitted model: a weight per feature (by name), an intercept, and from labels or reviews how much the
    documents count (`documents`), per-predicate offsets, within a predicate per-family-of-value offsets (`families`:
    predicate, then family, as `value_family` names it), and the vocabularies the labels covered widely enough for
    their rarest predicates to be judged (`vocabularies`)."""

    weights: dict[str, float]
    intercept: float
    # The weights say how much DBpedia's gathered pages counted; a user's reviews say how much theirs do.
    documents: DocumentsRefit = DocumentsRefit()
    offsets: dict[str, float] = {}
    families: dict[str, dict[str, float]] = {}
    vocabularies: list[str] = []
    fitted_on: str

    def family_offset(self, predicate: str, family: str | None) -> float:
        return self.families.get(predicate, {}).get(family, 0.0) if family else 0.0

    def offset(self, predicate: str, family: str | None) -> float:
        """What the labels of a predicate, and of its values of a family, add to a triple's log-odds."""
        return self.offsets.get(predicate, 0.0) + self.family_offset(predicate, family)

    def log_odds(self, row: Sequence[float], predicate: str) -> float:
        z = self.intercept + sum(self.weights.get(name, 0.0) * value for name, value in zip(feature_names(), row))
        return self.documents.apply(z, row[_DOCUMENTS_LOG_ODDS]) + self.offset(predicate, row_family(row))

    def lowest(self, row: Sequence[float], predicate: str) -> str:
        """What lowers a triple's log-odds most: a feature's name, its predicate's labels, or (where nothing
        present lowers it) the base rate."""
        refit = self.documents
        parts = [(refit.scale * self.weights.get(name, 0.0) * value, name)
                 for name, value in zip(feature_names(), row) if value]
        parts.append((refit.weight * row[_DOCUMENTS_LOG_ODDS], "documents: log-odds"))
        parts.append((self.offsets.get(predicate, 0.0), "labels: its predicate's triples were often wrong where labelled"))
        family = row_family(row)
        parts.append((self.family_offset(predicate, family),
                      f"labels: its predicate's triples whose value is {family} were often wrong where labelled"))
        low = min(parts)
        return low[1] if low[0] < 0 else "base: such triples are often wrong in such graphs"

    def p_true(self, row: Sequence[float], predicate: str) -> float:
        return 1 / (1 + math.exp(-self.log_odds(row, predicate)))

    def refit_offsets(self, predicates: Sequence[str], probabilities: Sequence[float], labels: Sequence[bool],
                      families: Sequence[str | None] | None = None, strength: float = SHRINKAGE) -> GraphPrior:
        """Offsets from labels or reviews, as shifts of log-odds from what the model expects without any: each
        labelled predicate's true share, shrunk toward the model by `strength` labels' weight; and where `families`
        gives a triple's family of value (None: not known), each labelled family's, shrunk by as many toward the
        predicate's shift learned from its other families' labels, so that no label counts twice and a predicate of
        one family is shifted as it would be without families. A family its labels do not cover that has an offset of
        its own keeps its P(true), where every label says its family (a label that does not speaks of the whole
        predicate); one without follows its predicate's shift. `probabilities` are this prior's P(true) of the
        labelled triples, as their verdicts carry it."""
        families = families if families is not None else [None] * len(predicates)
        groups: dict[str, list[tuple[str | None, float, bool]]] = {}
        for predicate, family, p, label in zip(predicates, families, probabilities, labels):
            groups.setdefault(predicate, []).append((family, _logit(p) - self.offset(predicate, family), bool(label)))
        offsets = dict(self.offsets)
        shifts = {predicate: dict(by_family) for predicate, by_family in self.families.items()}
        for predicate, group in groups.items():
            offsets[predicate] = _shrunk_offset([(z, label) for _, z, label in group], strength)
            by_family = shifts.setdefault(predicate, {})
            if all(family for family, _, _ in group):
                for family in by_family:
                    by_family[family] += self.offsets.get(predicate, 0.0) - offsets[predicate]
            for family in {family for family, _, _ in group if family}:
                others = [(z, label) for other, z, label in group if other != family]
                toward = _shrunk_offset(others, strength) if others else 0.0
                own = _shrunk_offset([(z + toward, label) for other, z, label in group if other == family], strength)
                by_family[family] = toward + own - offsets[predicate]
        return self.model_copy(update={"offsets": offsets,
                                       "families": {predicate: by_family for predicate, by_family in shifts.items()
                                                    if by_family}})

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=1), encoding="utf-8")
        return path

    @staticmethod
    def load(path: Path | None = None) -> GraphPrior:
        """A saved model, or the shipped one."""
        try:
            text = (Path(path).read_text(encoding="utf-8") if path is not None
                    else resources.files("agentkgv.graph").joinpath(SHIPPED).read_text(encoding="utf-8"))
            return GraphPrior.model_validate_json(text)
        except FileNotFoundError:
            raise DataError(path or SHIPPED, "no graph prior here") from None
        except ValueError as error:
            raise DataError(path or SHIPPED, f"not a graph prior: {str(error).splitlines()[0]}") from None


def _shrunk_offset(pairs: Sequence[tuple[float, bool]], strength: float) -> float:
    """The shift of log-odds that takes the mean P(true) of `pairs` (log-odds without the offset, label) to their
    true share, shrunk toward that mean by `strength` labels' weight."""
    expected = sum(1 / (1 + math.exp(-z)) for z, _ in pairs) / len(pairs)
    true = sum(label for _, label in pairs)
    return _logit((true + strength * expected) / (len(pairs) + strength)) - _logit(expected)


def prior_digest(prior: GraphPrior) -> str:
    """What a run pins of the prior it read. A refit that changes nothing is left out, so that a prior saved before
    refits existed pins as it did, and its runs resume and `learn` from them."""
    unchanged = {name for name, default in (("documents", DocumentsRefit()), ("families", {}), ("vocabularies", []))
                 if getattr(prior, name) == default} or None
    return hashlib.sha256(prior.model_dump_json(exclude=unchanged).encode()).hexdigest()[:16]


def shipped_prior_path() -> Path:
    """Where the shipped prior lives in the package (written by `train-graph-prior`)."""
    return Path(__file__).with_name(SHIPPED)


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A reviewed triple as its verdict carries it: the P(true) the run gave, whether the graph's prior gave it
    (else the documents did), the documents' own P(true) where they were read, the person's label, and the family
    of its value as the graph read it (None: a verdict that does not say)."""

    predicate: str
    p_true: float
    prior_gave: bool
    documents_p_true: float | None
    label: bool
    family: str | None = None

    @property
    def documents_log_odds(self) -> float:
        return 0.0 if self.documents_p_true is None else _logit(self.documents_p_true)


def refit_from_reviews(prior: GraphPrior, reviewed: Sequence[Reviewed]) -> GraphPrior:
    """`prior` refitted on a user's reviews, as `learn` does: first how much the documents count, on the reviewed
    triples whose P(true) the prior gave (`fit_refit`; unchanged where fewer than `MIN_REFIT` of them, or of one
    label only), then the offsets on all, each at the P(true) the refit gives it."""
    given = [r for r in reviewed if r.prior_gave]
    change = DocumentsRefit()
    if len(given) >= MIN_REFIT and len({r.label for r in given}) == 2:
        change = fit_refit([_logit(r.p_true) - prior.offset(r.predicate, r.family) for r in given],
                           [r.documents_log_odds for r in given], [r.label for r in given])
    refit = prior.model_copy(update={"documents": prior.documents.then(change)})

    def now(r: Reviewed) -> float:
        offset = prior.offset(r.predicate, r.family)
        if not r.prior_gave:
            # The documents gave it, no offset in it: `refit_offsets` takes the offsets out of what it is given.
            return 1 / (1 + math.exp(-(_logit(r.p_true) + offset)))
        return 1 / (1 + math.exp(-(change.apply(_logit(r.p_true) - offset, r.documents_log_odds) + offset)))
    return refit.refit_offsets([r.predicate for r in reviewed], [now(r) for r in reviewed], [r.label for r in reviewed],
                               [r.family for r in reviewed])


def fit_refit(z: Sequence[float], d: Sequence[float], labels: Sequence[bool],
              strength: float = REFIT_STRENGTH) -> DocumentsRefit:
    """The (shift, scale, weight) minimizing the log loss of `shift + scale * z + weight * d` on `labels`, plus
    `strength` / 2 times the squared distance from (0, 1, 0): a few reviews move the model little. Written out
    because scikit-learn's logistic model regularizes toward zero, which would discard the model's own log-odds;
    SciPy minimizes it."""
    import numpy as np
    from scipy.optimize import minimize

    x = np.column_stack([np.ones(len(z)), np.asarray(z, float), np.asarray(d, float)])
    y = np.asarray(labels, float)
    start = np.array([0.0, 1.0, 0.0])

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        t = x @ theta
        p = 1 / (1 + np.exp(-t))
        value = np.sum(np.logaddexp(0, t) - y * t) + strength / 2 * np.sum((theta - start) ** 2)
        return float(value), x.T @ (p - y) + strength * (theta - start)

    # A negative scale would turn the model's ranking upside down: no few reviews can say that much.
    theta = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=[(None, None), (0.0, None), (None, None)]).x
    return DocumentsRefit(shift=float(theta[0]), scale=float(theta[1]), weight=float(theta[2]))


def fit_prior(rows: Sequence[Sequence[float]], labels: Sequence[bool], predicates: Sequence[str], fitted_on: str,
              c: float = 1.0) -> GraphPrior:
    """A logistic model of the labels from the feature rows (scikit-learn, L2 with `c`), then each predicate's offset
    and each family of value's within it from its labelled triples, as `learn` refits them from reviews
    (`GraphPrior.refit_offsets`): the shares of wrong triples of a real graph's predicates differ more than their
    profiles say (DBpedia's `homepage` 77%, `birthPlace` 6%), and so do a predicate's values of different families.
    The vocabularies of `MIN_VOCABULARY` labelled predicates or more are kept as ones it knows."""
    from sklearn.linear_model import LogisticRegression

    labels = [bool(label) for label in labels]
    model = LogisticRegression(C=c, max_iter=2000).fit(list(rows), labels)
    prior = GraphPrior(weights={name: float(w) for name, w in zip(feature_names(), model.coef_[0])},
                       intercept=float(model.intercept_[0]), fitted_on=fitted_on)
    labelled: dict[str, set[str]] = {}
    for predicate in predicates:
        labelled.setdefault(vocabulary(predicate), set()).add(predicate)
    prior = prior.model_copy(update={"vocabularies": sorted(
        space for space, covered in labelled.items() if space and len(covered) >= MIN_VOCABULARY)})
    return prior.refit_offsets(predicates, [prior.p_true(row, p) for row, p in zip(rows, predicates)], labels,
                               [row_family(row) for row in rows])
