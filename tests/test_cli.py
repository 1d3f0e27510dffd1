"""The command line as a user runs it: clear errors for bad input, verify on a user file, resume."""

from __future__ import annotations

import json
import subprocess
import sys



def run_cli(*args, cache, data) -> subprocess.CompletedProcess:
    env = {"AGENTKGV_CACHE": str(cache), "AGENTKGV_DATA": str(data), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "agentkgv", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_bad_triples_file_names_file_and_line(tmp_path, data):
    bad = tmp_path / "graph.jsonl"
    bad.write_text('{"subject": "a", "predicate": "b", "object": "c"}\n{"subject": "a", "predicate": "b"}\n')
    result = run_cli("verify", str(bad), "-o", str(tmp_path / "out.jsonl"), "--method", "lexical",
                     cache=tmp_path / "cache", data=data.resolve())
    assert result.returncode == 2
    assert "graph.jsonl:2" in result.stderr and "object" in result.stderr
    assert "Traceback" not in result.stderr


def test_verify_lexical_on_user_csv_resumes_without_duplicates(tmp_path, data, lexical_cache):
    cache = lexical_cache
    graph = tmp_path / "graph.csv"
    graph.write_text("subject,predicate,object\nAllan Peiper,place of birth,Alexandra\n"
                     "Allan Peiper,place of birth,Melbourne\n")
    out = tmp_path / "verdicts.jsonl"
    first = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", cache=cache, data=data.resolve())
    assert first.returncode == 0, first.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["verdict"] for r in records] == [True, False]
    assert records[0]["evidence"] and "Peiper" in records[0]["evidence"][0]["text"]
    assert all(r["search_calls"] == 1 and "trajectory" in r for r in records)

    graph.write_text(graph.read_text() + "Allan Peiper,place of death,Alexandra\n")
    second = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", cache=cache, data=data.resolve())
    assert second.returncode == 0, second.stderr
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert len(ids) == 3 and len(set(ids)) == 3


def test_verify_and_demo_default_to_the_shipped_adapter_only_on_the_embedded_model():
    from pathlib import Path

    from agentkgv.cli import run_config, with_trained_adapter
    from agentkgv.llm.embedded import TRAINED_ADAPTER

    assert with_trained_adapter(run_config(None, "agentkgv")).llm.adapter == Path(TRAINED_ADAPTER)
    own = Path("my/adapter")
    assert with_trained_adapter(run_config(None, "agentkgv", adapter=own)).llm.adapter == own
    for other in (run_config(None, "agentkgv", model="HuggingFaceTB/SmolLM2-1.7B-Instruct"),
                  run_config(None, "agentkgv", backend="llamacpp"), run_config(None, "lexical")):
        assert with_trained_adapter(other).llm.adapter is None


def test_run_settings_pin_what_decides_a_verdict_and_ignore_operational_knobs():
    from pathlib import Path

    from agentkgv.cli import run_config, verdict_settings

    base = run_config(None, "agentkgv")
    quiet = base.model_copy(update={"llm": base.llm.model_copy(update={"cache": False, "threads": 1})})
    assert verdict_settings(quiet, "bm25", "m") == verdict_settings(base, "bm25", "m")
    adapted = run_config(None, "agentkgv", adapter=Path("a"))
    assert verdict_settings(adapted, "bm25", "m")["llm"]["adapter"] == "a" != verdict_settings(base, "bm25", "m")["llm"]["adapter"]
    assert verdict_settings(base, "dense", "m") != verdict_settings(base, "bm25", "m")
    # The lexical check never loads a model, so model options cannot make its runs differ.
    lexical = verdict_settings(run_config(None, "lexical"), "bm25", "m")
    assert "llm" not in lexical and lexical == verdict_settings(run_config(None, "lexical", adapter=Path("a")), "bm25", "m")


def test_the_evidence_guard_is_pinned_only_when_on_so_older_logs_resume_with_it_off():
    from agentkgv.cli import run_config, verdict_settings

    on = run_config(None, "lexical")
    off = on.model_copy(update={"evidence_guard": False})
    assert on.evidence_guard and verdict_settings(on, "bm25", "m")["evidence_guard"] is True
    assert "evidence_guard" not in verdict_settings(off, "bm25", "m")
