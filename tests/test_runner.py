"""The resumable runner: an interrupted run loses and duplicates nothing."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from agentkgv.core.verdict import Verdict
from agentkgv.data.errors import DataError
from agentkgv.data.records import LabeledTriple, Triple
from agentkgv.core.runner import RunLocked, RunSettingsChanged, errors_path, load_run, run_verifier
from agentkgv.llm.base import LLMError


class CountingVerifier:
    """Says true for even-numbered triples; can be told to crash after some batches."""

    name = "counting"

    def __init__(self, crash_after_batches: int | None = None):
        self.calls: list[str] = []
        self.batches = 0
        self.crash_after = crash_after_batches

    def verify(self, items):
        if self.crash_after is not None and self.batches >= self.crash_after:
            raise KeyboardInterrupt("simulated stop")
        self.batches += 1
        self.calls += [i.id for i in items]
        return [Verdict(i.id, i.triple, int(i.id[1:]) % 2 == 0, self.name, gold=i.label) for i in items]


def _items(n: int) -> list[LabeledTriple]:
    return [LabeledTriple(f"t{i}", Triple(f"s{i}", "p", "o"), i % 2 == 0) for i in range(n)]


def test_resume_after_interrupt_runs_each_triple_once(tmp_path):
    log = tmp_path / "run.jsonl"
    items = _items(10)
    with pytest.raises(KeyboardInterrupt):
        run_verifier(CountingVerifier(crash_after_batches=2), items, log, batch_size=3)
    assert len(load_run(log)) == 6
    second = CountingVerifier()
    verdicts = run_verifier(second, items, log, batch_size=3)
    assert second.calls == [f"t{i}" for i in range(6, 10)]
    assert [v.id for v in verdicts] == [i.id for i in items]
    lines = log.read_text().splitlines()
    assert len(lines) == 10 and len({json.loads(line)["id"] for line in lines}) == 10


def test_torn_last_line_is_repaired_and_rerun(tmp_path):
    log = tmp_path / "run.jsonl"
    items = _items(4)
    run_verifier(CountingVerifier(), items[:3], log, batch_size=3)
    with log.open("a") as handle:
        handle.write('{"id": "t3", "triple": {"subj')  # the process died mid-write
    verifier = CountingVerifier()
    verdicts = run_verifier(verifier, items, log, batch_size=3)
    assert verifier.calls == ["t3"]
    assert [v.verdict for v in verdicts] == [True, False, True, False]


def test_corrupt_middle_line_is_an_error_naming_the_line(tmp_path):
    log = tmp_path / "run.jsonl"
    run_verifier(CountingVerifier(), _items(3), log, batch_size=3)
    lines = log.read_text().splitlines()
    lines[1] = "not json"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"run.jsonl:2"):
        load_run(log)


def _hold_lock(log, ready, release):
    from filelock import FileLock

    with FileLock(str(log) + ".lock"):
        ready.set()
        release.wait(30)


def test_a_second_writer_is_refused_and_the_log_untouched(tmp_path):
    log = tmp_path / "run.jsonl"
    run_verifier(CountingVerifier(), _items(2), log, batch_size=2)
    before = log.read_bytes()
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.Process(target=_hold_lock, args=(log, ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        verifier = CountingVerifier()
        with pytest.raises(RunLocked, match="run.jsonl"):
            run_verifier(verifier, _items(4), log, batch_size=2)
        assert verifier.calls == [] and log.read_bytes() == before
    finally:
        release.set()
        holder.join()
    assert len(run_verifier(CountingVerifier(), _items(4), log, batch_size=2)) == 4


def test_a_resume_with_other_settings_is_refused_and_the_same_settings_resume(tmp_path):
    log = tmp_path / "run.jsonl"
    trained = {"method": "agentkgv", "llm": {"model": "smollm2", "adapter": "a"}, "retriever": "bm25"}
    run_verifier(CountingVerifier(), _items(2), log, batch_size=2, settings=trained)
    before = log.read_bytes()
    verifier = CountingVerifier()
    other = {**trained, "llm": {"model": "smollm2", "adapter": None}}
    with pytest.raises(RunSettingsChanged, match=r"llm\.adapter: 'a' -> None"):
        run_verifier(verifier, _items(4), log, batch_size=2, settings=other)
    assert verifier.calls == [] and log.read_bytes() == before
    assert len(run_verifier(verifier, _items(4), log, batch_size=2, settings=dict(trained))) == 4


def test_a_resume_whose_triple_changed_under_its_id_is_refused(tmp_path):
    """New aliases (a rebuilt benchmark) or an edited row keep their id; the logged verdict was on the old one."""
    log = tmp_path / "run.jsonl"
    run_verifier(CountingVerifier(), _items(2), log, batch_size=2)
    before = log.read_bytes()
    changed = _items(3)
    changed[1] = LabeledTriple("t1", Triple("s1", "p", "o", object_aliases=("O",)), False)
    with pytest.raises(RunSettingsChanged, match="t1"):
        run_verifier(CountingVerifier(), changed, log, batch_size=2)
    assert log.read_bytes() == before
    assert len(run_verifier(CountingVerifier(), _items(3), log, batch_size=2)) == 3


class FlakyVerifier(CountingVerifier):
    """Its model fails, after every retry, on the triples named in `broken`."""

    def __init__(self, broken: set[str]):
        super().__init__()
        self.broken = broken

    def verify(self, items):
        if self.broken & {i.id for i in items}:
            raise LLMError("server answered 500 on every try")
        return super().verify(items)


def test_a_failing_triple_is_recorded_skipped_and_retried_on_resume(tmp_path):
    log = tmp_path / "run.jsonl"
    items = _items(8)
    verdicts = run_verifier(FlakyVerifier({"t5"}), items, log, batch_size=4)
    # The run went on: only t5 lacks a verdict, and its batch-mates kept theirs.
    assert [v.id for v in verdicts] == [i.id for i in items if i.id != "t5"]
    assert set(load_run(log)) == {i.id for i in items} - {"t5"}
    errors = [json.loads(line) for line in errors_path(log).read_text().splitlines()]
    assert [e["id"] for e in errors] == ["t5"] and "500" in errors[0]["error"]

    healthy = CountingVerifier()
    verdicts = run_verifier(healthy, items, log, batch_size=4)
    assert healthy.calls == ["t5"]
    ids = [json.loads(line)["id"] for line in log.read_text().splitlines()]
    assert sorted(ids) == sorted(i.id for i in items) and [v.id for v in verdicts] == [i.id for i in items]


def test_a_last_line_without_its_line_end_is_cut_even_when_it_parses(tmp_path):
    log = tmp_path / "run.jsonl"
    run_verifier(CountingVerifier(), _items(3), log, batch_size=3)
    log.write_bytes(log.read_bytes().rstrip(b"\n"))  # killed just before the newline
    verifier = CountingVerifier()
    run_verifier(verifier, _items(4), log, batch_size=3)
    assert verifier.calls == ["t2", "t3"]
    lines = log.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["t0", "t1", "t2", "t3"]
