"""The experiment scripts under experiments/ import, and the graph the streaming benchmark reads is real."""

from __future__ import annotations

import importlib.util
from itertools import islice
from pathlib import Path

import pytest

EXPERIMENTS = sorted(p for p in (Path(__file__).parents[1] / "experiments").glob("*.py") if not p.name.startswith("_"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_every_experiment_imports_and_has_a_main(path):
    assert callable(getattr(_load(path), "main", None))


def test_the_benchmark_graph_is_wikidata_facts_with_labels(data):
    graph = _load(Path(__file__).parents[1] / "experiments" / "wikidata_graph.py")
    rows = list(islice(graph.facts(data), 50))
    assert len(rows) == 50 and all(r[0].startswith("Q") and r[2].startswith("P") and r[3].startswith("Q") for r in rows)
    quads = list(graph.quads(rows, 1, {"P19": "place of birth"}))
    claims = [q for q in quads if q.predicate.value.startswith(graph.PROPERTY)]
    assert len(claims) == 50 and all(q.subject.value.startswith("http://example.org/copy1/") for q in claims)
    assert any(q.predicate == graph.LABEL for q in quads)


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_every_name_an_experiment_imports_from_agentkgv_exists(path):
    """The measurements import inside their functions: every `agentkgv` name they use must still exist, or
    the script no longer runs as BENCHMARKS.md says."""
    import ast
    import importlib

    missing = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentkgv"):
            module = importlib.import_module(node.module)
            submodules = getattr(module, "__path__", None) is not None
            missing += [f"{node.module}.{a.name}" for a in node.names if not hasattr(module, a.name) and not (
                submodules and importlib.util.find_spec(f"{node.module}.{a.name}") is not None)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("agentkgv") and importlib.util.find_spec(alias.name) is None:
                    missing.append(alias.name)
    assert not missing, f"{path.name} imports what agentkgv no longer has: {missing}"
