"""The command line as a user runs it: clear errors for bad input, verify on a user file, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentkgv.data.errors import DataError
from tests.cli_cases import corpus_cache, run_cli


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
    cache = corpus_cache(tmp_path, small_passages)
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
    assert all(r["search_calls"] == 1 and "trace" in r for r in records)

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


def test_verify_eval_and_demo_default_to_the_shipped_adapter_only_on_the_embedded_model(tmp_path):
    from pathlib import Path

    from agentkgv.config import RunConfig, RunOptions, resolve
    from agentkgv.llm.embedded import TRAINED_ADAPTER
    from agentkgv.commands.verify import method_runs
    from agentkgv.paths import Workspace

    ws = Workspace(tmp_path / "data", tmp_path / "cache")

    def run(**options) -> RunConfig:
        return RunOptions(judge="llm", **options).apply(RunConfig.load(None))

    def adapter(config: RunConfig, base_model: bool = False):
        return resolve(config, ws, base_model).config.llm.adapter

    assert adapter(RunConfig()) is None  # the default agent judges with the reader
    assert adapter(run(method="agentkgv")) == Path(TRAINED_ADAPTER)
    assert adapter(run(method="agentkgv"), base_model=True) is None
    own = Path("my/adapter")
    assert adapter(run(method="agentkgv", adapter=own)) == own
    for other in (run(method="agentkgv", model="HuggingFaceTB/SmolLM2-1.7B-Instruct"),
                  run(method="agentkgv", backend="llamacpp"), run(method="lexical")):
        assert adapter(other) is None
    # eval: the agent trained unless --base-model, the baselines on the bare backbone as in the paper's table
    methods = ["lexical", "direct", "agentkgv"]
    trained = method_runs(ws, run(), methods)
    assert [r.config.llm.adapter for r in trained] == [None, None, Path(TRAINED_ADAPTER)]
    assert [r.config.llm.adapter for r in method_runs(ws, run(), methods, base_model=True)] == [None, None, None]
    assert [r.config.method for r in trained] == methods


def test_eval_refuses_an_adapter_that_none_of_its_methods_loads(tmp_path):
    """`eval --adapter` with the reader judging would score the reader and label the row as the adapter's."""
    from agentkgv.config import RunConfig, RunOptions
    from agentkgv.paths import Workspace
    from agentkgv.commands.verify import method_runs, run_eval

    ws = Workspace(tmp_path / "data", tmp_path / "cache")
    adapter = RunOptions(adapter=tmp_path / "adapter").apply(RunConfig.load(None))
    with pytest.raises(DataError, match="--judge llm"):
        run_eval(ws, adapter, ["agentkgv", "lexical"], ["test_unseen"])
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["CACHEDIR.TAG"]  # refused before anything was built
    with pytest.raises(DataError, match="none of lexical"):
        method_runs(ws, adapter, ["lexical"])
    # A method that loads the LLM reads it: the LLM agent, or a baseline beside the reader agent.
    [agent] = method_runs(ws, RunOptions(judge="llm").apply(adapter), ["agentkgv"])
    assert agent.config.llm.adapter == tmp_path / "adapter"
    assert [r.config.llm.adapter for r in method_runs(ws, adapter, ["direct", "agentkgv"])] == [tmp_path / "adapter"] * 2


def test_a_demo_with_new_shipped_weights_starts_its_own_run_folder(tmp_path):
    """An upgrade that retrains the shipped adapter in place must not meet the old demo's pinned log (which
    would refuse to resume): the folder name follows the weights, not only the settings."""
    from agentkgv.config import RunConfig, RunOptions, resolve
    from agentkgv.commands.verify import demo_run_name
    from agentkgv.paths import Workspace

    ws = Workspace(tmp_path / "data", tmp_path / "cache")
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_model.safetensors").write_bytes(b"old weights")
    run = RunOptions(method="agentkgv", judge="llm", adapter=adapter).apply(RunConfig.load(None))
    before = demo_run_name(resolve(run, ws))
    assert demo_run_name(resolve(run, ws)) == before  # the same demo resumes
    (adapter / "adapter_model.safetensors").write_bytes(b"new weights")
    assert demo_run_name(resolve(run, ws)) != before
    assert demo_run_name(resolve(RunOptions(summarizer="llm").apply(run), ws)) != demo_run_name(resolve(run, ws))


def test_each_distinct_model_is_loaded_once_and_each_method_gets_its_own(monkeypatch, tmp_path):
    """eval and bench-poison: the trained agent and a baseline in one call run different models."""
    from agentkgv.commands import build, verify
    from agentkgv.config import RunConfig
    from agentkgv.llm.embedded import TRAINED_ADAPTER
    from agentkgv.paths import Workspace

    loads = []

    def load_llm(config):  # the real one's contract: no model for the lexical check
        return None if config.method == "lexical" else loads.append(config.llm.adapter) or object()

    monkeypatch.setattr(build, "load_llm", load_llm)
    runs = verify.method_runs(Workspace(tmp_path / "data", tmp_path / "cache"), RunConfig(judge="llm"),
                              ["lexical", "direct", "agentkgv", "single_rag"])
    lexical, direct, agent, rag = build.shared_llms([r.config for r in runs])
    assert lexical is None and direct is rag and agent is not direct
    assert loads == [None, Path(TRAINED_ADAPTER)]


def test_run_settings_pin_what_decides_a_verdict_and_ignore_operational_knobs(tmp_path):
    from pathlib import Path

    from agentkgv.config import RunConfig, RunOptions, resolve
    from agentkgv.paths import Workspace

    ws = Workspace(tmp_path / "data", tmp_path / "cache")

    def identity(run: RunConfig, **options) -> dict:
        return resolve(RunOptions(**options).apply(run), ws, base_model=True).identity()

    # The reader's runs are pinned by the reader's weights and settings, not by the LLM's.
    reading = RunOptions(embedding_model="m").apply(RunConfig())
    assert "llm" not in identity(reading)["pins"] and identity(reading)["pins"]["readers"]["reader"]
    assert identity(reading) == identity(reading, adapter=Path("a"))
    assert identity(reading) == identity(reading.model_copy(update={"llm": reading.llm.model_copy(update={"threads": 3})}))
    with pytest.raises(DataError, match="reader.safetensors"):
        identity(reading, reader=Path("no-reader-here"))
    # The run reads back from what it pinned.
    assert RunConfig.from_identity(identity(reading)).reading == reading.reading

    base = RunOptions(embedding_model="m", judge="llm").apply(RunConfig())
    quiet = base.model_copy(update={"llm": base.llm.model_copy(update={"cache": False, "threads": 1})})
    assert identity(quiet) == identity(base)
    assert identity(base, adapter=Path("a"))["pins"]["llm"]["adapter"] == "a" != identity(base)["pins"]["llm"]["adapter"]
    assert identity(base, retriever="dense") != identity(base)
    with pytest.raises(DataError, match="no index named 'my-docs'"):  # refused before anything loads
        identity(base, index="my-docs")
    # The lexical check never loads a model, so model options cannot make its runs differ.
    lexical = identity(base, method="lexical")
    assert "llm" not in lexical["pins"] and lexical == identity(base, method="lexical", adapter=Path("a"))
    assert set(lexical) == {"method", "judge", "agent", "retriever", "evidence_guard", "pins"}
    assert (lexical["agent"], lexical["retriever"]["kind"], lexical["retriever"]["embedding_model"]) == (
        {"top_k": 5}, "bm25", "m")
    # A baseline is pinned by the agent settings it reads: one only the LLM agent reads leaves its logs
    # resumable, and one it reads does not.
    ircot = RunOptions(method="ircot").apply(base)
    renamed = ircot.model_copy(update={"agent": ircot.agent.model_copy(update={"rules": (), "query_chars": 7}),
                                       "summarizer": "llm"})
    assert identity(renamed) == identity(ircot) and "summarizer" not in identity(ircot)
    assert identity(ircot.model_copy(update={"agent": ircot.agent.model_copy(update={"max_turns": 3})})) != identity(ircot)
    assert identity(base.model_copy(update={"agent": base.agent.model_copy(update={"query_chars": 7})})) != identity(base)


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


def test_the_evidence_guard_is_pinned(tmp_path):
    from agentkgv.config import RunConfig, resolve
    from agentkgv.paths import Workspace

    ws = Workspace(tmp_path / "data", tmp_path / "cache")
    on = RunConfig(method="lexical")
    off = on.model_copy(update={"evidence_guard": False})
    assert on.evidence_guard and resolve(on, ws).identity()["evidence_guard"] is True
    assert resolve(off, ws).identity()["evidence_guard"] is False


def test_check_compare_and_version(tmp_path, data, small_passages):
    """One triple checked with its evidence; two runs compared triple by triple; the version."""
    from typer.testing import CliRunner

    from agentkgv.commands.app import app

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


def test_verify_reads_the_graph_and_profile_writes_shapes(tmp_path, data, small_passages):
    cache, graph = user_graph(tmp_path, small_passages,
                              "Allan Peiper,place of birth,Alexandra\nAllan Peiper,place of death,*\n")
    out = tmp_path / "verdicts.jsonl"
    run = run_cli("verify", str(graph), "-o", str(out), "--method", "lexical", cache=cache, data=data.resolve())
    assert run.returncode == 0, run.stderr
    records = {r["triple"]["object"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert records["*"]["outcome"] == "contradicted by the graph" and records["*"]["verdict"] is False
    assert records["*"]["graph"][0]["rule"] == "malformed value" and "placeholder" in records["*"]["reason"]
    assert records["Alexandra"]["graph"] == [] and records["Alexandra"]["verdict"] is True
    alone = tmp_path / "alone.jsonl"
    run = run_cli("verify", str(graph), "-o", str(alone), "--method", "lexical", "--no-graph", cache=cache, data=data.resolve())
    assert run.returncode == 0, run.stderr
    assert all("graph" not in r or r["graph"] == [] for r in map(json.loads, alone.read_text().splitlines()))
    stricter = tmp_path / "stricter.jsonl"
    run = run_cli("verify", str(graph), "-o", str(stricter), "--method", "lexical", "--graph-false-below", "0.05",
                  cache=cache, data=data.resolve())
    assert run.returncode == 0, run.stderr
    assert '"false_below": "0.05"' in stricter.with_name(stricter.name + ".settings.json").read_text()
    refused = run_cli("verify", str(graph), "-o", str(tmp_path / "x.jsonl"), "--no-graph", "--graph-false-below", "0.1",
                      cache=cache, data=data.resolve())
    assert refused.returncode != 0 and "--no-graph" in refused.stderr

    nt = tmp_path / "g.nt"
    nt.write_text("".join(f"<http://example.org/p{n}> <http://example.org/spouse> <http://example.org/q{n}> .\n"
                          for n in range(25)))
    profile, shapes = tmp_path / "profile.json", tmp_path / "shapes.ttl"
    run = run_cli("profile", str(nt), "-o", str(profile), "--shacl", str(shapes), cache=cache, data=data.resolve())
    assert run.returncode == 0, run.stderr
    assert json.loads(profile.read_text())["predicates"]["http://example.org/spouse"]["triples"] == 25
    assert "sh:maxCount 1" in shapes.read_text() and "sh:nodeKind sh:IRI" in shapes.read_text()


def test_help_lists_a_users_commands_and_groups_the_projects_own():
    from typer.testing import CliRunner

    from agentkgv.commands.app import app

    runner = CliRunner()
    top = runner.invoke(app, ["--help"], terminal_width=80, env={"COLUMNS": "80"}).output
    for command in ("verify", "check", "index", "report", "export", "profile", "learn", "bench", "train", "build"):
        assert f"│ {command} " in top, command
    for command in ("bench-dbpedia", "train-reader", "build-index", "eval", "sft"):
        assert f"│ {command} " not in top, command
    verify = runner.invoke(app, ["verify", "--help"], terminal_width=80, env={"COLUMNS": "80"}).output
    assert len(verify.splitlines()) <= 80 and "docs/command_line.md" in verify
    # A grouped command answers to its short name under the group and to its long name, unlisted.
    assert "--form" in runner.invoke(app, ["bench", "dbpedia", "--help"], terminal_width=80).output
    assert "--form" in runner.invoke(app, ["bench-dbpedia", "--help"], terminal_width=80).output
    assert "│ reader " in runner.invoke(app, ["train", "--help"], terminal_width=80).output


def test_a_benchmark_run_without_the_data_folders_relation_tables_says_its_figures_differ(tmp_path, data):
    from agentkgv.commands.build import Hooks, ensure_benchmark
    from agentkgv.data.aliases import ALIAS_FILE
    from agentkgv.data.benchmark import SPLITS
    from agentkgv.paths import Workspace

    notes: list[str] = []
    for folder, expected in ((tmp_path / "no-data", 1), (data, 0)):
        ws = Workspace(data=folder, cache=tmp_path / "cache")
        ws.benchmark.mkdir(parents=True, exist_ok=True)
        for name in (*(f"{split}.jsonl" for split in SPLITS), ALIAS_FILE):
            (ws.benchmark / name).touch()
        before = len(notes)
        assert ensure_benchmark(ws, Hooks(note=notes.append)) is False
        assert len(notes) - before == expected
    assert "AGENTKGV_DATA" in notes[0] and "properties" in notes[0]
