"""What the graph itself says: its profile learned without labels, the findings each rule draws from it, a
user's SHACL shapes, and how the graph's word joins the documents' in a verdict."""

from __future__ import annotations

import math
from dataclasses import replace

from pathlib import Path

import pytest

from agentkgv.core.graph_checked import compose, documents_side
from agentkgv.core.verdict import EvidenceRef, Finding, Verdict
from agentkgv.data.errors import DataError
from agentkgv.data.records import RdfTerms, Triple
from agentkgv.graph.checker import GraphChecker, GraphSettings, open_graph
from agentkgv.graph.evidence import GraphEvidence
from agentkgv.graph.prior import DocumentSide, GraphPrior, Reviewed, refit_from_reviews
from agentkgv.graph.profile import GraphProfile, GraphTriple, build_profile, claim_triple, file_triples
from agentkgv.graph.shapes import profile_shapes, shape_findings
from agentkgv.graph.values import Term, family, text_class, value_class, vocabulary

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def person(n: int) -> Term:
    return Term("iri", f"{EX}Person_{n}")


def people_graph(people: int = 30) -> list[GraphTriple]:
    """People with one spouse each (a person) and one birth date each."""
    triples = []
    for n in range(people):
        triples.append(GraphTriple(person(n), f"{EX}spouse", person(n + 1000)))
        triples.append(GraphTriple(person(n), f"{EX}birthDate", Term("literal", f"19{n + 10}-03-0{n % 9 + 1}", f"{XSD}date")))
    return triples


def findings_of(triples: list[GraphTriple], triple: GraphTriple):
    return GraphEvidence(build_profile(lambda: triples, "test"), triples).findings(triple)


def test_a_year_as_a_spouse_is_flagged_where_spouses_are_people():
    odd = GraphTriple(person(77), f"{EX}spouse", Term("literal", "2013"))
    found = findings_of(people_graph(60) + [odd], odd)
    assert [f.rule for f in found] == ["rare kind of value"] and found[0].strong
    assert "a year" in found[0].reason and found[0].out_of == 61 and found[0].observed == 1
    assert findings_of(people_graph() + [odd], people_graph()[0]) == []


def test_a_second_value_of_a_one_value_predicate_is_flagged():
    second = GraphTriple(person(3), f"{EX}birthDate", Term("literal", "1950-01-01", f"{XSD}date"))
    graph = people_graph(40) + [second]
    found = findings_of(graph, second)
    assert [f.rule for f in found] == ["second value"] and not found[0].strong
    # Both values are named: the graph cannot say which is wrong.
    assert [f.rule for f in findings_of(graph, graph[7])] == ["second value"]


def test_an_object_that_is_the_subject_or_a_node_made_for_it_is_a_self_loop():
    loops = [GraphTriple(person(500), f"{EX}spouse", person(500)),
             GraphTriple(person(600), f"{EX}spouse", Term("iri", f"{EX}Person_600__8"))]
    graph = people_graph(60) + loops
    for loop, what in zip(loops, ("its subject", "a node made for its subject")):
        [found] = [f for f in findings_of(graph, loop) if f.rule == "self-loop"]
        assert found.strong and what in found.reason
    # Another person's node is no loop.
    other = GraphTriple(person(700), f"{EX}spouse", Term("iri", f"{EX}Person_9__8"))
    assert "self-loop" not in [f.rule for f in findings_of(graph + [other], other)]


@pytest.mark.parametrize("value", ["tp://dbpedia.org/resource/Heart_of_Midlothian_F.C.", "*", "_unknown",
                                   "See: [[#Former members"])
def test_a_malformed_value_is_flagged(value):
    odd = GraphTriple(person(78), f"{EX}spouse", Term("literal", value))
    found = findings_of(people_graph() + [odd], odd)
    assert found and found[0].rule == "malformed value" and found[0].strong


def test_value_classes():
    assert value_class(Term("iri", "tp://dbpedia.org/resource/X")) == "a cut-off IRI"
    assert value_class(Term("iri", "http://dbpedia.org/resource/Jimmy_Wales__8")) == "an auxiliary node"
    assert value_class(Term("iri", "http://dbpedia.org/resource/Category:Road_tunnels")) == "a Category page"
    assert [text_class(t) for t in ("60px", "ffffff", "--11-10", "2011", "12 March 1931", "3 Doors Down", "1.76 m")] == [
        "an image size", "a colour code", "a month and day", "a year", "a date", "a name", "a quantity with a unit"]
    # A unit ends where lower-case letters stop: a firm's name written on to a number is of the names' family.
    assert [family(text_class(t)) for t in ("360Commerce", "7 Eleven", "5 Mine", "5 kWh", "50 MHz", "100 Mbit/s",
                                             "13.8 Gyr", "90 Min")] == ["a name"] * 3 + ["a quantity with a unit"] * 5


def test_a_graph_too_small_to_learn_a_predicate_flags_nothing_there():
    odd = GraphTriple(person(77), f"{EX}spouse", Term("literal", "2013"))
    assert findings_of(people_graph(4) + [odd], odd) == []


def test_a_rare_predicate_of_a_vocabulary_the_prior_was_fitted_on_is_known_and_one_of_another_not():
    """A DBpedia raw infobox key seen once (`heightweight`) is wrong as often as the raw keys the prior learned from:
    its P(true) may call it false. A predicate of a vocabulary the prior was not fitted on widely, seen as rarely, may
    not, even where the prior has labels of some of that vocabulary's predicates (a user's reviews)."""
    from agentkgv.graph.prior import MIN_VOCABULARY, fit_prior, feature_names

    other = "http://other.example/"
    prior = GraphPrior(weights={}, intercept=-2.0, offsets={f"{other}homepage": 0.0}, vocabularies=[EX],
                       fitted_on="test")
    rare = [GraphTriple(person(1), f"{space}heightweight", Term("literal", "185")) for space in (EX, other)]
    checker = GraphChecker(build_profile(lambda: rare, "g"), rare, prior)
    assert checker.knows(f"{EX}heightweight") and not checker.knows(f"{other}heightweight")
    claims = [Triple("Person 1", "heightweight", "185",
                     rdf=RdfTerms(f"<{EX}Person_1>", f"<{space}heightweight>", '"185"')) for space in (EX, other)]
    known, unknown = (compose(verdict(Finding.NOT_ENOUGH_EVIDENCE.value, claim), checker) for claim in claims)
    assert known.outcome == Finding.GRAPH_CONTRADICTED.value and known.verdict is False
    assert unknown.verdict is None and unknown.outcome == Finding.NOT_ENOUGH_EVIDENCE.value
    # What makes a vocabulary known: labels of MIN_VOCABULARY of its predicates where the prior was fitted.
    row = [1.0 if name == "value: a number" else 0.0 for name in feature_names()]
    wide = [f"{EX}key{k}" for k in range(MIN_VOCABULARY)] * 2 + [f"{other}key{k}"
                                                                 for k in range(MIN_VOCABULARY - 1)] * 2
    fitted = fit_prior([row] * len(wide), [k % 2 == 0 for k in range(len(wide))], wide, "test")
    assert fitted.vocabularies == [EX]
    assert vocabulary(f"{EX}a") == EX and vocabulary("http://www.w3.org/2000/01/rdf-schema#label").endswith("schema#")
    assert vocabulary("http://example.org") == vocabulary("urn:isbn:1") == vocabulary("spouse") == ""


def test_a_rare_type_is_flagged():
    typed = people_graph()
    kind = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    typed += [GraphTriple(person(n + 1000), kind, Term("iri", f"{EX}Human")) for n in range(30)]
    city = Term("iri", f"{EX}Lyon")
    odd = GraphTriple(person(79), f"{EX}spouse", city)
    found = findings_of(typed + [GraphTriple(city, kind, Term("iri", f"{EX}City")), odd], odd)
    assert [f.rule for f in found] == ["rare type"] and "City" in found[0].reason


def test_a_file_profile_streams_the_same_counts(tmp_path):
    graph = people_graph()
    path = tmp_path / "g.nt"
    path.write_text("".join(f"<{t.subject.value}> <{t.predicate}> " + (f"<{t.object.value}>" if t.object.kind == "iri"
                            else f'"{t.object.value}"^^<{t.object.datatype}>') + " .\n" for t in graph))
    from_file = build_profile(file_triples(path), "g")
    in_memory = build_profile(lambda: graph, "g")
    assert from_file.predicates == in_memory.predicates and from_file.fingerprint == in_memory.fingerprint
    saved = from_file.save(tmp_path / "p.json")
    assert GraphProfile.load(saved) == from_file
    # A profile an older version made counted otherwise: refused, not misread.
    older = tmp_path / "old.json"
    older.write_text(from_file.model_copy(update={"version": from_file.version - 1}).model_dump_json())
    with pytest.raises(DataError, match="make it again"):
        GraphProfile.load(older)


def test_a_shacl_violation_is_cited(tmp_path):
    graph = people_graph()
    odd = GraphTriple(person(9), f"{EX}birthDate", Term("literal", "sometime"))
    shapes = tmp_path / "shapes.ttl"
    shapes.write_text(f"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <{XSD}> .
<{EX}BirthShape> a sh:NodeShape ; sh:targetSubjectsOf <{EX}birthDate> ;
  sh:property [ sh:path <{EX}birthDate> ; sh:datatype xsd:date ] .""")
    found = shape_findings(graph + [odd], shapes)
    assert list(found) == [odd]
    assert found[odd][0].rule == "shape violation" and f"{EX}BirthShape" in found[odd][0].reason


def test_the_profile_as_shapes_validates_the_graph_it_came_from(tmp_path):
    second = GraphTriple(person(3), f"{EX}birthDate", Term("literal", "1950-01-01", f"{XSD}date"))
    graph = people_graph(40) + [second]
    shapes = tmp_path / "profile.ttl"
    shapes.write_text(profile_shapes(build_profile(lambda: graph, "g")))
    found = shape_findings(graph, shapes)
    # One value per subject (sh:maxCount 1) is what the profile saw for birth dates: the subject with two breaks it.
    assert {t.subject for t in found} == {person(3)}


def verdict(outcome: str, triple: Triple) -> Verdict:
    supported = outcome == Finding.SUPPORTED.value
    return Verdict("t", triple, True if supported else None, "agentkgv", confidence=0.9 if supported else None,
                   p_true=0.9 if supported else 0.4, undecided=not supported, outcome=outcome,
                   evidence=[EvidenceRef("p1", "Anna Berg married in 2013.")])


def checker_with_odd_spouse() -> tuple[GraphChecker, Triple]:
    graph = people_graph(60)
    odd = Triple("Person 77", "spouse", "2013", rdf=RdfTerms(f"<{EX}Person_77>", f"<{EX}spouse>", '"2013"'))
    triples = graph + [claim_triple(odd)]
    return open_graph(GraphSettings(), triples, "test").checker, odd


def test_strong_graph_evidence_makes_a_triple_false_unless_a_trusted_passage_supports_it(tmp_path):
    checker, odd = checker_with_odd_spouse()
    silent = compose(verdict(Finding.NOT_ENOUGH_EVIDENCE.value, odd), checker)
    assert silent.verdict is False and silent.outcome == Finding.GRAPH_CONTRADICTED.value
    assert silent.documents_outcome == Finding.NOT_ENOUGH_EVIDENCE.value and "a year" in silent.reason
    assert silent.graph and silent.p_true < 0.5
    # To 4 places, as a reader's P(true) is: what a user reads, and exports.
    assert (silent.p_true, silent.confidence) == (round(silent.p_true, 4), round(silent.confidence, 4))
    supported = compose(verdict(Finding.SUPPORTED.value, odd), checker)
    # A passage states it and the graph is strongly against it: not false, but a person decides.
    assert supported.verdict is None and supported.undecided and supported.outcome == Finding.SUPPORTED.value
    assert supported.p_true < 0.5 and "the documents support it, but the graph" in supported.reason
    assert supported.graph == silent.graph  # the finding is shown beside the documents' word
    from agentkgv.eval.html_report import review_queue, write_review_csv

    write_review_csv(tmp_path / "review.csv", review_queue([supported], below=0.7), 0.7)
    assert "the documents support it, but the graph" in (tmp_path / "review.csv").read_text()


def test_the_documents_verdict_stands_where_the_graph_has_no_finding_on_the_triple():
    # A predicate the graph holds many triples of, and a triple of it nothing in the graph is against: the graph's
    # base rates do not overturn what the user's documents decided. A contradiction keeps its P(true); support is
    # ranked by the graph's P(true), at 0.5 or above.
    checker, _ = checker_with_odd_spouse()
    plain = Triple("Person 3", "spouse", "Person 1003", rdf=RdfTerms(f"<{EX}Person_3>", f"<{EX}spouse>", f"<{EX}Person_1003>"))
    contradicted = Verdict("t", plain, False, "agentkgv", confidence=0.98, p_true=0.02, outcome=Finding.CONTRADICTED.value,
                           stated_instead="Person 1004")
    composed = compose(contradicted, checker)
    assert checker.knows(claim_triple(plain).predicate) and composed.graph == []
    assert composed.verdict is False and not composed.undecided and composed.p_true == 0.02
    stated = replace(contradicted, verdict=True, confidence=0.9, p_true=0.9, outcome=Finding.SUPPORTED.value,
                     stated_instead=None)
    supported = compose(stated, checker)
    assert supported.verdict is True and not supported.undecided and supported.graph == []
    assert supported.p_true_by_graph and supported.documents_p_true == 0.9 and supported.p_true >= 0.5
    assert supported.p_true == round(checker.p_true(claim_triple(plain), [], documents_side(stated)), 4) != 0.9
    doubted = checker.with_prior(checker.prior.refit_offsets([f"{EX}spouse"] * 40, [0.9] * 40, [False] * 40))
    floor = compose(stated, doubted)
    assert floor.p_true == 0.5 and floor.verdict is True
    assert not floor.p_true_by_graph and floor.documents_p_true == 0.9  # not a P(true) `learn` may refit from


def test_another_value_contradicts_nothing_where_the_graph_gives_many_subjects_several():
    # Bands with genres, a third of them with two: another genre a passage states is no contradiction in this graph.
    genres = ["rock", "jazz", "disco", "house", "ambient", "new age"]
    graph = [GraphTriple(Term("iri", f"{EX}Band_{n}"), f"{EX}genre", Term("iri", f"{EX}{genres[n % 6]}")) for n in range(30)]
    graph += [GraphTriple(Term("iri", f"{EX}Band_{n}"), f"{EX}genre", Term("iri", f"{EX}{genres[(n + 1) % 6]}"))
              for n in range(0, 30, 3)]
    checker = open_graph(GraphSettings(), graph, "bands").checker
    claim = Triple("Band 4", "genre", "ambient", rdf=RdfTerms(f"<{EX}Band_4>", f"<{EX}genre>", f"<{EX}ambient>"))
    contradicted = Verdict("t", claim, False, "agentkgv", confidence=0.98, p_true=0.02, outcome=Finding.CONTRADICTED.value,
                           stated_instead="disco")
    composed = compose(contradicted, checker)
    assert composed.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and composed.documents_outcome == Finding.CONTRADICTED.value
    assert composed.verdict is None and composed.undecided and composed.stated_instead == "disco"
    assert "'disco'" in composed.reason and "10 of this predicate's 30 subjects" in composed.reason
    assert composed.p_true_by_graph and composed.p_true != 0.02 and composed.confidence == max(composed.p_true, 1 - composed.p_true)
    # Where the graph then calls it false, its reason says what the documents stated too.
    low = compose(contradicted, checker, false_below=0.99)
    assert low.outcome == Finding.GRAPH_CONTRADICTED.value and low.documents_outcome == Finding.CONTRADICTED.value
    assert low.stated_instead == "disco" and "'disco'" in low.reason and low.confidence == pytest.approx(1 - low.p_true)
    # One value each, and the contradiction stands (as for the spouses above).
    single = open_graph(GraphSettings(), graph[:30], "bands").checker
    assert compose(contradicted, single).outcome == Finding.CONTRADICTED.value
    # Another of several values was read as such already: it stands in this graph too.
    several = replace(contradicted, several_valued=True)
    assert compose(several, checker) == replace(several, value_family="an IRI of the graph")
    # A verdict with no confidence of its own keeps none.
    unchecked = Verdict("t", claim, None, "agentkgv", outcome=Finding.NOT_CHECKABLE.value)
    assert compose(unchecked, checker).confidence is None


def test_the_graph_calls_false_a_silent_triple_it_puts_under_four_in_ten():
    # Forty people with one spouse each: the graph knows the predicate, and nothing it finds is against the claim.
    graph = [GraphTriple(Term("iri", f"{EX}Person_{n}"), f"{EX}spouse", Term("iri", f"{EX}Person_{n + 100}"))
             for n in range(40)]
    checker = open_graph(GraphSettings(), graph, "people").checker
    claim = Triple("Person 3", "spouse", "Person 103", rdf=RdfTerms(f"<{EX}Person_3>", f"<{EX}spouse>", f"<{EX}Person_103>"))
    silent = Verdict("t", claim, None, "agentkgv", p_true=0.5, undecided=True, outcome=Finding.NOT_ENOUGH_EVIDENCE.value)
    triple = claim_triple(claim)
    base = checker.p_true(triple, [], documents_side(silent))

    def at(p: float) -> GraphChecker:  # the graph's P(true) of the claim moved to `p` by its predicate's labels
        shift = math.log(p / (1 - p)) - math.log(base / (1 - base))
        return checker.with_prior(checker.prior.model_copy(update={"offsets": {f"{EX}spouse": shift}}))
    doubted = compose(silent, at(0.35))
    assert abs(doubted.p_true - 0.35) < 1e-6 and GraphSettings().false_below == 0.4
    assert doubted.verdict is False and doubted.outcome == Finding.GRAPH_CONTRADICTED.value
    assert doubted.documents_outcome == Finding.NOT_ENOUGH_EVIDENCE.value and "0.35" in doubted.reason
    # A stricter user's threshold leaves it to review, and a P(true) above the default does too.
    assert compose(silent, at(0.35), false_below=0.3).verdict is None
    assert compose(silent, at(0.45)).verdict is None and compose(silent, at(0.45)).undecided


@pytest.mark.parametrize("weight", ["rare kind of value (weak)", "any finding (weak)"])
def test_a_finding_that_lowers_p_true_is_the_reason_given_in_its_own_words(weight):
    # Forty spouses who are people and one that is a year: a weak finding (1 of 41 is over the strong share).
    graph = [GraphTriple(Term("iri", f"{EX}Person_{n}"), f"{EX}spouse", Term("iri", f"{EX}Person_{n + 100}"))
             for n in range(40)]
    graph.append(GraphTriple(Term("iri", f"{EX}Person_50"), f"{EX}spouse", Term("literal", "2013")))
    prior = GraphPrior(weights={weight: -3.0}, intercept=0.0, fitted_on="a test")
    checker = open_graph(GraphSettings(), graph, "people").checker.with_prior(prior)
    claim = Triple("Person 50", "spouse", "2013", rdf=RdfTerms(f"<{EX}Person_50>", f"<{EX}spouse>", '"2013"'))
    silent = Verdict("t", claim, None, "agentkgv", p_true=0.5, undecided=True, outcome=Finding.NOT_ENOUGH_EVIDENCE.value)
    composed = compose(silent, checker)
    assert [(f.rule, f.strong) for f in composed.graph] == [("rare kind of value", False)]
    assert composed.verdict is False and composed.outcome == Finding.GRAPH_CONTRADICTED.value
    assert composed.reason.startswith(f"the graph puts P(true) at {composed.p_true:.2f}: rare kind of value: `2013` is a year")
    assert "(weak)" not in composed.reason


def test_the_reason_cites_the_finding_of_the_strength_that_lowered_p_true():
    # A second spouse (weak, and weighed as raising P(true)) and the subject as its own spouse (a strong self-loop).
    graph = [GraphTriple(Term("iri", f"{EX}Person_{n}"), f"{EX}spouse", Term("iri", f"{EX}Person_{n + 100}"))
             for n in range(40)]
    odd = GraphTriple(Term("iri", f"{EX}Person_5"), f"{EX}spouse", Term("iri", f"{EX}Person_5"))
    prior = GraphPrior(weights={"any finding (strong)": -3.0, "second value (weak)": 0.7}, intercept=0.0,
                       fitted_on="a test")
    checker = open_graph(GraphSettings(), graph + [odd], "people").checker.with_prior(prior)
    findings = checker.findings(odd)
    assert [(f.rule, f.strong) for f in findings] == [("second value", False), ("self-loop", True)]
    assert checker.lowered_by(odd, findings, DocumentSide("supported", 0.9)).startswith("self-loop: its object is its subject")


def test_a_graph_that_does_not_know_a_predicate_leaves_the_documents_verdict_and_p_true():
    small = [claim_triple(Triple(f"Town {n}", "population", f"{n + 2},000,000")) for n in range(5)]
    checker = open_graph(GraphSettings(), small, "small").checker
    stated = Verdict("t", Triple("Town 1", "population", "3,000,000"), True, "agentkgv", confidence=0.9, p_true=0.9,
                     outcome=Finding.SUPPORTED.value)
    composed = compose(stated, checker)
    assert composed.verdict is True and composed.p_true == 0.9 and composed.confidence == 0.9


def test_the_graph_prior_is_not_a_constant_and_reviews_refit_it():
    checker, odd = checker_with_odd_spouse()
    probabilities = {round(checker.p_true(t, checker.findings(t), None), 3) for t in people_graph()[:2]}
    assert len(probabilities) == 2  # a spouse and a birth date: not one value for all
    prior = checker.prior
    row, predicate = checker.row(people_graph()[0], None), f"{EX}spouse"
    p = prior.p_true(row, predicate)
    refit = prior.refit_offsets([predicate] * 20, [p] * 20, [False] * 20)
    assert refit.p_true(row, predicate) < p - 0.2
    few = prior.refit_offsets([predicate], [p], [False])
    assert refit.p_true(row, predicate) < few.p_true(row, predicate) < p
    # A refit starts from what the prior expects without its old offsets: refitting on the same reviews twice
    # lands where once does.
    again = refit.refit_offsets([predicate] * 20, [refit.p_true(row, predicate)] * 20, [False] * 20)
    assert abs(again.p_true(row, predicate) - refit.p_true(row, predicate)) < 1e-9


def test_a_fitted_prior_learns_each_predicates_share_of_wrong_triples():
    """Two predicates whose triples look alike to the graph (one feature row) but whose labels differ: the fitted
    prior gives the often wrong one the lower P(true), as DBpedia's `homepage` against its `birthPlace`."""
    from agentkgv.graph.prior import feature_names, fit_prior

    names = feature_names()
    row = [1.0 if name == "value: a name" else 0.0 for name in names]
    other = [1.0 if name == "documents read" else value for name, value in zip(names, row)]
    rows = [row] * 80 + [other] * 20  # a second feature row, so the model has something to fit
    often_wrong, rarely_wrong = f"{EX}homepage", f"{EX}birthPlace"
    predicates = [often_wrong] * 40 + [rarely_wrong] * 40 + [rarely_wrong] * 20
    labels = [k % 4 == 0 for k in range(40)] + [k % 10 != 0 for k in range(40)] + [True] * 20
    prior = fit_prior(rows, labels, predicates, "test")
    assert prior.p_true(row, often_wrong) < 0.4 < 0.8 < prior.p_true(row, rarely_wrong)
    # A predicate no labels were seen of is scored by the model alone, between the two.
    assert prior.p_true(row, often_wrong) < prior.p_true(row, f"{EX}unseen") < prior.p_true(row, rarely_wrong)


def test_a_fitted_prior_learns_how_often_each_predicates_values_of_a_family_are_wrong():
    """A predicate whose names are right and whose links are wrong beside one whose links are right and whose names
    are wrong (DBpedia's `name` given as another page's IRI): neither the predicate nor the family of value alone
    tells them apart, the two together do; reviews teach it too."""
    from agentkgv.graph.prior import feature_names, fit_prior

    names = feature_names()

    def row(family: str) -> list[float]:
        return [1.0 if name == f"value: {family}" else 0.0 for name in names]

    name, link = row("a name"), row("an IRI of the graph")
    named, team = f"{EX}name", f"{EX}team"
    rows = [name] * 40 + [link] * 20 + [link] * 40 + [name] * 20
    predicates = [named] * 60 + [team] * 60
    labels = ([k % 10 != 0 for k in range(40)] + [k % 5 == 0 for k in range(20)]
              + [k % 10 != 0 for k in range(40)] + [k % 5 == 0 for k in range(20)])
    prior = fit_prior(rows, labels, predicates, "test")
    assert prior.p_true(link, named) < 0.45 < 0.75 < prior.p_true(name, named)
    assert prior.p_true(name, team) < 0.45 < 0.75 < prior.p_true(link, team)
    # A user's reviews of a predicate whose links they find wrong, its names right.
    reviews = [Reviewed(f"{EX}homepage", 0.6, False, None, k < 20, "a name" if k < 20 else "an IRI of the graph")
               for k in range(40)]
    refit = refit_from_reviews(GraphPrior(weights={}, intercept=0.4, fitted_on="test"), reviews)
    assert refit.p_true(link, f"{EX}homepage") < 0.45 < 0.7 < refit.p_true(name, f"{EX}homepage")
    assert refit.p_true(link, team) == refit.p_true(name, team) == pytest.approx(1 / (1 + math.exp(-0.4)))


def test_families_count_no_label_twice_and_reviews_of_one_leave_the_others_as_they_were():
    """A predicate whose labels are all of one family is shifted as it would be without families; reviews of one
    family of a predicate leave its other families' P(true) as they were; a prior without families or vocabularies
    pins as a prior saved before they existed did."""
    from agentkgv.graph.prior import feature_names, prior_digest

    names = feature_names()
    name, link = ([1.0 if n == f"value: {family}" else 0.0 for n in names]
                  for family in ("a name", "an IRI of the graph"))
    prior = GraphPrior(weights={}, intercept=0.0, fitted_on="test")
    labels = [k < 3 for k in range(10)]
    plain = prior.refit_offsets([f"{EX}p"] * 10, [0.5] * 10, labels)
    one = prior.refit_offsets([f"{EX}p"] * 10, [0.5] * 10, labels, ["a name"] * 10)
    assert one.p_true(name, f"{EX}p") == pytest.approx(plain.p_true(name, f"{EX}p"))
    assert plain.p_true(name, f"{EX}p") == pytest.approx((3 + 10 * 0.5) / 20)  # ten labels' weight toward the model
    # Names right, links wrong, from DBpedia's labels; then a user reviews links only.
    both = prior.refit_offsets([f"{EX}p"] * 40, [0.5] * 40, [k < 20 for k in range(40)],
                               ["a name"] * 20 + ["an IRI of the graph"] * 20)
    assert both.p_true(link, f"{EX}p") < 0.4 < 0.6 < both.p_true(name, f"{EX}p")
    # Refitted on the same labels at the P(true) it gives them, it is the same prior: its offsets are taken out first.
    again = both.refit_offsets([f"{EX}p"] * 40, [both.p_true(row, f"{EX}p") for row in [name] * 20 + [link] * 20],
                               [k < 20 for k in range(40)], ["a name"] * 20 + ["an IRI of the graph"] * 20)
    assert again.offsets == pytest.approx(both.offsets)
    assert again.families[f"{EX}p"] == pytest.approx(both.families[f"{EX}p"])
    reviews = [Reviewed(f"{EX}p", both.p_true(link, f"{EX}p"), True, None, k < 5, "an IRI of the graph")
               for k in range(10)]
    refit = refit_from_reviews(both, reviews)
    assert refit.p_true(name, f"{EX}p") == pytest.approx(both.p_true(name, f"{EX}p"))
    assert refit.p_true(link, f"{EX}p") > both.p_true(link, f"{EX}p")  # half of them right: more than it thought
    # Reviews that do not say their triples' family (a verdict made before families) speak of the whole predicate.
    unsaid = refit_from_reviews(both, [replace(r, family=None, label=False) for r in reviews])
    assert all(unsaid.p_true(row, f"{EX}p") < both.p_true(row, f"{EX}p") for row in (name, link))
    assert prior_digest(GraphPrior(weights={"value: a name": 1.0}, intercept=0.5, offsets={f"{EX}p": 0.1},
                                   fitted_on="test")) == "c33e28ce5eb616f7"
    assert prior_digest(both) != prior_digest(both.model_copy(update={"families": {}}))


def test_reviews_teach_the_prior_how_much_the_documents_count():
    """A user's documents that say more than DBpedia's gathered pages did: where the reviews show the documents'
    P(true) tracking the labels, the refit prior follows the documents further; few reviews change nothing."""
    checker, _ = checker_with_odd_spouse()
    prior, predicate = checker.prior, f"{EX}spouse"
    married = Triple("Person 0", "spouse", "Person 1000", rdf=RdfTerms(f"<{EX}Person_0>", f"<{EX}spouse>",
                                                                      f"<{EX}Person_1000>"))
    composed = compose(verdict(Finding.NOT_ENOUGH_EVIDENCE.value, married), checker)  # the documents' P(true): 0.4
    assert composed.p_true_by_graph and composed.documents_p_true == 0.4 and composed.p_true != 0.4
    # Reviews: of the triples the prior scored, those the documents put at 0.1 were wrong, at 0.9 right.
    reviews = [Reviewed(predicate, composed.p_true, True, 0.1 if k % 2 else 0.9, k % 2 == 0) for k in range(40)]
    refit = refit_from_reviews(prior, reviews)
    assert refit.documents.weight > 0.5 and refit.documents != prior.documents
    row_low, row_high = (checker.row(people_graph()[0], DocumentSide("not enough evidence", p)) for p in (0.1, 0.9))
    assert refit.p_true(row_high, predicate) - refit.p_true(row_low, predicate) > (
        prior.p_true(row_high, predicate) - prior.p_true(row_low, predicate)) + 0.3
    assert refit_from_reviews(prior, reviews[:5]).documents == prior.documents
    # The refit survives the prior's file.
    assert GraphPrior.model_validate_json(refit.model_dump_json()) == refit


def test_graph_findings_survive_the_verdicts_file():
    checker, odd = checker_with_odd_spouse()
    composed = compose(verdict(Finding.NOT_ENOUGH_EVIDENCE.value, odd), checker)
    assert Verdict.from_json(composed.to_json()) == composed


def test_the_shipped_prior_loads():
    prior = GraphPrior.load()
    assert prior.weights and "DBpedia" in prior.fitted_on


def test_a_store_is_profiled_in_pages_as_its_file_is(tmp_path):
    from agentkgv.data.sparql import GraphSelection
    from agentkgv.data.sparql_clients import EmbeddedStore
    from agentkgv.graph.profile import endpoint_triples

    graph = people_graph()
    path = tmp_path / "g.nt"
    path.write_text("".join(f"<{t.subject.value}> <{t.predicate}> " + (f"<{t.object.value}>" if t.object.kind == "iri"
                            else f'"{t.object.value}"^^<{t.object.datatype}>') + " .\n" for t in graph))
    store = EmbeddedStore(tmp_path / "store")
    store.load(path)
    paged = build_profile(endpoint_triples(store, GraphSelection(pattern="?s ?p ?o ."), page_size=7), "store")
    assert paged.predicates == build_profile(file_triples(path), "file").predicates


def years_and_numbers(odd: str) -> tuple[list[GraphTriple], GraphTriple, GraphTriple]:
    graph = [GraphTriple(person(n), f"{EX}debut", Term("literal", str(1950 + n))) for n in range(30)]
    graph += [GraphTriple(person(n), f"{EX}population", Term("literal", str(100_000 * (n + 3)))) for n in range(30)]
    in_years, in_numbers = (GraphTriple(person(90), f"{EX}{p}", Term("literal", odd)) for p in ("debut", "population"))
    return graph + [in_years, in_numbers], in_years, in_numbers


def test_two_years_run_together_are_wrong_where_years_are_taken_not_where_numbers_are():
    graph, in_years, in_numbers = years_and_numbers("19851990")
    assert [f.rule for f in findings_of(graph, in_years)] == ["rare kind of value"]
    assert findings_of(graph, in_numbers) == []


@pytest.mark.parametrize("iri", ["wd:Q42", "dbr:Paris", "urn:isbn:0451450523", "did:example:123", "tel:+1-201"])
def test_an_iri_of_any_scheme_is_not_cut_off(iri):
    assert value_class(Term("iri", iri)) != "a cut-off IRI"


@pytest.mark.parametrize("text", ["None", "NA", "Auto", "Facade", "decade", "A | B", "Chess (musical)"])
def test_words_that_look_like_leftovers_are_not_malformed(text):
    assert text_class(text) not in ("a placeholder", "wiki markup", "a colour code")


def test_the_profile_shapes_of_years_numbers_and_blank_nodes_hold_for_their_own_graph(tmp_path):
    graph = [GraphTriple(person(n), f"{EX}born", Term("literal", str(1900 + n), f"{XSD}gYear")) for n in range(30)]
    graph += [GraphTriple(person(n), f"{EX}address", Term("bnode", f"a{n}")) for n in range(30)]
    graph += [GraphTriple(person(n), f"{EX}height", Term("literal", f"0{n + 1}", f"{XSD}integer")) for n in range(30)]
    shapes = tmp_path / "profile.ttl"
    shapes.write_text(profile_shapes(build_profile(lambda: graph, "g")))
    assert shape_findings(graph, shapes) == {}
    # A violation on a blank node or a literal written unnormalised still names its triple.
    odd = [GraphTriple(person(1), f"{EX}address", Term("iri", f"{EX}Street")),
           GraphTriple(person(2), f"{EX}height", Term("literal", "09", f"{XSD}string"))]
    custom = tmp_path / "custom.ttl"
    custom.write_text(f"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <{XSD}> .
<{EX}A> a sh:NodeShape ; sh:targetSubjectsOf <{EX}address> ; sh:property [ sh:path <{EX}address> ; sh:nodeKind sh:BlankNode ] .
<{EX}H> a sh:NodeShape ; sh:targetSubjectsOf <{EX}height> ; sh:property [ sh:path <{EX}height> ; sh:datatype xsd:integer ] .""")
    assert set(shape_findings(graph + odd, custom)) == set(odd)


def test_shapes_need_an_rdf_graph(tmp_path):
    shapes = tmp_path / "s.ttl"
    shapes.write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .")
    with pytest.raises(DataError, match="not an RDF graph"):
        shape_findings([claim_triple(Triple("Ann", "born in", "Paris"))], shapes)


def test_a_method_that_reads_support_only_keeps_its_support_and_a_small_graph_is_not_judged_by_base_rates():
    checker, odd = checker_with_odd_spouse()
    lexical = Verdict("t", odd, True, "lexical", confidence=0.8)
    assert compose(lexical, checker).verdict is True
    small = [claim_triple(Triple(f"Town {n}", "population", f"{n + 2},000,000")) for n in range(5)]
    small_checker = open_graph(GraphSettings(), small, "small").checker
    for triple in (Triple(f"Town {n}", "population", f"{n + 2},000,000") for n in range(5)):
        silent = compose(Verdict("t", triple, None, "agentkgv", undecided=True, outcome="not enough evidence",
                                 p_true=0.18), small_checker)
        assert silent.verdict is None and silent.undecided and silent.graph == []
