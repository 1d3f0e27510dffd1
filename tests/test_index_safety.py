"""An index that never loses a document or a trust mark: one writer, updates switched in whole, runs reading
the index during an update kept on the generation they opened, a killed update leaving the last one whole."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentkgv.data.errors import DataError
from agentkgv.paths import Workspace
from agentkgv.retrieval.index_generations import IndexBusy, live_generation
from agentkgv.retrieval.user_index import load_manifest, open_index, update_index
from tests.index_crash import Stage, cli, crash_point, environment, run, write_documents


class Killed(Exception):
    """Stands for the process dying at a step: nothing after it runs, nothing is cleaned up."""


def documents(tmp_path: Path) -> tuple[Path, Path, Path]:
    first, blog, added = tmp_path / "docs", tmp_path / "docs" / "blog", tmp_path / "more"
    write_documents(first, 3)
    write_documents(blog, 1, offset=3)
    write_documents(added, 4, offset=4)
    return first, blog, added


@pytest.mark.parametrize("step", ["reading 4 files", "writing passages", "building the bm25 index",
                                  "writing the manifest", "switching to the new generation"])
def test_an_update_that_dies_at_any_step_leaves_the_last_index_whole(tmp_path, step):
    first, blog, added = documents(tmp_path)
    folder = tmp_path / "index"
    update_index(folder, [first])
    before = update_index(folder, distrust=[blog]).manifest

    def die(reached: str) -> None:
        if reached == step:
            raise Killed(reached)

    with pytest.raises(Killed):
        update_index(folder, [added], on_step=die)
    opened = open_index(Workspace(cache=tmp_path / "cache"), str(folder))
    assert opened.manifest == before  # the documents and the distrust mark, as they were
    assert opened.retriever.search(["born in Ballarat"], 1)[0][0].passage.text.startswith("Person 1 ")
    after = update_index(folder, [added])
    files = set(after.manifest.files)
    assert files == {str(p.resolve()) for p in [*first.rglob("*.txt"), *added.rglob("*.txt")]}
    assert after.manifest.distrusted == [str(blog.resolve())]
    ids = [json.loads(line)["id"] for line in (folder / after.generation / "passages.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == after.passages
    assert not list(folder.glob("*.partial")) and (after.discarded != []) == (step != "reading 4 files")


def test_a_run_keeps_reading_the_generation_it_opened_while_an_update_switches_in(tmp_path):
    first, _, added = documents(tmp_path)
    folder, ws = tmp_path / "index", Workspace(cache=tmp_path / "cache")
    update_index(folder, [first])
    opened = open_index(ws, str(folder))
    during = []
    update_index(folder, [added], on_step=lambda step: during.append(open_index(ws, str(folder)).manifest))
    assert during and all(manifest == opened.manifest for manifest in during)  # searches meanwhile: the old one
    # The generation opened before is still there, whole, for the run that reads it.
    assert opened.index_dir.exists() and open_index(ws, str(folder)).index_dir != opened.index_dir
    assert opened.retriever.search(["Person 1"], 1)[0]
    assert len(open_index(ws, str(folder)).manifest.files) == 8
    # One more update: the generation before last is pruned, the previous one kept.
    update_index(folder, distrust=[first / "blog"])
    assert not opened.index_dir.exists() and len(list(folder.glob("gen-*"))) == 2


def test_a_trust_change_is_a_generation_of_its_own_and_moves_the_fingerprint(tmp_path):
    first, blog, _ = documents(tmp_path)
    folder = tmp_path / "index"
    built = update_index(folder, [first])
    marked = update_index(folder, distrust=[blog])
    assert marked.generation != built.generation and marked.passages == built.passages == 24
    assert marked.manifest.fingerprint != built.manifest.fingerprint
    assert update_index(folder, trust=[blog]).manifest.fingerprint == built.manifest.fingerprint
    with pytest.raises(DataError, match="no index here"):
        update_index(tmp_path / "none", distrust=[blog])


def test_a_second_writer_waits_or_is_refused_naming_the_holder(tmp_path, data):
    first, _, added = documents(tmp_path)
    cache = tmp_path / "cache"
    assert run("index", str(first), "--name", "mine", cache=cache, data=data).returncode == 0
    folder = cache / "indexes" / "mine"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from agentkgv.retrieval.index_generations import "
         "writer_lock\nwith writer_lock(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(60)", str(folder)],
        stdout=subprocess.PIPE, text=True, env=environment())
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = run("index", str(added), "--name", "mine", "--no-wait", cache=cache, data=data)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert f"being updated by process {holder.pid}" in " ".join((refused.stdout + refused.stderr).split())
        with pytest.raises(IndexBusy):
            update_index(folder, [added], wait=False)
        waiting = subprocess.Popen(cli("index", str(added), "--name", "mine", cache=cache, data=data),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment())
        time.sleep(3)
        assert waiting.poll() is None  # queued behind the holder
    finally:
        holder.kill()
        holder.wait()
    output, _ = waiting.communicate(timeout=120)
    assert waiting.returncode == 0 and f"waiting for process {holder.pid}" in " ".join(output.split())
    assert len(load_manifest(folder).files) == 8


@pytest.mark.parametrize("writers", [2, 3])
def test_concurrent_index_runs_on_one_index_keep_every_document_once(tmp_path, data, writers):
    cache = tmp_path / "cache"
    sets = [write_documents(tmp_path / f"set{k}", 200, offset=200 * k) for k in range(writers)]
    runs = [subprocess.Popen(cli("index", str(tmp_path / f"set{k}"), "--name", "shared", cache=cache, data=data),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment())
            for k in range(writers)]
    outputs = [process.communicate(timeout=300)[0] for process in runs]
    assert [process.returncode for process in runs] == [0] * writers, outputs
    assert not any("Traceback" in output for output in outputs)
    folder = cache / "indexes" / "shared"
    manifest = load_manifest(folder)
    assert set(manifest.files) == {str(p.resolve()) for paths in sets for p in paths}
    lines = (live_generation(folder) / "passages.jsonl").read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert len(ids) == len(set(ids)) == manifest.passages


def test_update_killed_with_sigkill_then_run_again_loses_nothing(tmp_path, data):
    """The real crash, as the update starts three of its steps (BENCHMARKS.md has 20 points)."""
    stage = Stage.make(tmp_path, added=3000)
    cache = tmp_path / "cache"
    for k, step in enumerate(("writing passages", "building", "switching")):
        record = crash_point(stage, f"crash{k}", cache, data.resolve(), 0.0, at_step=step)
        assert record.verify_between, record
        assert (record.documents_lost, record.passages_duplicated, record.trust_marks_lost, record.leftovers) == (
            0, 0, 0, 0), record
        assert record.documents == 3023


def test_every_method_honours_distrust_and_the_verdict_says_so(tmp_path, data):
    """The lexical check over an index whose only passage naming both ends sits in a distrusted file: it is
    never shown the passage, the verdict records that it was withheld, and the run pins the distrust."""
    docs, cache = tmp_path / "docs", tmp_path / "cache"
    (docs / "blog").mkdir(parents=True)
    (docs / "blog" / "post.txt").write_text("Allan Peiper was born in Paris, the blog says.")
    (docs / "notes.txt").write_text("Allan Peiper rode for Panasonic.")
    assert run("index", str(docs), "--name", "mine", cache=cache, data=data).returncode == 0
    graph = tmp_path / "graph.csv"
    graph.write_text("subject,predicate,object\nAllan Peiper,place of birth,Paris\n")
    trusted = run("verify", str(graph), "-o", str(tmp_path / "trusted.jsonl"), "--method", "lexical", "--index", "mine",
                  cache=cache, data=data)
    assert trusted.returncode == 0 and json.loads((tmp_path / "trusted.jsonl").read_text())["verdict"] is True
    assert run("index", "--name", "mine", "--distrust", str(docs / "blog"), cache=cache, data=data).returncode == 0
    doubted = run("verify", str(graph), "-o", str(tmp_path / "doubted.jsonl"), "--method", "lexical", "--index", "mine",
                  cache=cache, data=data)
    assert doubted.returncode == 0, doubted.stderr
    record = json.loads((tmp_path / "doubted.jsonl").read_text())
    assert record["verdict"] is False and record["evidence"] == []
    assert [(w["source"].endswith("blog/post.txt"), w["why"]) for w in record["withheld"]] == [(True, "distrusted source")]
    pinned = json.loads((tmp_path / "doubted.jsonl.settings.json").read_text())
    assert pinned["retriever"]["distrust"] == [str((docs / "blog").resolve())]


def test_the_llm_answer_cache_and_converted_model_live_under_the_cache_folder_given(tmp_path):
    from agentkgv.config import RunConfig, RunOptions, resolve

    ws = Workspace(cache=tmp_path / "mine")
    run = resolve(RunConfig(method="direct"), ws).config
    assert run.llm.cache_path == (tmp_path / "mine" / "llm" / "completions.sqlite").resolve()
    # The embedded model is converted into the same cache folder, not the default one.
    assert run.llm.models_dir == (tmp_path / "mine" / "models").resolve()
    from agentkgv.llm.embedded import converted_dir

    assert converted_dir(run.llm.models_dir).parent == run.llm.models_dir
    own = RunOptions(cache=True).apply(RunConfig(method="direct"))
    own = own.model_copy(update={"llm": own.llm.model_copy(update={"cache_path": tmp_path / "x.sqlite"})})
    assert resolve(own, ws).config.llm.cache_path == tmp_path / "x.sqlite"


def test_the_shipped_adapter_passes_the_check_before_loading(tmp_path):
    from agentkgv.config import RunConfig, RunOptions, resolve
    from agentkgv.commands.verify import check_model

    # named, not a path: the shipped one
    check_model(resolve(RunConfig(judge="llm"), Workspace(cache=tmp_path / "cache")).config)
    with pytest.raises(DataError, match="no adapter here"):
        check_model(RunOptions(judge="llm", adapter=str(tmp_path / "none")).apply(RunConfig()))


def test_a_runs_own_distrust_joins_the_index_marks(tmp_path):
    from agentkgv.config import RunConfig, RunOptions, resolve

    first, blog, _ = documents(tmp_path)
    ws = Workspace(cache=tmp_path / "cache")
    manifest = update_index(tmp_path / "index", [first], distrust=[blog]).manifest
    run = resolve(RunOptions(distrust=("poison:",), index="index").apply(RunConfig()), ws, manifest=manifest).config
    assert run.retriever.distrust == (str(blog.resolve()), "poison:")
    trusting = manifest.model_copy(update={"distrusted": []})
    assert resolve(RunOptions(index="index").apply(RunConfig()), ws, manifest=trusting).config.retriever.distrust == ()


def test_only_what_ranks_above_the_last_passage_shown_is_recorded_as_withheld():
    from agentkgv.data.records import Passage
    from agentkgv.retrieval.base import Hit
    from agentkgv.retrieval.guard import DistrustedSource, WithholdingRetriever

    class Ranked:
        name = "ranked"

        def search(self, queries, k=5):
            sources = ["blog:", "site:", "blog:", "site:", "site:", "blog:"]
            return [[Hit(Passage(f"p{i}", "text", source=f"{s}{i}"), 1.0 - i / 10, i + 1)
                     for i, s in enumerate(sources[:k])] for _ in queries]

    hits, withheld = WithholdingRetriever(Ranked(), [DistrustedSource(("blog:",))], overfetch=3).search_recorded(["q"], 2)
    assert [h.passage.id for h in hits[0]] == ["p1", "p3"] and [h.rank for h in hits[0]] == [1, 2]
    assert [w.id for w in withheld[0]] == ["p0", "p2"]  # p5, below the second shown, was never in reach


def test_a_query_whose_top_passages_are_all_withheld_still_gets_k():
    from agentkgv.data.records import Passage
    from agentkgv.retrieval.base import Hit
    from agentkgv.retrieval.guard import DistrustedSource, WithholdingRetriever

    class Deep:
        name = "deep"

        def search(self, queries, k=5):  # twelve passages of a distrusted blog rank above the rest
            ranked = [f"blog:{i}" for i in range(12)] + [f"site:{i}" for i in range(12, 40)]
            return [[Hit(Passage(s, "text", source=s), 1.0 - n / 100, n + 1) for n, s in enumerate(ranked[:k])]
                    for _ in queries]

    hits, withheld = WithholdingRetriever(Deep(), [DistrustedSource(("blog:",))]).search_recorded(["q", "r"], 5)
    assert [len(h) for h in hits] == [5, 5] and hits[0][0].passage.id == "site:12"
    assert len(withheld[0]) == 12


def test_an_index_says_whether_its_documents_state_every_true_triple(tmp_path):
    """`index --absence false`: a run over it counts silence against a triple, unless the run says otherwise;
    the setting is part of the index's fingerprint, so a run resumed across the change is refused."""
    from agentkgv.config import RunConfig, RunOptions, resolve

    ws = Workspace(cache=tmp_path / "cache")

    def absence(manifest, **options) -> str:
        run = RunOptions(index="index", **options).apply(RunConfig())
        return resolve(run, ws, manifest=manifest).config.reading.absence

    first, _, _ = documents(tmp_path)
    built = update_index(tmp_path / "index", [first])
    assert absence(built.manifest) == "unknown"
    complete = update_index(tmp_path / "index", absence="false")
    assert complete.manifest.fingerprint != built.manifest.fingerprint and complete.passages == built.passages
    assert absence(complete.manifest) == "false"
    assert absence(complete.manifest, absence="unknown") == "unknown"
    with pytest.raises(DataError, match="'false' or 'unknown'"):
        update_index(tmp_path / "index", absence="maybe")


def test_eval_over_a_document_index_reads_it_as_verify_does(tmp_path, data, small_benchmark):
    """An index named in the run config: its distrust marks and fingerprint are pinned in every log."""
    import shutil

    from agentkgv.config import RunConfig, RunOptions
    from agentkgv.commands.verify import run_eval

    first, blog, _ = documents(tmp_path)
    ws = Workspace(data, tmp_path / "cache")
    shutil.copytree(small_benchmark[0], ws.benchmark)
    built = update_index(ws.cache / "indexes" / "mine", [first], distrust=[blog])
    run_eval(ws, RunOptions(index="mine").apply(RunConfig()), ["lexical"], ["test_unseen"], limit=4, run_name="over-mine")
    pinned = json.loads((ws.runs / "over-mine" / "lexical.test_unseen.jsonl.settings.json").read_text())
    assert pinned["pins"]["index"] == {"name": "mine", "fingerprint": built.manifest.fingerprint}
    assert pinned["retriever"]["distrust"] == [str(blog.resolve())]
