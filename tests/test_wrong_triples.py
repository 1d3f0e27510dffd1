"""Finding the wrong triples with the shipped models, on invented people, firms and towns that no training fact
knows: support needs the relation, and the value the documents state instead contradicts."""

from __future__ import annotations

import pytest

from agentkgv.core.verdict import Finding
from agentkgv.data.records import LabeledTriple, Passage, Triple
from agentkgv.paths import data_dir
from agentkgv.reader_agent.build import Readers, build
from agentkgv.reader_agent.config import ReadingConfig
from agentkgv.reader_agent.relation_facts import RelationFacts
from agentkgv.retrieval.bm25 import BM25Retriever

pytestmark = pytest.mark.skipif(not (data_dir() / "lama_trex").exists(), reason="no facts files")

PAGES = [
    ("Ansel Brightwater", "Ansel Brightwater (born 12 March 1931 in Lembrook) was a painter of harbours. He taught "
                          "at the academy for thirty years. Ansel Brightwater died in Varnholm in 2004."),
    ("Osterlund Freight", "Osterlund Freight is a shipping company headquartered in Rotterdam. It runs forty "
                          "vessels on the North Sea routes."),
    ("Marrowick", "Marrowick\nCountry: Elderland\nPopulation 19,450\nMayor: Tilda Vance\nElevation: 12 m"),
    ("Quillfeather", "Edda Quillfeather wrote three novels about the coast. Quillfeather died in Sorrelby in 1988, "
                     "where she had lived since the war."),
    ("Fennimore Dask", "Fennimore Dask was born in Dunholt, a mill town, and trained as a surveyor."),
    # Profile cards: a page's key-value lines speak of its subject (Ines Trevorrow), not of others it names.
    ("AKA Orla Wren Penhallow", "AKA Orla Wren Penhallow\nBorn: 3-May-1921\nBirthplace: Tessaby, Cornwall\n"
                                "Died: 9-Jan-1990\nLocation of death: Kelvercombe, Cornwall [1]\nOccupation: Potter"),
    ("Profile", "A look at the life of the weaver Ines Trevorrow.\nHer cousin Mabyn Kessell taught her to weave.\n"
                "Birth date: 2 June 1925\nBirth place: Brackwater, Devon\nOccupation: Weaver"),
    ("Tamsin Rowe", "Tamsin Rowe\nBorn: 1990\nBirthplace: Australia\nSport: Rowing"),
]


def agent_over(pages: list[Passage], folder, facts=None):
    """The shipped agent over `pages` (indexed under `folder`), with the data folder's facts or those of `facts`."""
    config = ReadingConfig(absence="unknown")
    return build(config, Readers.open(config), BM25Retriever.build(pages, folder / "bm25"), {},
                 RelationFacts.load(facts or data_dir()))


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    return agent_over([Passage(f"p{i}", text, title) for i, (title, text) in enumerate(PAGES)],
                      tmp_path_factory.mktemp("pages"))


def verify(agent, subject: str, predicate: str, obj: str):
    return agent.verify([LabeledTriple("t", Triple(subject, predicate, obj))])[0]


def test_a_death_place_does_not_support_a_birth_there(agent):
    died_there = verify(agent, "Ansel Brightwater", "place of birth", "Varnholm")
    assert died_there.outcome != Finding.SUPPORTED.value and died_there.verdict is not True
    assert verify(agent, "Ansel Brightwater", "place of birth", "Lembrook").outcome == Finding.SUPPORTED.value


def test_a_birth_date_is_contradicted_by_the_birth_date_not_the_death_year(agent):
    wrong = verify(agent, "Ansel Brightwater", "date of birth", "1935-06-01")
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.verdict is False
    assert wrong.stated_instead == "12 March 1931"


def test_a_headquarters_an_unknown_city_states_contradicts_another(agent):
    wrong = verify(agent, "Osterlund Freight", "headquarters location", "Marrowick")
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.stated_instead == "Rotterdam"


def test_a_table_row_of_population_contradicts_another_number(agent):
    wrong = verify(agent, "Marrowick", "population", "31,000")
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.stated_instead == "19,450"


def test_a_birth_place_no_training_fact_knows_contradicts_another(agent):
    wrong = verify(agent, "Fennimore Dask", "place of birth", "Marrowick")
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.stated_instead == "Dunholt"
    assert verify(agent, "Fennimore Dask", "place of birth", "Dunholt").outcome == Finding.SUPPORTED.value


def test_a_key_value_line_of_the_subjects_page_contradicts_another_value(agent):
    wrong = verify(agent, "Orla Penhallow", "death place", "Tessaby")
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.stated_instead == "Kelvercombe, Cornwall"
    assert verify(agent, "Orla Penhallow", "death place", "Kelvercombe").verdict is not False


def test_a_key_value_line_speaks_of_the_page_subject_only(agent):
    assert verify(agent, "Ines Trevorrow", "birth place", "Tessaby").stated_instead == "Brackwater, Devon"
    # Her cousin is named on the page, but the page is not about him.
    assert verify(agent, "Mabyn Kessell", "birth place", "Tessaby").outcome != Finding.CONTRADICTED.value


def test_a_country_stated_is_no_other_value_than_a_town_it_holds_and_contradicts_one_it_does_not(agent):
    assert verify(agent, "Tamsin Rowe", "place of birth", "Adelaide").outcome != Finding.CONTRADICTED.value
    geneva = verify(agent, "Tamsin Rowe", "place of birth", "Geneva")
    assert (geneva.outcome, geneva.stated_instead) == (Finding.CONTRADICTED.value, "Australia"), geneva
    # A town the gazetteer does not know may lie anywhere.
    assert verify(agent, "Tamsin Rowe", "place of birth", "Varnholm").outcome != Finding.CONTRADICTED.value


def test_a_country_holds_a_town_by_the_gazetteer_and_is_another_value_than_another_country():
    relations = RelationFacts.load(data_dir())

    def born(town: str) -> Triple:
        return Triple("Tamsin Rowe", "place of birth", town)
    assert relations.may_hold("Australia", born("Adelaide")) and not relations.elsewhere("Australia", born("Adelaide"))
    assert not relations.may_hold("Australia", born("Geneva")) and relations.elsewhere("Australia", born("Geneva"))
    assert relations.may_hold("Australia", born("Varnholm"))  # a town the gazetteer does not know
    assert not relations.may_hold("Dunholt", born("Marrowick"))  # no country: another town
    citizen = Triple("Tamsin Rowe", "country of citizenship", "Belgium")
    assert relations.may_hold("Brussels", citizen) and not relations.may_hold("France", citizen)
    assert not relations.elsewhere("France", citizen)


def test_a_place_a_second_statement_leads_to_is_no_value_of_the_relation_whose_words_lead_elsewhere(tmp_path):
    # A new user's page: the birth's words lead to the country; the town follows in a second statement.
    pages = [Passage("p0", "Lysa Marrow is an Australian swimmer. She was born in Australia in 1990 and trained in "
                           "Brisbane with the state squad.", "Lysa Marrow")]
    agent = agent_over(pages, tmp_path)
    adelaide = verify(agent, "Lysa Marrow", "place of birth", "Adelaide")
    assert adelaide.outcome != Finding.CONTRADICTED.value and adelaide.stated_instead is None, adelaide
    geneva = verify(agent, "Lysa Marrow", "place of birth", "Geneva")
    assert (geneva.outcome, geneva.stated_instead) == (Finding.CONTRADICTED.value, "Australia"), geneva


def test_a_claim_of_a_thing_to_itself_is_read_from_no_passage(agent):
    # Every passage naming the painter names "both"; none states him as his own notable work.
    painter = "http://example.org/Ansel_Brightwater"
    itself = agent.verify([LabeledTriple("t", Triple("Ansel Brightwater", "notable work", "Ansel Brightwater",
                                                     subject_id=painter, object_id=painter))])[0]
    assert itself.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and itself.verdict is None
    assert itself.search_calls == 0 and "its object is its subject" in itself.reason
    # Two things of one name are read as any claim: a firm may be founded in the town it is named after.
    namesake = agent.verify([LabeledTriple("t", Triple("Marrowick", "notable work", "Marrowick",
                                                       subject_id="http://example.org/Marrowick_(firm)",
                                                       object_id="http://example.org/Marrowick"))])[0]
    assert namesake.search_calls > 0 and namesake.reason is None


def test_a_death_by_surname_does_not_support_a_birth_there(agent):
    verdict = verify(agent, "Edda Quillfeather", "place of birth", "Sorrelby")
    assert verdict.outcome != Finding.SUPPORTED.value and verdict.verdict is not True


def test_a_passage_naming_the_object_beside_another_birth_place_does_not_support_it(tmp_path):
    pages = [Passage("p0", "Fennimore Dask was born in Dunholt and moved to Marrowick in 1950.", "Fennimore Dask"),
             Passage("p1", "The population of Marrowick was 19,450 in 2020.", "Marrowick")]
    agent = agent_over(pages, tmp_path)
    moved = verify(agent, "Fennimore Dask", "place of birth", "Marrowick")
    assert moved.outcome == Finding.CONTRADICTED.value and moved.stated_instead == "Dunholt"
    assert verify(agent, "Fennimore Dask", "place of birth", "Dunholt").outcome == Finding.SUPPORTED.value
    # The relation's noun leads the subject: "the population of Marrowick was".
    population = verify(agent, "Marrowick", "population", "31,000")
    assert population.outcome == Finding.CONTRADICTED.value and population.stated_instead == "19,450"


def test_a_town_near_the_object_is_the_same_place_as_pages_write_it(tmp_path):
    # A page writes a death in New York City as one in Manhattan, its borough: no other place of death. A town far
    # from it still is.
    pages = [Passage("p0", "Orla Penhallow (1921 - 2015) was a historian of ships. She died in Manhattan in 2015.",
                     "Orla Penhallow")]
    agent = agent_over(pages, tmp_path)
    assert verify(agent, "Orla Penhallow", "place of death", "New York City").outcome != Finding.CONTRADICTED.value
    far = verify(agent, "Orla Penhallow", "place of death", "Chicago")
    assert (far.outcome, far.stated_instead) == (Finding.CONTRADICTED.value, "Manhattan"), far


def test_a_firm_is_founded_in_one_place_so_the_town_stated_contradicts_another(tmp_path):
    # LAMA types the place of foundation N-1; the data folder's X-FACTR list lacks it (`LAMA_ONE_VALUED`).
    pages = [Passage("p0", "Brightwater Looms is a textile firm. It was founded in Lembrook in 1921 and has made linen "
                           "there since.", "Brightwater Looms"),
             Passage("p1", "Varnholm is a port town on the north coast. Its harbour was rebuilt in 1950.", "Varnholm")]
    agent = agent_over(pages, tmp_path)
    for predicate in ("foundation place", "location of formation"):
        wrong = verify(agent, "Brightwater Looms", predicate, "Varnholm")
        assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, "Lembrook"), wrong
        assert verify(agent, "Brightwater Looms", predicate, "Lembrook").outcome == Finding.SUPPORTED.value


def test_a_firms_key_value_line_of_its_foundation_place_outweighs_its_headquarters_named_on_the_page(tmp_path):
    # A new user's page: the reader supported the headquarters as the place of foundation at 0.87, the page naming both.
    pages = [Passage("p0", "# Brassholt Instruments\n\nFounded: 1903\nFounder: Idris Tamblyn\nPlace of foundation: "
                           "Varrowby\nHeadquarters: Quillan Cross\n\nBrassholt Instruments is a maker of marine "
                           "chronometers. The firm was founded in Varrowby in 1903. In 1927 the company moved its head "
                           "office to Quillan Cross, where it has been headquartered ever since.", "brassholt.md")]
    agent = agent_over(pages, tmp_path)
    wrong = verify(agent, "Brassholt Instruments", "place of foundation", "Quillan Cross")
    assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, "Varrowby"), wrong
    assert verify(agent, "Brassholt Instruments", "place of foundation", "Varrowby").outcome == Finding.SUPPORTED.value
    assert verify(agent, "Brassholt Instruments", "headquarters location", "Quillan Cross").verdict is not False


def test_a_name_heading_a_longer_name_gives_no_value_of_its_own(tmp_path):
    # A bridge named after someone: what the passage says of the bridge (on the Delaware) is not said of him.
    pages = [Passage("p0", "He also worked on industrial, educational and documentary films including a production on "
                           "the construction of the Mabyn Kessell Bridge, on the Delaware River.", "Film career")]
    agent = agent_over(pages, tmp_path)
    verdict = verify(agent, "Mabyn Kessell", "death place", "Camden, New Jersey")
    assert verdict.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and verdict.stated_instead is None


def test_without_the_data_folder_a_death_place_still_does_not_support_a_birth_there(tmp_path):
    # A pip-installed user has no facts files: the relation cues ship with the package.
    pages = [Passage("p0", "Douglas Adams was born in Cambridge, England, on 11 March 1952, and died in Santa "
                           "Barbara, California, in 2001.", "Douglas Adams"),
             Passage("p1", PAGES[0][1], PAGES[0][0]), Passage("p2", PAGES[3][1], PAGES[3][0])]
    agent = agent_over(pages, tmp_path, tmp_path / "no-data")
    for subject, died_there, born_there in (("Douglas Adams", "Santa Barbara", "Cambridge"),
                                            ("Ansel Brightwater", "Varnholm", "Lembrook")):
        assert verify(agent, subject, "place of birth", born_there).outcome == Finding.SUPPORTED.value
        wrong = verify(agent, subject, "place of birth", died_there)
        assert wrong.outcome != Finding.SUPPORTED.value and wrong.verdict is not True, wrong
        assert verify(agent, subject, "place of death", died_there).outcome == Finding.SUPPORTED.value
        wrong = verify(agent, subject, "place of death", born_there)
        assert wrong.outcome != Finding.SUPPORTED.value and wrong.verdict is not True, wrong
    surname = verify(agent, "Edda Quillfeather", "place of birth", "Sorrelby")
    assert surname.outcome != Finding.SUPPORTED.value and surname.verdict is not True


def test_a_page_of_several_people_gives_each_the_values_of_their_own_sentences(tmp_path):
    # The value reader read alone finds Kelvercombe as Orla's birthplace and "valley" in the title.
    pages = [Passage("p0", "Orla Penhallow was born in Lembrook in 1950. She trained as an engineer and built the "
                           "Lembrook weir.\nEdwin Marsh was born in Kelvercombe. He died in Marrowick in 2010.",
                     "People of the valley")]
    agent = agent_over(pages, tmp_path)
    for subject, born in (("Orla Penhallow", "Lembrook"), ("Edwin Marsh", "Kelvercombe")):
        assert verify(agent, subject, "place of birth", born).outcome == Finding.SUPPORTED.value
        wrong = verify(agent, subject, "place of birth", "Marrowick")
        assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, born), wrong
    assert verify(agent, "Edwin Marsh", "place of death", "Marrowick").outcome == Finding.SUPPORTED.value


def test_a_texts_heading_that_does_not_name_the_subject_gives_her_no_value(tmp_path):
    # A text file's heading is its first line: the value reader's best span for Orla's birthplace was "valley", the
    # only one it found; without the heading it finds Lembrook.
    pages = [Passage("p0", "People of the valley\n\nOrla Penhallow was born in Lembrook in 1950. She trained as an "
                           "engineer and built the Lembrook weir.\nEdwin Marsh was born in Kelvercombe. He died in "
                           "Marrowick in 2010.")]
    wrong = verify(agent_over(pages, tmp_path), "Orla Penhallow", "place of birth", "Marrowick")
    assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, "Lembrook"), wrong


def test_the_value_of_another_relation_is_passed_over_for_the_relations_own(tmp_path):
    # The value reader's best span for the death is the birth's town; the words before it say so, so the next
    # span, which they state as the death's, is the value stated instead.
    pages = [Passage("p0", "Jory Pendarves was born in Kelvercombe in 1901 and died in Porthkennack in 1970. "
                           "He built boats.", "Jory Pendarves")]
    agent = agent_over(pages, tmp_path)
    ranked = agent.values.read([("Jory Pendarves", "place of death", pages[0].text, pages[0].title)], count=3)[0]
    assert [span.text for span in ranked[:2]] == ["Kelvercombe", "Porthkennack"]
    wrong = verify(agent, "Jory Pendarves", "place of death", "Holmsby")
    assert wrong.outcome == Finding.CONTRADICTED.value and wrong.stated_instead == "Porthkennack"
    assert verify(agent, "Jory Pendarves", "place of death", "Porthkennack").outcome == Finding.SUPPORTED.value



def test_a_name_the_facts_know_is_no_other_value_where_its_clause_states_a_rival(tmp_path):
    # An obituary's summary line: "born" stands between the names, but the clause that gives Bonn is the death's.
    pages = [Passage("p0", "Halvard Brisk, politician: born Quenby, Elderland 28 October 1916; Chairman, Free Party "
                           "1960-68; Minister of Works 1963-66; married first Ruth Marrow (one son), secondly Greta "
                           "Holm; died Bonn 6 May 1998.", "Halvard Brisk")]
    agent = agent_over(pages, tmp_path)
    born = verify(agent, "Halvard Brisk", "place of birth", "Leipzig")
    assert born.stated_instead != "Bonn" and born.outcome != Finding.SUPPORTED.value
    died = verify(agent, "Halvard Brisk", "place of death", "Leipzig")
    assert died.outcome == Finding.CONTRADICTED.value and died.stated_instead == "Bonn"


def test_a_value_written_before_the_subject_is_read_by_the_words_after_it(tmp_path):
    # "Cincinnati born writer": the words between the town and the subject state a birth, so no death there.
    pages = [Passage("p0", "A collection of short stories and essays by Cincinnati born writer Orrin Quayle.",
                     "Orrin Quayle stories")]
    agent = agent_over(pages, tmp_path)
    died = verify(agent, "Orrin Quayle", "place of death", "Holmsby")
    assert died.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and died.stated_instead is None


def test_a_place_written_with_its_region_in_a_birth_clause_gives_no_place_of_death(tmp_path):
    # "born in Nogales, Arizona": the clause that leads to "Arizona" is the birth's, though a comma stands between.
    pages = [Passage("p0", "Ansel Brightwater, born in Lembrook, Harrowshire on 12 March 1931, was a virtuoso painter "
                           "of harbours, a teacher and an occasional sculptor.", "Ansel Brightwater")]
    agent = agent_over(pages, tmp_path)
    verdict = verify(agent, "Ansel Brightwater", "death place", "Varnholm")
    assert verdict.outcome != Finding.CONTRADICTED.value and verdict.stated_instead is None
    born = verify(agent, "Ansel Brightwater", "birth place", "Varnholm")
    assert born.outcome == Finding.CONTRADICTED.value and born.stated_instead is not None


def test_one_sentence_of_a_birth_and_a_death_is_read_by_where_each_relations_words_lead(tmp_path):
    # The words between the names lead to Marrowick as her birthplace; the relative clause after Dunholt says she
    # died there. The reader alone supports both births (it keys on the names) and neither death.
    # The same with towns the training facts know, whose names a passage is also read for.
    pages = [Passage("p0", "Ada Vell was born in Marrowick in 1952 and later moved to Dunholt, where she died in 2019.",
                     ""),
             Passage("p1", "Ines Carrow was born in Paris in 1931 and later moved to Lyon, where she died in 1999.", "")]
    agent = agent_over(pages, tmp_path)
    for subject, born, died in (("Ada Vell", "Marrowick", "Dunholt"), ("Ines Carrow", "Paris", "Lyon")):
        for relation, right, wrong in (("birth place", born, died), ("death place", died, born)):
            assert verify(agent, subject, relation, right).outcome == Finding.SUPPORTED.value, (subject, relation)
            verdict = verify(agent, subject, relation, wrong)
            assert verdict.outcome == Finding.CONTRADICTED.value and verdict.stated_instead == right, (subject, relation)


def test_a_place_the_page_names_beside_another_birth_place_is_contradicted_by_it(tmp_path):
    # The new user's painter: the page names Varnholm twice, never as his birthplace, and gives Lembrook as it with
    # the subject by surname. The reader scores Varnholm above Lembrook as his birthplace.
    pages = [Passage("p0", "Ansel Brightwater painted harbours and fishing boats for most of his life. He taught at the "
                           "Varnholm academy for thirty years, and his students remember his patience. Critics in "
                           "Varnholm praised his late seascapes. Brightwater was born on 12 March 1931 in Lembrook, a "
                           "fishing town on the northern coast.", "")]
    agent = agent_over(pages, tmp_path)
    for wrong in ("Varnholm", "Dunholt"):
        verdict = verify(agent, "Ansel Brightwater", "birth place", wrong)
        assert (verdict.outcome, verdict.stated_instead) == (Finding.CONTRADICTED.value, "Lembrook"), wrong
    assert verify(agent, "Ansel Brightwater", "birth place", "Lembrook").outcome == Finding.SUPPORTED.value


@pytest.mark.parametrize("subject, relation, wrong, stated, text", [
    # A new user's keeper: where he lives and where he was born, in two sentences; the value reader once read both
    # as one span, and the reader reads a birth in either town as well.
    ("Osric Fell", "place of birth", "Lembrook", "Dunholt",
     "Osric Fell is a lighthouse keeper and a painter. He lives in Lembrook. He was born in Dunholt in 1961."),
    # The value reader ranks the factory's town first for the headquarters; stated without the relation's words, it
    # gives way to the town the page says the firm is headquartered in.
    ("Pellory Instruments", "headquarters location", "Dunmere", "Varnhold",
     "Pellory Instruments is a maker of precision scales. The company is headquartered in Varnhold, and was founded in "
     "1958 by the engineer Tomas Greb. Its largest factory is in Dunmere."),
    # The value reader gives "Nobel" of "won the Nobel Prize in Physics": a cut name, which shares its words with the
    # Nobel Prize in Literature and so was no other value. Read whole, it is another award.
    ("Osric Fell", "award received", "Nobel Prize in Literature", "Nobel Prize in Physics",
     "Osric Fell (born 1931) is a physicist. Osric Fell won the Nobel Prize in Physics in 1976 for his work on ice."),
])
def test_the_value_a_page_states_with_the_relations_words_contradicts_another(tmp_path, subject, relation, wrong,
                                                                               stated, text):
    agent = agent_over([Passage("p0", text, subject)], tmp_path)
    verdict = verify(agent, subject, relation, wrong)
    assert (verdict.outcome, verdict.stated_instead) == (Finding.CONTRADICTED.value, stated), verdict
    assert verify(agent, subject, relation, stated).outcome == Finding.SUPPORTED.value


def test_where_one_lives_or_works_is_no_birth_there(tmp_path):
    pages = [Passage("p0", "Osric Fell is a painter who lives in Lembrook and works in Dunholt.", "Osric Fell")]
    agent = agent_over(pages, tmp_path)
    for town in ("Lembrook", "Dunholt"):
        for relation in ("place of birth", "place of death"):
            assert verify(agent, "Osric Fell", relation, town).outcome != Finding.SUPPORTED.value, (town, relation)


def test_what_a_sentence_tells_of_the_subjects_kin_is_not_the_subjects(tmp_path):
    # Kin share a surname; the reader took the brother's marriage and the father's birthplace for the subject's, and
    # the father's birthplace contradicted her own.
    pages = [Passage("p0", "Osric Fell is a painter. His brother Tam Fell married Wenna Pollard in 1990.",
                     "Osric Fell"),
             Passage("p1", "Orla Penhallow is a rower. Her father, Edwin Penhallow, was born in Tessaby. She was born "
                           "in Marrowick.", "Orla Penhallow"),
             Passage("p2", "Ysolde Marrack is a potter. Her husband, Corin Hale, was born in Dunholt.",
                     "Ysolde Marrack"),
             Passage("p3", "Tobiah Venn is a clockmaker in Varnholm. His wife was Edda Quill.", "Tobiah Venn")]
    agent = agent_over(pages, tmp_path)
    assert verify(agent, "Osric Fell", "spouse", "Wenna Pollard").outcome != Finding.SUPPORTED.value
    wrong = verify(agent, "Orla Penhallow", "place of birth", "Tessaby")
    assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, "Marrowick"), wrong
    assert verify(agent, "Orla Penhallow", "place of birth", "Marrowick").outcome == Finding.SUPPORTED.value
    # The opening states who the kin is to the subject, by the kin's name or a copula's.
    assert verify(agent, "Ysolde Marrack", "spouse", "Corin Hale").outcome == Finding.SUPPORTED.value
    assert verify(agent, "Tobiah Venn", "spouse", "Edda Quill").outcome == Finding.SUPPORTED.value
    assert verify(agent, "Ysolde Marrack", "place of birth", "Dunholt").outcome != Finding.SUPPORTED.value


def test_a_nomination_a_burial_and_an_illustrator_state_no_award_death_or_author(tmp_path):
    pages = [Passage("p0", "Tobiah Venn was nominated for the Amberley Prize in 2001 but lost to Corin Hale. He "
                           "received the Brass Compass Award in 2004.", "Tobiah Venn"),
             Passage("p1", "Jory Pendarves died in Porthkennack in 1950 and was buried in Kelvercombe.",
                     "Jory Pendarves"),
             Passage("p2", "The Quiet Harbour is a novel by Edda Quillfeather, illustrated by Mabyn Kessell.",
                     "The Quiet Harbour")]
    agent = agent_over(pages, tmp_path)
    assert verify(agent, "Tobiah Venn", "award received", "Amberley Prize").outcome != Finding.SUPPORTED.value
    assert verify(agent, "Tobiah Venn", "award received", "Brass Compass Award").outcome == Finding.SUPPORTED.value
    assert verify(agent, "Jory Pendarves", "place of burial", "Porthkennack").outcome != Finding.SUPPORTED.value
    assert verify(agent, "Jory Pendarves", "place of death", "Porthkennack").outcome == Finding.SUPPORTED.value
    assert verify(agent, "The Quiet Harbour", "author", "Mabyn Kessell").outcome != Finding.SUPPORTED.value
    assert verify(agent, "The Quiet Harbour", "author", "Edda Quillfeather").outcome == Finding.SUPPORTED.value


def test_a_life_spans_other_end_is_no_value_of_this_end(tmp_path):
    # A page's life span: the death's date once contradicted the birth's, the value reader reading "May 1921 in
    # Tessaby; died 9 January 1990" as one value; and the date of the dissolution supported the founding's.
    pages = [Passage("p0", "Tamsin Rowe (born 3 May 1921 in Tessaby; died 9 January 1990 in Kelvercombe) was an "
                           "Elderland politician of the Harbour Party.", "Tamsin Rowe"),
             Passage("p1", "Brightwater Looms was founded in 1921 and dissolved in 1988.", "Brightwater Looms")]
    agent = agent_over(pages, tmp_path)
    assert verify(agent, "Tamsin Rowe", "date of birth", "1921-05-03").outcome == Finding.SUPPORTED.value
    wrong = verify(agent, "Tamsin Rowe", "date of death", "1921-05-03")
    assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, "9 January 1990"), wrong
    assert verify(agent, "Brightwater Looms", "inception", "1921").outcome == Finding.SUPPORTED.value
    founded = verify(agent, "Brightwater Looms", "inception", "1988")
    assert (founded.outcome, founded.stated_instead) == (Finding.CONTRADICTED.value, "1921"), founded


def test_a_works_credits_name_each_persons_part(tmp_path):
    pages = [Passage("p0", "Salt Road is a 1987 drama film directed by Wenna Pollard and produced by Idris Tamblyn. It "
                           "stars Corin Halloway. The score was composed by Tobiah Venn.", "Salt Road"),
             Passage("p1", "Harbour Lights is a song written by Mabyn Kessell and recorded by Ysolde Marrack for "
                           "Dunholt Records, distributed by Lembrook Music.", "Harbour Lights")]
    agent = agent_over(pages, tmp_path)
    for relation, wrong, right in (("director", "Idris Tamblyn", "Wenna Pollard"),
                                   ("composer", "Corin Halloway", "Tobiah Venn")):
        assert verify(agent, "Salt Road", relation, wrong).outcome != Finding.SUPPORTED.value, (relation, wrong)
        assert verify(agent, "Salt Road", relation, right).outcome == Finding.SUPPORTED.value, (relation, right)
    assert verify(agent, "Harbour Lights", "performer", "Mabyn Kessell").outcome != Finding.SUPPORTED.value
    assert verify(agent, "Harbour Lights", "record label", "Lembrook Music").outcome != Finding.SUPPORTED.value
    assert verify(agent, "Harbour Lights", "record label", "Dunholt Records").outcome == Finding.SUPPORTED.value


def test_a_rivals_words_leading_to_the_object_deny_it_where_only_the_title_names_the_subject(tmp_path):
    # A page split into passages: the second names the subject by surname and pronoun only, its title in full. The
    # reader supported a death where he was buried, a birth where he lived and an award he was nominated for.
    pages = [Passage("p0", "From 1961 Tesk lived in Corrabeth. Tesk was buried in the churchyard of Kelvarra. He was "
                           "nominated for the Marrow Prize in 1978. He was born in Harrowmere.", "Quillan Tesk")]
    agent = agent_over(pages, tmp_path)
    for relation, town in (("place of birth", "Corrabeth"), ("place of death", "Kelvarra"),
                           ("place of birth", "Kelvarra"), ("award received", "Marrow Prize")):
        assert verify(agent, "Quillan Tesk", relation, town).outcome != Finding.SUPPORTED.value, (relation, town)
    assert verify(agent, "Quillan Tesk", "place of birth", "Harrowmere").outcome == Finding.SUPPORTED.value


def test_a_known_name_the_reader_reads_as_well_withdraws_no_support_where_the_relations_words_lead_elsewhere(tmp_path):
    # The unseen split's passage: "Slovene", a language the facts know, reads for Dolomiten as readily as its German,
    # yet the words lead to another paper's language.
    pages = [Passage("p0", "It is the only Slovene daily in any country other than Slovenia, and one of the three "
                           "historical daily newspapers in Italy published in a language other than Italian (the other "
                           "two are the German-language Dolomiten and Neue Südtiroler Tageszeitung).", "")]
    agent = agent_over(pages, tmp_path)
    verdict = verify(agent, "Dolomiten", "language of work or name", "German")
    assert verdict.outcome == Finding.SUPPORTED.value and verdict.stated_instead is None


def test_another_value_of_a_relation_with_several_speaks_against_an_object_nothing_supports(tmp_path):
    # A keeper's page states his occupation: another occupation, where nothing read states the claimed one, speaks
    # against it (a relation with several values: weighed apart from a contradiction). A page that states
    # two supports both: a second value withdraws no support, as it would for a relation with one value.
    pages = [Passage("p0", "Osric Fell is a lighthouse keeper who lives in Lembrook.", "Osric Fell"),
             Passage("p1", "Wenna Pollard is a sculptor and a painter who lives in Varnholm.", "Wenna Pollard"),
             Passage("p2", "The tool was pressed against the metal to create the swirled look characteristic of the "
                           "aircraft's sheet metal parts, and is thought to have been a way to clad a velmarite sheet "
                           "panel with pure aluminum, for corrosion protection.", "velmarite")]
    agent = agent_over(pages, tmp_path)
    wrong = verify(agent, "Osric Fell", "occupation", "sculptor")
    assert (wrong.outcome, wrong.verdict, wrong.stated_instead) == (Finding.CONTRADICTED.value, False,
                                                                   "lighthouse keeper"), wrong
    assert wrong.evidence[0].id == "p0" and "several values" in (wrong.reason or "")
    assert verify(agent, "Osric Fell", "occupation", "lighthouse keeper").outcome == Finding.SUPPORTED.value
    for both in ("sculptor", "painter"):
        assert verify(agent, "Wenna Pollard", "occupation", both).outcome == Finding.SUPPORTED.value, both
    # The reader reads "aircraft" as a part of velmarite at least as well as aluminum: for a relation with one value
    # that would withdraw the support; here both may be parts.
    assert verify(agent, "velmarite", "has part", "aluminum").outcome == Finding.SUPPORTED.value
    # A relation the predicates table does not know (a raw infobox key) may take one value or several: another value
    # its line gives says nothing.
    card = agent_over([Passage("p0", "Osric Fell\nBackground: lighthouse keeper\nBorn: 1961\n\nOsric Fell keeps the "
                                     "light at Lembrook.", "Osric Fell")], tmp_path / "card")
    assert verify(card, "Osric Fell", "background", "sculptor").outcome == Finding.NOT_ENOUGH_EVIDENCE.value


def test_a_pages_list_of_a_relations_values_that_leaves_the_object_out_lowers_its_p_true(tmp_path):
    # A film's card lists its cast in full: an actor it leaves out likely did not star, weaker evidence than another
    # value of a relation with one value, since a card may list the leads only: not enough evidence, at a lower
    # P(true), the list cited and given. An actor it names stars; a list that trails off states no full cast.
    pages = [Passage("p0", "The Lantern Keepers\nDirector: Wenna Pollard\nStarring: Corin Halloway, Tobiah Venn and "
                           "Ysolde Marrack\nRelease date: 1987\n\nThe Lantern Keepers is a drama about two brothers who "
                           "keep a lighthouse off Varnholm.", "The Lantern Keepers"),
             Passage("p1", "Salt Road\nStarring: Idris Tamblyn, Orla Penhallow, etc.\n\nSalt Road is a film about the "
                           "pilgrims' way to Lembrook.", "Salt Road")]
    agent = agent_over(pages, tmp_path)
    wrong = verify(agent, "The Lantern Keepers", "cast member", "Edda Quillfeather")
    assert wrong.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and wrong.verdict is None and wrong.listed, wrong
    assert wrong.stated_instead == "Corin Halloway, Tobiah Venn, Ysolde Marrack" and wrong.evidence[0].id == "p0"
    assert wrong.reason is not None and "Ysolde Marrack" in wrong.reason
    assert verify(agent, "The Lantern Keepers", "cast member", "Ysolde Marrack").outcome == Finding.SUPPORTED.value
    trailing = verify(agent, "Salt Road", "cast member", "Edda Quillfeather")
    assert trailing.outcome == Finding.NOT_ENOUGH_EVIDENCE.value and not trailing.listed, trailing
    # Evidence against: a P(true) under that of the same silence without the list.
    assert wrong.p_true is not None and trailing.p_true is not None and wrong.p_true < trailing.p_true


def test_a_sentence_that_opens_with_another_name_states_that_ones_values_not_the_subjects(tmp_path):
    # A new user's pages: the band's page gives each member's birth year in a sentence of their own. Each person's
    # own sentence supports their year, and contradicts the other's.
    pages = [Passage("p0", "Corin Halloway was born in Glaswick in 1961 and moved to Ostrava Mere with her family in "
                           "1970. She studied music at the conservatory.", "Corin Halloway"),
             Passage("p1", "Salt Road is a folk band formed in Ostrava Mere in 1979 by singer Corin Halloway and "
                           "drummer Tobiah Venn. Halloway, born in 1961, wrote most of the songs; Venn was born in 1955 "
                           "in Lembrook.", "Salt Road")]
    agent = agent_over(pages, tmp_path)
    for subject, predicate, true, wrong in (("Tobiah Venn", "date of birth", "1955", "1961"),
                                            ("Corin Halloway", "date of birth", "1961", "1955")):
        assert verify(agent, subject, predicate, true).outcome == Finding.SUPPORTED.value, (subject, true)
        verdict = verify(agent, subject, predicate, wrong)
        assert (verdict.outcome, verdict.stated_instead) == (Finding.CONTRADICTED.value, true), verdict


def test_a_death_stated_of_another_after_an_aside_on_his_name_does_not_support_hers(tmp_path):
    # A new user's page: her teacher's death is stated after an aside on his name that names her father.
    pages = [Passage("p0", "Wren Halloway was born in Callowmoor in 1950. Her teacher, Osric Fell, a violin maker who "
                           "trained with Wren's father, died in Stennack in 1990.", "Wren Halloway")]
    agent = agent_over(pages, tmp_path)
    hers = verify(agent, "Wren Halloway", "place of death", "Stennack")
    assert hers.outcome != Finding.SUPPORTED.value and hers.verdict is not True, hers
    assert verify(agent, "Osric Fell", "place of death", "Stennack").outcome == Finding.SUPPORTED.value


def test_a_word_in_lower_case_the_facts_give_as_a_value_is_no_value_of_a_proper_name(tmp_path):
    # "music" is a record label in the facts files; written in lower case, it names a kind of sound, not a label.
    pages = [Passage("p0", "The most widely recognized songs such as \"Salt Road\" or Corin Halloway's \"Ne me quitte "
                           "pas\" have successors in diverse genres such as French electronic music, pop or rap.",
                     "Chanson")]
    verdict = verify(agent_over(pages, tmp_path), "Corin Halloway", "record label", "Harrowmere Records")
    assert verdict.outcome != Finding.CONTRADICTED.value and verdict.stated_instead is None, verdict


def test_a_cards_born_line_gives_the_date_of_birth_where_a_date_is_asked(tmp_path):
    # "Born: 14 May 1958" on her card: the year her family moved, which the prose names, is no birth year.
    pages = [Passage("p0", "# Corin Halloway\n\nBorn: 14 May 1958\nBirthplace: Glaswick\n\nCorin Halloway is a singer. "
                           "In 1961 her family moved to Ostrava Mere, where she formed the band Salt Road in 1979.",
                     "corin.md")]
    agent = agent_over(pages, tmp_path)
    wrong = verify(agent, "Corin Halloway", "date of birth", "1961")
    assert (wrong.outcome, wrong.stated_instead) == (Finding.CONTRADICTED.value, "14 May 1958"), wrong
    assert verify(agent, "Corin Halloway", "date of birth", "1958-05-14").outcome == Finding.SUPPORTED.value
    assert verify(agent, "Corin Halloway", "place of birth", "Glaswick").outcome == Finding.SUPPORTED.value


CARDS = [
    Passage("c0", "# Wenna Pollard\n\nWenna Pollard was a stage and screen actress.\n\nBorn: 3 May 1921\nBirthplace: "
                  "Harrowmere\nPlace of death: Castelbrook\nSpouse(s): Quillan Cross (m. 1950); Dorran Vess\nAwards: "
                  "Silver Lantern Award, Orrin Medal", "Wenna Pollard"),
    Passage("c1", "Quillan Cross - Directors of the Northern Screen\n\nQuillan Cross\nBorn: 12 August 1918\nBirthplace: "
                  "Fenwick Hollow\nDied: 2 March 1987\nSpouse(s): Wenna Pollard (m. 1950)\nAwards: Brass Compass Award",
            "quillan_cross.txt"),
    Passage("c2", "# The Glass Orchard (1956 film)\n\nThe Glass Orchard is a 1956 drama film.\n\nDirector: Quillan Cross\n"
                  "Starring: Wenna Pollard, Tobin Ashgrove and Marisol Quaine\nRelease date: 9 October 1956",
            "The Glass Orchard (1956 film)"),
    Passage("c3", "# People of the Castelbrook district\n\nEssa Thornbury\n| Key | Value |\n|---|---|\n| Born | 1 July 1941 |\n"
                  "| Place of birth | Pellingford |\n| Place of death | Dunmore Quay |\n\nMarisol Quaine\n| Born | 14 "
                  "February 1929 |\n| Place of birth | Castelbrook |\n| Spouse | Pell Drummond (m. 1961) |", "people.md"),
]


def test_a_cards_lines_speak_of_its_subject_and_state_their_keys_relation_only(tmp_path):
    # A new user's cards: a line's value is its card's subject's value of its key's relation, not a rival relation's
    # and not the value of anyone the card names. (A key of no rival keeps the reader's score: the film's `Starring`
    # line still supports Tobin Ashgrove as its director, a known limit.)
    agent = agent_over(CARDS, tmp_path)
    for subject, predicate, obj in (("Wenna Pollard", "award received", "Brass Compass Award"),  # her husband's
                                    ("Quillan Cross", "date of death", "1994-11-17"),  # no line of his gives it
                                    ("Dorran Vess", "place of birth", "Harrowmere"),  # his wife's birthplace
                                    ("Pell Drummond", "date of birth", "1929-02-14")):  # his wife's birth date
        verdict = verify(agent, subject, predicate, obj)
        assert verdict.outcome != Finding.SUPPORTED.value and verdict.verdict is not True, verdict
    # Her table's death row is no birth there: its birth row contradicts it.
    essa = verify(agent, "Essa Thornbury", "place of birth", "Dunmore Quay")
    assert (essa.outcome, essa.stated_instead) == (Finding.CONTRADICTED.value, "Pellingford"), essa
    # A card on a page of several, under its subject's heading, supports its own values; his own card his death date.
    assert verify(agent, "Marisol Quaine", "place of birth", "Castelbrook").outcome == Finding.SUPPORTED.value
    assert verify(agent, "Quillan Cross", "date of death", "1987-03-02").outcome == Finding.SUPPORTED.value
    assert verify(agent, "The Glass Orchard", "director", "Quillan Cross").outcome == Finding.SUPPORTED.value
    # Nothing stated of him: neither contradicted by her values nor supported.
    vess = verify(agent, "Dorran Vess", "place of birth", "Kessington")
    assert vess.outcome == Finding.NOT_ENOUGH_EVIDENCE.value, vess


def test_a_section_heading_or_a_value_on_its_own_line_is_no_other_card(tmp_path):
    # On a page of one card, a section's heading names no one, and a value under a key that ends in a colon is a value;
    # on a page of several, a card under another's heading is that one's, and a table of more columns no card at all.
    pages = [Passage("r1", "Orla Penhallow\nOrla Penhallow is an engineer.\n\nPersonal information\nBirthplace: "
                           "Lembrook", "Orla Penhallow"),
             Passage("r2", "Ada Vance\nAda Vance is a potter.\n\nSpouse(s):\nTom Brown (m. 1950)\nBirthplace: Lund",
                     "Ada Vance"),
             Passage("r3", "Quillan Cross\nQuillan Cross was a film director.\n\nWenna Pollard\nBirthplace: Harrowmere\n\n"
                           "Quillan Cross\nBirthplace: Fenwick Hollow", "Quillan Cross"),
             Passage("r4", "Salt Road members\n\n| Member | Born | Birthplace |\n|---|---|---|\n| Serra Vask | 1931 | "
                           "Lundmere |", "Salt Road members")]
    agent = agent_over(pages, tmp_path)
    for subject, obj in (("Orla Penhallow", "Lembrook"), ("Ada Vance", "Lund"), ("Quillan Cross", "Fenwick Hollow")):
        assert verify(agent, subject, "place of birth", obj).outcome == Finding.SUPPORTED.value, subject
    other = verify(agent, "Quillan Cross", "place of birth", "Harrowmere")
    assert (other.outcome, other.stated_instead) == (Finding.CONTRADICTED.value, "Fenwick Hollow"), other
    assert verify(agent, "Serra Vask", "place of birth", "Lundmere").verdict is not False


def test_a_value_stated_with_the_relations_words_is_given_before_one_stated_without(agent):
    from agentkgv.reader_agent.claims import Claim
    from agentkgv.reader_agent.value_reader import Span

    text = "Ansel Brightwater's career in Hollywood spanned six decades. Ansel Brightwater was born in Wilmette."
    claim, page = Claim.of(Triple("Ansel Brightwater", "place of birth", "Beverly Hills")), Passage("p", text, "")
    hollywood, wilmette = (Span(name, 3.0 - k, text.index(name)) for k, name in enumerate(("Hollywood", "Wilmette")))
    assert agent._stated_instead(claim, page, [hollywood, wilmette]) == "Wilmette"
    assert agent._stated_instead(claim, page, [hollywood]) == "Hollywood"  # none with them: the best span


def test_a_contradiction_stated_with_the_relations_words_is_kept_before_a_likelier_one_without(agent):
    from agentkgv.retrieval.base import Hit

    career = Hit(Passage("p0", "Ansel Brightwater's career in Hollywood spanned six decades.", ""), 1.0, 1)
    born = Hit(Passage("p1", "Ansel Brightwater was born in Wilmette.", ""), 1.0, 2)
    reading = agent.start(LabeledTriple("t", Triple("Ansel Brightwater", "place of birth", "Beverly Hills")))
    agent._weigh_other(reading, career, "Hollywood", 6.0)
    agent._weigh_other(reading, born, "Wilmette", 4.0)
    agent._weigh_other(reading, career, "Hollywood", 8.0)
    assert reading.contradiction is not None and reading.contradiction.value == "Wilmette"
    # A card's line states its value by its key; of two so stated, the likelier is kept.
    card = Hit(Passage("p2", "Ansel Brightwater\nBirthplace: Tessaby\nOccupation: Actor", "Ansel Brightwater"), 1.0, 3)
    agent._weigh_other(reading, card, "Tessaby", 5.0)
    assert reading.contradiction.value == "Tessaby"


def test_a_books_one_author_contradicts_another_writer_of_it(tmp_path):
    # FactBench names `author` from the writer to the book: the page says nothing of Tamsin Hollow, and all it needs to.
    agent = agent_over([Passage("p0", "A Harbour in Winter is a 1962 novel by Orrin Vasey, set in a fishing town. "
                                      "It was translated into French by Hester Crane in 1970.", "A Harbour in Winter"),
                        Passage("p1", "Tamsin Hollow writes plays for the radio.", "Tamsin Hollow")], tmp_path)
    other = verify(agent, "Tamsin Hollow", "author", "A Harbour in Winter")
    assert (other.outcome, other.stated_instead) == (Finding.CONTRADICTED.value, "Orrin Vasey"), other
    assert other.reason == "A Harbour in Winter has one author, and a passage gives 'Orrin Vasey' as its author"
    from agentkgv.eval.html_report import write_review_csv

    write_review_csv(tmp_path / "review.csv", [other], 0.7)  # a reviewer reads why, not only the name
    assert other.reason in (tmp_path / "review.csv").read_text(encoding="utf-8")
    assert verify(agent, "Orrin Vasey", "author", "A Harbour in Winter").outcome == Finding.SUPPORTED.value
    # A translator is no author: her words deny it, and the book's author contradicts it.
    translator = verify(agent, "Hester Crane", "author", "A Harbour in Winter")
    assert (translator.outcome, translator.stated_instead) == (Finding.CONTRADICTED.value, "Orrin Vasey"), translator
    # Read from the book's end as the facts are, a writer has several books: another's author contradicts nothing.
    assert verify(agent, "A Harbour in Winter", "author", "Tamsin Hollow").outcome != Finding.CONTRADICTED.value


def test_an_edition_of_a_book_still_states_its_author(tmp_path):
    agent = agent_over([Passage("p0", "A Harbour in Winter, reissued in a new edition in 1990, is a novel by Orrin "
                                      "Vasey.", "A Harbour in Winter")], tmp_path)
    assert verify(agent, "Orrin Vasey", "author", "A Harbour in Winter").outcome == Finding.SUPPORTED.value


def test_another_author_of_the_object_never_replaces_another_value_of_the_subjects_one(agent):
    from agentkgv.reader_agent.claims import Claim
    from agentkgv.reader_agent.object_side import read_from_object
    from agentkgv.retrieval.base import Hit

    born = Hit(Passage("p1", "Ansel Brightwater was born in Wilmette.", ""), 1.0, 1)
    reading = agent.start(LabeledTriple("t", Triple("Ansel Brightwater", "place of birth", "Beverly Hills")))
    agent._weigh_other(reading, born, "Wilmette", 4.0)
    turned = read_from_object(reading.claim, "P19", "place of birth")
    agent._weigh_other(reading, born, "Edda Quill", 9.0, turned)
    assert (reading.contradiction.value, reading.contradiction.of_object) == ("Wilmette", False)


def test_the_names_beside_an_object_are_those_of_the_sentences_that_name_it():
    from agentkgv.reader_agent.object_side import names_beside

    text = ("Industry reviewers praised Flatland, a satire by Edwin A. Abbott's friend, printed in London. "
            "The Left Hand of Darkness is by Ursula K. Le Guin.")
    # Not the book's own name, a sentence's first word alone, a possessive's ending, nor another sentence's names.
    assert names_beside(Triple("Flatland", "author", "Eric Flint"), text) == ["Edwin A. Abbott", "London"]
