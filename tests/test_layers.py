"""The imports point one way, down the layers: a module imports only from its own layer or the ones below it,
and the three verifier families import none of each other. Imports inside functions count too. The command
line (commands/app.py, the *_cli.py sub-apps and what only they use) sits above the Python API it calls; the
commands' loops sit below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "src" / "agentkgv"
# Bottom to top; a module's layer is named by its first path part (a top-level module's stem), or "cli".
LAYERS = [{"paths", "cpu", "memory", "encoders", "configs", "data"}, {"retrieval", "llm", "graph"}, {"core"},
          {"reader_agent", "llm_agent", "baselines"}, {"config", "registry"}, {"eval"}, {"train"}, {"commands"},
          {"api", "__init__"}, {"cli", "__main__"}]
CLI = {"app", "options", "display"}
FAMILIES = {"reader_agent", "llm_agent", "baselines"}


def layer(part: str) -> int:
    return next(i for i, names in enumerate(LAYERS) if part in names)


def layer_of(dotted: str) -> str:
    """The layer of a module named `agentkgv.x.y` (or `x/y` as a path, without the suffix)."""
    parts = dotted.replace("/", ".").split(".")
    parts = parts[1:] if parts[0] == "agentkgv" else parts
    if parts[0] == "commands" and len(parts) > 1 and (parts[1] in CLI or parts[1].endswith("_cli")):
        return "cli"
    return parts[0]


def imported(path: Path) -> set[str]:
    """The layers of the agentkgv modules `path` imports. `from agentkgv.commands import build` names the module."""
    layers = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentkgv"):
            module = node.module
            layers |= {layer_of(f"{module}.{alias.name}") for alias in node.names} if module.count(".") == 1 \
                else {layer_of(module)}
        elif isinstance(node, ast.Import):
            layers |= {layer_of(alias.name) for alias in node.names if alias.name.startswith("agentkgv.")}
    return layers


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path):
    own = layer_of(str(path.relative_to(PACKAGE).with_suffix("")))
    for part in imported(path):
        assert layer(part) <= layer(own), f"{own} imports {part}, a layer above it"
        assert not (own in FAMILIES and part in FAMILIES and part != own), f"the family {own} imports the family {part}"


def test_every_module_is_in_a_layer():
    for path in MODULES:
        layer(layer_of(str(path.relative_to(PACKAGE).with_suffix(""))))
