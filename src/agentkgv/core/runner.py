"""Run a verifier over triples with an append-only log, so a crashed or stopped run resumes.

Each finished batch is appended and fsynced before the next starts. On restart the log is read back,
a torn last line (the crash happened mid-write) is cut off, and only triples without a verdict run.
A lock file beside the log stops a second process from writing the same run: two writers would both
run the same missing triples and append duplicates. The operating system drops the lock when its
holder dies, so a crashed run never leaves it stale.

A triple whose model calls still fail after the backend's retries (LLMError: a server down or answering
garbage) gets no verdict: the failure is appended to `<log>.errors.jsonl` and the run goes on; the log
holds verdicts only, so the next resume retries that triple.

The settings that decide a verdict (model, adapter, prompts' knobs, retriever) are stored beside the log
on its first write. A resume with different settings is refused: its verdicts would be mixed with those
of another model under one name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from agentkgv.core.verdict import Verdict, Verifier
from agentkgv.data.errors import DataError
from agentkgv.data.records import LabeledTriple
from agentkgv.llm.base import LLMError


# Progress of a counted loop: `bar(description, total)` opens a bar and yields `advance(done)`; the CLI
# passes rich's, library callers and tests the silent one.
Advance = Callable[[int], None]
Bar = Callable[[str, int | None], AbstractContextManager[Advance]]


@contextmanager
def no_bar(description: str, total: int | None) -> Iterator[Advance]:
    yield lambda done: None


def load_run(path: Path, repair: bool = False) -> dict[str, Verdict]:
    """Verdicts already in a run log, by triple id. With `repair`, a torn final line is truncated away."""
    if not path.exists():
        return {}
    verdicts: dict[str, Verdict] = {}
    good_bytes = 0
    with path.open("rb") as handle:
        lines = handle.readlines()
    for number, raw in enumerate(lines, start=1):
        try:
            if repair and not raw.endswith(b"\n"):
                # Killed mid-write. Even a last line that happens to parse is cut: the next append would
                # otherwise join it.
                raise ValueError("no line end")
            verdict = Verdict.from_json(json.loads(raw))
        except DataError:
            raise  # a trace of a family not loaded: a whole record, never a torn line to cut
        except (ValueError, TypeError, KeyError) as error:
            if number == len(lines) and repair:
                with path.open("r+b") as handle:
                    handle.truncate(good_bytes)
                break
            raise DataError(path, f"unreadable run record ({error})", number) from None
        verdicts[verdict.id] = verdict
        good_bytes += len(raw)
    return verdicts


class RunLocked(RuntimeError):
    """Another process is writing this run log."""


class RunSettingsChanged(RuntimeError):
    """The run log was written with other settings than this resume's."""


def _flatten(value: object, prefix: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        return {k: v for key, inner in value.items() for k, v in _flatten(inner, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): value}


# How a command starts a run of its own instead of resuming one: an eval names a run folder, `verify` an output.
ANOTHER_RUN = "another --run-name"
ANOTHER_OUTPUT = "another output file (-o)"


def settings_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".settings.json")


def check_settings(log_path: Path, settings: dict, another: str = ANOTHER_RUN, unknown: tuple[str, ...] = (),
                   record: bool = True) -> None:
    """Refuse a resume whose settings differ from those stored beside the log; with `record`, store them
    beside a new log, or one that holds no verdict yet (a run that failed on every triple mixes nothing in).
    Keys in `unknown` (flattened, `llm.name`) are not compared: a check made before the model is loaded does
    not know them yet."""
    path = settings_path(log_path)
    settings = json.loads(json.dumps(settings, sort_keys=True))  # as it will read back from disk
    if not path.exists() or not log_path.exists() or log_path.stat().st_size == 0:
        if record:
            path.write_text(json.dumps(settings, indent=2, sort_keys=True), encoding="utf-8")
        return
    try:
        stored = _flatten(json.loads(path.read_text(encoding="utf-8")))
    except ValueError as error:
        raise DataError(path, f"unreadable run settings ({error}); delete the run's files to start it again") from None
    wanted = _flatten(settings)
    changed = sorted(key for key in stored.keys() | wanted.keys()
                     if stored.get(key) != wanted.get(key) and key not in unknown)
    if changed:
        shown = ", ".join(f"{key}: {stored.get(key)!r} -> {wanted.get(key)!r}" for key in changed[:3])
        raise RunSettingsChanged(f"{log_path} was written with other settings ({shown}); resume it with the "
                                 f"same ones, or start a run of its own with {another}")


def errors_path(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".errors.jsonl")


def _verify(verifier: Verifier, batch: list[LabeledTriple]) -> tuple[list[Verdict], list[tuple[str, str]]]:
    """Verdicts for the batch, and (id, error) for each triple that fails alone: a failing batch is split
    so one bad triple does not cost its neighbours their verdicts."""
    try:
        return verifier.verify(batch), []
    except LLMError as error:
        if len(batch) == 1:
            return [], [(batch[0].id, str(error))]
    halves = [_verify(verifier, part) for part in (batch[:len(batch) // 2], batch[len(batch) // 2:])]
    return [v for verdicts, _ in halves for v in verdicts], [e for _, errors in halves for e in errors]


def _batches(items: Sequence[LabeledTriple], size: int) -> Iterator[list[LabeledTriple]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def run_verifier(verifier: Verifier, items: Sequence[LabeledTriple], log_path: Path, batch_size: int = 8,
                 on_batch: Callable[[int], None] = lambda done: None, settings: dict | None = None,
                 another: str = ANOTHER_RUN) -> list[Verdict]:
    """Verdicts for `items` in their order, computing only those the log does not hold yet; a triple that
    failed (see errors_path) is left out. With `settings` (JSON-able), a resume must have the same ones as
    the log's first write; a refusal tells how to start `another` run instead."""
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError("triple ids must be unique within a run")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        lock = FileLock(log_path.with_name(log_path.name + ".lock")).acquire(timeout=0)
    except Timeout:
        raise RunLocked(f"{log_path} is being written by another process; wait for it or stop it") from None
    with lock:
        if settings is not None:
            check_settings(log_path, settings, another)
        done = load_run(log_path, repair=True)
        # An id whose triple changed since (other aliases after a benchmark rebuild, an edited row) would keep
        # a verdict on what the triple was.
        changed = next((item for item in items if item.id in done and done[item.id].triple != item.triple), None)
        if changed is not None:
            raise RunSettingsChanged(f"{log_path} holds triple {changed.id} as {done[changed.id].triple}, now "
                                     f"{changed.triple}; start a run of its own with {another}")
        todo = [item for item in items if item.id not in done]
        on_batch(len(items) - len(todo))
        with log_path.open("a", encoding="utf-8") as handle:
            for batch in _batches(todo, batch_size):
                verdicts, errors = _verify(verifier, batch)
                for verdict in verdicts:
                    handle.write(json.dumps(verdict.to_json(), ensure_ascii=False) + "\n")
                    done[verdict.id] = verdict
                handle.flush()
                os.fsync(handle.fileno())
                if errors:
                    with errors_path(log_path).open("a", encoding="utf-8") as failed:
                        failed.writelines(json.dumps({"id": i, "error": e}) + "\n" for i, e in errors)
                on_batch(len(batch))
    return [done[i] for i in ids if i in done]
