"""Conformance: every backend x formulation on tiny instances with brute-force counts.

Each pair enumerates all boards (count 0) in its own worker process; the number of
distinct boards must equal the brute-force count, every board must pass the
independent verifier (status never ``wrong``), and the boards must be exactly the
brute-force ones.  Count 2 must certify uniqueness the same way for every pair.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness.backends.registry import all_pairs
from harness.core.status import Status, Task
from harness.puzzle.brute import enumerate_boards
from harness.puzzle.formats import read_instance
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.plant import instance_from_board, random_board

PAIRS = all_pairs()
U = None  # unknown clue


def _hand_made() -> list[Instance]:
    return [
        Instance(rows=1, cols=5, fleet={1: 1, 2: 1}, row_clues=(3,), col_clues=(U,) * 5, name="one-row"),
        Instance(rows=1, cols=1, fleet={1: 1}, row_clues=(1,), col_clues=(1,), name="one-cell"),
        Instance(rows=3, cols=4, fleet={1: 1, 2: 0, 3: 1}, row_clues=(U,) * 3, col_clues=(U,) * 4,
                 hints={(1, 1): Hint.WATER}, name="zero-count-length"),
        Instance(rows=3, cols=3, fleet={1: 1, 5: 1}, row_clues=(U,) * 3, col_clues=(U,) * 3, name="ship-too-long"),
        Instance(rows=3, cols=5, fleet={1: 1, 3: 1}, row_clues=(U, 1, U), col_clues=(1, U, U, U, 1),
                 hints={(0, 2): Hint.SHIP}, name="non-square"),
        Instance(rows=4, cols=4, fleet={1: 2, 2: 1}, row_clues=(U,) * 4, col_clues=(U,) * 4,
                 hints={(1, 1): Hint.MIDDLE}, name="middle-hint-unsat"),
        Instance(rows=4, cols=4, fleet={1: 1, 3: 1}, row_clues=(U,) * 4, col_clues=(U,) * 4,
                 hints={(1, 1): Hint.MIDDLE, (3, 3): Hint.SUBMARINE}, name="middle-hint"),
        Instance(rows=3, cols=3, fleet={1: 2}, row_clues=(U,) * 3, col_clues=(U,) * 3, name="subs-3x3"),
        Instance(rows=2, cols=2, fleet={1: 2}, row_clues=(U, U), col_clues=(U, U), name="subs-2x2-unsat"),
        Instance(rows=3, cols=3, fleet={1: 2}, row_clues=(U,) * 3, col_clues=(U,) * 3, touching=True,
                 name="subs-3x3-touching"),
        Instance(rows=3, cols=4, fleet={2: 2}, row_clues=(U,) * 3, col_clues=(U,) * 4, touching=True,
                 hints={(0, 1): Hint.RIGHT}, name="touching-ends"),
        Instance(rows=4, cols=4, fleet={1: 1, 2: 1, 3: 1}, row_clues=(3, 0, 2, 1), col_clues=(1, 2, U, 1),
                 hints={(0, 0): Hint.LEFT, (2, 3): Hint.WATER}, name="clued"),
    ]


def _planted() -> list[Instance]:
    out = []
    rng = random.Random(20261121)
    while len(out) < 8:
        rows, cols = rng.randint(3, 5), rng.randint(3, 5)
        fleet = {1: rng.randint(1, 2), 2: rng.randint(0, 2), 3: rng.randint(0, 1)}
        touching = len(out) % 4 == 3
        board = random_board(rows, cols, fleet, rng, touching=touching)
        if board is None:
            continue
        out.append(instance_from_board(
            board, fleet, name=f"planted-{len(out)}", touching=touching, hint_cells=rng.randint(0, 3),
            piece_hints=len(out) % 2 == 0, unknown_clue_fraction=rng.choice([0.0, 0.3, 0.6]), rng=rng,
        ))
    return out


TINY = _hand_made() + _planted()


@pytest.fixture(scope="module")
def truth():
    return {inst.name: {b.cells for b in enumerate_boards(inst)} for inst in TINY}


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=[f"{b}/{f}" for b, f in PAIRS])
def test_count_all_equals_brute_force(isolated, truth, backend, formulation):
    for inst in TINY:
        expected = truth[inst.name]
        res = isolated.solve(inst, backend, formulation, Task.count(0), time_limit_s=60)
        assert res.status is (Status.SAT if expected else Status.UNSAT), (inst.name, res.status, res.error)
        assert res.complete, inst.name
        assert res.count == len(expected), (inst.name, res.count, len(expected))
        assert {b.cells for b in res.boards} == expected, inst.name
        assert all(v.startswith("ok") for v in res.verdicts), (inst.name, res.verdicts)


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=[f"{b}/{f}" for b, f in PAIRS])
def test_count_two_certifies_uniqueness(isolated, truth, backend, formulation):
    for inst in TINY:
        n = len(truth[inst.name])
        res = isolated.solve(inst, backend, formulation, Task.count(2), time_limit_s=60)
        assert res.count == min(n, 2), inst.name
        assert res.complete == (n < 2), inst.name  # exact only when the search was exhausted
        solve = isolated.solve(inst, backend, formulation, Task(), time_limit_s=60)
        assert solve.status is (Status.SAT if n else Status.UNSAT), inst.name
        assert solve.count == min(n, 1)


def test_tiny_set_is_not_trivial(truth):
    counts = sorted(len(v) for v in truth.values())
    assert counts[0] == 0 and counts[-1] > 2  # unsat, unique-or-few and many-board cases
    assert any(len(v) == 1 for v in truth.values())


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
