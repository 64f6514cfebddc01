"""The asp backend (clingo): counts against brute force in both formulations, projection onto ship cells, the
count limit, the time limit."""

from __future__ import annotations

import pytest

from harness.backends.registry import get_backend
from harness.conform.cases import LIMIT_CASE
from harness.core.status import Status, Question
from harness.puzzle.verify import verify
from tiny import MANY, SOLVER_UNSAT, TINY, assert_sound, truth

FORMULATIONS = ("placement", "cell")


def _skip_unavailable():
    missing = get_backend("asp").available()
    if missing:
        pytest.skip(missing)


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_every_tiny_puzzle_has_exactly_the_brute_force_boards(isolated, formulation):
    _skip_unavailable()
    for inst in TINY + MANY + SOLVER_UNSAT:
        res = isolated.solve(inst, "asp", formulation, Question.count(0), None, 60)
        assert_sound(res, inst)
        assert {b.cells for b in res.boards} == truth(inst.name), (formulation, inst.name)
        assert res.complete and "projected onto ship cells" in (res.detail or "") or "precheck" in res.detail


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_a_board_with_several_decompositions_counts_once(isolated, formulation):
    """Ships may touch: one set of ship cells can be cut into ships in several ways (or spelled by several
    symbol grids); the projection counts it once, as the brute force does."""
    _skip_unavailable()
    touching = [inst for inst in TINY + MANY if inst.touching and len(truth(inst.name)) > 1]
    assert touching
    for inst in touching:
        res = isolated.solve(inst, "asp", formulation, Question.count(0), None, 60)
        assert res.count == len(truth(inst.name)), inst.name


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_count_k_stops_at_k_and_the_time_limit_is_a_timeout(isolated, formulation):
    _skip_unavailable()
    many = max(MANY, key=lambda inst: len(truth(inst.name)))
    res = isolated.solve(many, "asp", formulation, Question.count(2), None, 60)
    assert res.status is Status.SAT and res.count == 2 and not res.complete
    res = isolated.solve(LIMIT_CASE, "asp", formulation, Question.count(0), None, 2.0)
    # how many boards 2 s of wall time finds depends on the machine's load (maybe none): what was found is counted
    assert res.status is Status.TIMEOUT and not res.complete and res.count == len(res.boards), res.detail
    assert "cancelled at the time limit" in res.detail and all(verify(LIMIT_CASE, b).ok for b in res.boards)
    assert res.times["cpu_s"] < 2.0 + 4  # CPU seconds: work past the limit, which a loaded machine does not inflate
