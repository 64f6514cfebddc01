"""The solve pipeline with the fake backend: verification, classification, isolation."""

from __future__ import annotations

import time

import pytest

from harness.core.status import Status, Question, Termination
from harness.errors import UsageError
from harness.puzzle.instance import Instance
from harness.tasks.isolated import IsolatedSolver
from harness.tasks.solve.run import solve_in_process

# 3x3, one submarine per row... a 3x3 board with fleet {1: 2}
GOOD = ("O.O", "...", "...")
TOUCHING = ("OO.", "...", "...")


def tiny(boards=(GOOD,)) -> Instance:
    return Instance(
        rows=3, cols=3, fleet={1: 2}, row_clues=(None,) * 3, col_clues=(None,) * 3,
        name="tiny", meta={"fake_boards": [list(b) for b in boards]},
    )


def test_verified_board_is_sat_and_shown():
    res = solve_in_process(tiny(), "fake", "placement")
    assert res.status is Status.SAT and res.termination is Termination.COMPLETED
    assert res.count == 1 and res.complete
    assert res.to_json()["boards"] == [list(GOOD)]


def test_board_failing_the_verifier_is_wrong_and_never_shown():
    res = solve_in_process(tiny((TOUCHING,)), "fake", "placement")
    assert res.status is Status.WRONG
    assert "touch" in res.verdicts[0]
    out = res.to_json()
    assert out["boards"] == [] and out["rejected_boards"] == [list(TOUCHING)]


def test_one_wrong_board_among_good_ones_makes_the_run_wrong():
    res = solve_in_process(tiny((GOOD, TOUCHING)), "fake", "placement", Question.count(2))
    assert res.status is Status.WRONG


def test_duplicate_boards_count_once():
    res = solve_in_process(tiny((GOOD, GOOD)), "fake", "placement", Question.count(0))
    assert res.count == 1 and res.status is Status.SAT


def test_no_board_and_exhausted_is_unsat_but_not_exhausted_is_unknown_or_at_a_limit_timeout():
    assert solve_in_process(tiny(()), "fake", "cell").status is Status.UNSAT
    res = solve_in_process(tiny(()), "fake", "cell", options={"exhausted": "false"})
    assert res.status is Status.UNKNOWN  # it returned on its own, undecided: no limit ended it
    res = solve_in_process(tiny(()), "fake", "cell", options={"mode": "limit"}, time_limit_s=0.2)
    assert res.status is Status.TIMEOUT  # its own limit stopped it


def test_count_two_with_one_board_needs_proof_of_exhaustion():
    res = solve_in_process(tiny(), "fake", "placement", Question.count(2), {"exhausted": False})
    assert res.status is Status.UNKNOWN and not res.complete  # returned undecided, within its limit
    out = res.to_json()
    assert out["boards"] == [] and out["partial_boards"] == [list(GOOD)]


def test_precheck_decides_unsat_without_the_backend():
    inst = Instance(rows=2, cols=2, fleet={1: 1}, row_clues=(1, 1), col_clues=(1, 0), name="bad-sums")
    res = solve_in_process(inst, "fake", "placement", options={"mode": "raise"})
    assert res.status is Status.UNSAT and "precheck" in res.detail


def test_backend_exception_is_an_error_with_its_message():
    res = solve_in_process(tiny(), "fake", "placement", options={"mode": "raise"})
    assert res.status is Status.ERROR and "raised on request" in res.error


def test_usage_errors_are_raised_before_any_work():
    with pytest.raises(UsageError, match="unknown backend"):
        solve_in_process(tiny(), "nosuch", "placement")
    with pytest.raises(UsageError, match="no formulation"):
        solve_in_process(tiny(), "fake", "ship-pairs")
    with pytest.raises(UsageError, match="no option"):
        solve_in_process(tiny(), "fake", "placement", options={"colour": "red"})
    with pytest.raises(UsageError, match="must be one of"):
        solve_in_process(tiny(), "fake", "placement", options={"mode": "dance"})


def test_isolated_worker_is_killed_past_limit_plus_grace():
    with IsolatedSolver(grace_s=0.5) as iso:
        start = time.perf_counter()
        res = iso.solve(tiny(), "fake", "placement", options={"mode": "sleep", "seconds": 600}, time_limit_s=0.5)
        took = time.perf_counter() - start
        assert res.status is Status.TIMEOUT and res.termination is Termination.TIMEOUT
        # killed at limit + grace, not after the fake's 600 s: a hang detector (a loaded machine's spawn and kill
        # take seconds, not minutes), no time limit
        assert res.times["wall_s"] >= 0.5 and took < 300
        # the worker is replaced: the next run works
        assert iso.solve(tiny(), "fake", "placement").status is Status.SAT


@pytest.mark.parametrize("mode", ["crash", "exit"])
def test_isolated_worker_crash_is_an_error(mode):
    with IsolatedSolver(grace_s=1) as iso:
        res = iso.solve(tiny(), "fake", "placement", options={"mode": mode}, time_limit_s=10)
        assert res.status is Status.ERROR and res.termination is Termination.CRASH
        assert "died" in res.error
        assert iso.solve(tiny(), "fake", "placement").status is Status.SAT
