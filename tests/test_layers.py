"""Import direction, one way only: core <- puzzle <- model <- backends <- solve <- runner -> store;
counting over core and puzzle (its counters import their libraries lazily), run by the runner;
report over store and puzzle (its verifier re-checks stored boards; neither imports a solver);
generate over runner; play over counting (its posterior is the counters' marginals); cli on top."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.registry import BACKENDS

PKG = Path(__file__).resolve().parents[1] / "harness"
# Each layer may import only from the layers listed for it (and itself).
ALLOWED = {
    "core": {"core", "errors"},
    "errors": {"errors"},
    "puzzle": {"core", "errors", "puzzle"},
    "model": {"core", "errors", "puzzle", "model"},
    "backends": {"core", "errors", "puzzle", "model", "backends"},
    "solve": {"core", "errors", "puzzle", "model", "backends", "solve", "__init__"},
    "runner": {"core", "errors", "puzzle", "model", "backends", "solve", "runner", "store", "counting", "play",
               "__init__"},
    "counting": {"core", "errors", "puzzle", "counting", "__init__"},  # puzzle: puzzles read as deployments
    "store": {"core", "errors", "store"},
    "report": {"core", "errors", "store", "report", "puzzle"},  # puzzle: the verifier, formats (no solver)
    "generate": {"core", "errors", "puzzle", "model", "backends", "solve", "runner", "generate", "__init__"},
    "cli": {"core", "errors", "puzzle", "model", "backends", "solve", "runner", "store", "report", "generate",
            "counting", "play", "cli", "count_cli", "play_cli", "__init__"},
    "count_cli": {"core", "errors", "puzzle", "runner", "counting", "count_cli", "__init__"},
    "play": {"core", "errors", "counting", "play"},  # counting: placements, marginals (the exact posterior)
    "play_cli": {"core", "errors", "counting", "play", "play_cli"},
}
SOLVER_LIBS = {"ortools", "pyomo", "highspy", "pysat"}


def _layer(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name


FILES = sorted(p for p in PKG.rglob("*.py") if _layer(p) in ALLOWED)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_follow_the_layers(path):
    layer = _layer(path)
    for _, module in _imports(path):
        parts = module.split(".")
        if parts[0] == "harness" and len(parts) > 1:
            assert parts[1] in ALLOWED[layer], f"{path.name}: {layer} must not import {module}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_solver_libraries_are_imported_lazily(path):
    """No module imports a solver library at top level (they cannot share a process)."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            assert name.split(".")[0] not in SOLVER_LIBS, f"{path.name} imports {name} at module level"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_importing_a_backend_loads_no_solver_library(backend):
    """At run time too: the registry, the class and its options come without any solver."""
    code = (f"import sys; from harness.backends.registry import get_backend; cls = get_backend({backend!r}); "
            f"cls.resolve_options({{}}); loaded = {sorted(SOLVER_LIBS)!r}; "
            "bad = [m for m in sys.modules if m.split('.')[0] in loaded]; assert not bad, bad; print(cls.name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == backend, out.stderr
