"""The benchmark commands' loops: retrieval recall, summarizer cost, throughput, poisoned evidence and
confidence, each built from a run config and a workspace (commands/build.py) and shown by commands/bench_cli.py."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from agentkgv.commands.build import (EVAL_SPLITS, SILENT, TEST_SPLITS, Hooks, ensure_benchmark, index_documents,
                                     paraphrases, relation_facts, retriever_for, shared_llms, split_examples)
from agentkgv.commands.train_reader import held_out_training_examples, reader_held_out_share
from agentkgv.commands.verify import method_runs, open_verifier
from agentkgv.config import ResolvedRun, RunConfig, RunOptions, resolve
from agentkgv.core.ray_runner import RayOptions
from agentkgv.core.runner import load_run, run_verifier
from agentkgv.core.verdict import Verifier
from agentkgv.data.benchmark import load_split
from agentkgv.data.corpus import load_corpus
from agentkgv.data.errors import DataError
from agentkgv.data.dbpedia import docs_folder, iter_dbpedia
from agentkgv.data.factbench import DOCS_SPLIT, factbench_docs_examples
from agentkgv.data.jsonl import read_json
from agentkgv.data.predicates import load_predicates, paraphrase_table
from agentkgv.data.records import LabeledTriple
from agentkgv.eval.graph_bench import LabelledGraph, cross_validated, reviewed_then_scored, rules_only
from agentkgv.eval.real_graph import RealGraphRow, real_graph_row
from agentkgv.eval.poison import (VARIANTS, attack_table, build_poisoned_index, make_poisons, poison_digest,
                                  retrieved_share, run_attack)
from agentkgv.eval.report import markdown_table
from agentkgv.eval.retrieval_bench import RecallRow, recall_at_k
from agentkgv.eval.shaped_graph import ShapedRow, shaped_graph, shaped_rows
from agentkgv.eval.summary_bench import SummaryRow
from agentkgv.eval.throughput import ThroughputRow, measure_throughput
from agentkgv.eval.withheld import WithheldRow, halves, withheld_row
from agentkgv.graph.prior import GraphPrior, fit_prior, shipped_prior_path
from agentkgv.llm.base import LLM
from agentkgv.llm.factory import build_llm
from agentkgv.paths import Workspace
from agentkgv.reader_agent.agent import ReadingAgent
from agentkgv.reader_agent.claims import Claim
from agentkgv.reader_agent.contradiction import contradicts
from agentkgv.registry import build_verifier
from agentkgv.retrieval.base import Retriever
from agentkgv.retrieval.bm25 import BM25Retriever
from agentkgv.retrieval.factory import RetrieverConfig, bm25_dir
from agentkgv.retrieval.user_index import open_index


def bench_retrieval(ws: Workspace, kinds: list[str], embedding_model: str | None = None, k: int = 5,
                    hooks: Hooks = SILENT) -> list[RecallRow]:
    ensure_benchmark(ws, hooks)
    table = paraphrases(ws)
    rows = []
    for kind in kinds:
        config = RunOptions(retriever=kind, embedding_model=embedding_model).apply(RunConfig()).retriever
        retriever = retriever_for(ws, config, hooks)
        for split in TEST_SPLITS:
            rows += recall_at_k(retriever, kind, split, load_split(ws.benchmark, split), table, k)
    return rows


def bench_summarizer(ws: Workspace, run: RunConfig, split: str, count: int,
                     hooks: Hooks = SILENT) -> tuple[int, list[SummaryRow]]:
    """(requests, one row per summarizer): both summarizers on the same first-turn retrieval results."""
    from agentkgv.llm_agent.summarizer import ExtractiveSummarizer, LLMSummarizer
    from agentkgv.eval.summary_bench import compare, summary_requests

    ensure_benchmark(ws, hooks)
    requests = summary_requests(split_examples(ws, split, 2 * count), retriever_for(ws, run.retriever, hooks),
                                paraphrases(ws))
    # A cost measurement: every summary must really be generated.
    llm = build_llm(run.llm.model_copy(update={"cache": False}))
    return len(requests), [compare(ExtractiveSummarizer(), requests), compare(LLMSummarizer(llm), requests)]


def bench_throughput(ws: Workspace, run: RunConfig, split: str, count: int, batch_sizes: list[int],
                     ray: RayOptions | None = None, base_model: bool = False, hooks: Hooks = SILENT) -> list[ThroughputRow]:
    """With the LLM cache off, so every call is real; with `ray`, each batch size is per actor."""
    ensure_benchmark(ws, hooks)
    items = [e.as_labeled() for e in split_examples(ws, split, count)]
    with open_verifier(ws, resolve(RunOptions(cache=False).apply(run), ws, base_model), ray, hooks) as opened:
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
    runs = method_runs(ws, run, methods)  # refuses bad options before the index is built
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
    for method, resolved, llm in zip(methods, runs, shared_llms([r.config for r in runs])):

        def make(retriever: Retriever, guard: bool, resolved: ResolvedRun = resolved,
                 llm: LLM | None = llm) -> tuple[Verifier, dict]:
            chosen = replace(resolved, config=resolved.config.model_copy(update={"evidence_guard": guard}))
            return (build_verifier(chosen, retriever, table, llm, relations=relation_facts(ws, chosen.config)),
                    chosen.identity(llm.name if llm else None))

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
    from agentkgv.core.runner import load_run

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


# The pseudo-split of the evidence-withheld test that fits on training triples the reader never saw (the draw
# its calibration was fitted on), not on a test split.
HELD_OUT_TRAIN = "held_out_train"
HELD_OUT_TRIPLES = 2000


def bench_withheld(ws: Workspace, run: RunConfig, splits: list[str], absences: list[str], run_name: str,
                   batch_size: int = 64, hooks: Hooks = SILENT) -> list[WithheldRow]:
    """The evidence-withheld test (eval/withheld.py): the reader agent over each split (or `HELD_OUT_TRAIN`)
    against a BM25 index of the corpus less the evidence of a fixed half, once for each way of reading absence."""
    if not run.uses_reader:
        raise DataError(Path("--method"), "the evidence-withheld test reads the reader agent's outcomes: "
                                          "method agentkgv, judge reader")
    ensure_benchmark(ws, hooks)
    resolved = resolve(run, ws)
    assert resolved.readers is not None
    examples = {split: held_out_training_examples(ws, reader_held_out_share(resolved.readers.main), HELD_OUT_TRIPLES)
                if split == HELD_OUT_TRAIN
                else split_examples(ws, split) for split in splits}
    parts = {split: halves(items) for split, items in examples.items()}
    ids = {i for h in parts.values() for i in h.passage_ids}
    sources = {s for h in parts.values() for s in h.sources}
    digest = hashlib.sha256("\n".join(sorted(ids) + sorted(sources)).encode()).hexdigest()[:12]
    folder = ws.indexes / f"withheld-{digest}"
    try:
        retriever: Retriever = BM25Retriever.load(folder)
    except DataError:
        hooks.note(f"building the BM25 index less the withheld evidence -> {folder}")
        passages = [p for p in load_corpus(ws.corpus) if p.id not in ids and p.source not in sources]
        retriever = BM25Retriever.build(passages, folder)
    rows = []
    for absence in absences:
        config = replace(resolved, config=RunOptions(absence=absence).apply(resolved.config))
        verifier = build_verifier(config, retriever, paraphrases(ws), relations=relation_facts(ws, config.config))
        assert isinstance(verifier, ReadingAgent)
        for split, part in parts.items():
            items = [e.as_labeled() for e in examples[split]]
            with hooks.bar(f"{split}, absence {absence}", len(items)) as advance:
                verdicts = {v.id: v for v in run_verifier(
                    verifier, items, ws.runs / run_name / f"{split}-{absence}.jsonl", batch_size, advance,
                    config.identity() | {"withheld": digest})}
            for half, chosen in (("withheld", part.withheld), ("kept", part.kept), ("both", examples[split])):
                rows.append(withheld_row(split, half, absence, [verdicts[e.id] for e in chosen if e.id in verdicts],
                                         lambda v: contradicts(Claim.of(v.triple), verifier.relations)))
    return rows


def bench_shaped_graph(ws: Workspace, run: RunConfig, methods: list[str], index_name: str, run_name: str,
                       batch_size: int = 64, hooks: Hooks = SILENT) -> list[ShapedRow]:
    """The graph shaped like a real one (eval/shaped_graph.py) verified against FactBench's pages, indexed as
    a user's documents (`index_name`, made here when missing), the prior set to the graph's true share."""
    kg = read_json(ws.data / "factbench" / "kg.json")
    facts = [LabeledTriple(e.id, e.triple, e.label) for e in factbench_docs_examples(ws.data)]
    graph = shaped_graph(facts, {fact_id: tuple(value[1]) for fact_id, value in kg.items()})
    try:
        open_index(ws, index_name)
    except DataError:
        hooks.note(f"indexing FactBench's pages as the documents -> index {index_name}")
        index_documents(ws, index_name, [ws.data / "factbench" / "docs"], hooks=hooks)
    prior = round(sum(bool(s.item.label) for s in graph) / len(graph), 2)
    rows = []
    run = RunOptions(index=index_name, prior=prior).apply(run)
    index = open_index(ws, index_name)
    for resolved in method_runs(ws, run, methods, index=index):
        method, items = resolved.config.method, [s.item for s in graph]
        with open_verifier(ws, resolved, None, hooks, index) as opened, \
                hooks.bar(f"{method} on the shaped graph", len(items)) as advance:
            verdicts = run_verifier(opened.verifier, items, ws.runs / run_name / f"{method}.jsonl", batch_size,
                                    advance, resolved.identity(opened.llm_name))
        rows += shaped_rows(method, graph, {v.id: v for v in verdicts})
    return rows


def bench_dbpedia(ws: Workspace, run: RunConfig, methods: list[str], index_name: str, run_name: str,
                  batch_size: int = 64, forms: tuple[str, ...] = ("iri", "verbalized"),
                  hooks: Hooks = SILENT) -> list[RealGraphRow]:
    """The DBpedia development set's triples that come with web pages, read as a user's N-Triples file of them
    (data/dbpedia.py) and, in the `verbalized` form, with each relation worded as FactCheck's sentence does;
    verified as a user would: the pages indexed as their documents (`index_name`, made when missing), `verify
    --index` with the index's own settings."""
    try:
        open_index(ws, index_name)
    except DataError:
        hooks.note(f"indexing the DBpedia set's pages as the documents -> index {index_name}")
        index_documents(ws, index_name, [docs_folder(ws.data)], hooks=hooks)
    index = open_index(ws, index_name)
    rows = []
    for resolved in method_runs(ws, RunOptions(index=index_name).apply(run), methods, index=index):
        method = resolved.config.method
        for form in forms:
            items = list(iter_dbpedia(ws.data, with_docs=True, form=form))
            with open_verifier(ws, resolved, None, hooks, index) as opened, \
                    hooks.bar(f"{method} on the DBpedia set ({form})", len(items)) as advance:
                verdicts = run_verifier(opened.verifier, items, ws.runs / run_name / f"{method}.{form}.jsonl",
                                        batch_size, advance, resolved.identity(opened.llm_name))
            rows.append(real_graph_row(f"{method} ({form})", verdicts))
    return rows


def bench_dbpedia_graph(ws: Workspace, run: RunConfig, index_name: str, run_name: str, batch_size: int = 64,
                        hooks: Hooks = SILENT) -> tuple[list[RealGraphRow], list[RealGraphRow]]:
    """The graph's word on the DBpedia development set (eval/graph_bench.py): all its triples are the graph,
    profiled without labels. Rows over all of them (the rules alone; the graph's P(true), cross-validated), and
    over those with pages: the documents alone (the reader agent, as `bench-dbpedia` runs it), the graph
    alone, and both together; and a user's protocol, 100 of those reviewed and the other 300 scored
    (`reviewed_then_scored`)."""
    bench_dbpedia(ws, run, ["agentkgv"], index_name, run_name, batch_size, ("iri",), hooks)
    documents = load_run(ws.runs / run_name / "agentkgv.iri.jsonl")
    graph = LabelledGraph.of(list(iter_dbpedia(ws.data)), "dbpedia")
    alone = cross_validated(graph, {})
    together = cross_validated(graph, documents)
    reviewed = cross_validated(graph, documents, reviews=True)
    with_pages = set(documents)
    whole = [real_graph_row("graph: rules alone (no labels)", rules_only(graph)),
             real_graph_row("graph: P(true), cross-validated", alone),
             real_graph_row("graph: P(true), with the other folds reviewed", cross_validated(graph, {}, reviews=True))]
    pages = [real_graph_row("documents alone", list(documents.values())),
             real_graph_row("graph alone", [v for v in alone if v.id in with_pages]),
             real_graph_row("graph + documents", [v for v in together if v.id in with_pages]),
             real_graph_row("graph + documents, the other folds reviewed", [v for v in reviewed if v.id in with_pages])]
    # A user's protocol: 100 of them reviewed, the other 300 scored (a prior that saw no page-labelled triple).
    count, after = reviewed_then_scored(graph, documents)
    pages += [real_graph_row(f"documents alone, the {len(after)} not reviewed", [documents[v.id] for v in after]),
              real_graph_row(f"graph + documents after `learn` from {count} reviewed, the other {len(after)}", after)]
    return whole, pages


def train_graph_prior(ws: Workspace, output: Path | None, index_name: str = "dbpedia-docs", run_name: str = "dbpedia",
                      hooks: Hooks = SILENT) -> GraphPrior:
    """The graph prior fitted on the whole DBpedia development set (its per-predicate and per-family offsets and the
    vocabularies it knows too), the documents' verdicts of the triples with pages read as `bench-dbpedia` reads
    them; saved to `output`, or over the shipped one."""
    bench_dbpedia(ws, RunConfig(), ["agentkgv"], index_name, run_name, hooks=hooks, forms=("iri",))
    documents = load_run(ws.runs / run_name / "agentkgv.iri.jsonl")
    graph = LabelledGraph.of(list(iter_dbpedia(ws.data)), "dbpedia")
    rows = graph.rows(documents)
    prior = fit_prior(rows, graph.labels(), graph.predicates(),
                      f"the DBpedia development set ({len(rows)} triples, {len(documents)} with pages)")
    return prior.save(output or shipped_prior_path()) and prior
