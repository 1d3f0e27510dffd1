"""Files a person opens are inert, and no command writes over one of its own inputs."""

from __future__ import annotations

import csv

import pytest

from agentkgv.commands.graph import export_verdicts, profile_graph
from agentkgv.core.verdict import Verdict
from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import write_jsonl
from agentkgv.data.records import Triple
from agentkgv.data.spreadsheet import inert, revived
from agentkgv.eval.html_report import write_report
from agentkgv.eval.review import read_reviews
from agentkgv.paths import Workspace

ACTIVE = ["=HYPERLINK(\"http://x\",\"y\")", "@SUM(1)", "+1+1", "-2+3", "\tx", "\rx", "'=x", "''", "plain", "", "'"]


@pytest.mark.parametrize("cell", ACTIVE)
def test_a_cell_is_inert_and_reads_back_as_it_was(cell):
    written = inert(cell)
    assert not written.startswith(("=", "+", "-", "@", "\t", "\r"))
    assert revived(written) == cell


def verdicts_file(tmp_path):
    path = tmp_path / "v.jsonl"
    write_jsonl(path, [Verdict(f"t{n}", Triple(subject, "formula", "-2+3"), None, "lexical", undecided=True).to_json()
                       for n, subject in enumerate(["=HYPERLINK(\"http://evil\",\"click\")", "@SUM(1)"])])
    return path


def test_the_review_queue_runs_no_formula_and_learn_reads_it_back(tmp_path):
    verdicts, queue = verdicts_file(tmp_path), tmp_path / "queue.csv"
    write_report(verdicts, tmp_path / "r.html", queue, 0.7)
    with queue.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))[1:]
    assert rows and all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    # A reviewer fills the queue in; the ids and notes come back as they were.
    with queue.open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle))
    for row in table:
        row["reviewer_verdict"], row["reviewer_note"] = "false", inert("=not a formula")
    with queue.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    assert {r.note for r in read_reviews(queue)} == {"=not a formula"}


def test_a_review_queue_that_is_not_utf8_is_a_clear_error(tmp_path):
    queue = tmp_path / "q.csv"
    queue.write_bytes("id,reviewer_verdict\nt1,true\nt2,f\xe4lse\n".encode("latin-1"))
    with pytest.raises(DataError, match="UTF-8"):
        read_reviews(queue)


def test_no_command_writes_over_its_input(tmp_path):
    verdicts = verdicts_file(tmp_path)
    before = verdicts.read_bytes()
    for attempt in (lambda: write_report(verdicts, verdicts, tmp_path / "q.csv", 0.7),
                    lambda: write_report(verdicts, tmp_path / "r.html", verdicts, 0.7),
                    lambda: export_verdicts(verdicts, verdicts)):
        with pytest.raises(DataError, match="is an input"):
            attempt()
    link = tmp_path / "link.jsonl"
    link.symlink_to(verdicts)
    with pytest.raises(DataError, match="is an input"):
        write_report(verdicts, link, tmp_path / "q.csv", 0.7)
    graph = tmp_path / "g.nt"
    graph.write_text("<http://e/a> <http://e/p> <http://e/b> .\n")
    with pytest.raises(DataError, match="is an input"):
        profile_graph(Workspace(cache=tmp_path / "cache"), graph, graph)
    assert verdicts.read_bytes() == before and graph.read_text().startswith("<http://e/a>")
