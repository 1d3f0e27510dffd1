"""How a document index changes without losing anything: one writer at a time (a file lock naming its holder),
each update built as a new generation beside the live one, fsynced, and switched in by one atomic rename of the
CURRENT pointer; leftovers of an update killed midway are discarded, old generations pruned once no run reads them.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from agentkgv.data.errors import DataError

MANIFEST_FILE = "manifest.json"
CURRENT_FILE = "CURRENT"
LOCK_FILE = "index.lock"
WRITER_FILE = "writer.json"
GENERATION = "gen-"
PARTIAL = ".partial"


class IndexBusy(DataError):
    """Another process is updating this index and the caller chose not to wait."""


def live_generation(folder: Path) -> Path | None:
    """The generation `CURRENT` names; None where no index was ever finished here."""
    current = folder / CURRENT_FILE
    if not current.exists():
        if (folder / MANIFEST_FILE).exists():
            raise DataError(folder, "an index in the layout of an earlier agentkgv version; index the documents "
                                    "again under another --name (or delete this folder first)")
        return None
    name = current.read_text(encoding="utf-8").strip()
    if not name.startswith(GENERATION) or "/" in name:
        raise DataError(current, f"names no generation ({name!r}); delete the index folder and index again")
    return folder / name


@contextmanager
def writer_lock(folder: Path, wait: bool = True, on_wait: Callable[[str], None] = lambda holder: None) -> Iterator[None]:
    """Hold the index's one writer lock. Busy: with `wait`, `on_wait(who holds it)` and block until it is
    free; without, IndexBusy naming the holder. The lock is the operating system's (filelock), so a writer
    killed mid-update releases it with its process."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / LOCK_FILE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        holder = writer_of(folder)
        if not wait:
            raise IndexBusy(folder, f"being updated by {holder}; wait for it, or rerun without --no-wait to "
                                    "queue behind it") from None
        on_wait(holder)
        lock.acquire()
    try:
        (folder / WRITER_FILE).write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                                      "since": time.strftime("%Y-%m-%d %H:%M:%S")}), encoding="utf-8")
        yield
    finally:
        (folder / WRITER_FILE).unlink(missing_ok=True)  # a waiting writer must not name a holder that left
        lock.release()


def writer_of(folder: Path) -> str:
    try:
        who = json.loads((folder / WRITER_FILE).read_text(encoding="utf-8"))
        return f"process {who['pid']} on {who['host']} (since {who['since']})"
    except (OSError, ValueError, KeyError):
        return "another process"


def generations(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob(f"{GENERATION}*") if p.is_dir() and not p.name.endswith(PARTIAL))


def next_generation(folder: Path) -> str:
    numbers = [int(p.name.removeprefix(GENERATION).removesuffix(PARTIAL)) for p in folder.glob(f"{GENERATION}*")
               if p.name.removeprefix(GENERATION).removesuffix(PARTIAL).isdigit()]
    return f"{GENERATION}{max(numbers, default=0) + 1:06d}"


def discard_leftovers(folder: Path) -> list[str]:
    """Partial generations of a killed update (only a lock holder makes them, so any found now is dead)."""
    leftovers = [p for p in folder.glob(f"{GENERATION}*{PARTIAL}") if p.is_dir()]
    for leftover in leftovers:
        shutil.rmtree(leftover)
    (folder / f"{CURRENT_FILE}.tmp").unlink(missing_ok=True)
    return [p.name for p in leftovers]


def link_tree(source: Path, target: Path, skip: set[str]) -> None:
    """`source`'s files under `target` as hard links (copies where the filesystem has none): safe because a
    published generation's files are never written again."""
    for path in source.rglob("*"):
        if path.name in skip and path.parent == source:
            continue
        destination = target / path.relative_to(source)
        if path.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, destination)
        except OSError:
            shutil.copy2(path, destination)


def fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)  # a folder too: its entries are what a rename changes
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def publish(folder: Path, partial: Path) -> str:
    """Make the finished `partial` generation the live one: rename it into place, then point CURRENT at it."""
    for path in [*partial.rglob("*"), partial]:
        fsync(path)
    final = partial.with_name(partial.name.removesuffix(PARTIAL))
    partial.rename(final)
    pointer = folder / f"{CURRENT_FILE}.tmp"
    with pointer.open("w", encoding="utf-8") as handle:
        handle.write(final.name + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(pointer, folder / CURRENT_FILE)
    fsync(folder)
    return final.name


def prune(folder: Path, keep: set[str]) -> None:
    for generation in generations(folder):
        if generation.name not in keep:
            shutil.rmtree(generation, ignore_errors=True)
