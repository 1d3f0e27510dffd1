"""`agentkgv index` killed with SIGKILL mid-update, then run again: what `test_index_safety.py` asserts at a few
points and `experiments/index_crash.py` measures at 20 (BENCHMARKS.md, *Under attack and failure*).

Each point starts from an index of a first set of documents with one folder distrusted, and adds a second,
larger set. The update is killed a given time after it starts; then `verify --index` runs on what is there
(it must read the last finished generation), the same update runs again, and the index is checked: every
document listed once, every passage once, the distrust mark kept, no leftover of the killed update.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import agentkgv

TOWNS = ["Alexandra", "Ballarat", "Bendigo", "Geelong", "Mildura", "Shepparton", "Wodonga", "Horsham"]


def write_documents(folder: Path, count: int, offset: int = 0) -> list[Path]:
    """`count` text files, each about a person of its own (`Person 17`), a few paragraphs long."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(offset, offset + count):
        town = TOWNS[i % len(TOWNS)]
        body = "\n\n".join(f"Person {i} was born in {town}. In year {1900 + j} Person {i} worked in {TOWNS[j % 8]} "
                           f"as a clerk of the county, and wrote letters about the weather and the harvest there."
                           for j in range(12))
        path = folder / f"person-{i}.txt"
        path.write_text(body)
        paths.append(path)
    return paths


def cli(*args: str, cache: Path, data: Path) -> list[str]:
    return [sys.executable, "-m", "agentkgv", *args, "--cache-dir", str(cache)] if args[0] == "index" else [
        sys.executable, "-m", "agentkgv", *args, "--cache-dir", str(cache), "--data-dir", str(data)]


def environment() -> dict[str, str]:
    # PYTHONPATH: the subprocess runs the package under test, not whichever copy the venv installed.
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(agentkgv.__file__).parents[1]), "COLUMNS": "200"}


def run(*args: str, cache: Path, data: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cli(*args, cache=cache, data=data), capture_output=True, text=True, env=environment(),
                          timeout=600)


@dataclass
class Stage:
    """The documents of one crash run: the first set (with its distrusted folder) and the set added."""

    root: Path
    first: Path
    added: Path
    triples: Path  # one triple the first set states

    @staticmethod
    def make(root: Path, first: int = 20, added: int = 300) -> Stage:
        write_documents(root / "first" / "records", first)
        write_documents(root / "first" / "blog", 2, offset=first)
        write_documents(root / "added", added, offset=first + 2)
        # A name no added document shares, so the triple is found before the update and after it.
        (root / "first" / "records" / "quartermaine.txt").write_text("Zebulon Quartermaine was born in Ballarat.")
        (root / "graph.csv").write_text("subject,predicate,object\nZebulon Quartermaine,place of birth,Ballarat\n")
        return Stage(root, root / "first", root / "added", root / "graph.csv")


@dataclass
class KillRecord:
    after_s: float  # when the update was killed, from its start
    phase: str  # the last step it announced before the kill
    verify_between: bool  # `verify --index` worked between the kill and the rerun, on the last generation
    documents: int  # files the manifest lists after the rerun
    documents_lost: int
    passages_duplicated: int
    trust_marks_lost: int
    leftovers: int  # partial generations still there after the rerun


def build_first(stage: Stage, name: str, cache: Path, data: Path, kind: str = "bm25") -> None:
    for args in (("index", str(stage.first), "--name", name, "--retriever", kind),
                 ("index", "--name", name, "--distrust", str(stage.first / "blog"))):
        done = run(*args, cache=cache, data=data)
        assert done.returncode == 0, done.stdout + done.stderr


def update_args(stage: Stage, name: str) -> tuple[str, ...]:
    return "index", str(stage.added), "--name", name


STEP = re.compile(r"^(reading \d+ files|writing passages|building the \w+ index|writing the manifest|"
                  r"switching to the new generation)$")


def kill_update(stage: Stage, name: str, cache: Path, data: Path, after_s: float, at_step: str | None = None) -> str:
    """Run the update and SIGKILL it `after_s` seconds in, or that long after it announces a step starting
    with `at_step`; the last step it announced ('finished' if it ended first, 'starting' before any)."""
    log = stage.root / f"{name}.log"
    with log.open("w") as out:
        process = subprocess.Popen(cli(*update_args(stage, name), cache=cache, data=data), stdout=out,
                                   stderr=subprocess.STDOUT, env=environment())
        if at_step is not None:
            while process.poll() is None and not any(step.startswith(at_step) for step in _steps(log)):
                time.sleep(0.002)
        time.sleep(after_s)
        ended = process.poll() is not None
        if not ended:
            os.kill(process.pid, signal.SIGKILL)
        process.wait()
    steps = _steps(log)
    return "finished" if ended else steps[-1] if steps else "starting"


def _steps(log: Path) -> list[str]:
    return [line.strip() for line in log.read_text().splitlines() if STEP.match(line.strip())]


def check(stage: Stage, name: str, cache: Path, data: Path, after_s: float, phase: str, verify_between: bool) -> KillRecord:
    folder = cache / "indexes" / name
    generation = folder / (folder / "CURRENT").read_text().strip()
    manifest = json.loads((generation / "manifest.json").read_text())
    expected = {str(p.resolve()) for p in [*stage.first.rglob("*.txt"), *stage.added.rglob("*.txt")]}
    ids = [json.loads(line)["id"] for line in (generation / "passages.jsonl").read_text().splitlines()]
    return KillRecord(after_s, phase, verify_between, len(manifest["files"]), len(expected - set(manifest["files"])),
                      len(ids) - len(set(ids)),
                      int(str((stage.first / "blog").resolve()) not in manifest["distrusted"]),
                      len(list(folder.glob("gen-*.partial"))))


def verify_works(stage: Stage, name: str, cache: Path, data: Path) -> bool:
    out = stage.root / f"{name}-verdicts-{time.monotonic_ns()}.jsonl"
    done = run("verify", str(stage.triples), "-o", str(out), "--method", "lexical", "--index", name,
               cache=cache, data=data)
    return done.returncode == 0 and json.loads(out.read_text())["verdict"] is True


def crash_point(stage: Stage, name: str, cache: Path, data: Path, after_s: float, kind: str = "bm25",
                at_step: str | None = None) -> KillRecord:
    build_first(stage, name, cache, data, kind)
    phase = kill_update(stage, name, cache, data, after_s, at_step)
    between = verify_works(stage, name, cache, data)
    rerun = run(*update_args(stage, name), cache=cache, data=data)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    return check(stage, name, cache, data, after_s, phase, between)


def update_seconds(stage: Stage, cache: Path, data: Path, kind: str = "bm25") -> float:
    """How long the uninterrupted update takes, on an index of its own: where the kill points are spread."""
    build_first(stage, f"timing-{kind}", cache, data, kind)
    started = time.perf_counter()
    done = run(*update_args(stage, f"timing-{kind}"), cache=cache, data=data)
    assert done.returncode == 0, done.stdout + done.stderr
    return time.perf_counter() - started
