"""A real `agentkgv verify` process, local or driving a Ray cluster, killed with SIGKILL at random points, then
rerun: the output must hold every input triple exactly once, each as a complete JSON line (BENCHMARKS.md, kill
run)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from agentkgv.data.jsonl import write_jsonl

TRIPLES = 1500
# The Ray driver starts a local cluster on every run (seconds each), so it is killed fewer times. Ray's own
# processes share the driver's fate (Linux parent-death signal), so killing the driver kills the whole run.
MODES = {"local": ([], 6), "ray": (["--ray", "--workers", "2"], 3)}


def start_verify(graph, out, cache, data, extra: list[str]) -> subprocess.Popen:
    env = {"AGENTKGV_CACHE": str(cache), "AGENTKGV_DATA": str(data), "PATH": os.path.dirname(sys.executable)
           + ":/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "RAY_USAGE_STATS_ENABLED": "0"}
    # batch size 1: a verdict written (and fsynced) per triple, so the kills land among many writes.
    # SIGINT as a terminal sends it: a test suite started in the background inherits it ignored, and Python then
    # installs no KeyboardInterrupt handler, so the Ctrl-C test would see a run that never noticed.
    return subprocess.Popen([sys.executable, "-m", "agentkgv", "verify", str(graph), "-o", str(out), "--method",
                             "lexical", "--batch-size", "1", *extra], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def lines_in(path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.parametrize("mode", MODES)
def test_sigkill_at_random_points_then_rerun_loses_and_duplicates_nothing(mode, tmp_path, data, small_passages,
                                                                          lexical_cache):
    cache = lexical_cache
    extra, kills = MODES[mode]
    graph = tmp_path / "graph.jsonl"
    subjects = sorted({p.text.split(" ")[0] for p in small_passages})
    write_jsonl(graph, ({"subject": f"{subjects[i % len(subjects)]} {i}", "predicate": "place of birth",
                         "object": "Melbourne"} for i in range(TRIPLES)))
    out = tmp_path / "verdicts.jsonl"
    rng = random.Random(14)
    sizes, torn = [], 0
    for _ in range(kills):
        before = lines_in(out)
        process = start_verify(graph, out, cache, data.resolve(), extra)
        # Kill it after a random number of verdicts of its own: by count, not by time, so the kills land mid-run
        # however fast the machine writes (a fast disk wrote all 1,500 within a fixed delay).
        target = before + rng.randint(1, TRIPLES // (2 * kills))
        while lines_in(out) < target and process.poll() is None:
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert process.returncode == -signal.SIGKILL, process.stderr.read()
        sizes.append(out.stat().st_size)
        torn += not out.read_bytes().endswith(b"\n")  # killed mid-line: the rerun must cut that line
    lines = out.read_bytes().split(b"\n")
    assert 0 < len(lines) - 1 < TRIPLES, "every kill must land before the run ends"
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1], "each rerun must add verdicts"

    final = start_verify(graph, out, cache, data.resolve(), extra)
    assert final.wait(timeout=300) == 0, final.stderr.read()
    raw = out.read_bytes()
    assert raw.endswith(b"\n")
    records = [json.loads(line) for line in raw.decode().splitlines()]
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)) == TRIPLES
    assert {r["triple"]["subject"] for r in records} == {f"{subjects[i % len(subjects)]} {i}" for i in range(TRIPLES)}
    print(f"\nkill run ({mode}): {kills} SIGKILLs at random points, {TRIPLES} triples -> {len(ids)} verdicts, "
          f"{TRIPLES - len(set(ids))} lost, {len(ids) - len(set(ids))} duplicated, {torn} kills left a torn line")


def test_ctrl_c_says_how_to_resume_and_the_rerun_completes(tmp_path, data, small_passages, lexical_cache):
    graph, out = tmp_path / "graph.jsonl", tmp_path / "verdicts.jsonl"
    subjects = sorted({p.text.split(" ")[0] for p in small_passages})
    write_jsonl(graph, ({"subject": f"{subjects[i % len(subjects)]} {i}", "predicate": "place of birth",
                         "object": "Melbourne"} for i in range(TRIPLES)))
    process = start_verify(graph, out, lexical_cache, data.resolve(), [])
    while lines_in(out) < 10 and process.poll() is None:
        time.sleep(0.001)
    process.send_signal(signal.SIGINT)
    _, said = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in said
    assert "run the same command again to resume" in " ".join(said.split())
    assert 10 <= lines_in(out) < TRIPLES
    assert start_verify(graph, out, lexical_cache, data.resolve(), []).wait(timeout=300) == 0
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == TRIPLES
