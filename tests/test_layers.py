"""Import direction, one way only.

core (the vocabulary: statuses, records, the task contract, plugin families, limits) <- the domains
(puzzle <- model; counting <- play) <- backends <- tasks (one module or package per task: the only
place that joins a domain to the runner; the solve task's package holds its in-process run and its
races; the top-level ``harness.solve`` is a re-export kept for users' scripts, imported by nothing) ; runner and store know no task: they import core only,
and meet a task through the registry at run time; report reads stores and meets each task's
report section through the registry; conform and generate run plugins through a task; cli and api (the Python
facade) on top, side by side: neither imports the other.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.registry import BACKENDS

PKG = Path(__file__).resolve().parents[1] / "harness"
DOMAINS = {"puzzle", "model", "counting", "play", "backends", "solve"}  # solve: the shim harness/solve.py
# Each layer may import only from the layers listed for it (and itself).
ALLOWED = {
    "errors": {"errors"},
    "core": {"core", "errors", "__init__"},
    "puzzle": {"core", "errors", "puzzle"},
    "model": {"core", "errors", "puzzle", "model"},
    "counting": {"core", "errors", "puzzle", "counting", "__init__"},  # puzzle: puzzles read as deployments
    "play": {"core", "errors", "counting", "play"},  # counting: placements, marginals (the exact posterior)
    "tools": {"errors", "tools"},  # solver binaries as data: entries, parsers, running a process
    "backends": {"core", "errors", "puzzle", "model", "tools", "backends"},
    "solve": {"tasks"},  # a re-export of harness.tasks.solve.run, kept for users' scripts
    "store": {"core", "errors", "store"},
    "runner": {"core", "errors", "store", "runner", "__init__"},  # task-agnostic: no domain, no task
    "tasks": {"core", "errors", "puzzle", "model", "counting", "play", "backends", "runner", "report",
              "tasks", "__init__"},
    "report": {"core", "errors", "store", "report", "puzzle"},  # puzzle: the verifier, formats (no solver)
    "conform": {"core", "errors", "puzzle", "counting", "play", "tasks", "runner", "conform"},
    "generate": {"core", "errors", "puzzle", "model", "backends", "runner", "tasks", "generate", "__init__"},
    "api": {"core", "errors", "puzzle", "counting", "play", "backends", "tasks", "runner", "report", "api"},
    "cli": {"core", "errors", "puzzle", "model", "tools", "backends", "runner", "store", "report", "generate",
            "counting", "play", "tasks", "conform", "cli", "__init__"},
}
MEASURING = ("runner/run.py", "runner/campaign.py", "runner/worker.py", "runner/process.py", "runner/config.py",
             "runner/local.py", "runner/dask.py", "runner/progress.py", "store/sqlite.py")
SOLVER_LIBS = {"ortools", "pyomo", "highspy", "pysat", "cpmpy", "minizinc", "pyscipopt", "pychoco", "z3", "exact",
               "pumpkin_solver", "pindakaas", "clingo"}


def _layer(path: Path) -> str:
    """The layer of a module: its package under harness/, or its own name for a top-level module."""
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


def test_every_module_is_in_a_layer():
    assert {_layer(p) for p in PKG.rglob("*.py")} <= set(ALLOWED) | {"__init__"}


@pytest.mark.parametrize("name", MEASURING)
def test_the_measuring_layer_imports_no_task_and_no_domain(name):
    """The runner, worker, process pool, config loader and store import no puzzle, counting, play or task code,
    not even inside a function: they meet a task only through the registry (harness.core.task.TASKS)."""
    for _, module in _imports(PKG / name):
        parts = module.split(".")
        if parts[0] == "harness" and len(parts) > 1:
            assert parts[1] not in DOMAINS | {"tasks", "report", "conform", "generate", "cli"}, \
                f"{name} imports {module}"


def test_loading_the_measuring_layer_loads_no_task_or_domain_module():
    code = ("import sys; import harness.runner.run, harness.runner.local, harness.runner.dask, harness.runner.worker, "
            "harness.store; from harness.runner.config import load_config; "
            "bad = sorted(m for m in sys.modules if m.split('.')[:2] and len(m.split('.')) > 1 and m.split('.')[0] "
            f"== 'harness' and m.split('.')[1] in {sorted(DOMAINS | {'tasks'})!r}); assert not bad, bad; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


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
