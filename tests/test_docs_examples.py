"""The documentation's examples give the answers it shows: the small graph of docs/sparql.md's walkthrough,
verified against docs/examples/documents with the gossip blog distrusted, read here as a Turtle file (the
walkthrough reads the same graph from a SPARQL store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentkgv import Finding, KGVerifier, index_documents

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    index_documents("examples", EXAMPLES / "documents", distrust=EXAMPLES / "documents" / "blog", cache_dir=cache)
    return KGVerifier(index="examples", cache_dir=cache, data_dir=cache / "no-data").verify(EXAMPLES / "graph.ttl")


def test_the_walkthroughs_six_claims_come_back_true_citing_their_sentence(verdicts):
    claims = {(v.triple.subject, v.triple.predicate, v.triple.object): v for v in verdicts
              if not v.triple.predicate.endswith("label")}
    true = {key for key, v in claims.items() if v.verdict is True and v.finding == Finding.SUPPORTED.value}
    assert true == {("Marie Curie", "place of birth", "Warsaw"), ("Marie Curie", "field of work", "physics"),
                    ("Marie Curie", "employer", "University of Paris"), ("Ada Lovelace", "place of birth", "London"),
                    ("Alan Turing", "place of birth", "Maida Vale"), ("Alan Turing", "employer", "University of Manchester")}
    assert {round(claims[("Marie Curie", relation, value)].p_true, 2) for relation, value in (
        ("field of work", "physics"), ("employer", "University of Paris"))} == {0.87, 0.86}
    assert "Maria Skłodowska was born in Warsaw" in claims[("Marie Curie", "place of birth", "Warsaw")].evidence[0].text
    # Only the distrusted blog states Ada Lovelace's death in Paris; her page gives another place.
    death = claims[("Ada Lovelace", "place of death", "Paris")]
    assert death.finding == Finding.CONTRADICTED.value and death.verdict is False
    assert death.stated_instead in ("Marylebone", "London") and "died of uterine cancer in Marylebone" in death.evidence[0].text
    assert [w.source.endswith("blog/rumours.txt") for w in death.withheld] == [True]


def test_every_triple_of_the_file_is_accounted_for_its_labels_by_name(verdicts):
    assert len(verdicts) == 7 + 16  # the file's 7 claims, and its 14 labels and 2 other names
    labels = [v for v in verdicts if v.triple.predicate.endswith("label")]
    assert len(labels) == 16
    by_name = [v for v in labels if v.finding == Finding.SUPPORTED.value and v.search_calls == 0]
    # Each label matches its IRI's name but the other names: "Maria Skłodowska" and "Augusta Ada King" are read
    # like claims, and the documents state them.
    assert {v.triple.object for v in labels} - {v.triple.object for v in by_name} == {"Maria Skłodowska", "Augusta Ada King"}
    assert all(v.finding == Finding.SUPPORTED.value for v in labels)
