"""The `agentkgv` command line: options in, tables out. Its commands are grouped by what they serve, each group
a typer app beside its loop (verify and report, build, bench, train, review, graph); this module joins them,
and turns bad input into one readable line and an exit code.

`agentkgv --help` lists a user's commands (verify, check, index, report, export, profile, learn, ...); the
benchmark, training and corpus-building commands are under `agentkgv bench`, `agentkgv train` and `agentkgv
build`, named without their prefix (`agentkgv bench dbpedia`). Their longer names (`agentkgv bench-dbpedia`) still
work, unlisted.
"""

from __future__ import annotations

import copy
import os
import sys
from importlib import metadata
from typing import Annotated

import typer
from pydantic import ValidationError

from agentkgv.commands import bench_cli, build_cli, graph_cli, review_cli, train_cli, verify_cli
from agentkgv.commands.display import console
from agentkgv.commands.options import INTERRUPTED, OPTION_ERROR, USER_ERROR
from agentkgv.core.runner import RunLocked, RunSettingsChanged
from agentkgv.data.errors import DataError

app = typer.Typer(help="Verify knowledge-graph triples against a document corpus.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
for group in (verify_cli, build_cli, bench_cli, train_cli, review_cli, graph_cli):
    app.add_typer(group.app)

# The commands that serve the project rather than a user's graph, by the group that lists them.
_GROUPS = {"bench": ("Benchmarks and test tools (they read the data folder).", ("bench-", "")),
           "train": ("Training the readers, the models beside them and the LLM agent (they read the data folder).",
                     ("train-", "")),
           "build": ("The benchmark, its corpus and indexes, and the shipped predicate table (from the data folder).",
                     ("build-",))}
_GROUP_OF = {**{name: "bench" for name in ("eval", "fault-proxy", "bench-review", "bench-graph-read")},
             **{name: "train" for name in ("sft-data", "sft", "grpo", "teacher")}}


def _command_name(info: typer.models.CommandInfo) -> str:
    return info.name or info.callback.__name__.replace("_", "-")


def _group_of(name: str) -> str | None:
    if name in _GROUP_OF:
        return _GROUP_OF[name]
    return next((group for group, (_, prefixes) in _GROUPS.items() if any(p and name.startswith(p) for p in prefixes)),
                None)


def _grouped() -> None:
    """Each project command listed under its group by its short name, its long name kept at the top, unlisted."""
    groups = {name: typer.Typer(help=help, no_args_is_help=True) for name, (help, _) in _GROUPS.items()}
    for source in (bench_cli, train_cli, build_cli, review_cli, graph_cli):
        for info in source.app.registered_commands:
            name = _command_name(info)
            group = _group_of(name)
            if group is None:
                continue
            short = copy.copy(info)
            short.name = next((name.removeprefix(p) for p in _GROUPS[group][1] if p and name.startswith(p)), name)
            short.rich_help_panel = None
            groups[group].registered_commands.append(short)
            info.hidden = True
    for name, group in groups.items():
        app.add_typer(group, name=name, rich_help_panel="The project's own")


_grouped()


def version_callback(value: bool) -> None:
    if value:
        console.print(f"agentkgv {metadata.version('agentkgv')}")
        raise typer.Exit()


@app.callback()
def options(version: Annotated[bool, typer.Option("--version", callback=version_callback, is_eager=True,
                                                  help="Print the version and exit.")] = False,
            verbose: Annotated[bool, typer.Option("--verbose", help="Also show the libraries' own progress bars "
                                                                     "and loading messages.")] = False) -> None:
    """Verify knowledge-graph triples against a document corpus."""
    if not verbose:
        # Read by huggingface_hub and transformers when they are first imported, which is after this.
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


# What a Ctrl-C leaves, by command: every command that writes keeps what it finished.
_ON_INTERRUPT = {"verify": "the verdicts written so far are kept; run the same command again to resume",
                 "eval": "the verdicts written so far are kept; run the same command again to resume",
                 "index": "the index is as it was before this update; run the same command again"}


def main() -> None:
    """Entry point: bad input ends with one readable line naming the file, not a traceback; Ctrl-C with what
    was kept."""
    try:
        app()
    except (DataError, RunLocked, RunSettingsChanged) as error:
        console.print(f"[bold red]error:[/] {error}")
        sys.exit(USER_ERROR)
    except ValidationError as error:  # a setting an option gave, refused by its typed model
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or error.title
            console.print(f"[bold red]error:[/] invalid value for {where.replace('_', '-')}: "
                          f"{problem['msg']} (got {problem.get('input')!r})")
        sys.exit(OPTION_ERROR)
    except OSError as error:
        if error.filename is None:  # a network or library fault, not a path: its traceback is the report
            raise
        # A path the user gave that the system refused (a folder, read-only, full disk).
        console.print(f"[bold red]error:[/] {error.filename}: {error.strerror or error}; check the path and its "
                      "permissions")
        sys.exit(USER_ERROR)
    except SystemExit as exit:
        if exit.code == INTERRUPTED:  # typer's exit for Ctrl-C
            _interrupted()
        raise


def _interrupted() -> None:
    command = next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "")
    console.print(f"[yellow]interrupted:[/] {_ON_INTERRUPT.get(command, 'nothing half-written is kept')}")
    sys.exit(INTERRUPTED)


