"""The verification commands' loops: eval on the benchmark splits, the demo, `verify` of a user's triples (with
the checks that refuse a run before anything loads). Each resolves its run once
(agentkgv.config.resolve) and builds its verifier through the registry.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from agentkgv.commands.build import (BATCH_SIZE, EVAL_SPLITS, SILENT, Hooks, ensure_benchmark, index_root, load_llm,
                                     paraphrases, relation_facts, retriever_for, shared_llms, split_examples)
from agentkgv.config import ResolvedRun, RunConfig, RunOptions, resolve
from agentkgv.core.graph_checked import GraphChecked
from agentkgv.core.ray_runner import RayOptions, RayVerifier
from agentkgv.core.runner import ANOTHER_OUTPUT, check_settings, load_run, run_verifier
from agentkgv.core.verdict import BriefTraces, Verdict, Verifier
from agentkgv.data.aliases import read_alias_table, with_aliases
from agentkgv.data.errors import DataError, refuse_overwriting
from agentkgv.data.jsonl import write_jsonl
from agentkgv.data.rdf_graphs import names_a_term
from agentkgv.data.records import LabeledTriple
from agentkgv.data.user_formats import read_triples, write_rejected
from agentkgv.eval.confidence import REVIEW_BELOW
from agentkgv.eval.evaluate import Entrant, evaluate, log_path, log_stem
from agentkgv.eval.html_report import write_report
from agentkgv.eval.report import ResultRow, save_report
from agentkgv.graph.checker import GraphSettings, OpenGraph, open_graph
from agentkgv.graph.profile import claim_triple
from agentkgv.llm.embedded import adapter_fingerprint, resolve_adapter
from agentkgv.paths import Workspace
from agentkgv.registry import RunSpec, build_verifier
from agentkgv.retrieval.user_index import OpenIndex, open_index

OnError = Literal["fail", "skip"]
# Settings a check made before the model is loaded does not know yet: the loaded model's name.
LOADED = ("pins.llm.name",)


@dataclass
class EvalResult:
    rows: list[ResultRow]
    report: Path


def method_runs(ws: Workspace, run: RunConfig, methods: list[str], base_model: bool = False,
                index: OpenIndex | None = None) -> list[ResolvedRun]:
    """Each method's run, resolved. Unless `base_model`, the LLM agent gets the shipped adapter (as `verify`
    runs it) and the baselines keep the bare backbone, as in the paper's table. `index`: the run's document
    index as opened, whose manifest the runs are resolved against."""
    configs = [RunOptions(method=method).apply(run) for method in methods]
    if run.llm.adapter is not None and not any(config.needs_llm for config in configs):
        # An adapter no method loads would be ignored, and the table labelled as if it had been run.
        raise DataError("command line", "an adapter (--adapter, or [llm] adapter in --config) is read by the LLM "
                                        f"agent (--judge llm) and the LLM baselines; none of {', '.join(methods)} "
                                        "loads an LLM")
    return [resolve(config, ws, base_model, manifest=index and index.manifest) for config in configs]


def run_eval(ws: Workspace, run: RunConfig, methods: list[str], splits: list[str], limit: int | None = None,
             label: str | None = None, batch_size: int = BATCH_SIZE, run_name: str = "eval", base_model: bool = False,
             hooks: Hooks = SILENT) -> EvalResult:
    """Every method of `methods` (see `method_runs`) on every split; resumable. Each distinct model is loaded
    once and shared by the methods that run it. A document index the run names is read as `verify` reads it:
    its kind, its distrust marks and its absence setting, its fingerprint pinned."""
    out_dir = ws.runs / run_name
    names = [label if label and len(methods) == 1 else method for method in methods]
    runs = method_runs(ws, run, methods, base_model)
    for name, resolved in zip(names, runs):  # refused before anything loads
        check_model(resolved.config)
        for split in splits:
            check_settings(log_path(out_dir, name, split), resolved.identity(), unknown=LOADED, record=False)
    index = open_index(ws, run.retriever.index) if run.retriever.index is not None else None
    if index is not None and index.identity() != runs[0].pins["index"]:  # an update finished since
        runs = [resolved.over(index.manifest, ws) for resolved in runs]
    ensure_benchmark(ws, hooks)
    llms = shared_llms([resolved.config for resolved in runs])
    retriever = index.retriever if index is not None else retriever_for(ws, runs[0].config.retriever, hooks)
    table = paraphrases(ws)
    entrants = [Entrant(name, build_verifier(resolved, retriever, table, llm, relations=relation_facts(ws, resolved.config)),
                        resolved.identity(llm.name if llm is not None else None))
                for name, resolved, llm in zip(names, runs, llms)]
    rows, breakdown = evaluate(entrants, {split: split_examples(ws, split, limit) for split in splits}, out_dir,
                               batch_size, hooks.bar)
    name = log_stem(label or "-".join(methods))
    markdown, _ = save_report(rows, out_dir, f"results-{name}")
    save_report(breakdown, out_dir, f"per_predicate-{name}")
    return EvalResult(rows, markdown)


def demo_run_name(run: ResolvedRun) -> str:
    """The demo's run folder: a demo resumes, but one whose settings or shipped weights changed (an upgrade)
    gets its own folder rather than a refusal to resume."""
    llm = run.config.llm
    weights = adapter_fingerprint(resolve_adapter(llm.adapter)) if run.config.needs_llm and llm.adapter else ""
    return "demo-" + hashlib.sha256((json.dumps(run.identity(), sort_keys=True) + weights).encode()).hexdigest()[:8]


@dataclass
class DemoResult:
    table: EvalResult
    # Where the default verifier and the string match disagree: (the agent's verdict, the lexical one).
    differences: list[tuple[Verdict, Verdict]]
    report: Path  # the HTML report of the agent's verdicts
    review: Path


def run_demo(ws: Workspace, limit: int, hooks: Hooks = SILENT) -> DemoResult:
    """The default AgentKGV agent (the shipped evidence reader judging), next to the lexical check it must
    beat, on a fixed balanced sample of every evaluation split; where they differ; and the agent's report."""
    name = demo_run_name(resolve(RunConfig(), ws))
    table = run_eval(ws, RunConfig(), ["lexical", "agentkgv"], list(EVAL_SPLITS), limit, batch_size=BATCH_SIZE,
                     run_name=name, hooks=hooks)
    folder = ws.runs / name
    agent = {i: v for split in EVAL_SPLITS for i, v in load_run(folder / f"agentkgv.{split}.jsonl").items()}
    lexical = {i: v for split in EVAL_SPLITS for i, v in load_run(folder / f"lexical.{split}.jsonl").items()}
    differences = [(v, lexical[i]) for i, v in agent.items() if i in lexical and v.verdict != lexical[i].verdict]
    verdicts = folder / "agentkgv.all.jsonl"
    write_jsonl(verdicts, (v.to_json() for v in agent.values()))
    report, review = folder / "report.html", folder / "report.review.csv"
    write_report(verdicts, report, review, REVIEW_BELOW)
    return DemoResult(table, differences, report, review)


@dataclass
class OpenVerifier:
    verifier: Verifier
    llm_name: str | None  # the loaded model's name, which a run log pins (a resume cannot switch adapters)
    parallel: int  # batches the verifier runs at once: one per Ray actor


def opened_index(ws: Workspace, resolved: ResolvedRun) -> tuple[ResolvedRun, OpenIndex | None]:
    """The run's document index opened (its live generation, which this run keeps reading while an update makes a
    new one), and the run over it: resolved again only where an update finished since it was resolved."""
    name = resolved.config.retriever.index
    if name is None:
        return resolved, None
    index = open_index(ws, name)
    return (resolved.over(index.manifest, ws) if index.identity() != resolved.pins.get("index") else resolved), index


def load_verifier(ws: Workspace, run: ResolvedRun, hooks: Hooks = SILENT, index: OpenIndex | None = None) -> OpenVerifier:
    """The run's verifier in this process, with its model and retriever loaded (`index`: its document index,
    opened)."""
    config = run.config
    llm = load_llm(config)
    retriever = index.retriever if index is not None else retriever_for(ws, config.retriever, hooks)
    return OpenVerifier(build_verifier(run, retriever, paraphrases(ws), llm, relations=relation_facts(ws, config)),
                        llm.name if llm else None, 1)


@contextmanager
def open_verifier(ws: Workspace, run: ResolvedRun, ray: RayOptions | None = None, hooks: Hooks = SILENT,
                  index: OpenIndex | None = None) -> Iterator[OpenVerifier]:
    """The run's verifier, in this process or, with `ray`, on a pool of Ray actors (core/ray_runner.py).
    `index`: the run's document index already opened by the caller, so it is not loaded twice and every
    actor reads the generation it opened."""
    config = run.config
    if ray is None:
        yield load_verifier(ws, run, hooks, index)
        return
    if index is None:
        retriever_for(ws, config.retriever, hooks)  # builds a missing index once here, not in every actor
    spec = RunSpec(run=config, index_root=index.index_dir if index is not None else index_root(ws, config.retriever),
                   paraphrases=paraphrases(ws), data=ws.data.resolve(),
                   cache=ws.cache.resolve())
    with RayVerifier(spec, ray) as verifier:
        yield OpenVerifier(verifier, verifier.llm_name, ray.workers)


def read_user_file(triples: Path, output: Path, on_error: OnError = "fail", hooks: Hooks = SILENT) -> list[LabeledTriple]:
    """A user's file of triples. With `on_error="skip"` the bad rows are written with their reasons to
    `<output>.rejected.jsonl` and the good ones returned."""
    rejected: list | None = [] if on_error == "skip" else None
    items = list(read_triples(triples, rejected=rejected))
    if rejected:
        written = write_rejected(output, rejected)
        hooks.note(f"{len(rejected)} bad rows skipped (first: {rejected[0]}); all in {written}")
    return items


def check_output(output: Path) -> None:
    """Refuse an output a run could not append to, before anything is loaded."""
    if output.is_dir():
        raise DataError(output, "a folder: give the verdicts file's path (-o verdicts.jsonl)")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with output.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise DataError(output, f"cannot be written ({error.strerror}); choose another -o") from None


def check_model(run: RunConfig) -> None:
    """Refuse a model the run could not load, before loading anything: a model or adapter path that is not
    there, an OpenAI-compatible backend with no server to ask."""
    if not run.needs_llm:
        return
    llm = run.llm
    if llm.adapter is not None and not resolve_adapter(Path(llm.adapter)).exists():
        raise DataError(llm.adapter, "no adapter here (--adapter)")
    looks_like_path = llm.model.startswith((".", "/", "~")) or llm.model.endswith(".gguf")
    if llm.backend != "openai" and looks_like_path and not Path(llm.model).expanduser().exists():
        raise DataError(llm.model, "no model here (--model): give a model folder, a GGUF file, or a hub name")
    if llm.backend == "openai" and llm.base_url is None and not (
            os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")):
        raise DataError("command line", "--backend openai needs --base-url, the URL of an OpenAI-compatible "
                                        "server (or OPENAI_API_KEY for OpenAI's own)")


def preflight(ws: Workspace, resolved: ResolvedRun, output: Path, aliases: Path | None = None) -> ResolvedRun:
    """Every check that can refuse a `verify` run of `resolved` (whose index and readers resolving checked),
    made before any model, index or document is loaded: the output can be written, the model is there, and a
    resumed output was written with these settings. Returns the run with the alias table pinned."""
    check_output(output)
    if aliases is not None:
        if not aliases.is_file():
            raise DataError(aliases, "no alias table here (--aliases)")
        # Other names change what counts as a mention, so a resume with another table is refused.
        resolved = resolved.with_pins(aliases=hashlib.sha256(aliases.read_bytes()).hexdigest()[:16])
    check_model(resolved.config)
    check_settings(output, resolved.identity(), ANOTHER_OUTPUT, unknown=LOADED, record=False)
    return resolved


def read_graph(items: list[LabeledTriple], settings: GraphSettings, name: str, hooks: Hooks = SILENT) -> OpenGraph:
    """What the triples' graph says of them (graph/checker.py): the triples are the graph (its labels left out:
    they name its terms), profiled unless a saved profile is given."""
    with hooks.status(f"reading the graph of {name}: its profile and findings"):
        return open_graph(settings, [claim_triple(item.triple) for item in items if not names_a_term(item.triple)], name)


def verify_triples(ws: Workspace, run: ResolvedRun, items: list[LabeledTriple], name: str, output: Path,
                   batch_size: int = BATCH_SIZE, trajectories: bool = False, ray: RayOptions | None = None,
                   hooks: Hooks = SILENT, aliases: Path | None = None, graph: GraphSettings | None = None) -> list[Verdict]:
    """Verdicts for a user's triples (from a file or a graph; `name` says which), appended to `output` (a
    rerun resumes). `aliases` is an alias table file (agentkgv.data.aliases) whose names the triples'
    entities get too. `graph`: how the triples' graph is read beside the documents (None: it is not).
    Failed triples are left out (the runner's errors file names them)."""
    check_output(output)
    refuse_overwriting([aliases] + ([graph.profile, graph.shapes, graph.prior] if graph else []), [output])
    opened_graph = read_graph(items, graph, name, hooks) if graph is not None else None
    if opened_graph is not None:
        run = run.with_pins(graph=opened_graph.pins)
    resolved, index = opened_index(ws, preflight(ws, run, output, aliases))
    if aliases is not None:
        table = read_alias_table(aliases)
        items = [replace(item, triple=with_aliases(item.triple, table)) for item in items]
    # Loaded here, as in eval, so the output's pinned settings carry the model's name with its adapter's hash.
    with open_verifier(ws, resolved, ray, hooks, index) as opened:
        verifier = opened.verifier if opened_graph is None else GraphChecked(
            opened.verifier, opened_graph.checker, graph.false_below)
        verifier = verifier if trajectories else BriefTraces(verifier)
        with hooks.bar(f"verifying {name}", len(items)) as advance:
            return run_verifier(verifier, items, output, batch_size * opened.parallel, advance,
                                resolved.identity(opened.llm_name), ANOTHER_OUTPUT)
