"""The benchmark commands' loops: retrieval recall, summarizer cost, throughput, poisoned evidence and
confidence, each built from a run config and a workspace by `pipeline` and shown by `cli_bench`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentkgv.agent.base import Verifier
from agentkgv.agent.factory import build_verifier
from agentkgv.agent.run_config import RunConfig
from agentkgv.data.benchmark import (load_split)
from agentkgv.data.errors import DataError
from agentkgv.data.factbench import DOCS_SPLIT
from agentkgv.data.predicates import load_predicates, paraphrase_table
from agentkgv.eval.poison import (VARIANTS, attack_table, build_poisoned_index, make_poisons, poison_digest,
                                  retrieved_share, run_attack)
from agentkgv.eval.ray_runner import RayOptions
from agentkgv.eval.report import markdown_table
from agentkgv.eval.retrieval_bench import RecallRow, recall_at_k
from agentkgv.eval.summary_bench import SummaryRow
from agentkgv.eval.throughput import ThroughputRow, measure_throughput
from agentkgv.llm.base import LLM
from agentkgv.llm.factory import build_llm
from agentkgv.paths import Workspace
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.factory import RetrieverConfig, bm25_dir
from agentkgv.pipeline import (EVAL_SPLITS, SILENT, TEST_SPLITS, Hooks, ensure_benchmark, method_runs, open_verifier, paraphrases,
                               retriever_for, shared_llms, split_examples)


def bench_retrieval(ws: Workspace, kinds: list[str], embedding_model: str | None = None, k: int = 5,
                    hooks: Hooks = SILENT) -> list[RecallRow]:
    ensure_benchmark(ws, hooks)
    table = paraphrases(ws)
    rows = []
    for kind in kinds:
        config = RunConfig().with_options(retriever=kind, embedding_model=embedding_model).retriever
        retriever = retriever_for(ws, config, hooks)
        for split in TEST_SPLITS:
            rows += recall_at_k(retriever, kind, split, load_split(ws.benchmark, split), table, k)
    return rows


def bench_summarizer(ws: Workspace, run: RunConfig, split: str, count: int,
                     hooks: Hooks = SILENT) -> tuple[int, list[SummaryRow]]:
    """(requests, one row per summarizer): both summarizers on the same first-turn retrieval results."""
    from agentkgv.agent.summarizer import ExtractiveSummarizer, LLMSummarizer
    from agentkgv.eval.summary_bench import compare, summary_requests

    ensure_benchmark(ws, hooks)
    requests = summary_requests(split_examples(ws, split, 2 * count), retriever_for(ws, run.retriever, hooks),
                                paraphrases(ws))
    # A cost measurement: every summary must really be generated.
    llm = build_llm(run.llm.model_copy(update={"cache": False}))
    return len(requests), [compare(ExtractiveSummarizer(), requests), compare(LLMSummarizer(llm), requests)]


def bench_throughput(ws: Workspace, run: RunConfig, split: str, count: int, batch_sizes: list[int],
                     ray: RayOptions | None = None, hooks: Hooks = SILENT) -> list[ThroughputRow]:
    """With the LLM cache off, so every call is real; with `ray`, each batch size is per actor."""
    ensure_benchmark(ws, hooks)
    items = [e.as_labeled() for e in split_examples(ws, split, count)]
    with open_verifier(ws, run.with_options(cache=False), ray, hooks) as opened:
        return measure_throughput(opened.verifier, items, batch_sizes, opened.parallel)


def bench_poison(ws: Workspace, run: RunConfig, methods: list[str], splits: list[str], limit: int,
                 variants: list[str], index_name: str, batch_size: int = 8, run_name: str = "poison",
                 hooks: Hooks = SILENT) -> tuple[list[str], list[list[str]]]:
    """Flip rate and macro-F1 of each method when adversarial passages are added to a copy of the BM25 index
    (eval/poison.py); the table's (headers, rows), also written as Markdown beside the run logs."""
    unknown = (set(variants) - set(VARIANTS)) | (set(splits) - set(TEST_SPLITS))
    if unknown:
        raise DataError("command line", f"variants are among {', '.join(VARIANTS)} and splits among "
                                        f"{', '.join(TEST_SPLITS)}, not {', '.join(sorted(unknown))}")
    configs = method_runs(run, methods, trained=True)  # refuses bad options before the index is built
    ensure_benchmark(ws, hooks)
    # Both test splits are poisoned whichever run, so one poisoned index serves every split choice.
    examples = {split: split_examples(ws, split, limit) for split in TEST_SPLITS}
    predicates = load_predicates(ws.data)
    poisons = make_poisons([e for split in TEST_SPLITS for e in examples[split]], predicates)
    clean = retriever_for(ws, RetrieverConfig(), hooks)
    with hooks.status(f"indexing the corpus with {len(poisons)} poison passages -> {ws.indexes / index_name}"):
        retrievers = {False: clean, True: build_poisoned_index(bm25_dir(ws.indexes), poisons, ws.indexes / index_name)}
    every = [e for split in splits for e in examples[split]]
    hooks.note(f"poison in the top 5 for the triple's own words: {retrieved_share(retrievers[True], every, poisons, 5):.1%}")
    table, rows = paraphrase_table(predicates), []
    for method, config, llm in zip(methods, configs, shared_llms(configs)):

        def make(retriever: Retriever, guard: bool, config: RunConfig = config,
                 llm: LLM | None = llm) -> tuple[Verifier, dict]:
            chosen = config.model_copy(update={"evidence_guard": guard})
            return build_verifier(chosen, retriever, table, llm), chosen.identity(llm.name if llm else None)

        items = {split: [e.as_labeled() for e in examples[split]] for split in splits}
        with hooks.bar(f"{method} under poisoned evidence", sum(map(len, items.values())) * (1 + len(variants))) as advance:
            rows += run_attack(method, make, retrievers, items, {p.example_id: p.kind for p in poisons},
                               ws.runs / run_name, variants, poison_digest(poisons), batch_size, advance)
    headers, cells = attack_table(rows)
    (ws.runs / run_name / f"poison-{'-'.join(methods)}.md").write_text(markdown_table(headers, cells))
    return headers, cells


@dataclass
class ConfidenceReport:
    rows: list
    kinds: list
    plot: Path


def bench_confidence(ws: Workspace, run_names: list[str], review_below: float) -> ConfidenceReport:
    """Calibration, review share and FactBench per-kind accuracy of every entrant logged in these eval runs."""
    from agentkgv.eval.confidence import confidence_row, kind_rows, plot_reliability
    from agentkgv.eval.runner import load_run

    rows, kinds, curves = [], [], {}
    for run_name in run_names:
        logs = sorted((ws.runs / run_name).glob("*.jsonl"))
        if not logs:
            raise DataError(ws.runs / run_name, "no eval run logs here: run `agentkgv eval --run-name` first")
        for log in logs:
            method, _, split = log.stem.rpartition(".")
            if split not in EVAL_SPLITS:
                continue
            # Two runs of one method (two readers) stay apart in the tables and the diagram.
            entrant = method if len(run_names) == 1 else f"{method} ({run_name})"
            verdicts = list(load_run(log).values())
            rows.append(confidence_row(entrant, split, verdicts, review_below))
            curves[f"{entrant} · {split}"] = verdicts
            if split == DOCS_SPLIT:
                kinds += kind_rows(entrant, verdicts)
    plot = ws.runs / run_names[0] / "reliability.png"
    plot_reliability(curves, plot)
    return ConfidenceReport(rows, kinds, plot)
