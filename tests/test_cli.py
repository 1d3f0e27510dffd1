"""The command line as a user runs it: clear errors for bad input, verify on a user file, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentkgv.data.errors import DataError
from agentkgv.data.jsonl import write_jsonl
from agentkgv.retrieval.bm25 import BM25Retriever
from tests.cli_cases import run_cli


def test_bad_triples_file_names_file_and_line(tmp_path, data):
    bad = tmp_path / "graph.jsonl"
    bad.write_text('{"subject": "a", "predicate": "b", "object": "c"}\n{"subject": "a", "predicate": "b"}\n')
    result = run_cli("verify", str(bad), "-o", str(tmp_path / "out.jsonl"), "--method", "lexical",
                     cache=tmp_path / "cache", data=data.resolve())
    assert result.returncode == 2
    assert "graph.jsonl:2" in result.stderr and "object" in result.stderr
    assert "Traceback" not in result.stderr


def user_graph(tmp_path, small_passages, rows: str) -> tuple[Path, Path]:
    """A cache holding the small corpus and its BM25 index, and a CSV graph of `rows` beside it."""
    cache = tmp_path / "cache"
    write_jsonl(cache / "corpus" / "passages.jsonl",
                ({"id": p.id, "text": p.text, "title": p.title, "source": p.source} for p in small_passages))
    BM25Retriever.build(small_passages, cache / "index" / "bm25")
    graph = tmp_path / "graph.csv"
    graph.write_text("subject,predicate,object\n" + rows)
    return cache, graph


def test_verify_lexical_on_user_csv_resumes_without_duplicates(tmp_path, data, small_passages):
    cache, graph = user_graph(tmp_path, small_passages,
                              "Allan Peiper,place of birth,Alexandra\nAllan Peiper,place of birth,Melbourne\n")
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


def test_verify_with_an_alias_file_counts_the_other_names_and_pins_the_table(tmp_path, data, small_passages):
    cache, graph = user_graph(tmp_path, small_passages, "Allan Peiper,place of birth,Alexandra Town\n")
    table = tmp_path / "aliases.jsonl"
    table.write_text('{"name": "alexandra  town", "aliases": ["Alexandra"]}\n')
    bare, aliased = tmp_path / "bare.jsonl", tmp_path / "aliased.jsonl"
    assert run_cli("verify", str(graph), "-o", str(bare), "--method", "lexical", cache=cache, data=data.resolve()).returncode == 0
    done = run_cli("verify", str(graph), "-o", str(aliased), "--method", "lexical", "--aliases", str(table),
                   cache=cache, data=data.resolve())
    assert done.returncode == 0, done.stderr
    assert json.loads(bare.read_text())["verdict"] is False
    record = json.loads(aliased.read_text())
    assert record["verdict"] is True and record["triple"]["object_aliases"] == ["Alexandra"]
    # another table would change what counts as a mention: the resume is refused
    table.write_text('{"name": "Alexandra Town", "aliases": ["Alexandra", "Alex"]}\n')
    refused = run_cli("verify", str(graph), "-o", str(aliased), "--method", "lexical", "--aliases", str(table),
                      cache=cache, data=data.resolve())
    assert refused.returncode != 0 and "aliases" in refused.stderr
    table.write_text('{"name": "Alexandra Town", "aliases": "Alexandra"}\n')
    bad = run_cli("verify", str(graph), "-o", str(tmp_path / "x.jsonl"), "--method", "lexical", "--aliases", str(table),
                  cache=cache, data=data.resolve())
    assert bad.returncode != 0 and "aliases.jsonl:1" in bad.stderr and "aliases" in bad.stderr


def test_verify_eval_and_demo_default_to_the_shipped_adapter_only_on_the_embedded_model():
    from pathlib import Path

    from agentkgv.agent.run_config import RunConfig
    from agentkgv.llm.embedded import TRAINED_ADAPTER
    from agentkgv.pipeline import method_runs

    def run(**options) -> RunConfig:
        return RunConfig.load(None).with_options(judge="llm", **options)

    assert RunConfig().with_trained_adapter().llm.adapter is None  # the default agent judges with the reader
    assert run(method="agentkgv").with_trained_adapter().llm.adapter == Path(TRAINED_ADAPTER)
    own = Path("my/adapter")
    assert run(method="agentkgv", adapter=own).with_trained_adapter().llm.adapter == own
    for other in (run(method="agentkgv", model="HuggingFaceTB/SmolLM2-1.7B-Instruct"),
                  run(method="agentkgv", backend="llamacpp"), run(method="lexical")):
        assert other.with_trained_adapter().llm.adapter is None
    # eval: the agent trained unless --base-model, the baselines on the bare backbone as in the paper's table
    methods = ["lexical", "direct", "agentkgv"]
    assert [c.llm.adapter for c in method_runs(run(), methods, trained=True)] == [None, None, Path(TRAINED_ADAPTER)]
    assert [c.llm.adapter for c in method_runs(run(), methods, trained=False)] == [None, None, None]
    assert [c.method for c in method_runs(run(), methods, trained=True)] == methods


def test_eval_refuses_an_adapter_that_none_of_its_methods_loads(tmp_path):
    """`eval --adapter` with the reader judging would score the reader and label the row as the adapter's."""
    from agentkgv.agent.run_config import RunConfig
    from agentkgv.paths import Workspace
    from agentkgv.pipeline import method_runs, run_eval

    adapter = RunConfig.load(None).with_options(adapter=tmp_path / "adapter")
    with pytest.raises(DataError, match="--judge llm"):
        run_eval(Workspace(tmp_path / "data", tmp_path / "cache"), adapter, ["agentkgv", "lexical"], ["test_unseen"])
    assert not any((tmp_path / "cache").iterdir())  # refused before anything was built
    with pytest.raises(DataError, match="none of lexical"):
        method_runs(adapter, ["lexical"], trained=True)
    # A method that loads the LLM reads it: the LLM agent, or a baseline beside the reader agent.
    assert method_runs(adapter.with_options(judge="llm"), ["agentkgv"], trained=True)[0].llm.adapter == tmp_path / "adapter"
    assert [c.llm.adapter for c in method_runs(adapter, ["direct", "agentkgv"], trained=True)] == [tmp_path / "adapter"] * 2


def test_a_demo_with_new_shipped_weights_starts_its_own_run_folder(tmp_path):
    """An upgrade that retrains the shipped adapter in place must not meet the old demo's pinned log (which
    would refuse to resume): the folder name follows the weights, not only the settings."""
    from agentkgv.agent.run_config import RunConfig
    from agentkgv.pipeline import demo_run_name

    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_model.safetensors").write_bytes(b"old weights")
    run = RunConfig.load(None).with_options(method="agentkgv", judge="llm", adapter=adapter)
    before = demo_run_name(run)
    assert demo_run_name(run) == before  # the same demo resumes
    (adapter / "adapter_model.safetensors").write_bytes(b"new weights")
    assert demo_run_name(run) != before
    assert demo_run_name(run.with_options(summarizer="llm")) != demo_run_name(run)


def test_each_distinct_model_is_loaded_once_and_each_method_gets_its_own(monkeypatch):
    """eval and bench-poison: the trained agent and a baseline in one call run different models."""
    from agentkgv import pipeline
    from agentkgv.agent.run_config import RunConfig
    from agentkgv.llm.embedded import TRAINED_ADAPTER
    from agentkgv.paths import Workspace

    loads = []

    def load_llm(ws, config):  # the real one's contract: no model for the lexical check
        return None if config.method == "lexical" else loads.append(config.llm.adapter) or object()

    monkeypatch.setattr(pipeline, "load_llm", load_llm)
    configs = pipeline.method_runs(RunConfig(judge="llm"), ["lexical", "direct", "agentkgv", "single_rag"], trained=True)
    lexical, direct, agent, rag = pipeline.shared_llms(Workspace(), configs)
    assert lexical is None and direct is rag and agent is not direct
    assert loads == [None, Path(TRAINED_ADAPTER)]


def test_run_settings_pin_what_decides_a_verdict_and_ignore_operational_knobs():
    from pathlib import Path

    from agentkgv.agent.run_config import RunConfig

    # The reader's runs are pinned by the reader's weights and settings, not by the LLM's.
    reading = RunConfig().with_options(embedding_model="m")
    assert "llm" not in reading.identity() and reading.identity()["reading"]["weights"]
    assert reading.identity() == reading.with_options(adapter=Path("a")).identity()
    with pytest.raises(DataError, match="reader.safetensors"):
        reading.with_options(reader=Path("no-reader-here")).identity()

    base = RunConfig().with_options(embedding_model="m", judge="llm")
    quiet = base.model_copy(update={"llm": base.llm.model_copy(update={"cache": False, "threads": 1})})
    assert quiet.identity() == base.identity()
    adapted = base.with_options(adapter=Path("a"))
    assert adapted.identity()["llm"]["adapter"] == "a" != base.identity()["llm"]["adapter"]
    assert base.with_options(retriever="dense").identity() != base.identity()
    assert base.with_options(index="my-docs").identity()["index"] == "my-docs"
    # The lexical check never loads a model, so model options cannot make its runs differ.
    lexical = base.with_options(method="lexical").identity()
    assert "llm" not in lexical and lexical == base.with_options(method="lexical", adapter=Path("a")).identity()
    assert set(lexical) == {"method", "agent", "retriever", "embedding_model", "evidence_guard"}
    assert (lexical["agent"], lexical["retriever"], lexical["embedding_model"]) == ({"top_k": 5}, "bm25", "m")
    # A baseline is pinned by the agent settings it reads: one only the LLM agent reads leaves its logs
    # resumable, and one it reads does not.
    ircot = base.with_options(method="ircot")
    renamed = ircot.model_copy(update={"agent": ircot.agent.model_copy(update={"rules": (), "query_chars": 7}),
                                       "summarizer": "llm"})
    assert renamed.identity() == ircot.identity() and "summarizer" not in ircot.identity()
    assert ircot.model_copy(update={"agent": ircot.agent.model_copy(update={"max_turns": 3})}).identity() != ircot.identity()
    assert base.model_copy(update={"agent": base.agent.model_copy(update={"query_chars": 7})}).identity() != base.identity()


def test_verify_on_ray_writes_what_the_local_run_writes(tmp_path, data, small_passages):
    cache, graph = user_graph(tmp_path, small_passages, "Allan Peiper,place of birth,Alexandra\n"
                              "Allan Peiper,place of birth,Melbourne\nAllan Peiper,place of death,Alexandra\n")
    outputs = {}
    for name, extra in (("local", []), ("ray", ["--ray", "--workers", "2", "--batch-size", "1"])):
        outputs[name] = tmp_path / f"{name}.jsonl"
        result = run_cli("verify", str(graph), "-o", str(outputs[name]), "--method", "lexical", *extra, cache=cache,
                         data=data.resolve())
        assert result.returncode == 0, result.stderr

    def outcomes(path):
        return [(r["id"], r["verdict"], r["evidence"]) for r in map(json.loads, path.read_text().splitlines())]

    assert outcomes(outputs["ray"]) == outcomes(outputs["local"]) and len(outcomes(outputs["ray"])) == 3


def test_the_evidence_guard_is_pinned_only_when_on_so_older_logs_resume_with_it_off():
    from agentkgv.agent.run_config import RunConfig

    on = RunConfig(method="lexical")
    off = on.model_copy(update={"evidence_guard": False})
    assert on.evidence_guard and on.identity()["evidence_guard"] is True
    assert "evidence_guard" not in off.identity()


def test_check_compare_and_version(tmp_path, data, small_passages):
    """One triple checked with its evidence; two runs compared triple by triple; the version."""
    from typer.testing import CliRunner

    from agentkgv.cli import app

    cache, graph = user_graph(tmp_path, small_passages,
                              "Allan Peiper,place of birth,Alexandra\nAllan Peiper,place of birth,Melbourne\n")
    checked = run_cli("check", "Allan Peiper", "place of birth", "Alexandra", "--method", "lexical", cache=cache,
                      data=data.resolve())
    assert checked.returncode == 0, checked.stderr
    assert "Allan Peiper place of birth Alexandra" in checked.stdout and "│ true" in checked.stdout
    assert "Peiper" in checked.stdout.split("Cited evidence")[1]
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run_cli("verify", str(graph), "-o", str(first), "--method", "lexical", cache=cache, data=data.resolve()).returncode == 0
    records = [json.loads(line) for line in first.read_text().splitlines()]
    records[1]["verdict"] = True  # the second run says otherwise about Melbourne
    second.write_text("".join(json.dumps(r) + "\n" for r in records))
    compared = CliRunner().invoke(app, ["compare", str(first), str(second)], terminal_width=200)
    assert compared.exit_code == 0, compared.output
    assert "Where they differ (1 of 1)" in compared.output and "Melbourne" in compared.output
    assert CliRunner().invoke(app, ["--version"]).output.startswith("agentkgv ")
