"""The cpsat backend (OR-Tools CP-SAT): counts against brute force, statuses, options.

No test imports ortools here: every solve goes through the ``isolated`` worker
(as in campaigns: limits are enforced from outside).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Task, Termination
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
        res = isolated.solve(inst, "cpsat", formulation, Task.count(0), {"enumeration": mode}, 60)
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
        res = isolated.solve(inst, "cpsat", formulation, Task(), {"enumeration": mode}, 60)
        assert res.status is Status.UNSAT and res.complete, (res.error, res.detail)
        assert "1 CP-SAT call" in res.detail  # the solver, not the precheck, decided it


def test_threads_use_blocking_and_keep_the_count(isolated):
    for inst in MANY:
        res = isolated.solve(inst, "cpsat", "placement", Task.count(0), {"threads": 2}, 60)
        assert_sound(res, inst)
        assert {b.cells for b in res.boards} == truth(inst.name) and res.complete
        assert res.detail.startswith("blocking") and "2 worker" in res.detail


@pytest.mark.parametrize("mode", MODES)
def test_time_limit_is_reported_as_timeout(isolated, mode):
    from harness.puzzle.formats import read_instance

    inst = read_instance(SOLBAT / "sb_15_15_7_0.toml")  # unique, and slow to prove so
    res = isolated.solve(inst, "cpsat", "cell", Task.count(0), {"enumeration": mode}, 1.0)
    assert res.status is Status.TIMEOUT and res.termination is Termination.SOLVER_LIMIT, res.detail
    assert not res.complete and res.times["total_s"] < 5
    assert all(verify(inst, b).ok for b in res.boards)
