"""The Python API: the README's example as written, and one verifier that reads tuples, an rdflib graph and a
file alike, writes and resumes an output, and reads an index of a user's documents."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDFS

from agentkgv import Finding, KGVerifier, Triple, Verdict, index_documents
from agentkgv.data.errors import DataError
from tests.cli_cases import corpus_cache

README = Path(__file__).parents[1] / "README.md"
TRIPLES = [("Allan Peiper", "place of birth", "Alexandra"), ("Allan Peiper", "place of birth", "Melbourne")]


def test_the_readme_python_example_runs_as_written_with_no_data_folder(tmp_path):
    code = re.search(r"## Python API\n\n```python\n(.*?)```", README.read_text(), re.S).group(1)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "adams.md").write_text("# Douglas Adams\n\nDouglas Adams was born in Cambridge, England, in "
                                                "1952. He wrote The Hitchhiker's Guide to the Galaxy.\n")
    env = {**os.environ, "AGENTKGV_CACHE": str(tmp_path / "cache"), "AGENTKGV_DATA": str(tmp_path / "no-data")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    assert line.startswith("supported True"), line


def test_one_verifier_reads_tuples_a_graph_and_a_file_alike(tmp_path, data, small_passages):
    verifier = KGVerifier(method="lexical", data_dir=data, cache_dir=corpus_cache(tmp_path, small_passages))
    from_tuples = verifier.verify(TRIPLES)
    assert all(isinstance(v, Verdict) for v in from_tuples)
    assert [v.verdict for v in from_tuples] == [True, False] and "Peiper" in from_tuples[0].evidence[0].text
    assert [v.verdict for v in verifier.verify([Triple(*t) for t in TRIPLES])] == [True, False]
    assert [v.verdict for v in verifier.verify([list(t) for t in TRIPLES])] == [True, False]  # rows of a table

    graph = Graph()
    peiper, born = URIRef("http://example.org/Allan_Peiper"), URIRef("http://example.org/placeOfBirth")
    for name, node in (("Allan Peiper", peiper), ("Alexandra", URIRef("http://example.org/Alexandra")),
                       ("Melbourne", URIRef("http://example.org/Melbourne"))):
        graph.add((node, RDFS.label, Literal(name, lang="en")))
    graph.add((peiper, born, URIRef("http://example.org/Alexandra")))
    graph.add((peiper, born, URIRef("http://example.org/Melbourne")))
    from_graph = verifier.verify(graph)
    claims = [v for v in from_graph if v.triple.predicate != "label"]
    assert sorted((v.triple.object, v.verdict) for v in claims) == [("Alexandra", True), ("Melbourne", False)]
    # Every triple of the graph is accounted for: its labels too, each checked against the IRI's own name.
    labels = sorted((v.triple.subject, v.triple.object) for v in from_graph if v.triple.predicate == "label")
    assert labels == [("Alexandra", "Alexandra"), ("Allan Peiper", "Allan Peiper"), ("Melbourne", "Melbourne")]

    csv = tmp_path / "graph.csv"
    csv.write_text("subject,predicate,object\n" + "".join(",".join(t) + "\n" for t in TRIPLES))
    output = tmp_path / "verdicts.jsonl"
    from_file = verifier.verify(csv, output)
    assert [v.verdict for v in from_file] == [True, False]
    assert [json.loads(line)["verdict"] for line in output.read_text().splitlines()] == [True, False]
    verifier.verify(csv, output)  # a rerun resumes: nothing is verified twice
    assert len(output.read_text().splitlines()) == 2


def test_a_bad_triple_is_named_and_a_missing_index_refused_at_once(tmp_path, data, small_passages):
    verifier = KGVerifier(method="lexical", data_dir=data, cache_dir=corpus_cache(tmp_path, small_passages))
    with pytest.raises(DataError, match="item 2 is not a"):
        verifier.verify([TRIPLES[0], ("Allan Peiper", "place of birth")])
    with pytest.raises(DataError, match="no index named 'nowhere'"):
        KGVerifier(index="nowhere", data_dir=data, cache_dir=tmp_path / "cache")
    for bad, message in ((None, "got NoneType"), ({"a": 1}, "got dict"), (5, "got int"),
                         ([("", "", "")], "item 1's subject: an empty name")):
        with pytest.raises(DataError, match=message):
            verifier.verify(bad)
    for args, message in ((("", "place of birth", "Alexandra"), "subject: an empty name"),
                          ((None, None, None), "subject: expected a name")):
        with pytest.raises(ValueError, match=message):
            verifier.check(*args)
    csv = tmp_path / "in.csv"
    csv.write_text("subject,predicate,object\n" + ",".join(TRIPLES[0]) + "\n")
    with pytest.raises(DataError, match="is an input"):
        verifier.verify(csv, csv)
    assert csv.read_text().startswith("subject,predicate,object")


def test_index_documents_then_verify_against_them(tmp_path, data):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "peiper.txt").write_text("Allan Peiper was born in Alexandra, Victoria, and rode for Panasonic.")
    cache = tmp_path / "cache"
    report = index_documents("mine", str(docs), cache_dir=cache)  # one path, not its letters
    assert report.passages >= 1
    verifier = KGVerifier(index="mine", data_dir=data, cache_dir=cache)
    born, rode = verifier.verify([TRIPLES[0], ("Allan Peiper", "place of death", "Alexandra")])
    assert born.verdict is True and born.finding == Finding.SUPPORTED.value and born.evidence
    # The documents do not say where he died: over a user's documents that is not enough evidence, not false.
    assert rode.verdict is None and rode.finding == Finding.NOT_ENOUGH_EVIDENCE.value
    assert verifier.check("Allan Peiper", "place of birth", "Alexandra").trace.steps  # its searches, kept


def test_a_users_question_is_open_world_and_the_benchmark_closed(tmp_path, data, small_passages):
    from agentkgv.commands.verify import method_runs
    from agentkgv.config import RunConfig
    from agentkgv.paths import Workspace

    cache = corpus_cache(tmp_path, small_passages)
    assert KGVerifier(data_dir=data, cache_dir=cache).run.config.reading.absence == "unknown"
    assert KGVerifier(data_dir=data, cache_dir=cache, absence="false").run.config.reading.absence == "false"
    [benchmark] = method_runs(Workspace(data, cache), RunConfig(), ["agentkgv"])
    assert benchmark.config.reading.absence is None  # the reader's own default: silence counts, as the paper scores
