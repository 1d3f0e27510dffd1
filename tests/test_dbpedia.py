"""The DBpedia development set read as a user's graph, and its benchmark scored closed and open world."""

from __future__ import annotations

import json

import pytest

from agentkgv.commands.bench import bench_dbpedia
from agentkgv.config import RunConfig
from agentkgv.data.dbpedia import iter_dbpedia
from agentkgv.data.errors import DataError
from agentkgv.paths import Workspace, data_dir

R = "http://dbpedia.org/resource/"
FACTS = [
    {"id": "1", "subject": R + "Erich_Mende", "predicate": "http://dbpedia.org/ontology/birthPlace",
     "object": R + "German_Empire", "label": 1, "verbalized": "Erich Mende was born in German Empire.", "has_docs": True},
    {"id": "2", "subject": R + "Erich_Mende", "predicate": "http://dbpedia.org/property/length", "object": 221.0,
     "label": 0, "verbalized": "The length of Erich Mende is 221.0.", "has_docs": True},
    {"id": "3", "subject": R + "Hal_Keller", "predicate": "http://www.w3.org/2000/01/rdf-schema#label",
     "object": "Hal Keller", "label": 1, "verbalized": "Hal Keller's label is Hal Keller.", "has_docs": False},
    {"id": "4", "subject": "ht{\"0\": [broken", "predicate": "http://dbpedia.org/property/opponent",
     "object": R + "North_Texas", "label": 1, "verbalized": "", "has_docs": True},
]


@pytest.fixture
def dbpedia(tmp_path):
    folder = tmp_path / "data" / "dbpedia"
    (folder / "docs" / "1").mkdir(parents=True)
    (folder / "docs" / "1" / "0.txt").write_text("Erich Mende was born in the German Empire in 1916.\n")
    (folder / "docs" / "2").mkdir()
    (folder / "docs" / "2" / "0.txt").write_text("A page about a song and its length of 3:41.\n")
    (folder / "facts.jsonl").write_text("".join(json.dumps(f) + "\n" for f in FACTS))
    (tmp_path / "data" / "properties").symlink_to((data_dir() / "properties").resolve())  # the relations' names
    return tmp_path / "data"


def test_the_set_is_read_as_a_graph_file_of_it_would_be_labels_and_broken_subjects_kept(dbpedia):
    every = list(iter_dbpedia(dbpedia))
    assert [t.id for t in every] == ["dbpedia:1", "dbpedia:2", "dbpedia:3", "dbpedia:4"]
    born, length, label, broken = (t.triple for t in every)
    assert (born.subject, born.predicate, born.object) == ("Erich Mende", "birth place", "German Empire")
    assert born.rdf.object == f"<{R}German_Empire>" and length.object == "221.0" and length.rdf.object == '"221.0"'
    assert label.predicate == "label" and broken.rdf is None and broken.subject.startswith("ht{")
    assert [t.label for t in every] == [True, False, True, True]
    assert [t.id for t in iter_dbpedia(dbpedia, with_docs=True)] == ["dbpedia:1", "dbpedia:2", "dbpedia:4"]
    worded = [t.triple.predicate for t in iter_dbpedia(dbpedia, form="verbalized")]
    assert worded == ["was born in", "length", "label", "opponent"]


def test_a_bad_label_names_the_file_and_line(dbpedia):
    (dbpedia / "dbpedia" / "facts.jsonl").write_text(json.dumps({**FACTS[0], "label": 2}) + "\n")
    with pytest.raises(DataError, match=r"facts.jsonl:1: field 'label'"):
        list(iter_dbpedia(dbpedia))


def test_the_benchmark_indexes_the_pages_and_scores_open_world(dbpedia, tmp_path):
    rows = bench_dbpedia(Workspace(dbpedia, tmp_path / "cache"), RunConfig.load(None), ["lexical"], "dbp", "dbp",
                         forms=("iri",))
    (row,) = rows
    assert row.method == "lexical (iri)" and row.triples == 3 and row.wrong == 1
    # The string match finds both names for the birth place only: it calls the other two false.
    assert row.flagged == 2 and row.error_recall == 1.0 and row.false_precision == 0.5
    assert row.true_called_false == 0.5
    assert (tmp_path / "cache" / "runs" / "dbp" / "lexical.iri.jsonl").exists()


def test_a_sentence_that_names_the_object_first_or_inside_a_word_keeps_the_relation_as_given():
    from agentkgv.data.dbpedia import verbalized
    from agentkgv.data.records import Triple

    starring = Triple("The War Zone", "starring", "Freddie Cunliffe")
    assert verbalized(starring, "Freddie Cunliffe stars in The War Zone.") == starring
    density = Triple("Pula", "population density km", "auto")  # not the "pula" inside "population"
    assert verbalized(density, "The population density per km of Pula is auto.").predicate == "population density per km"
    assert verbalized(Triple("Erich Mende", "birth place", "German Empire"),
                      "Erich Mende was born in German Empire.").predicate == "was born in"
