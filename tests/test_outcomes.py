"""Supported, contradicted, not enough evidence, not checkable: what the documents say, and the verdict drawn."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from agentkgv.reader_agent.absence import AbsenceIsUnknown
from agentkgv.core.verdict import Finding
from agentkgv.reader_agent.calibration import Calibration, Evidence
from agentkgv.reader_agent.claims import Claim, Kind, links_out, name_forms
from agentkgv.reader_agent.relation_cues import RelationCues, stems
from agentkgv.reader_agent.form_lines import (date_keys, first_line, in_line_lists, infobox_heading, lines_of,
                                               listed_in_lines, names_key, several_cards, stated_in_lines)
from agentkgv.reader_agent.contradiction import names_nothing_of, others_blanked, stated_other
from agentkgv.reader_agent.relation_facts import RelationFacts, shipped_table
from agentkgv.reader_agent.reader import CrossEncoderReader
from agentkgv.reader_agent.reader_folder import ReaderFolder, shipped_reader_dir
from agentkgv.reader_agent.agent import ReadingAgent
from agentkgv.reader_agent.config import ReadingConfig
from agentkgv.reader_agent.judges import ReaderJudge
from agentkgv.reader_agent.trace import ReadingTrace
from agentkgv.reader_agent.values import Date, dates_in, numbers_in, parse_date, parse_number
from agentkgv.data.co_mention import ObjectNames
from agentkgv.data.records import LabeledTriple, Passage, Triple
from agentkgv.data.text import folded_words
from agentkgv.paths import data_dir
from agentkgv.retrieval.bm25 import BM25Retriever

CALIBRATION = Calibration(weights=(1.0, 0.0, 0.0), intercept=0.0, true_at=0.8, false_at=0.3)
# A place of birth as the facts files would give it: one value per subject, the cities it takes, its cues.
PLACES = RelationFacts(frozenset({"place of birth"}), {"place of birth": ObjectNames(
    [("", name) for name in ("London", "Cheltenham", "Gloucestershire", "Leeds", "York")])}, RelationCues(
    {"place of birth": stems(["place of birth", "born in"]), "date of birth": stems(["date of birth", "born on"])}, {}))


class WordReader:
    """Support 3 where the passage holds the object's words (or a form the claim marks) and `born`, 0 where
    it holds the object only, -3 otherwise: the agent's logic alone; the real reader is tested below."""

    name = "word-reader"

    def score(self, pairs):
        def one(triple: Triple, text: str) -> float:
            words = " " + " ".join(folded_words(text)) + " "
            named = any(f" {' '.join(folded_words(n))} " in words for n in triple.object_names)
            return 3.0 if named and " born " in words else 0.0 if named else -3.0

        return np.array([one(t, text) for t, text, _ in pairs], dtype=np.float32)


def agent_over(tmp_path, texts: list[str], absence: str = "unknown", reader=None, calibration=CALIBRATION,
               relations: RelationFacts = PLACES) -> ReadingAgent:
    index = BM25Retriever.build([Passage(f"p{i}", t) for i, t in enumerate(texts)], tmp_path / "bm25")
    return ReadingAgent(index, ReaderJudge(reader or WordReader(), calibration), {},
                        ReadingConfig(absence=absence, prior=0.6), relations=relations)


def born(obj: str, subject: str = "Mark Hamill") -> LabeledTriple:
    return LabeledTriple(f"{subject}-{obj}", Triple(subject, "place of birth", obj))


def test_another_value_of_a_one_valued_relation_contradicts_and_is_cited(tmp_path):
    agent = agent_over(tmp_path, ["Mark Hamill was born in Cheltenham, Gloucestershire.", "Mark Hamill died in London."])
    verdict = agent.verify([born("London")])[0]
    assert verdict.outcome == Finding.CONTRADICTED.value and verdict.verdict is False
    assert verdict.stated_instead == "Cheltenham"  # not Gloucestershire: that is where Cheltenham lies
    read = {pid for step in verdict.trace.steps for pid in step.retrieved}
    assert verdict.evidence[0].id == "p0" and verdict.evidence[0].id in read
    assert verdict.p_true <= 0.6


def test_another_relation_between_the_pair_is_not_enough_evidence(tmp_path):
    agent = agent_over(tmp_path, ["Mark Hamill died in London.", "London is a city in England."])
    verdict = agent.verify([born("London")])[0]
    assert verdict.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and verdict.verdict is None and verdict.undecided
    assert verdict.p_true == 0.6  # the prior: nothing read says either way


def test_a_triple_whose_evidence_is_gone_is_never_false_unless_absence_counts(tmp_path):
    texts = ["Bob Jones was a farmer in York.", "York is a city in England."]
    open_world = agent_over(tmp_path, texts).verify([born("Leeds", "Ada Smith")])[0]
    assert open_world.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and open_world.verdict is None
    closed = agent_over(tmp_path, texts, absence="false").verify([born("Leeds", "Ada Smith")])[0]
    assert closed.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and closed.verdict is False


def test_support_wins_and_a_value_not_stated_as_the_relations_contradicts_nothing(tmp_path):
    agent = agent_over(tmp_path, ["Mark Hamill was born in London.", "Mark Hamill was born in Cheltenham."])
    assert agent.verify([born("London")])[0].outcome == Finding.SUPPORTED.value
    genre = LabeledTriple("g", Triple("Mark Hamill", "genre", "jazz"))
    many = agent_over(tmp_path, ["Mark Hamill was born to play opera."], relations=RelationFacts(frozenset()))
    assert many.verify([genre])[0].outcome == Finding.NOT_ENOUGH_EVIDENCE.value


def test_a_label_is_checked_by_name_and_a_link_is_not_checkable(tmp_path):
    agent = agent_over(tmp_path, ["Billy Wilder was a film director."])
    label, link, ident = agent.verify([
        LabeledTriple("l", Triple("Billy Wilder", "rdfs:label", "Wilder, Billy")),
        LabeledTriple("i", Triple("Billy Wilder", "thumbnail", "http://commons.wikimedia.org/Wilder.jpg")),
        LabeledTriple("w", Triple("Billy Wilder", "wikiPageID", "40291"))])
    assert label.outcome == Finding.SUPPORTED.value and label.verdict is True and label.search_calls == 0
    for verdict in (link, ident):
        assert verdict.outcome == Finding.NOT_CHECKABLE.value and verdict.verdict is None and not verdict.undecided
        assert verdict.search_calls == 0 and verdict.p_true is None
    # A wrong label is read like any claim: nothing states it, so not enough evidence.
    wrong = agent.verify([LabeledTriple("x", Triple("Billy Wilder", "name", "Fritz Lang"))])[0]
    assert wrong.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and wrong.search_calls > 0


def test_dates_and_numbers_are_compared_as_values(tmp_path):
    agent = agent_over(tmp_path, ["Ada Smith was born on 3 May 1901 in Leeds.", "Ada Smith moved to York in 1930."])
    right, wrong = agent.verify([LabeledTriple("r", Triple("Ada Smith", "date of birth", "1901-05-03")),
                                 LabeledTriple("w", Triple("Ada Smith", "date of birth", "1902-01-07"))])
    assert right.outcome == Finding.SUPPORTED.value
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.stated_instead == "3 May 1901"
    # Another date beside the subject, with no word of the relation between them, contradicts nothing.
    moved = agent_over(tmp_path, ["Ada Smith moved to York in 1930."]).verify(
        [LabeledTriple("m", Triple("Ada Smith", "date of birth", "1931-02-01"))])[0]
    assert moved.outcome == Finding.NOT_ENOUGH_EVIDENCE.value
    assert parse_date("+1901-05-03T00:00:00Z") == Date(1901, 5, 3) and parse_date("May 1901") == Date(1901, 5)
    assert Date(1901).agrees(Date(1901, 5, 3)) is True and Date(1901, 5, 3).agrees(Date(1901)) is None
    assert [s for s, _ in dates_in("born 3 May 1901, died March 2, 1950; in 1930")] == ["3 May 1901", "March 2, 1950", "1930"]
    population = parse_number("1,234,567")
    assert population.agrees(parse_number("1.2 million")) and not population.agrees(parse_number("2 million"))
    assert parse_number("1,250 m").agrees(parse_number("1250 metres"))
    assert parse_number("1,250 m").agrees(parse_number("1250 ft")) is None  # a length in other units: unknown
    # Figures far apart are two quantities, not two values of one: pages and a catalogue number, staff and a year.
    assert parse_number("408").agrees(parse_number("294081")) is None
    assert parse_number("127086").agrees(parse_number("2012")) is None
    assert parse_number("31,000").agrees(parse_number("19,450")) is False
    assert [s for s, _ in numbers_in("an area of 105 km2 in 2010, born 3 May 1901")] == ["105 km2", "2010"]
    # Money and temperatures are their own quantities: a salary is no staff count, a warm 9°C no count of rainy days.
    assert [s for s, _ in numbers_in("paid $107,843 a year, at 9°C, for US$ 5 million")] == [
        "$107,843", "9°C", "US$ 5 million"]
    assert parse_number("127086").agrees(parse_number("$107,843")) is None
    assert parse_number("6").agrees(parse_number("9°C")) is None and parse_number("6").agrees(parse_number("9")) is False
    assert parse_number("$5 million").agrees(parse_number("US$ 5 million")) is True
    # ... but a graph writes a budget or a record high bare, and the marked figure states it.
    assert parse_number("327205.0").agrees(parse_number("$327,205")) is True
    assert parse_number("20.6").agrees(parse_number("20.6 °C")) is True
    assert parse_number("51.5").agrees(parse_number("51.5°")) is True  # an angle
    assert [s for s, _ in numbers_in("lasted 12 hours. 5 m of snow")] == ["12", "5 m"]
    assert parse_number("4.0E7").agrees(parse_number("$40 million")) is True  # a graph's double
    assert parse_number("2.25e+06").value == 2_250_000 and numbers_in("5e3 seeds")[0][1].value == 5000
    # A running time in hours and minutes is minutes, not "36m" as metres.
    assert [(s, n.value) for s, n in numbers_in("Runtime: 1h 36m; 96 min")] == [("1h 36m", 96.0), ("96 min", 96.0)]
    assert parse_number("90.0").agrees(parse_number("1h 36m")) is False


def test_the_kind_of_a_triple():
    kinds = {o: Claim.of(Triple("X", p, o)).kind for p, o in [
        ("date of birth", "1906-06-22"), ("founded", "1950"), ("elevation", "1450"), ("population", "1,234,567"),
        ("subject", "Category:Films set in the 1890s"), ("depiction", "http://a.org/b.png"), ("homepage", "www.x.org"),
        ("rdfs:label", "X"), ("place of birth", "Leeds")]}
    assert kinds == {"1906-06-22": Kind.DATE, "1950": Kind.DATE, "1450": Kind.NUMBER, "1,234,567": Kind.NUMBER,
                     "Category:Films set in the 1890s": Kind.CATEGORY, "http://a.org/b.png": Kind.NOT_CHECKABLE,
                     "www.x.org": Kind.NOT_CHECKABLE, "X": Kind.LABEL, "Leeds": Kind.ENTITY}
    category = Claim.of(Triple("X", "subject", "Category:Films set in the 1890s")).triple
    assert (category.predicate, category.object) == ("is a", "Film set in the 1890s")
    # A node of the subject's own record (DBpedia's career stations) is named by no text: nothing can check it.
    station = Triple("Ada Vance", "career station", "Ada Vance  3", subject_id="http://dbpedia.org/resource/Ada_Vance",
                     object_id="http://dbpedia.org/resource/Ada_Vance__3")
    assert Claim.of(station).kind is Kind.NOT_CHECKABLE
    assert Claim.of(Triple("Ada Vance", "team", "Leeds", object_id="http://dbpedia.org/resource/Leeds")).kind is Kind.ENTITY
    # A homepage on another host than the subject's links out of the graph, whatever the graph names it by (its host,
    # written with spaces for underscores): a page may state it, but only a web address is another value of it, so a
    # band's "jazz" is no other website.
    def homepage(host: str, subject: str = "http://example.org/Marrowick_Quartet") -> Claim:
        return Claim.of(Triple("Marrowick Quartet", "homepage", host.replace("_", " "), subject_id=subject,
                               object_id=f"http://{host}/"))
    linked = homepage("marrowick_quartet.example.com")
    assert links_out(linked.triple) and linked.kind is Kind.ENTITY
    assert names_nothing_of(linked, "jazz") and not names_nothing_of(linked, "https://marrowick.example.org")
    assert not names_nothing_of(linked, "marrowick.example.org")
    assert not links_out(homepage("example.org").triple)  # the graph's own host: one of its things
    assert not links_out(homepage("www.example.org").triple)
    assert not links_out(homepage("x.org", "http://[bad/Marrowick").triple)  # a malformed host links nowhere
    assert name_forms("Wilder, Billy") == ("Wilder, Billy", "Billy Wilder")
    assert name_forms("Paris_(France)") == ("Paris (France)", "Paris")


def test_the_shipped_one_valued_table_reads_relations_by_id_and_name():
    table = RelationFacts.read(shipped_table(), ("hasCEO",))
    assert table.holds(Triple("a", "place of birth", "b")) and table.holds(Triple("a", "birth place", "b"))
    assert table.holds(Triple("a", "x", "b", predicate_id="P20")) and table.holds(Triple("a", "hasCEO", "b"))
    assert not table.holds(Triple("a", "occupation", "b")) and not table.holds(Triple("a", "instrument", "b"))
    # A player's clubs are held one after another: another club is no contradiction.
    assert not table.holds(Triple("a", "team", "b")) and not table.holds(Triple("a", "x", "b", predicate_id="P54"))
    # A run's settings override the table either way.
    own = RelationFacts.read(shipped_table(), ("team",), many=("Birth Place", "P20"))
    assert own.holds(Triple("a", "team", "b")) and not own.holds(Triple("a", "birth place", "b"))
    assert not own.holds(Triple("a", "x", "b", predicate_id="P20")) and own.holds(Triple("a", "place of birth", "b"))
    # Taken out by either its id or its name, whatever the other one says.
    assert not own.holds(Triple("a", "place of death", "b", predicate_id="P20"))
    assert not own.holds(Triple("a", "birth place", "b", predicate_id="P19"))


shipped = pytest.mark.skipif(not (shipped_reader_dir() / "reader.safetensors").exists(), reason="no shipped reader")


@shipped
def test_the_shipped_reader_reads_cheltenham_as_contradicting_london(tmp_path):
    folder = ReaderFolder.shipped()
    agent = agent_over(tmp_path, ["Gustav Holst was born in Cheltenham, Gloucestershire, in 1874.",
                                  "Gustav Holst taught music at a school in Hammersmith."],
                       reader=CrossEncoderReader(folder), calibration=folder.calibrated)
    london, cheltenham = agent.verify([born("London", "Gustav Holst"), born("Cheltenham", "Gustav Holst")])
    assert london.outcome == Finding.CONTRADICTED.value and london.stated_instead == "Cheltenham"
    assert london.evidence[0].text.startswith("Gustav Holst was born in Cheltenham")
    assert cheltenham.outcome == Finding.SUPPORTED.value


@shipped
@pytest.mark.skipif(not (data_dir() / "lama_trex").exists(), reason="no facts files")
def test_died_in_london_does_not_say_born_in_london_with_the_shipped_reader(tmp_path):
    """The shipped reader alone scores "died in London" as a birth there; the cues of the relations the facts
    files hold (a place of death is a place of birth's rival) take that support away."""
    folder = ReaderFolder.shipped()
    agent = agent_over(tmp_path, ["Gustav Holst died in London on 25 May 1934.", "London is the capital of England."],
                       reader=CrossEncoderReader(folder), calibration=folder.calibrated,
                       relations=RelationFacts.load(data_dir()))
    born_there, died_there = agent.verify([born("London", "Gustav Holst"),
                                           LabeledTriple("d", Triple("Gustav Holst", "place of death", "London"))])
    assert born_there.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and born_there.verdict is None
    assert died_there.outcome == Finding.SUPPORTED.value


def test_learn_fits_the_prior_from_reviewed_silence_and_training_fits_the_contradiction_ratio():
    from agentkgv.core.verdict import Verdict
    from agentkgv.train.calibrate import fit_contradiction_ratio, fit_silence
    from agentkgv.train.learn import MIN_PRIOR_REVIEWS, learned_prior

    silent = [Verdict(f"t{i}", Triple("a", "b", f"c{i}"), None, "agentkgv", outcome=Finding.NOT_ENOUGH_EVIDENCE.value,
                      trace=ReadingTrace(Evidence())) for i in range(12)]
    labels = [True] * 9 + [False] * 3
    # Nothing read halves the odds at an even coverage, so a 10-in-14 share true needs prior odds of 5.
    assert learned_prior(silent, labels, CALIBRATION) == pytest.approx(5 / 6, abs=1e-3)
    held = CALIBRATION.model_copy(update={"prior": 0.3})
    assert learned_prior(silent[:MIN_PRIOR_REVIEWS - 1], labels[:MIN_PRIOR_REVIEWS - 1], held) == 0.3  # too few
    assert learned_prior(silent, [True] * 12, CALIBRATION) == pytest.approx(0.95, abs=1e-3)  # never past 0.95
    said = lambda outcome, gold: Verdict("x", Triple("a", "b", "c"), None, "agentkgv", gold=gold, outcome=outcome)  # noqa: E731
    verdicts = ([said(Finding.CONTRADICTED.value, False)] * 9 + [said(Finding.NOT_ENOUGH_EVIDENCE.value, False)]
                + [said(Finding.CONTRADICTED.value, True)] + [said(Finding.NOT_ENOUGH_EVIDENCE.value, True)] * 9
                + [said(Finding.SUPPORTED.value, True)] * 50)
    assert fit_contradiction_ratio(verdicts) == pytest.approx((1.5 / 11) / (9.5 / 11), abs=1e-4)
    # Fitted, a contradiction moves the odds by the ratio from what silence gives.
    little = Evidence(support=math.log(0.2 / 0.8))  # P(support) 0.2 under CALIBRATION
    silent_p = AbsenceIsUnknown(0.5).unsupported(CALIBRATION, little, 0.8)[1]
    contradicted_p = AbsenceIsUnknown(0.5).contradicted(CALIBRATION.model_copy(update={"contradiction_ratio": 0.1}),
                                                       little, 0.9, 0.8)
    assert contradicted_p / (1 - contradicted_p) == pytest.approx(0.1 * silent_p / (1 - silent_p))
    # Another value of a relation with several moves them by its own ratio; not fitted, as a list that
    # leaves the object out does.
    both = CALIBRATION.model_copy(update={"contradiction_ratio": 0.1, "several_ratio": 0.3})
    against, other_p = AbsenceIsUnknown(0.5).other_of_several(both, little, 0.8)
    assert other_p / (1 - other_p) == pytest.approx(0.3 * silent_p / (1 - silent_p)) and against is False
    half = AbsenceIsUnknown(0.5).other_of_several(both.model_copy(update={"several_ratio": None}), little, 0.8)[1]
    assert half / (1 - half) == pytest.approx(0.1 ** 0.5 * silent_p / (1 - silent_p))
    # Where it leaves the triple likelier true than not, or nothing is fitted, a person decides.
    assert AbsenceIsUnknown(0.5).other_of_several(both, little, 0.95)[0] is None
    unfitted = AbsenceIsUnknown(0.5).other_of_several(CALIBRATION, little, 0.8)
    assert unfitted == (None, pytest.approx(silent_p))
    assert 0.6 < silent_p < 0.8  # the prior, lowered by little support only as far as coverage allows
    # Fitted silence: a subject whose passages were read and say nothing is likelier false than an unnamed one.
    fitted = CALIBRATION.model_copy(update={"silence": ((0.9, 0.3, 0.6, 0.5), (0.1, 0.05, 0.4, 0.3))})
    unnamed = AbsenceIsUnknown(0.5).unsupported(fitted, little, 0.5)[1]
    named = AbsenceIsUnknown(0.5).unsupported(fitted, Evidence(little.support, named_subject=True), 0.5)[1]
    assert unnamed == pytest.approx(0.6 / 1.15) and named == pytest.approx(0.075 / 0.425)
    lacking, holding = fit_silence([said(Finding.NOT_ENOUGH_EVIDENCE.value, True)], [said(Finding.SUPPORTED.value, True)])
    assert lacking == (0.25, 0.25, 0.5, 0.5) and holding == (0.25, 0.25, 0.5, 0.5)  # no reading: no subject named


@pytest.mark.skipif(not (data_dir() / "properties").exists(), reason="no property metadata")
def test_the_shipped_one_valued_table_is_what_x_factr_types_say():
    import json

    from agentkgv.data.predicates import load_predicates, one_valued_keys

    assert json.loads(shipped_table().read_text()) == one_valued_keys(load_predicates(data_dir()))


def test_what_an_rdf_graph_gives_is_read_as_its_labels_say():
    """A graph's entity object is read by its label, not as the IRI it came with; a Wikidata date known to
    the year is a date."""
    from agentkgv.data.records import RdfTerms

    france = Triple("Victor Hugo", "country of citizenship", "France", rdf=RdfTerms(
        "<http://www.wikidata.org/entity/Q535>", "<http://www.wikidata.org/prop/direct/P27>",
        "<http://www.wikidata.org/entity/Q142>"))
    assert Claim.of(france).kind is Kind.ENTITY
    assert parse_date("+1802-00-00T00:00:00Z") == Date(1802)
    assert Claim.of(Triple("Victor Hugo", "subject", "Physics")).kind is Kind.ENTITY  # no category without its form


def test_compare_counts_a_difference_of_verdict_or_of_reason_not_an_outcome_one_method_lacks():
    from agentkgv.core.verdict import Verdict
    from agentkgv.eval.compare import compare_runs

    triple = Triple("Mark Hamill", "place of birth", "Oakland")

    def verdict(i: str, said: bool | None, outcome: str | None, undecided: bool = False) -> Verdict:
        return Verdict(i, triple, said, "m", gold=True, undecided=undecided, outcome=outcome)

    lexical = {"a": verdict("a", True, None), "b": verdict("b", False, None), "c": verdict("c", False, None)}
    reader = {"a": verdict("a", True, "supported"), "b": verdict("b", True, "supported"),
              "c": verdict("c", False, "contradicted")}
    compared = compare_runs(lexical, reader)
    assert [d.id for d in compared.differences] == ["b"] and compared.agree == 2
    silent = {"c": verdict("c", False, "not enough evidence")}  # absence counted: false, for another reason
    assert [d.id for d in compare_runs(reader, silent).differences] == ["c"]


def test_the_silence_rates_count_the_silent_verdicts_by_whether_a_passage_named_the_subject():
    from agentkgv.core.verdict import Verdict
    from agentkgv.reader_agent.calibration import Evidence
    from agentkgv.reader_agent.trace import ReadingTrace
    from agentkgv.train.calibrate import fit_silence

    def silent(gold: bool, named_subject: bool) -> Verdict:
        return Verdict("t", Triple("a", "b", "c"), None, "agentkgv", gold=gold, outcome=Finding.NOT_ENOUGH_EVIDENCE.value,
                       trace=ReadingTrace(Evidence(named_subject=named_subject)))

    lacking = [silent(True, False), silent(True, False), silent(False, True)]
    holding = [silent(True, True)]
    unnamed, named = fit_silence(lacking, holding)
    # (lacking true, holding true, lacking false, holding false), each (silent + 0.5) / (all + 1)
    assert unnamed == (round(2.5 / 3, 4), 0.25, 0.25, 0.5)
    assert named == (round(0.5 / 3, 4), 0.75, 0.75, 0.5)


@pytest.mark.skipif(not (data_dir() / "lama_trex").exists(), reason="no facts files")
def test_the_names_read_from_the_facts_files_are_kept_in_the_cache_and_read_back_the_same(tmp_path):
    from agentkgv.reader_agent.relation_facts import RelationFacts, _loaded

    built = RelationFacts.load(data_dir(), (), tmp_path)
    [kept] = (tmp_path / "relation-facts").glob("object-labels-*.json")
    _loaded.cache_clear()
    read = RelationFacts.load(data_dir(), (), tmp_path)
    assert read.keys == built.keys and read.cues == built.cues
    assert {k: v.by_words for k, v in read.names.items()} == {k: v.by_words for k, v in built.names.items()}
    assert kept.stat().st_mtime_ns == next((tmp_path / "relation-facts").glob("*.json")).stat().st_mtime_ns


@pytest.mark.skipif(not (data_dir() / "lama_trex").exists(), reason="no facts files")
def test_the_shipped_relation_cues_are_what_the_data_folder_gives():
    from agentkgv.reader_agent.relation_cues import read_cue_table
    from agentkgv.reader_agent.relation_facts import cue_table

    def as_sets(table):
        return {pid: (own, frozenset(rivals)) for pid, (own, rivals) in table.items()}

    assert as_sets(read_cue_table()) == as_sets(cue_table(data_dir()))  # `agentkgv build predicates` rewrites it


def test_the_clause_next_to_the_object_says_which_relation_a_passage_states():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues  # the shipped table, as a pip-installed user has
    birth, death = Triple("Ada Vance", "place of birth", "Lund"), Triple("Ada Vance", "place of death", "Lund")
    both = "[S:Ada Vance] was born in Oslo, Norway, on 2 May 1911, and died in [O:Lund]"
    assert cues.denies(birth, both) and not cues.denies(death, both)
    assert not cues.denies(birth, "[S:Ada Vance], who died in 1990, was born in [O:Lund]")
    assert not cues.denies(birth, "[S:Ada Vance] was born and died in [O:Lund]")  # both stated
    assert not cues.denies(birth, "[S:Ada Vance] was born on 2 May 1911, in [O:Lund]")  # the clause has no cue
    assert cues.denies(birth, "[S:Ada Vance] (born 1911 in Oslo; died 1990 in [O:Lund])")
    # The clause next to the object is read within its sentence: one that follows states its own relation of it.
    after = "[S:Ada Vance] was born in Oslo. Edwin Marsh was born in Bergen. He died in [O:Lund]"
    assert cues.denies(birth, after) and not cues.denies(death, after)
    before = "[O:Lund] was where he died. [S:Ada Vance] was born in Oslo"
    assert cues.denies(birth, before)
    # Two statements joined, each with its value: the one that leads to the object says which relation.
    joined = "[S:Ada Vance], who founded a pottery in 1931, was born in Oslo and died in [O:Lund] in 1990."
    assert cues.denies(birth, joined) and not cues.denies(death, joined)
    assert cues.denies(birth, "[S:Ada Vance] was born in Oslo and later died in [O:Lund]")
    # A surname ending in "s" is still the subject's: her own statement.
    serena = Triple("Serena Williams", "place of birth", "Saginaw")
    assert not cues.denies(serena, "[S:Serena Williams] won in Paris. Ms Williams was born in [O:Saginaw]")
    # The object's sentence opens with another's name: it tells of that one, unless its words lead on to the subject.
    others = ("[S:Ada Vance] sang. Tobiah Venn, born in [O:Lund], drummed; Vance was born in Oslo.",
              "[S:Ada Vance] sang; Tobiah Venn was born in [O:Lund]",
              "Tobiah Venn (a drummer; 1955-) was born in [O:Lund]. [S:Ada Vance] sang.",
              # She is named only in an aside on his name: the words after it are his statement.
              "Tobiah Venn, a drummer who toured with [S:Ada Vance] and Edwin Marsh, was born in [O:Lund].",
              "Tobiah Venn, whose band [S:Ada Vance] joined, was later born in [O:Lund].",
              # Her name is in the sentence before, his aside on his own name closes right before his verb.
              "[S:Ada Vance] sang. Her teacher, Tobiah Venn, a drummer who toured with Vance's father, was born in "
              "[O:Lund].")
    assert all(cues.led_by_another(birth, view) and cues.denies(birth, view) for view in others)
    # Not another's: the words on to the subject state it; a statement of no words of the relation or a rival's (what
    # it says is the reader's to weigh); her own surname; no name at all.
    assert not any(cues.led_by_another(birth, view) for view in (
        "Venn's birthplace [O:Lund] is where [S:Ada Vance] was born too",
        "Salt Road is a band formed in [O:Lund] by singer [S:Ada Vance].",
        "[S:Ada Vance] sang. Vance, born in [O:Lund], drummed too.", "Born in [O:Lund], [S:Ada Vance] sang.",
        "Holders of the [O:Lund] stock sold, [S:Ada Vance] said.",
        "[S:Ada Vance], a singer, was born in [O:Lund]", "Her husband, [S:Ada Vance], was born in [O:Lund]",
        "Tobiah Venn, who married [S:Ada Vance], said she was born in [O:Lund]",
        "Tobiah Venn, whose wife [S:Ada Vance] was, like him, born in [O:Lund]",
        # A comma before the verb that opens no aside on a name; an aside on her own name that names a place.
        "[S:Ada Vance] sang. In the town, as her diary says, she was born in [O:Lund]",
        "[S:Ada Vance] sang. Vance, who was raised in Lembrook, trained there as a child, died in [O:Lund]"))
    assert not cues.led_by_another(birth, "[S:Ada Vance] Corp., 1995. Echo Lake, [O:Lund], Sweden.")  # an address
    # An infobox run together as text: the relation's words stand far from the name, a field's, not its statement.
    runtime = Triple("Hard Boiled (1919 film)", "runtime", "50.0")
    # The relation's words lead to another name, and a second statement leads on to the object: no statement of it.
    assert cues.leads_elsewhere(birth, "[S:Ada Vance] swam. She was born in Australia in 1990 and trained in [O:Lund]")
    assert not cues.leads_elsewhere(birth, "[S:Ada Vance] swam. She was born in [O:Lund] in 1990 and trained there")
    assert not cues.leads_elsewhere(birth, "[S:Ada Vance] was born in Hampstead, north [O:Lund]")  # no second statement
    assert not cues.leads_elsewhere(Triple("Ada Vance", "record label", "Lund"), "[S:Ada Vance] played with artists "
                                    "including Edwin Marsh, Tobiah Venn and Corin Halloway, and as a session drummer "
                                    "for [O:Lund]")  # names in a list: none is the value
    assert not cues.led_by_another(runtime, "H. Ince Corporation Distributed byParamount Pictures Release date "
                                            "February 2, 1919 ( ) Running time [O:50] minutes ([S:Hard Boiled] is a film")


def test_a_word_in_lower_case_is_no_value_of_a_proper_name_nor_a_year_of_a_name():
    town = Claim.of(Triple("Orla Penhallow", "place of birth", "Marrowick"))
    assert names_nothing_of(town, "valley") and not names_nothing_of(town, "Dunholt")
    assert not names_nothing_of(Claim.of(Triple("Kind of Blue", "genre", "jazz")), "modal jazz")
    network = Claim.of(Triple("Harbour Lights", "original network", "Kelvin One"))
    assert names_nothing_of(network, "1992") and not names_nothing_of(network, "Channel 9")
    assert not names_nothing_of(Claim.of(Triple("Harbour Lights", "publication date", "12 March 1992")), "1993")


def test_what_a_passage_tells_of_others_is_blanked_for_the_value_reader():
    text = ("Orla Penhallow was born in Lembrook in 1950. She built the Lembrook weir.\n"
            "Edwin Marsh was born in Kelvercombe. He died in Marrowick in 2010. Orla Penhallow died there too.")
    orla = others_blanked(Triple("Orla Penhallow", "place of birth", "Marrowick"), text)
    assert len(orla) == len(text) and orla.index("Orla Penhallow died") == text.index("Orla Penhallow died")
    assert "Lembrook weir" in orla and "Kelvercombe" not in orla and "Marrowick" not in orla
    edwin = others_blanked(Triple("Edwin Marsh", "place of death", "Marrowick"), text)
    assert "Lembrook" not in edwin and "He died in Marrowick" in edwin and "Orla Penhallow died" not in edwin
    # A sentence that opens with a function word, a pronoun or one capitalised word tells of no other.
    kept = "Edda Quillfeather wrote novels. The Lembrook Review praised them. Quillfeather died in Sorrelby."
    assert others_blanked(Triple("Edda Quillfeather", "place of death", "Sorrelby"), kept) == kept
    # A page's key-value lines are no one's name, and a sentence runs on over a line break.
    for kept in ("Orla Penhallow was born in Lembrook.\nBirth Place: Lembrook\nOccupation: engineer",
                 "Orla Penhallow was born in\nNew York City. She died in Marrowick."):
        assert others_blanked(Triple("Orla Penhallow", "place of death", "Marrowick"), kept) == kept


def test_a_team_played_against_is_no_team_of_the_players():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    team = Triple("Tomas Brenner", "member of sports team", "Marrowick Rovers")
    assert cues.denies(team, "On 6 May, [S:Tomas Brenner] scored 30 points against the [O:Marrowick Rovers]")
    assert cues.denies(team, "[S:Tomas Brenner] played against the [O:Marrowick Rovers] for the Dunholt Lions")
    assert cues.denies(team, "After the Lions' 112-105 loss to the [O:Marrowick Rovers], [S:Tomas Brenner] rested")
    assert cues.denies(team, "The Dunholt Lions were beaten by the [O:Marrowick Rovers], and [S:Tomas Brenner] left")
    assert not cues.denies(team, "[S:Tomas Brenner] played for the [O:Marrowick Rovers] and scored against the Lions")
    assert not cues.denies(team, "[S:Tomas Brenner] signed with the [O:Marrowick Rovers] after a loss, in May")
    # The words after the opponent's word lead elsewhere: the team is his.
    assert not cues.denies(team, "[S:Tomas Brenner] made his debut against the Lions for [O:Marrowick Rovers]")
    assert not cues.denies(team, "[S:Tomas Brenner] had 20 points in a 110-100 loss for the [O:Marrowick Rovers]")
    assert not cues.denies(team, "The Dunholt Lions lost [S:Tomas Brenner] to [O:Marrowick Rovers] in 2009")
    assert not cues.denies(team, "[S:Tomas Brenner] became the face of the [O:Marrowick Rovers]")
    # A fixture names both sides alike.
    assert not cues.denies(team, "Dunholt Lions vs. [O:Marrowick Rovers]: [S:Tomas Brenner] scored twice")
    # The team that beat another is the winner, not the opponent.
    assert not cues.denies(team, "The [O:Marrowick Rovers] beat the Dunholt Lions as [S:Tomas Brenner] scored 20")
    # Only a team's relation has opponents: "against" leads to no other relation's value.
    assert not cues.denies(Triple("Tomas Brenner", "place of birth", "Lund"),
                           "[S:Tomas Brenner] was born in Oslo and played a match against [O:Lund]")


def test_the_clause_that_leads_to_a_value_says_whether_it_is_stated_as_the_relations():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    seat = Triple("Pellory Instruments", "headquarters location", "Dunmere")
    assert cues.leads_as_own(seat, "Pellory Instruments makes scales. The company is headquartered in ")
    # What follows the value ("the Varnhold-based business") is another's; a loose cue says too little.
    assert not cues.leads_as_own(seat, "Pellory sold its scales. Pellory bought Harrow Group, the ")
    assert not cues.leads_as_own(seat, "The company is headquartered in Dunmere. Its largest factory is in ")
    assert not cues.leads_as_own(Triple("Ada Vance", "place of birth", "Lund"), "She spent her life in ")


def test_a_value_written_before_the_subject_is_read_by_the_cue_leading_to_it():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    birth, death = Triple("Ada Vance", "place of birth", "Lund"), Triple("Ada Vance", "place of death", "Lund")
    card = "Born on 2 May 1911 in Oslo, Norway Died on 5 April 1990 in [O:Lund], Sweden Her family tree: [S:Ada Vance]"
    assert cues.denies(birth, card) and not cues.denies(death, card)
    born = "Born on 2 May 1911 in [O:Lund], Sweden Died in 1990 Her family tree: [S:Ada Vance]"
    assert not cues.denies(birth, born) and cues.denies(death, born)
    # A loose word near the object says nothing; the cue before it does.
    assert not cues.denies(death, "She died at her home in [O:Lund], [S:Ada Vance] wrote")
    assert not cues.denies(birth, "Born and died in [O:Lund], [S:Ada Vance] was a potter")  # both stated
    # A clause of more than a date ends the leading words.
    assert not cues.denies(death, "Born in 1911, by 1990 she was in [O:Lund], where [S:Ada Vance] died")
    # A list's earlier items lead to nothing, nor does a cue far from the object.
    assert not cues.denies(birth, "died in Oslo, Uppsala, Malmo, [O:Lund]'s [S:Ada Vance] school")
    assert not cues.denies(birth, "She died young, long after the town had grown into the city we know as [O:Lund] "
                                  "today, [S:Ada Vance]")
    # It states nothing on its own: a page's date before a book's name is the page's.
    published = Triple("Again, Dangerous Visions", "publication date", "2024")
    assert not cues.states(published, "published on [O:2024]-05-20 A follow-up, [S:Again, Dangerous Visions] features")


def test_the_sides_of_a_bracketed_life_span_are_the_birth_and_the_death():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    birth, death = Triple("Ada Vance", "place of birth", "Lund"), Triple("Ada Vance", "place of death", "Lund")
    died = "[S:Ada Vance] (Oslo, Norway, 2 May 1911 - [O:Lund], Sweden, 5 April 1990) was a potter"
    born = "[S:Ada Vance] ([O:Lund], 2 May 1911 – Oslo, 5 April 1990) was a potter"
    assert cues.denies(birth, died) and not cues.denies(death, died)
    assert cues.denies(death, born) and not cues.denies(birth, born)
    # A bracket of a place and one year is no life span, nor one of an office's years, nor one whose words say which
    # end is which; nor does a bracket left open read as one, however long the passage.
    assert not cues.denies(birth, "[S:Ada Vance] ([O:Lund], 1911) was a potter")
    assert not cues.denies(death, "[S:Ada Vance] (mayor of [O:Lund] 1930\u20131950) was a potter")
    assert cues.denies(birth, "[S:Ada Vance] (born 1911 in Oslo; died 1990 in [O:Lund]; active 1930\u20131960)")
    assert not cues.denies(birth, "[S:Ada Vance] [O:Lund] (" + "1911 - " * 300)


def test_the_clause_that_leads_to_a_value_passes_over_the_rest_of_its_name():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    death = Triple("Ada Vance", "place of death", "Lund")
    # "Norrland" follows "Lund, ": the clause before it is the birth's, not the empty one after the comma.
    assert cues.leads_to_rival(death, "Ada Vance, born in Lund, ")
    assert cues.leads_to_rival(death, "Ada Vance Born 25 April 1874 ")  # a cue written with a capital is no name
    assert not cues.leads_to_rival(death, "Ada Vance, born in Lund, Norrland – Died ")
    assert not cues.leads_to_rival(death, "Ada Vance, who died in Lund, ")
    assert not cues.leads_to_rival(death, "Ada Vance Olsen, ")  # names alone: nothing leads to the value


def test_key_value_lines_give_the_value_of_the_relation_their_key_names():
    page = ("AKA Orla Wren Penhallow\nBirthplace: Tessaby\nLocation of death: Kelvercombe, Elderland [1]\n"
            "Husband: Edwin Marsh (m. 1950-1961)\nDied in Kelvercombe after a long illness: a story the town tells")
    assert stated_in_lines(("place of death", "deathplace", "location of death"), page) == ["Kelvercombe, Elderland"]
    assert stated_in_lines(("spouse", "husband"), page) == ["Edwin Marsh"]
    assert stated_in_lines(("place of birth", "birthplace"), page) == ["Tessaby"]
    assert stated_in_lines(("died in",), page) == []  # prose after a colon is no key-value line
    card = "**Birthplace:** Tessaby\r\nBirthplace | Leeds | Cornwall\nBirthplace: Unknown\nBirthplace: York; died: Hull"
    assert stated_in_lines(("birthplace",), card) == ["Tessaby", "Leeds", "York"]
    assert first_line("\n  \nAKA Orla\nBorn") == "AKA Orla"
    assert first_line("Her cousin Mabyn Kessell taught her to weave in the long winters of the war years.\nBorn") == ""


def test_a_wiki_infobox_gives_its_fields_and_its_heading():
    box = ("{{Infobox person | name = Orla Penhallow | image = Orla Penhallow 1950.jpg | caption = Penhallow in 1950 "
           "| birth_place = [[Tessaby, Elderland|Tessaby]] | death_place = Kelvercombe (aged 80) | spouse = "
           "[[Edwin Marsh]] | height = }}")
    assert stated_in_lines(("place of birth", "birth place"), box) == ["Tessaby"]
    assert stated_in_lines(("place of death", "death place"), box) == ["Kelvercombe"]
    assert stated_in_lines(("spouse",), box) == ["Edwin Marsh"]
    assert infobox_heading(box) == "Orla Penhallow"
    # Without a name, the image's file names the subject; a caption names whoever stands beside it.
    unnamed = "{{Infobox person | image = Orla Penhallow 1950.jpg | caption = Penhallow with Edwin Marsh | spouse = }}"
    assert infobox_heading(unnamed) == "Orla Penhallow 1950"
    # One "| key = value" in prose is no infobox.
    prose = "The score was x = 3 | spouse = the variable"
    assert stated_in_lines(("spouse",), prose) == [] and infobox_heading(prose) == ""


def test_a_place_written_with_its_region_otherwise_is_the_same_place():
    claim = Claim.of(Triple("Orla Penhallow", "place of death", "Santa Barbara, California"))
    assert stated_other(claim, "Santa Barbara, CA") is None
    assert stated_other(claim, "Santa Monica, CA") == "Santa Monica, CA"


def test_an_object_that_lists_values_is_each_of_them():
    claim = Claim.of(Triple("Harrow Mills", "operating system", "Linux, Mac OS and Microsoft Windows"))
    assert stated_other(claim, "Linux Installation") is None and stated_other(claim, "Mac OS") is None
    assert stated_other(claim, "FreeBSD") == "FreeBSD"
    # One name with "and" in it, and a place with its region, list nothing.
    owned = Claim.of(Triple("Harrow Mills", "owned by", "Procter and Gamble"))
    assert stated_other(owned, "Gamble Hall") == "Gamble Hall"
    # A firm's legal form is no value it lists.
    published = Claim.of(Triple("Salt Road", "publisher", "Harcourt, Brace and Company"))
    assert stated_other(published, "Houghton Mifflin Company") == "Houghton Mifflin Company"
    assert stated_other(Claim.of(Triple("Tamsin Rowe", "place of birth", "Alexandra, Victoria")),
                        "Victoria Park") == "Victoria Park"


def test_a_country_may_hold_a_town_and_so_states_no_other_value():
    facts = RelationFacts(frozenset({"place of birth"}), {"P27": ObjectNames([("", "Australia"), ("", "Scotland")])})
    assert facts.may_hold("Australia", Triple("Tamsin Rowe", "place of birth", "Adelaide"))
    assert not facts.may_hold("Scotland", Triple("Tamsin Rowe", "place of birth", "Australia"))  # two countries
    assert not facts.may_hold("Perth", Triple("Tamsin Rowe", "place of birth", "Adelaide"))
    # Of a claim of a country, another country is another value, whether or not the facts files know the claim's.
    assert not facts.may_hold("Australia", Triple("Tamsin Rowe", "P27", "Kingdom of Elderland", predicate_id="P27"))


def test_a_relative_clause_after_a_value_and_the_value_the_relations_words_lead_to_first():
    from agentkgv.reader_agent.relation_cues import relative_clause

    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    death, birth = Triple("Ada Vell", "place of death", "Dunholt"), Triple("Ada Vell", "place of birth", "Dunholt")
    assert relative_clause(", where she died in 2019. She was a potter.") == " where she died in 2019"
    assert relative_clause(", Elderland, where she died") == " where she died"  # past the region
    assert relative_clause(" in 1999, where she died") == " where she died"  # past a date
    assert relative_clause(", a mill town where she died") == ""  # no relative clause on the value itself
    assert cues.follows_as_own(death, ", where she died in 2019.") and not cues.follows_as_own(birth, ", where she died")
    assert cues.follows_as_own(death, ", where [S:Vell] died")  # the subject by name, marked in a passage view
    # Someone else's death there, or a cue too loose to state one.
    for after in (", where her father died in 1960", ", where his son was born", ", where she spent the rest of her life",
                  ", where she lost her sight"):
        assert not cues.follows_as_own(death, after) and not cues.follows_as_own(birth, after), after
    view = "[S:Ada Vell] was born in Marrowick in 1952 and later moved to [O:Dunholt], where she died in 2019."
    assert not cues.denies(death, view) and cues.states(death, view)
    assert cues.leads_first_to(birth, view, "Marrowick") and not cues.leads_first_to(death, view, "Marrowick")
    assert cues.leads_first_to(birth, "[S:Ada Vell] was born in Marrowick and raised in [O:Dunholt].", "Marrowick")
    # A true birthplace written with a finer place first is no second statement; nor is a cue leading on to the
    # object, an earlier sentence, or a relative clause after the object that states the relation.
    for view, other in (("[S:Ada Vell] was born in Marrowick, [O:Elderland].", "Marrowick"),
                        ("[S:Ada Vell] was born in Hampstead, north [O:London].", "Hampstead"),
                        ("[S:Ada Vell] was born in the Shoreditch district of [O:London].", "Shoreditch"),
                        ("[S:Ada Vell] was born to immigrants from County Cork in [O:Boston].", "County Cork"),
                        ("[S:Ada Vell] left Marrowick and was born again in [O:Dunholt].", "Marrowick"),
                        ("[S:Ada Vell] was born in Marrowick. She later moved to [O:Dunholt].", "Marrowick"),
                        ("[S:Ada Vell] was born in [O:Dunholt].", "Marrowick")):
        assert not cues.leads_first_to(birth, view, other), view
    assert not cues.leads_first_to(death, "[S:Ada Vell] spent her life in Marrowick and later moved to [O:Dunholt], "
                                          "where she died.", "Marrowick")


def test_a_value_written_after_the_object_with_a_comma_is_its_region():
    from agentkgv.reader_agent.contradiction import writes_as_region

    born = Triple("Allan Peiper", "place of birth", "Alexandra")
    assert writes_as_region(born, "Allan Peiper was born in Alexandra, ")
    assert writes_as_region(born, "Allan Peiper was born in ALEXANDRA ,")
    assert not writes_as_region(born, "Allan Peiper was born in Alexandra and moved to ")
    assert not writes_as_region(born, "Allan Peiper was born in Greater Alexandria, ")


@pytest.mark.parametrize("text, span, name", [
    ("the concerts at the Lembrook O2 Arena, and", "Lembrook", "Lembrook O2 Arena"),
    ("released by Dunholt Records in 1959.", "Dunholt", "Dunholt Records"),
    ("for Dunholt Records' own label", "Dunholt", "Dunholt Records"),
    ("the Holmby Hills, Los Marrowick, house", "Marrowick", "Los Marrowick"),
    ("She was born in Marrowick. Then", "Marrowick", "Marrowick"),
    ("In Marrowick she died", "Marrowick", "Marrowick"),
    ("died in Marrowick on 3 May", "Marrowick", "Marrowick"),
    ("born in Alexandra, Victoria", "Victoria", "Victoria"),
    ("an American jazz drummer", "jazz", "jazz"),
    ("the song “Lembrook Issue.” Marrowick is where", "Marrowick", "Marrowick"),  # a closing quote ends one
    ("Corin Halloway\u2019s Husband Tobiah", "Corin Halloway\u2019s", "Corin Halloway\u2019s"),  # a span's possessive
    ("the St Mary's Hospital in Lembrook", "Hospital", "St Mary's Hospital"),  # a possessive inside a name
    # The words that join a name's words, each once: the value reader gives "Nobel", which would pass for the Nobel
    # Prize in Literature.
    ("Thomson won the Nobel Prize in Physics in 1906.", "Nobel", "Nobel Prize in Physics"),
    ("an Officer of the Order of the British Empire.", "Order", "Order of the British Empire"),
    ("won the Academy Award for Best Actor for Gandhi", "Academy", "Academy Award for Best Actor"),
    # No acronym after a join, no "in" but after an honour's noun or before a place, nothing after a place.
    ("traded to the Cleveland Cavaliers of the NBA", "Cleveland", "Cleveland Cavaliers"),
    ("He studied at Harvard University in Cambridge.", "Harvard", "Harvard University"),
    ("He received the Nobel Prize in Stockholm in 1922.", "Nobel", "Nobel Prize"),
    ("born in London of Irish parents", "London", "London"),
    ("won the Nobel Prize in Physics", "Physics", "Physics"),  # no join is crossed before the span
    ("He lives in Lembrook. Dunholt Mills", "Dunholt", "Dunholt Mills"),  # nor a sentence's end
])
def test_a_value_span_inside_a_longer_name_is_read_as_that_name(text, span, name):
    from agentkgv.reader_agent.contradiction import whole_name

    start = text.index(span)
    assert whole_name(text, start, start + len(span)) == name


def test_a_key_value_line_lists_a_relations_values_in_full_only_where_it_gives_several_and_does_not_trail_off():
    page = ("Starring: Sam Shepard, Scott Glenn and Ed Harris\nSpouse(s): Iain Glen (m. 1993; div. 2004); Edwin Marsh\n"
            "Awards: Nobel Prize in Literature (1957)\nTeams: Washington Wizards, Memphis Grizzlies, etc.\n"
            "Team: Charlotte Bobcats\nSubsidiaries: Osterlund Freight, Brightwater Looms | Founded: 1903")
    assert listed_in_lines(("cast member", "starring"), page) == [["Sam Shepard", "Scott Glenn", "Ed Harris"]]
    assert listed_in_lines(("spouse",), page) == [["Iain Glen", "Edwin Marsh"]]
    assert listed_in_lines(("award",), page) == []  # one value: the only one or the best known
    assert listed_in_lines(("team",), page) == []  # trails off, or one value
    assert listed_in_lines(("subsidiary",), page) == [["Osterlund Freight", "Brightwater Looms"]]
    # A value written within any such list, in full or trailing off, is the list's; one on a line alone is not.
    assert in_line_lists(("team",), page, "Memphis Grizzlies") and in_line_lists(("team",), page, "Washington Wizards, Memphis")
    assert not in_line_lists(("team",), page, "Charlotte Bobcats") and not in_line_lists(("award",), page, "Nobel Prize")
    # A list in full is one, whatever line before it gave the same values trailing off.
    assert listed_in_lines(("team",), "Teams: Ann Bell, Bo Dee and others\nTeams: Ann Bell, Bo Dee") == [["Ann Bell", "Bo Dee"]]


def test_a_date_relation_reads_a_cards_born_and_died_lines():
    assert date_keys(("date of birth", "birth date")) == ("date of birth", "birth date", "born")
    assert date_keys(("date of death",)) == ("date of death", "died")
    assert date_keys(("inception", "founded")) == ("inception", "founded")
    page = "Born: 14 May 1958\nDied: 2 June 2011 in Lembrook"
    assert stated_in_lines(date_keys(("date of death",)), page) == ["2 June 2011 in Lembrook"]


def test_a_key_value_lines_card_is_the_heading_above_it_and_a_line_that_runs_on_is_prose():
    page = ("Topics\nSamantha Stosur (Australia)\nAge: 26\nBirthplace: Brisbane\n\nFrancesca Schiavone (Italy)\n"
            "| Key | Value |\n|---|---|\n| Birthplace | Milan |\nNews: Andy Roddick, the former player. Born in Omaha.")
    lines = lines_of(page)
    assert [(line.key, line.value, line.heading) for line in lines] == [
        ("Age", "26", "Samantha Stosur (Australia)"), ("Birthplace", "Brisbane", "Samantha Stosur (Australia)"),
        ("Key", "Value |", "Francesca Schiavone (Italy)"), ("Birthplace", "Milan |", "Francesca Schiavone (Italy)")]
    assert all(page[line.start:line.end].endswith(line.value) for line in lines)
    # One card: a section's heading names no one. Initials are no sentence's end; a sentence with a colon is prose.
    one = lines_of("Orla Penhallow\nOrla is an engineer.\n\nPersonal information\nBirthplace: Lembrook\nStarring: "
                   "Samuel L. Jackson, Uma Thurman\nUpdate: Orla Penhallow was born in Lembrook in 1950.")
    assert [(line.key, line.heading) for line in one] == [("Birthplace", "Personal information"),
                                                          ("Starring", "Personal information")]
    assert several_cards(lines) and not several_cards(one)
    glued = lines_of("… the best in this franchise. Hardcore Henry\nYear: 2015\nRuntime: 1h 36m")
    assert [line.heading for line in glued] == ["Hardcore Henry", "Hardcore Henry"]
    assert lines_of("| Member | Born | Birthplace |\n| Serra Vask | 1931 | Lundmere |") == []  # more than two cells
    assert names_key("Spouse(s)", ("spouse",)) and names_key("Subsidiaries", ("subsidiary",))
    assert not names_key("Place of death", ("place of birth", "birthplace"))


def test_a_value_in_a_sentence_before_the_subject_is_named_is_stated_of_no_one():
    cues = RelationFacts.load(Path("no-data-folder-here")).cues
    birth = Triple("Pell Drummond", "place of birth", "Dunmore Quay")
    assert not cues.states(birth, "Tobin Ashgrove was born in [O:Dunmore Quay]. Later the drummer [S:Pell Drummond] came")
    assert cues.states(birth, "[S:Pell Drummond] drummed. He was born in [O:Dunmore Quay].")


def test_where_only_the_title_names_the_subject_the_clause_leading_to_the_object_decides():
    from agentkgv.data.records import Triple
    from agentkgv.reader_agent.reader import reader_view

    cues = RelationFacts.load(Path("/nonexistent")).cues  # the shipped cues, no facts files

    def denies(text: str, relation: str) -> bool:
        triple = Claim.of(Triple("Edda Quill", relation, "Dunholt")).for_passage(text)
        return cues.denies(triple, reader_view(triple, text).text)

    assert denies("She was buried in the churchyard of Dunholt.", "place of death")
    assert denies("From 1961 she lived in Dunholt.", "place of birth")
    assert not denies("She died in Dunholt in 1990.", "place of death")
    # A relative clause after the object states the relation, whatever led to it.
    assert not denies("She lived in Dunholt, where she died in 1990.", "place of death")
    assert not denies("She was buried in Dunholt, where she was born.", "place of birth")
    # One mention stated otherwise keeps the reader's score; a key-value line's key is no clause of prose.
    assert not denies("Dunholt is a market town. She lived in Dunholt.", "place of birth")
    assert not denies("Residence: Lund\nPlace of death: Dunholt", "place of death")
