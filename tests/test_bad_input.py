"""Each kind of bad row in a user's triples names file:line, and skip mode keeps every good row."""

from __future__ import annotations

import json

import pytest

from agentkgv.data.errors import DataError
from agentkgv.data.user_formats import read_triples
from tests.cli_cases import run_cli

GOOD = '{"id": "%s", "subject": "Allan Peiper", "predicate": "place of birth", "object": "Alexandra"}\n'
# name -> (file name, content, bad line, words the error must hold)
BAD_FILES = {
    "not utf-8 (jsonl)": ("g.jsonl", (GOOD % "a").encode() + b'{"subject": "Pel\xe9", "predicate": "p", "object": "o"}\n'
                          + (GOOD % "c").encode(), 2, "not UTF-8"),
    "not utf-8 (csv)": ("g.csv", b"id,subject,predicate,object\na,Allan Peiper,born in,Alexandra\nb,Pel\xe9,born in,"
                        b"Tres Coracoes\nc,Allan Peiper,died in,Alexandra\n", 3, "not UTF-8"),
    "duplicate id": ("g.jsonl", (GOOD % "a" + GOOD % "a" + GOOD % "c").encode(), 2, "duplicate id"),
    "broken json": ("g.jsonl", (GOOD % "a" + '{"subject": \n' + GOOD % "c").encode(), 2, "not valid JSON"),
    "missing field": ("g.jsonl", (GOOD % "a" + '{"id": "b", "subject": "s", "predicate": "p"}\n' + GOOD % "c").encode(),
                      2, "'object'"),
    "bad label": ("g.csv", b"id,subject,predicate,object,label\na,s,p,o,true\nb,s,p,o,maybe\nc,s,p,o,0\n", 3, "label"),
    "extra cells": ("g.csv", b"id,subject,predicate,object\na,s,p,o\nb,s,p,o,extra\nc,s,p,o\n", 3, "more cells"),
    "not a json object": ("g.jsonl", (GOOD % "a" + "[1, 2]\n" + GOOD % "c").encode(), 2, "JSON object"),
    "bad n-triples line": ("g.nt", b'<http://x/a> <http://x/p> <http://x/b> .\n<http://x/a> <http://x/p> .\n'
                           b'<http://x/c> <http://x/p> "d" .\n', 2, "not valid nt"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_row_names_file_and_line_and_skip_mode_keeps_the_good_rows(tmp_path, kind):
    name, content, line, words = BAD_FILES[kind]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DataError) as raised:
        list(read_triples(path))
    assert f"{path}:{line}:" in str(raised.value) and words in str(raised.value)
    rejected: list[DataError] = []
    kept = list(read_triples(path, rejected=rejected))
    assert len(kept) == 2 and len(rejected) == 1
    assert rejected[0].line == line and words in str(rejected[0])


def test_verify_skip_mode_writes_rejected_rows_beside_the_output(tmp_path, data, small_passages):
    from agentkgv.retrieval.bm25 import BM25Retriever

    cache = tmp_path / "cache"
    BM25Retriever.build(small_passages, cache / "index" / "bm25")
    (cache / "corpus").mkdir(parents=True)
    (cache / "corpus" / "passages.jsonl").write_text("")  # the index exists, so the corpus is not rebuilt
    graph = tmp_path / "graph.jsonl"
    graph.write_bytes(BAD_FILES["not utf-8 (jsonl)"][1] + (GOOD % "a").encode())
    out = tmp_path / "verdicts.jsonl"
    failed = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", cache=cache, data=data.resolve())
    assert failed.returncode == 2 and f"{graph}:2" in failed.stderr and "Traceback" not in failed.stderr
    skipped = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", "--on-error", "skip",
                      cache=cache, data=data.resolve())
    assert skipped.returncode == 0, skipped.stderr
    assert [json.loads(r)["id"] for r in out.read_text().splitlines()] == ["a", "c"]
    rejected = [json.loads(r) for r in (tmp_path / "verdicts.jsonl.rejected.jsonl").read_text().splitlines()]
    assert [(r["line"], r["field"]) for r in rejected] == [(2, None), (4, "id")]
    assert "not UTF-8" in rejected[0]["error"] and "duplicate id 'a'" in rejected[1]["error"]


def test_inputs_that_once_ended_in_a_traceback_or_a_hang_are_clear_errors(tmp_path):
    import os

    from agentkgv.data.documents import parse_document, ChunkConfig, DocumentError
    from agentkgv.data.documents import discover

    big = tmp_path / "big.csv"
    big.write_text("subject,predicate,object\nAda," + "x" * 300_000 + ",London\n")
    [item] = list(read_triples(big))  # a cell over the csv module's default limit
    assert len(item.triple.predicate) == 300_000
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 200_000 + "]" * 200_000 + "\n")
    with pytest.raises(DataError, match="deep.jsonl:1: JSON nested too deep"):
        list(read_triples(deep))
    surrogate = tmp_path / "s.jsonl"
    surrogate.write_text('{"subject": "Ada\\ud800", "predicate": "born in", "object": "London"}\n')
    with pytest.raises(DataError, match=r"s.jsonl:1: field 'subject': a lone surrogate"):
        list(read_triples(surrogate))
    as_object = tmp_path / "o.jsonl"
    as_object.write_text('{"subject": {"a": 1}, "predicate": "born in", "object": "London"}\n')
    with pytest.raises(DataError, match=r"o.jsonl:1: field 'subject': expected a name, got dict"):
        list(read_triples(as_object))
    page = tmp_path / "deep.html"
    page.write_text("<div>" * 100_000 + "text" + "</div>" * 100_000)
    with pytest.raises(DocumentError, match="nested 100000 elements deep"):
        parse_document(page, page.read_bytes(), ChunkConfig())
    pipe = tmp_path / "pipe.csv"
    os.mkfifo(pipe)
    with pytest.raises(DataError, match="not a regular file"):
        list(read_triples(pipe))
    with pytest.raises(DataError, match="not a regular file"):
        list(discover([pipe]))
