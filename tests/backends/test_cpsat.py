"""The cpsat backend (OR-Tools CP-SAT): counts against brute force, statuses, options.

No test imports ortools here: every solve goes through the ``isolated`` worker
(OR-Tools and highspy cannot share a process).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Task, Termination
from harness.errors import UsageError
from harness.puzzle.brute import count_boards
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.verify import verify

FORMULATIONS = ("placement", "cell")
MODES = ("callback", "blocking")
SOLBAT = Path(__file__).resolve().parents[2] / "instances" / "solbat"
H = Hint


def _inst(name, rows, cols, fleet, rc, cc, hints=None, touching=False) -> Instance:
    return Instance(rows, cols, fleet, rc, cc, hints=hints or {}, touching=touching, name=name)


TINY = [
    # all clues known, several boards
    _inst("c4x4", 4, 4, {1: 2, 2: 1}, (2, 0, 1, 1), (2, 1, 0, 1)),
    # unknown clues and a non-square board
    _inst("c3x5-unknown", 3, 5, {1: 1, 2: 1}, (1, None, None), (None, 1, None, None, 1)),
    _inst("c4x3-open", 4, 3, {1: 1, 2: 1}, (None,) * 4, (None,) * 3),
    # ships may touch (one cell set can have several decompositions)
    _inst("c3x3-touch", 3, 3, {1: 2, 2: 1}, (1, 2, 1), (None, 2, None), touching=True),
    _inst("c2x4-touch-open", 2, 4, {1: 2, 2: 1}, (None, None), (None,) * 4, touching=True),
    _inst("c4x4-touch-hint", 4, 4, {1: 1, 2: 2}, (None,) * 4, (None,) * 4,
          hints={(1, 1): H.LEFT, (2, 1): H.SHIP}, touching=True),
    # piece, ship and water hints
    _inst("c5x5-hints", 5, 5, {1: 1, 2: 1, 3: 1}, (None,) * 5, (None,) * 5,
          hints={(0, 4): H.SUBMARINE, (2, 0): H.LEFT, (4, 4): H.WATER}),
    _inst("c5x5-middle", 5, 5, {1: 2, 3: 1}, (None, 0, 3, None, 1), (None,) * 5,
          hints={(2, 2): H.MIDDLE, (0, 0): H.WATER}),
    _inst("c5x4-ship", 5, 4, {1: 1, 2: 2}, (None,) * 5, (1, None, None, 2),
          hints={(0, 3): H.SHIP, (4, 0): H.SHIP}),
    _inst("c4x5-vertical", 4, 5, {1: 1, 3: 1}, (None,) * 4, (None,) * 5,
          hints={(0, 2): H.TOP, (3, 4): H.SUBMARINE}),
    # one line
    _inst("c1x8", 1, 8, {1: 1, 2: 1, 3: 1}, (6,), (None,) * 8),
    _inst("c6x1", 6, 1, {1: 1, 2: 1}, (None,) * 6, (3,)),
]
# Clue sums fit and every precheck passes, but no board exists: the solver must prove it.
UNSAT = _inst("c3x3-unsat", 3, 3, {1: 2, 2: 1}, (1, 2, 1), (1, 2, 1))


@pytest.fixture(scope="module")
def brute_counts():
    return {inst.name: count_boards(inst) for inst in TINY + [UNSAT]}


def _check(res, inst) -> None:
    assert res.status in (Status.SAT, Status.UNSAT), (res.status, res.error, res.detail)
    assert all(verify(inst, b).ok for b in res.boards)
    assert len({b.cells for b in res.boards}) == len(res.boards)


def test_importing_the_backend_does_not_import_ortools():
    code = "import sys, harness.backends.cpsat as m; assert 'ortools' not in sys.modules; print(m.CpSatBackend.name)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "cpsat", out.stderr


def test_declared_options():
    cls = get_backend("cpsat")
    assert cls.formulations == FORMULATIONS
    assert cls.resolve_options({})["enumeration"] == "callback"
    assert cls.resolve_options({})["threads"] == 1
    with pytest.raises(UsageError):
        cls.resolve_options({"enumeration": "magic"})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize("inst", TINY, ids=lambda i: i.name)
def test_count_all_equals_brute_force(isolated, brute_counts, inst, formulation, mode):
    res = isolated.solve(inst, "cpsat", formulation, Task.count(0), {"enumeration": mode}, 60)
    _check(res, inst)
    assert res.complete and res.termination is Termination.COMPLETED
    assert res.count == brute_counts[inst.name] > 0
    expect = "callback" if mode == "callback" and not inst.touching else "blocking"
    assert res.detail.startswith(expect)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_unsat_is_proved_by_the_solver(isolated, brute_counts, formulation, mode):
    assert brute_counts[UNSAT.name] == 0
    res = isolated.solve(UNSAT, "cpsat", formulation, Task(), {"enumeration": mode}, 60)
    assert res.status is Status.UNSAT and res.complete, (res.error, res.detail)
    assert "1 CP-SAT call" in res.detail  # the solver, not the precheck, decided it


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_count_limit_stops_early(isolated, brute_counts, formulation, mode):
    inst = TINY[2]
    assert brute_counts[inst.name] > 2
    res = isolated.solve(inst, "cpsat", formulation, Task.count(2), {"enumeration": mode, "seed": 3}, 60)
    _check(res, inst)
    assert res.status is Status.SAT and res.count == 2 and not res.complete


def test_threads_use_blocking_and_keep_the_count(isolated, brute_counts):
    for inst in TINY[:3]:
        res = isolated.solve(inst, "cpsat", "placement", Task.count(0), {"threads": 2}, 60)
        _check(res, inst)
        assert res.count == brute_counts[inst.name] and res.complete
        assert res.detail.startswith("blocking") and "2 worker" in res.detail






@pytest.mark.parametrize("mode", MODES)
def test_time_limit_is_reported_as_timeout(isolated, mode):
    from harness.puzzle.formats import read_instance

    inst = read_instance(SOLBAT / "sb_15_15_7_0.toml")  # unique, and slow to prove so
    res = isolated.solve(inst, "cpsat", "cell", Task.count(0), {"enumeration": mode}, 1.0)
    assert res.status is Status.TIMEOUT and res.termination is Termination.SOLVER_LIMIT, res.detail
    assert not res.complete and res.times["total_s"] < 5
    assert all(verify(inst, b).ok for b in res.boards)
