"""Conformance: every backend x formulation on tiny instances with brute-force counts.

Each pair enumerates all boards (count 0) in its own worker process; the number of
distinct boards must equal the brute-force count, every board must pass the
independent verifier (status never ``wrong``), and the boards must be exactly the
brute-force ones.  Count 2 must certify uniqueness the same way for every pair.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.registry import all_pairs
from harness.core.status import Status, Task
from harness.puzzle.formats import read_instance
from tiny import SOLVER_UNSAT, TINY, assert_sound, truth

PAIRS = all_pairs()
IDS = [f"{b}/{f}" for b, f in PAIRS]


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=IDS)
def test_count_all_equals_brute_force(isolated, backend, formulation):
    for inst in TINY:
        expected = truth(inst.name)
        res = isolated.solve(inst, backend, formulation, Task.count(0), time_limit_s=60)
        assert_sound(res, inst)
        assert res.status is (Status.SAT if expected else Status.UNSAT), inst.name
        assert res.complete, inst.name
        assert {b.cells for b in res.boards} == expected, (inst.name, res.count, len(expected))


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=IDS)
def test_count_two_certifies_uniqueness_and_solve_finds_one(isolated, backend, formulation):
    for inst in TINY:
        n = len(truth(inst.name))
        res = isolated.solve(inst, backend, formulation, Task.count(2), time_limit_s=60)
        assert_sound(res, inst)
        assert res.count == min(n, 2), inst.name
        assert res.complete == (n < 2), inst.name  # exact only when the search was exhausted
        solve = isolated.solve(inst, backend, formulation, Task(), time_limit_s=60)
        assert solve.status is (Status.SAT if n else Status.UNSAT), inst.name
        assert solve.count == min(n, 1)


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=IDS)
def test_the_solver_itself_proves_unsat(isolated, backend, formulation):
    for inst in SOLVER_UNSAT:
        res = isolated.solve(inst, backend, formulation, Task(), time_limit_s=60)
        assert res.status is Status.UNSAT and res.complete, (inst.name, res.error)
        assert "precheck" not in res.detail and res.model["variables"], inst.name


def test_tiny_set_is_not_trivial():
    counts = sorted(len(truth(i.name)) for i in TINY)
    assert counts[0] == 0 and counts[-1] > 20  # unsat, unique and many-board cases
    assert counts.count(1) >= 3 and any(i.touching for i in TINY)


SOLBAT = Path(__file__).resolve().parents[1] / "instances" / "solbat"


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=[f"{b}/{f}" for b, f in PAIRS])
def test_sb_12_12_5_0_has_51_boards(isolated, backend, formulation):
    """All 51 boards (MIP enumeration re-solves slowly: it shows 2, not unique)."""
    inst = read_instance(SOLBAT / "sb_12_12_5_0.toml")
    k = 2 if backend == "mip" else 0
    res = isolated.solve(inst, backend, formulation, Task.count(k), time_limit_s=120)
    assert res.status is Status.SAT and res.count == (k or 51) and res.complete == (k == 0), res.detail
    assert all(v.startswith("ok") for v in res.verdicts)
    assert res.model["variables"] > 0 and res.model["constraints"] > 0
    assert res.solver_reported_s is not None and res.versions.get("battlebench")


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=[f"{b}/{f}" for b, f in PAIRS])
def test_unsat_by_clue_sums_is_decided_fast(isolated, backend, formulation):
    inst = read_instance(SOLBAT / "sb_13_13_5_5.toml")  # row sums 53, column sums 51
    res = isolated.solve(inst, backend, formulation, Task.count(2), time_limit_s=60)
    assert res.status is Status.UNSAT and res.complete and "precheck" in res.detail
    assert res.model["variables"] is None  # answered before any native model was built
