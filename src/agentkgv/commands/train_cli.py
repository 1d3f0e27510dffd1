"""Training commands of the `agentkgv` command line: the LLM agent's two stages (teacher, SFT data, SFT,
GRPO) and the evidence reader's (the reader, its stop policy). """

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from agentkgv.commands import train, train_reader
from agentkgv.commands.display import HOOKS, console, print_table, show, show_grpo_run, show_sft_data, show_sft_run
from agentkgv.commands.options import (TRAIN, BackendOpt, BaseUrlOpt, CacheOpt, DataOpt, ModelOpt, ReaderOpt,
                                       RetrieverOpt, RunConfigOpt, TrainRunOpt)
from agentkgv.config import RunConfig, RunOptions
from agentkgv.commands.bench import train_graph_prior
from agentkgv.paths import Workspace
from agentkgv.train.sft_data import SFT_FILE, TURNS_TAKEN
from agentkgv.train.teacher import TeacherConfig, TeacherSample

app = typer.Typer()


@app.command(rich_help_panel=TRAIN)
def teacher(triples: Annotated[int, typer.Option(help="Training triples (positives and their negatives).")] = 480,
            policy: Annotated[str, typer.Option(help="'privileged' (knows the gold label, no LLM) or 'llm'.")] = "privileged",
            samples: Annotated[int, typer.Option(help="Trajectories per triple, each with its own seed (llm).")] = 1,
            gold_hint: Annotated[bool, typer.Option(help="Show the LLM teacher the gold label (rationalization).")] = True,
            min_searches: Annotated[int, typer.Option(help="Searches before the LLM teacher may answer.")] = 1,
            table_queries: Annotated[bool, typer.Option(help="LLM teacher picks queries from the combination table.")] = True,
            max_searches: Annotated[int, typer.Option(help="Searches after which the teacher must answer.")] = 3,
            temperature: float = 0.5, seed: int = 13,
            config: RunConfigOpt = None, backend: BackendOpt = None, model: ModelOpt = None, base_url: BaseUrlOpt = None,
            retriever: RetrieverOpt = None, batch_size: Annotated[int, typer.Option(min=1, help="Triples per batch.")] = 16, run_name: TrainRunOpt = "sft",
            data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Stage-1 data: run a teacher through the agent loop over training triples; resumable."""
    if policy not in ("privileged", "llm"):
        raise typer.BadParameter("--policy must be 'privileged' or 'llm'")
    run = RunOptions(method="agentkgv", judge="llm", backend=backend, model=model,
                     base_url=base_url, retriever=retriever).apply(RunConfig.load(config))
    plan = TeacherConfig(triples=triples, samples=samples, temperature=temperature, seed=seed, gold_hint=gold_hint,
                         min_searches=min_searches, table_queries=table_queries, max_searches=max_searches)
    ws = Workspace(data_dir, cache_dir)
    rows = train.teacher(ws, run, plan, policy, run_name, batch_size, HOOKS)
    show(f"Teacher trajectories ({policy}) -> {ws.training / run_name}", TeacherSample, rows)


@app.command("sft-data", rich_help_panel=TRAIN)
def sft_data_command(run_name: TrainRunOpt = "sft",
                     turns: Annotated[str, typer.Option(help="'last' (the paper's last-turn pairs) or 'all' turns.")] = "last",
                     data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Build the SFT pairs from the teacher's correct trajectories (the paper's last-turn pairs, or every turn)."""
    if turns not in TURNS_TAKEN:
        raise typer.BadParameter(f"--turns must be one of {', '.join(TURNS_TAKEN)}")
    ws = Workspace(data_dir, cache_dir)
    show_sft_data(*train.sft_data(ws, run_name, turns), ws.training / run_name / SFT_FILE)


@app.command(rich_help_panel=TRAIN)
def sft(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="SFT settings TOML (configs/sft_*.toml).")] = None,
        threads: Annotated[Optional[int], typer.Option(help="CPU threads for training.")] = None,
        run_name: TrainRunOpt = "sft", data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Stage-1 training: LoRA SFT with TRL on the pairs from `sft-data`; resumes from its last checkpoint."""
    show_sft_run(train.sft(Workspace(data_dir, cache_dir), run_name, settings_path, threads))


@app.command("train-reader", rich_help_panel=TRAIN)
def train_reader_command(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="Reader settings TOML (the fields of ReaderSettings, train/reader_trainer.py).")] = None,
                         threads: Annotated[Optional[int], typer.Option(help="CPU threads for training.")] = None,
                         run_name: TrainRunOpt = "reader", data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Train the evidence reader on the CPU: build its pairs from the training split and the corpus, train
    the cross-encoder (resumes from its last checkpoint), and calibrate its verdicts on held-out training
    triples."""
    ws = Workspace(data_dir, cache_dir)
    record = train_reader.train_reader(ws, run_name, settings_path, threads, HOOKS)
    console.print_json(data={k: v for k, v in record.items() if k != "settings"})


@app.command("train-value-kinds", rich_help_panel=TRAIN)
def train_value_kinds_command(run_name: TrainRunOpt = "value-kinds", data_dir: DataOpt = None,
                              cache_dir: CacheOpt = None) -> None:
    """Fit, on the training facts, which kinds of value each relation takes as its object and its subject: the
    model that calls an award given as an author false (a few minutes on the CPU)."""
    record = train_reader.train_value_kinds(Workspace(data_dir, cache_dir), run_name, HOOKS)
    console.print_json(data=record)


@app.command("train-graph-prior", rich_help_panel=TRAIN)
def train_graph_prior_command(output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Where to write the prior (default: the shipped one, in the package).")] = None,
                              index_name: Annotated[str, typer.Option("--index", help="The document index of the DBpedia set's pages (made when missing).")] = "dbpedia-docs",
                              run_name: Annotated[str, typer.Option(help="Run folder under the cache of the documents' verdicts.")] = "dbpedia",
                              data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Fit the graph prior on the DBpedia development set: the P(true) a graph's findings, its value kinds and
    predicates give, with the documents' outcome where pages were read (a few minutes, most of it reading the
    pages)."""
    prior = train_graph_prior(Workspace(data_dir, cache_dir), output, index_name, run_name, HOOKS)
    console.print(f"graph prior fitted on {prior.fitted_on} -> {output or 'the shipped prior'}")


@app.command("train-value-reader", rich_help_panel=TRAIN)
def train_value_reader_command(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="Value reader settings TOML (the fields of ValueReaderSettings, train/value_reader.py).")] = None,
                               reader_settings: Annotated[Optional[Path], typer.Option(help="The evidence reader's settings TOML its pairs are built by (default: its defaults with web pages).")] = None,
                               run_name: TrainRunOpt = "value-reader", data_dir: DataOpt = None,
                               cache_dir: CacheOpt = None) -> None:
    """Train the value reader on the CPU: which span of a passage gives a subject's value of a relation, or
    none; from the evidence reader's pairs, its margin chosen on held-out subjects."""
    record = train_reader.train_value_reader_run(Workspace(data_dir, cache_dir), run_name, settings_path,
                                                 reader_settings, HOOKS)
    console.print_json(data=record)


@app.command("train-search-policy", rich_help_panel=TRAIN)
def train_search_policy_command(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="Settings TOML (the fields of SearchPolicySettings, train/search_policy.py).")] = None,
                                reader: ReaderOpt = None, run_name: TrainRunOpt = "search-policy",
                                data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Train when the reading agent stops searching, in two stages on the CPU: clone the settled rule,
    then GRPO with a penalty per search after the first. Use it with --stop-policy
    <cache>/train/<run>/stop_policy.json for the main reader's, or as rare_stop_policy under \\[reading] for the
    reader of rare relations (--reader)."""
    ws = Workspace(data_dir, cache_dir)
    record = train_reader.train_search_policy(ws, run_name, settings_path, reader, HOOKS)
    by_source = record["held_out_by_source"]
    print_table(f"Search policy on {record['measured_on']} held-out episodes (macro-F1 / searches a triple) -> "
                f"{ws.training / run_name}", ["Policy", *by_source, *(["all"] if len(by_source) > 1 else [])],
                [[name, *(f"{r[name]['macro_f1']:.3f} / {r[name]['searches']:.2f}" for r in by_source.values()),
                  *([f"{everything['macro_f1']:.3f} / {everything['searches']:.2f}"] if len(by_source) > 1 else [])]
                 for name, everything in record["held_out"].items()])


@app.command(rich_help_panel=TRAIN)
def grpo(settings_path: Annotated[Optional[Path], typer.Option("--settings", help="GRPO settings TOML (configs/grpo_*.toml).")] = None,
         threads: Annotated[Optional[int], typer.Option(help="CPU threads for rollouts and training.")] = None,
         retriever: RetrieverOpt = None, run_name: TrainRunOpt = "grpo",
         data_dir: DataOpt = None, cache_dir: CacheOpt = None) -> None:
    """Stage-2 training: trajectory-level GRPO from the SFT adapter, rewarding correct verdicts reached with
    fewer searches; the rollouts run the settings' run table; resumes from its last checkpoint."""
    ws = Workspace(data_dir, cache_dir)
    show_grpo_run(train.grpo(ws, run_name, settings_path, retriever, threads, HOOKS), ws.training / run_name)
