"""The built wheel, installed into a fresh virtual environment, works in an empty folder with no data folder
anywhere: the README's Python example, then `index`, `verify` and `report`, each exiting 0, writing nothing but
the cache folder and the outputs named.

The environment is made with the interpreter that runs the tests and installs the wheel with its dependencies
from the package index, which this project's machines reach (pip's cache makes a second install quick); torch
is pinned first to the version the Makefile installs, whose CPU build those machines hold.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = """# Douglas Adams

Douglas Adams was an English author, best known for The Hitchhiker's Guide to the Galaxy. Douglas Adams was born
in Cambridge, England, on 11 March 1952, and died in Santa Barbara, California, in 2001.
"""


def readme_python_example() -> str:
    """The README's Python example, as written there."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.DOTALL)
    assert blocks, "README.md has no Python example"
    return blocks[0]


def run(command: list[str], cwd: Path, env: dict[str, str], timeout: int = 900) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def every_file(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the built wheel installed; its bin folder."""
    build = tmp_path_factory.mktemp("wheel")
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(build), str(ROOT)],
        build, dict(os.environ))
    wheel = next(build.glob("agentkgv-*.whl"))
    venv = build / "venv"
    run([sys.executable, "-m", "venv", str(venv)], build, dict(os.environ))
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    run(pip + ["torch==2.13.0"], build, dict(os.environ))
    run(pip + [str(wheel)], build, dict(os.environ))
    return venv / "bin"


def test_the_wheel_runs_the_readme_example_index_verify_and_report_in_an_empty_folder(installed, tmp_path):
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    # No data folder, no cache setting, no repository: a user's shell in a folder of their own.
    env = {"HOME": str(home), "PATH": f"{installed}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    (work / "docs").mkdir()
    (work / "docs" / "adams.md").write_text(DOCUMENT, encoding="utf-8")
    (work / "example.py").write_text(readme_python_example(), encoding="utf-8")
    (work / "graph.csv").write_text("subject,predicate,object\nDouglas Adams,place of birth,Cambridge\n"
                                    "Douglas Adams,place of death,Cambridge\n", encoding="utf-8")
    before = every_file(work)

    printed = run([str(installed / "python"), "example.py"], work, env)
    assert printed.split()[:2] == ["supported", "True"]
    run([str(installed / "agentkgv"), "index", "docs", "--name", "mine"], work, env)
    run([str(installed / "agentkgv"), "verify", "graph.csv", "--index", "mine", "-o", "verdicts.jsonl"], work, env)
    run([str(installed / "agentkgv"), "report", "verdicts.jsonl", "-o", "report.html"], work, env)

    written = every_file(work) - before
    assert written == {"verdicts.jsonl", "verdicts.jsonl.lock", "verdicts.jsonl.settings.json", "report.html",
                       "report.review.csv"}, written
    cache = home / ".cache" / "agentkgv"
    assert (cache / "indexes" / "mine").is_dir() and (cache / "indexes" / "my-docs").is_dir()
    assert {path.parts[0] for path in (Path(p) for p in every_file(home))} == {".cache"}
    # Nothing of a library's own either: ONNX Runtime's telemetry device id among them.
    assert {Path(p).parts[1] for p in every_file(home)} == {"agentkgv"}, every_file(home)
