"""classify() from a table of cases: no processes, no solvers."""

import pytest

from harness.core.status import Status, Question, Termination, classify

C, L, T, M, X = (Termination.COMPLETED, Termination.SOLVER_LIMIT, Termination.TIMEOUT,
                 Termination.MEMOUT, Termination.CRASH)
SOLVE, COUNT2, ALL = Question(), Question.count(2), Question.count(0)

CASES = [
    # task, termination, boards, exhausted, verdicts_ok, expected
    (SOLVE, C, 1, False, True, Status.SAT),
    (SOLVE, C, 0, True, True, Status.UNSAT),
    (SOLVE, L, 0, False, True, Status.TIMEOUT),
    (SOLVE, L, 1, False, True, Status.SAT),  # found before the limit: decided
    (SOLVE, C, 1, False, False, Status.WRONG),
    (SOLVE, X, 1, False, False, Status.WRONG),  # a wrong board wins over a crash
    (SOLVE, X, 0, False, True, Status.ERROR),
    (SOLVE, M, 0, False, True, Status.MEMOUT),
    (SOLVE, T, 1, False, True, Status.TIMEOUT),  # late answers are detail, not solves
    (COUNT2, C, 1, True, True, Status.SAT),  # unique, proven
    (COUNT2, L, 1, False, True, Status.TIMEOUT),  # uniqueness not proven
    (COUNT2, C, 2, False, True, Status.SAT),  # two boards: not unique, decided
    (COUNT2, C, 0, True, True, Status.UNSAT),
    (ALL, C, 51, True, True, Status.SAT),
    (ALL, L, 51, False, True, Status.TIMEOUT),
    # gave up within its limits, undecided (a tool's s UNKNOWN well before its limit): unknown, not a timeout
    (SOLVE, C, 0, False, True, Status.UNKNOWN),
    (COUNT2, C, 1, False, True, Status.UNKNOWN),  # one board, then gave up: uniqueness not proven
    (ALL, C, 51, False, True, Status.UNKNOWN),
    (ALL, C, 51, False, False, Status.WRONG),
]


@pytest.mark.parametrize("task,term,n,exhausted,ok,expected", CASES)
def test_classify(task, term, n, exhausted, ok, expected):
    assert classify(task, term, n, exhausted, ok) is expected


def test_task_validation():
    with pytest.raises(ValueError):
        Question("count", -1)
    with pytest.raises(ValueError):
        Question("enumerate", 1)
    assert Question.count(0).limit is None and Question.count(2).label == "count-2"


def test_the_solve_tasks_question_has_one_name():
    import harness.core
    import harness.core.status as status

    assert not hasattr(status, "Task") and "Task" not in harness.core.__all__


def test_every_status_is_in_the_store_vocabulary_and_unknown_and_lost_shown_only_where_present():
    from harness.core.record import STATUS_VALUES
    from harness.core.status import STATUS_ORDER, shown_statuses

    assert set(STATUS_VALUES) == {str(s) for s in Status} and set(STATUS_ORDER) == set(STATUS_VALUES) - {"refused"}
    assert "unknown" not in shown_statuses(["sat", "timeout"]) and "lost" not in shown_statuses(["sat"])
    assert shown_statuses(["unknown", "lost"]) == STATUS_ORDER
    assert shown_statuses(["lost"]) == tuple(s for s in STATUS_ORDER if s != "unknown")
