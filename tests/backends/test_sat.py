"""The sat backend (python-sat): counts against brute force, statuses, options, limits.

Solves go through the ``isolated`` worker like every backend test, and the pytest
process never imports pysat.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Task, Termination
from harness.errors import UsageError
from harness.puzzle.brute import count_boards
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.plant import instance_from_board, random_board
from harness.puzzle.verify import verify

FORMULATIONS = ("placement", "cell")
SOLBAT = Path(__file__).resolve().parents[2] / "instances" / "solbat"
H = Hint


def _inst(name, rows, cols, fleet, rc, cc, hints=None, touching=False) -> Instance:
    return Instance(rows, cols, fleet, rc, cc, hints=hints or {}, touching=touching, name=name)


TINY = [
    _inst("s4x4", 4, 4, {1: 2, 2: 1}, (2, 0, 1, 1), (2, 1, 0, 1)),
    _inst("s3x5-unknown", 3, 5, {1: 1, 2: 1}, (1, None, None), (None, 1, None, None, 1)),
    _inst("s4x3-open", 4, 3, {1: 1, 2: 1}, (None,) * 4, (None,) * 3),
    _inst("s3x3-touch", 3, 3, {1: 2, 2: 1}, (1, 2, 1), (None, 2, None), touching=True),
    _inst("s2x4-touch-open", 2, 4, {1: 2, 2: 1}, (None, None), (None,) * 4, touching=True),
    _inst("s3x3-touch-cross", 3, 3, {3: 2}, (None,) * 3, (None,) * 3, touching=True),
    _inst("s4x4-touch-hint", 4, 4, {1: 1, 2: 2}, (None,) * 4, (None,) * 4,
          hints={(1, 1): H.LEFT, (2, 1): H.SHIP}, touching=True),
    _inst("s5x5-hints", 5, 5, {1: 1, 2: 1, 3: 1}, (None,) * 5, (None,) * 5,
          hints={(0, 4): H.SUBMARINE, (2, 0): H.LEFT, (4, 4): H.WATER}),
    _inst("s5x5-middle", 5, 5, {1: 2, 3: 1}, (None, 0, 3, None, 1), (None,) * 5,
          hints={(2, 2): H.MIDDLE, (0, 0): H.WATER}),
    _inst("s5x4-ship", 5, 4, {1: 1, 2: 2}, (None,) * 5, (1, None, None, 2),
          hints={(0, 3): H.SHIP, (4, 0): H.SHIP}),
    _inst("s4x5-vertical", 4, 5, {1: 1, 3: 1}, (None,) * 4, (None,) * 5,
          hints={(0, 2): H.TOP, (3, 4): H.SUBMARINE, (2, 2): H.BOTTOM}),
    _inst("s4x6-right", 4, 6, {1: 1, 2: 1, 4: 1}, (None,) * 4, (None,) * 6,
          hints={(1, 3): H.RIGHT, (3, 2): H.MIDDLE}),
    _inst("s1x8", 1, 8, {1: 1, 2: 1, 3: 1}, (6,), (None,) * 8),
    _inst("s6x1", 6, 1, {1: 1, 2: 1}, (None,) * 6, (3,)),
]
# Clue sums fit and every precheck passes, but no board exists: the solver must prove it.
UNSAT = _inst("s3x3-unsat", 3, 3, {1: 2, 2: 1}, (1, 2, 1), (1, 2, 1))
OPTION_SETS = [
    {},
    {"encoding": "totalizer", "amo": "pairwise", "solver": "glucose3"},
    {"encoding": "cardnetwrk", "amo": "ladder", "solver": "minisat22", "seed": 5},
    {"encoding": "kmtotalizer", "amo": "bitwise", "solver": "maplechrono", "seed": 9},
    {"encoding": "sortnetwrk", "amo": "totalizer", "solver": "cadical153", "seed": 2},
    {"encoding": "mtotalizer", "amo": "seqcounter", "solver": "mergesat3"},
]


@pytest.fixture(scope="module")
def brute_counts():
    return {inst.name: count_boards(inst) for inst in TINY + [UNSAT]}


def _check(res, inst) -> None:
    assert res.status in (Status.SAT, Status.UNSAT), (res.status, res.error, res.detail)
    assert all(verify(inst, b).ok for b in res.boards)
    assert len({b.cells for b in res.boards}) == len(res.boards)


def _big(unknown: bool) -> Instance:
    fleet = {1: 8, 2: 7, 3: 6, 4: 5, 5: 4, 6: 3}
    board = random_board(30, 20, fleet, random.Random(5))
    inst = instance_from_board(board, fleet, seed=1, name="big30x20")
    return inst.replace(row_clues=(None,) * 30, col_clues=(None,) * 20) if unknown else inst


def test_importing_the_backend_does_not_import_pysat():
    code = "import sys, harness.backends.sat as m; assert 'pysat' not in sys.modules; print(m.SatBackend.name)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "sat", out.stderr


def test_declared_options():
    cls = get_backend("sat")
    assert cls.formulations == FORMULATIONS
    opts = cls.resolve_options({})
    assert (opts["solver"], opts["encoding"], opts["amo"]) == ("cadical195", "seqcounter", "seqcounter")
    for bad in ({"solver": "lingeling"}, {"solver": "kissat404"}, {"encoding": "pairwise"}, {"amo": "native"}):
        with pytest.raises(UsageError):
            cls.resolve_options(bad)


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("inst", TINY, ids=lambda i: i.name)
def test_count_all_equals_brute_force(isolated, brute_counts, inst, formulation):
    res = isolated.solve(inst, "sat", formulation, Task.count(0), {}, 60)
    _check(res, inst)
    assert res.complete and res.termination is Termination.COMPLETED
    assert res.count == brute_counts[inst.name] > 0


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_every_option_keeps_the_count(isolated, brute_counts, formulation, options):
    for inst in (TINY[0], TINY[3], TINY[7], TINY[11], UNSAT):
        res = isolated.solve(inst, "sat", formulation, Task.count(0), options, 60)
        _check(res, inst)
        assert res.complete and res.count == brute_counts[inst.name], (inst.name, options)


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_unsat_is_proved_by_the_solver(isolated, brute_counts, formulation):
    assert brute_counts[UNSAT.name] == 0
    res = isolated.solve(UNSAT, "sat", formulation, Task(), {}, 60)
    assert res.status is Status.UNSAT and res.complete, (res.error, res.detail)
    assert "1 solve call" in res.detail  # the solver, not the precheck, decided it


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_count_limit_stops_early(isolated, brute_counts, formulation):
    inst = TINY[2]
    assert brute_counts[inst.name] > 2
    res = isolated.solve(inst, "sat", formulation, Task.count(2), {"seed": 3}, 60)
    _check(res, inst)
    assert res.status is Status.SAT and res.count == 2 and not res.complete






@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_big_board_builds_and_solves(isolated, formulation):
    inst = _big(unknown=False)
    res = isolated.solve(inst, "sat", formulation, Task(), {}, 60)
    _check(res, inst)
    assert res.status is Status.SAT and res.count == 1
    assert res.times["build_s"] < 2.0  # target 0.5 s; generous for loaded test machines


@pytest.mark.parametrize("solver", ["cadical195", "glucose3"])  # budget chunks / interrupt()
def test_time_limit_is_reported_as_timeout(isolated, solver):
    inst = _big(unknown=True)  # astronomically many boards
    res = isolated.solve(inst, "sat", "placement", Task.count(0), {"solver": solver}, 2.0)
    assert res.status is Status.TIMEOUT and res.termination is Termination.SOLVER_LIMIT, res.detail
    assert not res.complete and res.count > 0 and res.times["total_s"] < 4.5
    assert all(verify(inst, b).ok for b in res.boards)
