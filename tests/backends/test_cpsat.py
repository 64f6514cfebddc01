"""The cpsat backend (OR-Tools CP-SAT): counts against brute force, statuses, options.

No test imports ortools here: every solve goes through the ``isolated`` worker
(as in campaigns: limits are enforced from outside).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Question, Termination
from harness.errors import UsageError
from harness.puzzle.verify import verify
from tiny import MANY, SOLVER_UNSAT, TINY, assert_sound, truth

FORMULATIONS = ("placement", "cell")
MODES = ("callback", "blocking")
SOLBAT = Path(__file__).resolve().parents[2] / "instances" / "solbat"


def test_declared_options():
    cls = get_backend("cpsat")
    assert cls.formulations == FORMULATIONS
    assert cls.resolve_options({})["enumeration"] == "callback"
    assert cls.resolve_options({})["threads"] == 1
    with pytest.raises(UsageError):
        cls.resolve_options({"enumeration": "magic"})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_both_enumeration_modes_count_like_brute_force(isolated, formulation, mode):
    for inst in TINY:
        res = isolated.solve(inst, "cpsat", formulation, Question.count(0), {"enumeration": mode}, 60)
        assert_sound(res, inst)
        assert res.complete and res.termination is Termination.COMPLETED
        assert {b.cells for b in res.boards} == truth(inst.name), inst.name
        if res.model["variables"] is not None:  # not answered by the precheck
            expect = "callback" if mode == "callback" and not inst.touching else "blocking"
            assert res.detail.startswith(expect), inst.name


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_unsat_is_proved_by_the_solver(isolated, formulation, mode):
    for inst in SOLVER_UNSAT:
        res = isolated.solve(inst, "cpsat", formulation, Question(), {"enumeration": mode}, 60)
        assert res.status is Status.UNSAT and res.complete, (res.error, res.detail)
        assert "1 CP-SAT call" in res.detail  # the solver, not the precheck, decided it


def test_threads_use_blocking_and_keep_the_count(isolated):
    for inst in MANY:
        res = isolated.solve(inst, "cpsat", "placement", Question.count(0), {"threads": 2}, 60)
        assert_sound(res, inst)
        assert {b.cells for b in res.boards} == truth(inst.name) and res.complete
        assert res.detail.startswith("blocking") and "2 worker" in res.detail


@pytest.mark.parametrize("mode", MODES)
def test_time_limit_is_reported_as_timeout(isolated, mode):
    from harness.puzzle.formats import read_instance

    inst = read_instance(SOLBAT / "sb_15_15_7_0.toml")  # unique, and slow to prove so
    res = isolated.solve(inst, "cpsat", "cell", Question.count(0), {"enumeration": mode}, 1.0)
    assert res.status is Status.TIMEOUT and res.termination is Termination.SOLVER_LIMIT, res.detail
    # CPU seconds, not wall: a backend computing past its limit shows in them on any machine, while a loaded
    # machine's waiting does not (one worker by default; the build is in them too)
    assert not res.complete and res.times["cpu_s"] < 1.0 + 4
    assert all(verify(inst, b).ok for b in res.boards)


# ------------------------------------------------------------ branching, lazy_lp
def test_search_options_are_declared_with_the_old_behaviour_as_default():
    opts = get_backend("cpsat").resolve_options({})
    assert (opts["branching"], opts["lazy_lp"]) == ("auto", True)
    for bad in ({"branching": "random"}, {"lazy_lp": "maybe"}):
        with pytest.raises(UsageError):
            get_backend("cpsat").resolve_options(bad)


_PROBE = """
import json, sys
from harness.backends.registry import get_backend
from harness.model import build_model
from harness.puzzle.formats import read_instance
model = build_model(read_instance(sys.argv[1]))
out = {}
for name, opts in (("long", {"branching": "long-first", "lazy_lp": False, "threads": 2, "seed": 7}), ("auto", {})):
    backend = get_backend("cpsat")(model, "placement", opts)
    backend.build()
    p = backend.new_solver().parameters
    index = {v.index: i for i, v in enumerate(backend.cp_y)}
    order = [model.placements[index[e.vars[0]]].length for s in backend.cp_model.proto.search_strategy
             for e in s.exprs]
    out[name] = [p.num_workers, p.random_seed, p.add_lp_constraints_lazily, int(p.search_branching), order]
print(json.dumps(out))
"""


def test_new_solver_applies_the_options_and_build_adds_the_longest_first_order():
    """In a subprocess (this module imports no solver): the parameters and the decision strategy."""
    import json
    import subprocess
    import sys

    path = sorted(SOLBAT.glob("*.toml"))[0]
    done = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    workers, seed, lazy, branching, order = got["long"]
    assert (workers, seed, lazy) == (2, 7, False) and branching != got["auto"][3]
    assert order and order == sorted(order, reverse=True) and len(set(order)) > 1
    assert got["auto"][:3] == [1, 0, True] and got["auto"][4] == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_long_first_branching_counts_like_brute_force(isolated, formulation, mode):
    opts = {"branching": "long-first", "lazy_lp": False, "enumeration": mode}
    for inst in TINY:
        res = isolated.solve(inst, "cpsat", formulation, Question.count(0), opts, 60)
        assert_sound(res, inst)
        assert res.complete and {b.cells for b in res.boards} == truth(inst.name), inst.name


def test_long_first_passes_conformance(isolated):
    """``battlebench conform cpsat -o branching=long-first -o lazy_lp=false``: every check, both formulations."""
    from harness.conform import conform

    results = conform(isolated, "cpsat", list(FORMULATIONS), {"branching": "long-first", "lazy_lp": False})
    failed = [f"{r.formulation} {r.check}: {r.detail}" for r in results if not r.passed]
    assert results and not failed, failed


# ------------------------------------------------ the pybind module, not cp_model
_LEAN = """
import json, sys
from harness.backends.registry import get_backend
from harness.model import build_model
from harness.puzzle.formats import read_instance
model = build_model(read_instance(sys.argv[1]))
counts = {}
for formulation in ("placement", "cell"):
    for opts in ({}, {"enumeration": "blocking"}, {"split": 2}, {"branching": "long-first", "lazy_lp": False}):
        answer = get_backend("cpsat")(model, formulation, opts).enumerate(None, None)
        counts[f"{formulation} {sorted(opts.items())}"] = [len(answer.boards), answer.exhausted]
loaded = sorted(m for m in ("pandas", "ortools.sat.python.cp_model") if m in sys.modules)
print(json.dumps({"counts": counts, "loaded": loaded, "versions": get_backend("cpsat").versions()}))
"""


def test_a_run_imports_neither_pandas_nor_cp_model():
    """In a fresh interpreter: every formulation, enumeration mode, split and search option builds and counts
    through ortools' pybind module alone (``cp_model`` would import pandas), and versions name ortools' own."""
    import json
    import subprocess
    import sys

    import ortools  # this process only: the test suite has it anyway

    path = Path(__file__).resolve().parents[2] / "instances" / "smoke" / "unknown_clues_5x5.toml"
    done = subprocess.run([sys.executable, "-c", _LEAN, str(path)], capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    assert got["loaded"] == []
    assert got["versions"] == {"ortools": ortools.__version__}
    assert len(got["counts"]) == 8 and all(v == [6, True] for v in got["counts"].values()), got["counts"]


@pytest.mark.parametrize("formulation,opts", [("placement", {}), ("placement", {"split": 3}), ("cell", {})])
def test_a_solbat_puzzle_keeps_its_known_count(isolated, formulation, opts):
    from harness.puzzle.formats import read_instance

    inst = read_instance(SOLBAT / "sb_12_12_5_0.toml")  # expected_count = 51 in instances/MANIFEST.toml
    res = isolated.solve(inst, "cpsat", formulation, Question.count(0), opts, 120)
    assert res.complete and len(res.boards) == 51 and all(verify(inst, b).ok for b in res.boards)


def test_an_ortools_without_the_helper_api_is_named_as_unavailable():
    from types import SimpleNamespace

    from harness.backends.cpsat_core import NEEDED, missing

    full = SimpleNamespace(**{cls: SimpleNamespace(**{a: None for a in attrs}) for cls, attrs in NEEDED.items()})
    assert missing(full) == []
    del full.CpBaseModel
    del full.SolveWrapper.stop_search
    assert missing(full) == ["CpBaseModel", "SolveWrapper.stop_search"]
