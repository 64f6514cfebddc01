"""Import direction, one way only.

core (the vocabulary: statuses, records, the task contract, plugin families, limits) <- proofs (claims, their
checkers, the kept files: no domain) <- the domains
(puzzle <- model; counting <- play) <- backends <- tasks (one module or package per task: the only
place that joins a domain to the runner; the solve task's package holds its in-process run and its
races; the top-level ``harness.solve`` is a re-export kept for users' scripts, imported by nothing) ; runner and store know no task: they import core only,
and meet a task through the registry at run time; report reads stores and meets each task's
report section through the registry; selection (features, scenarios, the selector) reads puzzles, boards and stores
through the report's loading, and the solve task's section and the cli use it; conform and generate run plugins through a task; cli and api (the Python
facade) on top, side by side: neither imports the other.

At run time too, each in a fresh process: a single-shot ``solve``'s CLI imports no solver and nothing of another
command or task, a worker only its key's task and backend.
"""

from __future__ import annotations

import ast
import functools
import json
import sys
from pathlib import Path

import pytest

from harness.backends.registry import BACKENDS
import procs

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
    "tools": {"core", "errors", "tools"},  # solver binaries as data: entries, parsers, running a process (core:
    # a tool entry's own parser "module:function" is imported as plugins are)
    "proofs": {"core", "errors", "tools", "proofs"},  # claims, checkers (run as tools are), kept proof files
    "backends": {"core", "errors", "puzzle", "model", "tools", "proofs", "backends"},
    "solve": {"tasks"},  # a re-export of harness.tasks.solve.run, kept for users' scripts
    "store": {"core", "errors", "store"},
    "runner": {"core", "errors", "store", "runner", "__init__"},  # task-agnostic: no domain, no task
    "tasks": {"core", "errors", "puzzle", "model", "counting", "play", "backends", "proofs", "runner", "report",
              "selection", "tasks", "__init__"},
    # which pair for which puzzle: features of puzzles (model, backends' encodings), scenarios read from stores
    # through the report's loading, the selector; no runner, no task
    "selection": {"core", "errors", "puzzle", "model", "counting", "backends", "store", "report", "selection",
                  "__init__"},  # counting: a board's layout, the tally-only count, count stores' deployments
    "report": {"core", "errors", "store", "report", "puzzle", "proofs"},  # proofs: claims counted, re-checked  # puzzle: the verifier, formats (no solver)
    "conform": {"core", "errors", "puzzle", "counting", "play", "tasks", "runner", "conform"},
    "generate": {"core", "errors", "puzzle", "model", "backends", "runner", "tasks", "generate", "__init__"},
    "api": {"core", "errors", "puzzle", "counting", "play", "backends", "tasks", "runner", "report", "api"},
    "cli": {"core", "errors", "puzzle", "model", "tools", "proofs", "backends", "runner", "store", "report", "generate",
            "counting", "play", "tasks", "conform", "selection", "cli", "__init__"},
}
MEASURING = ("runner/run.py", "runner/campaign.py", "runner/worker.py", "runner/process.py", "runner/config.py",
             "runner/local.py", "runner/dask.py", "runner/progress.py", "store/sqlite.py",
             "store/schema.py")
SOLVER_LIBS = {"ortools", "pyomo", "highspy", "pysat", "cpmpy", "minizinc", "pyscipopt", "pychoco", "z3", "exact",
               "pumpkin_solver", "pindakaas", "clingo", "dratify", "drup", "cdclkit_native"}  # and proof checkers


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
    out = procs.run([sys.executable, "-c", code], capture_output=True, text=True)
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
    out = procs.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == backend, out.stderr


@pytest.mark.parametrize("first", ["ortools", "highspy"])
def test_ortools_and_highspy_share_one_process(first):
    """highspy >= 1.16 and ortools 9.15 load together in either order (1.15 failed with an undefined symbol)."""
    load = {"ortools": "from ortools.sat.python import cp_model; m = cp_model.CpModel(); x = m.new_bool_var('x'); "
                       "m.add(x == 1); assert cp_model.CpSolver().solve(m) == cp_model.OPTIMAL",
            "highspy": "import highspy; h = highspy.Highs(); h.setOptionValue('output_flag', False); "
                       "h.addVar(0, 1); h.run(); assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal"}
    second = "highspy" if first == "ortools" else "ortools"
    out = procs.run([sys.executable, "-c", f"{load[first]}\n{load[second]}\nprint('ok')"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.splitlines()[-1] == "ok", out.stderr[-2000:]


def import_graph(package: Path) -> dict[str, set[str]]:
    """The import graph of ``package`` (a folder): module name -> the package's modules it imports.

    Every import counts, at top level and inside functions: the house imports inside functions only to load
    solver libraries (and plugins) lazily, never to break a circle, so a circle through a function-level import is
    a circle too.  ``from a.b import c`` is an edge to module ``a.b.c`` when that is a module, else to ``a.b``;
    the implicit import of a parent package's ``__init__`` is not an edge (a package's modules import each
    other through it all the time)."""
    root = package.name
    modules: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = (root, *path.relative_to(package).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                          for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each strongly connected part of more than one module, as a path that
    closes on its first module (``a -> b -> a``), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    parts: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = set()
            while (w := stack.pop()) != v:
                part.add(w)
            if part:
                parts.append(part | {v})

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for part in parts:  # the shortest circle through the part's first module, found breadth first
        start = min(part)
        came, todo = {start: [start]}, [start]
        while start not in graph[todo[0]]:
            v = todo.pop(0)
            for w in sorted(graph[v] & part - came.keys()):
                came[w] = came[v] + [w]
                todo.append(w)
        cycles.append(came[todo[0]] + [start])
    return sorted(cycles)


def test_harness_has_no_import_circle():
    cycles = import_cycles(import_graph(PKG))
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_an_import_circle_is_found_and_named(tmp_path):
    """A synthetic package: a circle through a function-level import is found, named as a path; the rest is not."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub import b\n")
    (pkg / "a.py").write_text("import pkg.sub.b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from pkg import c\n")
    (pkg / "c.py").write_text("from pkg.a import x\nimport os\n")
    (pkg / "d.py").write_text("from pkg import a, c\n")  # imports into the circle, not part of it
    graph = import_graph(pkg)
    assert graph["pkg.d"] == {"pkg.a", "pkg.c"} and graph["pkg.c"] == {"pkg.a"}
    assert import_cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]
    (pkg / "c.py").write_text("import os\n")  # the circle broken
    assert import_cycles(import_graph(pkg)) == []


ROOT = PKG.parent
# Tests that reach a private name on purpose (a helper or a memo they drive directly), file -> the names.
PRIVATE_IN_TESTS = {
    "tests/backends/test_status_tables.py": {"_SYM", "_T"},  # the backends' cell indexes, checked against the alphabet
    "tests/counting/test_counters.py": {"_deployments"},
    "tests/counting/test_dispatch.py": {"_warm_cases"},
    "tests/counting/test_profile.py": {"_profile_nb", "_Arena", "_geometry", "_kept", "_moduli", "_run", "_view"},
    "tests/generate/test_batch.py": {"_Pool"},
    "tests/generate/test_oracle_signals.py": {"_guarded"},
    "tests/play/test_exact_values.py": {"_Branch"},
    "tests/play/test_game.py": {"_deployments", "_MEMO", "_MEMO_SIZE"},
    "tests/procs.py": {"_BUSY"},  # busy_seed: a pool task marked busy as generate's seeds are
}


def private_names(tree: ast.AST) -> set[str]:
    """The underscore names (not dunders) a module takes from ``harness``: imported (``from harness.x import _y``,
    ``harness.x._y``) or read off a harness module it imported (``import harness.x as m; m._y``)."""
    def private(name: str) -> bool:
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    found, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "harness":
            found |= {p for p in node.module.split(".") if private(p)} | {a.name for a in node.names if private(a.name)}
            modules |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "harness":
                    found |= {p for p in a.name.split(".") if private(p)}
                    modules.add(a.asname or a.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                found.add(node.attr)
    return found


OUTSIDE = sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts[0] not in {"harness", ".venv", "site"}
                 and not any(part.startswith(".") for part in p.relative_to(ROOT).parts))


def test_no_file_outside_harness_imports_a_private_name_from_it():
    """Scripts (experiments/, benchmarks/, tools/, examples/, docs/) use harness's public names only; tests too
    but for the list above (each a private name it drives on purpose)."""
    bad = {}
    for path in OUTSIDE:
        rel = str(path.relative_to(ROOT))
        names = private_names(ast.parse(path.read_text())) - PRIVATE_IN_TESTS.get(rel, set())
        if names:
            bad[rel] = sorted(names)
    assert not bad, f"private harness names used outside harness/: {bad}"


def test_a_private_import_is_found():
    code = ("from harness.backends.cpsat import _status_meaning, CpSatBackend\nimport harness.play.strategies.posterior "
            "as post\npost._MEMO.clear()\nfrom harness import __version__\nimport harness.counting._rows_nb\n")
    assert private_names(ast.parse(code)) == {"_status_meaning", "_MEMO", "_rows_nb"}


# -- what a run imports: the CLI of a single-shot solve and the worker of its key, each in a fresh process ---------
HEAVY = ("numpy", "pandas", "numba", "scipy", "matplotlib", "dask", "distributed", "pyomo", "minizinc", "pysat",
         "clingo", "cpmpy")
"""Libraries a solve with cpsat needs nowhere (numpy is ortools' own: its C++ model imports it, checked apart)."""
NOT_A_SOLVE = ("harness.play", "harness.counting", "harness.report", "harness.store", "harness.conform",
               "harness.generate", "harness.tasks.count", "harness.tasks.play", "harness.tasks.value")
"""The harness's packages a solve does not use: the other tasks, their domains, stores and reports."""
TINY = ROOT / "instances" / "smoke" / "tiny_4x4.toml"


def _loaded(modules: list[str], names) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_a_single_shot_solve_imports_no_solver_and_nothing_of_another_command_in_the_cli():
    """``battlebench solve FILE -b cpsat``: the CLI process builds solve's parser alone, reads the puzzle, sends
    it to a worker and judges the answer -- it imports no solver (ortools too stays in the worker), no numeric
    library, no other command and no other task."""
    from harness.cli import COMMANDS

    code = ("import json, sys; from harness.cli import main; "
            f"code = main(['solve', {str(TINY)!r}, '-b', 'cpsat', '--json']); "
            "print(json.dumps([code, sorted(sys.modules)]))")
    out = procs.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["status"] == "sat", out.stdout
    code, modules = json.loads(lines[-1])
    assert code == 0
    others = [f"harness.cli.{c}" for c in COMMANDS if c != "solve"]
    bad = _loaded(modules, (*HEAVY, "ortools", *NOT_A_SOLVE, *others))
    assert not bad, f"the CLI of a solve imports {bad}"


WORKER = ("import atexit, json, sys\n"
          "atexit.register(lambda: open(sys.argv[1], 'w').write(json.dumps(sorted(sys.modules))))\n"
          "from harness.runner.worker import main\n"
          "main()\n")
"""A worker (its own main loop, in a fresh process) that writes the modules it has loaded when it ends."""


@functools.cache
def _worker_modules(backend: str) -> tuple[str, ...]:
    """What a worker of ``backend``'s key has imported after its warm-up and one run of the tiny puzzle."""
    import io
    import tempfile

    from harness.puzzle.formats import read_instance
    from harness.runner.worker import read_frame, write_frame
    from harness.tasks.solve.run import RunRequest

    request = RunRequest.of(read_instance(TINY), backend, "placement")
    frames = io.BytesIO()
    for message in (("warm", (request,)), ("run", (request,)), None):
        write_frame(frames, message)
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "modules.json"
        out = procs.run([sys.executable, "-c", WORKER, str(listing)], input=frames.getvalue(), capture_output=True)
        assert out.returncode == 0, out.stderr[-2000:]
        replies = io.BytesIO(out.stdout)
        warm, run = read_frame(replies), read_frame(replies)
        assert warm[0] == "ok" and run[0] == "ok" and not run[1].failure and run[1].boards, (warm, run)
        return tuple(json.loads(listing.read_text()))


PARENT_HALF = ("harness.runner.process", "harness.tasks.solve.race", "harness.tasks.solve.section")
"""What the parent does with a solve (the pool, races, the report's section): a worker runs none of it."""


def test_a_worker_imports_only_the_task_and_the_backend_of_its_key():
    """The cpsat worker: the solve task's worker half, the cpsat backend and what they use -- no other backend,
    task, domain, command, store or report, not the parent's half of the task, and no solver or numeric library
    but ortools'."""
    modules = _worker_modules("cpsat")
    assert "ortools.sat.python.cp_model_helper" in modules and "harness.backends.cpsat" in modules
    backends = {target.partition(":")[0] for name, target in BACKENDS.items() if name != "cpsat"}
    bad = _loaded(modules, (*HEAVY[1:], *NOT_A_SOLVE, *PARENT_HALF, "harness.cli", *sorted(backends)))
    assert not bad, f"the cpsat worker imports {bad}"


def test_a_cpsat_worker_imports_neither_pandas_nor_ortools_cp_model():
    """ortools' ``cp_model`` imports pandas (~0.4 s of CPU): the backend builds through ``cp_model_helper``
    (:mod:`harness.backends.cpsat_core`).  numpy stays: ortools' C++ ``CpBaseModel`` imports it."""
    modules = _worker_modules("cpsat")
    bad = _loaded(modules, ("pandas", "ortools.sat.python.cp_model"))
    assert not bad, f"the cpsat worker imports {bad}"
