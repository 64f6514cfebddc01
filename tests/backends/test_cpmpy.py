"""The cpmpy backend: every solver choice against brute force (touching too), limits, options.

No test imports cpmpy here (``import cpmpy`` loads OR-Tools and highspy): every solve
goes through the ``isolated`` worker; only option checks run in this process.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Question, Termination
from harness.errors import UsageError
from harness.puzzle.formats import read_instance
from harness.puzzle.verify import verify
from tiny import BY_NAME, TINY, assert_sound, truth

FORMULATIONS = ("placement", "cell")
SOLVERS = ("ortools", "pysat", "choco", "exact", "z3", "pumpkin", "pindakaas", "highs", "scip")
PACKAGE = {"ortools": "ortools", "pysat": "python-sat", "choco": "pychoco", "exact": "exact", "z3": "z3-solver",
           "pumpkin": "pumpkin-solver", "pindakaas": "pindakaas", "highs": "highspy", "scip": "pyscipopt"}
SOLBAT = Path(__file__).resolve().parents[2] / "instances" / "solbat"


def test_declared_options():
    cls = get_backend("cpmpy")
    assert cls.formulations == FORMULATIONS
    assert cls.declared_options()["solver"].choices == SOLVERS
    opts = cls.resolve_options({})
    assert opts["solver"] == "ortools" and opts["threads"] == 1 and opts["seed"] == 0
    with pytest.raises(UsageError, match="solver"):
        cls.resolve_options({"solver": "gurobi"})  # a CPMpy solver that is not offered here


def test_uninstalled_solver_is_a_usage_error_naming_it(monkeypatch):
    from harness.backends import cpmpy as mod

    monkeypatch.setitem(mod.LIBRARIES, "choco", ("no_such_module_for_battlebench", "pychoco"))
    with pytest.raises(UsageError) as err:
        get_backend("cpmpy").resolve_options({"solver": "choco"})
    msg = str(err.value)
    assert "'choco'" in msg and "pip install pychoco" in msg and "\n" not in msg


def test_importing_the_module_imports_no_solver():
    code = ("import sys, harness.backends.cpmpy; "
            "bad = [m for m in ('cpmpy', 'ortools', 'highspy', 'pysat', 'pychoco', 'z3', 'exact', "
            "'pumpkin_solver', 'pindakaas', 'pyscipopt') if m in sys.modules]; print(bad); assert not bad")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


@pytest.mark.parametrize("solver", SOLVERS)
def test_counts_equal_brute_force(isolated, solver):
    """All boards, each once: one solve call per board plus the one that proves no more.

    The touching instances matter most: there one set of ship cells has several
    decompositions into ships (``touching-cross``), and blocking by cells lists it once.
    """
    assert any(i.touching and len(truth(i.name)) > 1 for i in TINY)
    for formulation in FORMULATIONS:
        for inst in TINY:
            expected = truth(inst.name)
            res = isolated.solve(inst, "cpmpy", formulation, Question.count(0), {"solver": solver}, 60)
            assert_sound(res, inst)
            assert res.status is (Status.SAT if expected else Status.UNSAT), (formulation, inst.name, res.error)
            assert res.complete and res.termination is Termination.COMPLETED, (formulation, inst.name)
            assert {b.cells for b in res.boards} == expected, (formulation, inst.name, res.count, len(expected))
            if res.model["variables"] is not None:  # solved, not answered by the precheck
                calls = int(re.search(r"(\d+) solve call", res.detail).group(1))
                assert calls == len(expected) + 1, (formulation, inst.name, res.detail)  # no board twice
        assert res.versions.get("cpmpy") and res.versions.get(PACKAGE[solver]), res.versions


@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_is_honoured(isolated, solver):
    """The solver stops itself (an answer a little after the limit is the runner's
    timeout); it never claims to have exhausted the search (Choco once did)."""
    inst = read_instance(SOLBAT / "sb_15_15_7_0.toml")
    res = isolated.solve(inst, "cpmpy", "placement", Question.count(0), {"solver": solver}, 1.0)
    assert res.status is Status.TIMEOUT and not res.complete, (res.status, res.error, res.detail)
    assert res.termination in (Termination.SOLVER_LIMIT, Termination.TIMEOUT), res.termination
    assert "exhausted=True" not in res.detail, res.detail  # a late answer is described there
    # exact and SCIP check their clocks late (seen: up to ~3 s over on an idle machine, over 6 s
    # on a loaded one, over 10 s of wall time with a campaign and an install beside the suite):
    # none may compute on to the runner's kill (limit + 10 s grace), measured in CPU seconds,
    # which a loaded machine does not stretch
    assert res.times["cpu_s"] < 10, res.times
    assert all(verify(inst, b).ok for b in res.boards)


def test_model_size_is_cpmpys(isolated):
    """The CPMpy model's size: the same for every solver but pysat (placement adds s_c there)."""
    from harness.model import build_model

    inst = BY_NAME["clued-with-hints"]
    sizes = {s: isolated.build(inst, "cpmpy", "placement", {"solver": s}) for s in ("ortools", "exact", "pysat")}
    assert (sizes["ortools"]["variables"], sizes["ortools"]["constraints"]) == \
           (sizes["exact"]["variables"], sizes["exact"]["constraints"]), sizes
    native = isolated.build(inst, "cpsat", "placement")
    assert sizes["ortools"]["variables"] == native["variables"]  # y_p: the same decision variables
    covered = sum(1 for ps in build_model(inst).cover.values() if ps)
    assert sizes["pysat"]["variables"] == native["variables"] + covered


@pytest.mark.parametrize("solver", ["ortools", "highs"])
def test_threads_and_seed_are_passed(isolated, solver):
    inst = BY_NAME["open-4x3"]
    for threads in (2, 1):  # highs: the process-wide thread pool is restarted
        res = isolated.solve(inst, "cpmpy", "placement", Question.count(0),
                             {"solver": solver, "threads": threads, "seed": 7}, 60)
        assert_sound(res, inst)
        assert res.complete and {b.cells for b in res.boards} == truth(inst.name), res.error
