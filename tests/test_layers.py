"""Import direction, one way only: core <- puzzle <- model <- backends <- solve <- runner -> store;
counting over core and puzzle (its counters import their libraries lazily), run by the runner;
report over store and puzzle (its verifier re-checks stored boards; neither imports a solver);
generate over runner; play over counting (its posterior is the counters' marginals); conform over solve
(it is handed a runner); cli on top."""

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
            "counting", "play", "cli", "count_cli", "play_cli", "backends_cli", "__init__"},
    "backends_cli": {"core", "errors", "backends", "runner", "conform", "counting", "play", "backends_cli"},
    "conform": {"core", "errors", "puzzle", "solve", "conform"},  # runs backends through a runner it is given
    "count_cli": {"core", "errors", "puzzle", "runner", "counting", "count_cli", "__init__"},
    "play": {"core", "errors", "counting", "play"},  # counting: placements, marginals (the exact posterior)
    "play_cli": {"core", "errors", "counting", "play", "play_cli"},
}
SOLVER_LIBS = {"ortools", "pyomo", "highspy", "pysat", "cpmpy", "minizinc", "pyscipopt", "pychoco", "z3", "exact",
               "pumpkin_solver", "pindakaas"}


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
    """No module imports a solver library at top level (listing and validating stay cheap; a missing one is a reason)."""
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


@pytest.mark.parametrize("first", ["ortools", "highspy"])
def test_ortools_and_highspy_share_one_process(first):
    """highspy >= 1.16 and ortools 9.15 load together in either order (1.15 failed with an undefined symbol)."""
    load = {"ortools": "from ortools.sat.python import cp_model; m = cp_model.CpModel(); x = m.new_bool_var('x'); "
                       "m.add(x == 1); assert cp_model.CpSolver().solve(m) == cp_model.OPTIMAL",
            "highspy": "import highspy; h = highspy.Highs(); h.setOptionValue('output_flag', False); "
                       "h.addVar(0, 1); h.run(); assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal"}
    second = "highspy" if first == "ortools" else "ortools"
    out = subprocess.run([sys.executable, "-c", f"{load[first]}\n{load[second]}\nprint('ok')"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.splitlines()[-1] == "ok", out.stderr[-2000:]
