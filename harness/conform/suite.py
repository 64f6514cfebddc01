"""The conformance suite: what every backend x formulation must do, checked in isolated workers.

Each check runs the backend the way campaigns do (``IsolatedSolver``: its own worker
process, limits from outside, every board through the independent verifier in the
calling process) and compares with the brute-force truth of ``harness.conform.cases``:

``count-all``  counting every board gives exactly the brute-force boards, complete;
``count-2``    counting to 2 gives min(n, 2) boards, complete only when n < 2;
``solve``      solving is sat with one board when a board exists, unsat otherwise;
``unsat``      instances past every precheck are proven unsat by the solver itself;
``verified``   no board any call returned failed the verifier, none came twice;
``limit``      counting an open 10x10 board's ~3e10 boards is stopped by the backend's
               own time limit (termination ``solver-limit``), not killed from outside.
               The limit is 1 s past twice what building that model takes in the same
               worker, measured first (a build is not the backend's to stop); the backend
               may return at most 1 s past it plus twice its slowest tiny solve here
               (what one call costs on this machine: a binary's start, a compilation --
               a loaded machine stretches both).  The worker keeps a late answer for its
               honour window after the runner's SIGTERM (a second; the test suite's pool: 5 s); a
               backend still running then is killed.

A check fails on the first case that breaks it; the detail names the case.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from harness.conform.cases import LIMIT_CASE, SOLVER_UNSAT, TINY, truth
from harness.core.status import Status, Question, Termination
from harness.tasks.solve.run import SolveResult

CHECKS = ("count-all", "count-2", "solve", "unsat", "verified", "limit")
LIMIT_S = 1.0  # the limit check's time limit
LIMIT_SLACK_S = 1.0  # how far past it the backend may return, beyond twice what its slowest tiny call took here
CASE_LIMIT_S = 60.0  # per tiny case: generous, they take milliseconds


@dataclass
class CheckResult:
    """One check of one formulation: passed or not, on how many cases, and why not."""

    formulation: str
    check: str
    passed: bool
    cases: int = 0
    seconds: float = 0.0
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"formulation": self.formulation, "check": self.check, "passed": self.passed,
                "cases": self.cases, "seconds": round(self.seconds, 3), "detail": self.detail}


def _why(res: SolveResult) -> str:
    text = res.error or res.detail
    return f"{res.status}" + (f" ({text[:160]})" if text else "")


def _count_all(res: SolveResult, name: str) -> str | None:
    expected = truth(name)
    want = Status.SAT if expected else Status.UNSAT
    if res.status is not want:
        return f"{name}: {_why(res)}, expected {want} with {len(expected)} boards"
    if not res.complete:
        return f"{name}: {res.count} boards but the search was not exhausted"
    got = {b.cells for b in res.boards}
    if got != expected:
        return f"{name}: {len(got)} boards, brute force has {len(expected)} ({len(got - expected)} extra, " \
               f"{len(expected - got)} missing)"
    return None


def _count_two(res: SolveResult, name: str) -> str | None:
    n = len(truth(name))
    if not res.decided:
        return f"{name}: {_why(res)}"
    if res.count != min(n, 2):
        return f"{name}: counted {res.count}, expected {min(n, 2)}"
    if res.complete != (n < 2):
        return f"{name}: complete={res.complete} with {n} boards in truth"
    return None


def _solve(res: SolveResult, name: str) -> str | None:
    n = len(truth(name))
    want = Status.SAT if n else Status.UNSAT
    if res.status is not want or res.count != min(n, 1):
        return f"{name}: {_why(res)} with {res.count} boards, expected {want}"
    return None


def _unsat(res: SolveResult, name: str) -> str | None:
    if res.status is not Status.UNSAT or not res.complete:
        return f"{name}: {_why(res)}, expected unsat"
    if "precheck" in res.detail or not res.model.get("variables"):
        return f"{name}: answered without building a model ({res.detail})"
    return None


_CASES: dict[str, tuple[list, Question, Callable[[SolveResult, str], str | None]]] = {
    "count-all": (TINY, Question.count(0), _count_all),
    "count-2": (TINY, Question.count(2), _count_two),
    "solve": (TINY, Question(), _solve),
    "unsat": (SOLVER_UNSAT, Question(), _unsat),
}


def _verified(seen: list[tuple[str, SolveResult]]) -> str | None:
    for name, res in seen:
        if res.status is Status.WRONG:
            bad = next((v for v in res.verdicts if not v.startswith("ok")), "")
            return f"{name}: a board failed the verifier ({bad[:160]})"
        if len({b.cells for b in res.boards}) != len(res.boards):
            return f"{name}: the same board was returned twice"
    return None


def _small_call_s(seen: list[tuple[str, SolveResult]]) -> float:
    """The wall seconds of the slowest of this formulation's tiny solves (what a call costs on this machine now)."""
    return max((r.times.get("wall_s", 0.0) for _, r in seen), default=0.0)


def _limit(solver: Any, backend: str, formulation: str, options: dict[str, Any],
           small_call_s: float = 0.0) -> tuple[str | None, float]:
    try:  # the model's build is not the backend's to stop: the limit starts after what a build takes here
        built = solver.build(LIMIT_CASE, backend, formulation, options, timeout_s=CASE_LIMIT_S)["build_s"]
    except Exception:  # noqa: BLE001 - a build that fails is the solve's to report
        built = 0.0
    limit = LIMIT_S + 2 * built
    res = solver.solve(LIMIT_CASE, backend, formulation, Question.count(0), options, time_limit_s=limit)
    wall = res.times.get("wall_s", 0.0)
    if res.termination is Termination.TIMEOUT:
        return f"killed from outside after {wall:.1f} s: the backend ignores its time limit ({limit:.3g} s)", wall
    if res.status in (Status.ERROR, Status.MEMOUT, Status.WRONG):
        return f"{LIMIT_CASE.name}: {_why(res)}", wall
    build = res.times.get("build_s") or 0.0
    # a backend stops at its limit give or take what one small call costs: a solver binary's start, a model's
    # compilation -- on a loaded machine that grows, and so does the slack
    slack = LIMIT_SLACK_S + 2 * small_call_s
    if res.termination is Termination.SOLVER_LIMIT and wall - max(limit, build) > slack:
        after = f", after a build of {build:.1f} s" if build > limit else ""
        return f"stopped {wall - max(limit, build):.1f} s past its time limit ({limit:.3g} s{after})", wall
    if res.termination is Termination.COMPLETED and res.complete:
        return f"claims to have counted all boards of {LIMIT_CASE.name} ({res.count}) in {wall:.1f} s", wall
    return None, wall


def conform(solver: Any, backend: str, formulations: list[str], options: dict[str, Any] | None = None,
            checks: tuple[str, ...] = CHECKS, progress: Callable[[CheckResult], None] | None = None,
            ) -> list[CheckResult]:
    """Run ``checks`` for each formulation of ``backend`` with ``solver`` (an ``IsolatedSolver``)."""
    options = dict(options or {})
    out: list[CheckResult] = []

    def done(row: CheckResult) -> None:
        out.append(row)
        if progress is not None:
            progress(row)

    for formulation in formulations:
        seen: list[tuple[str, SolveResult]] = []  # every result of this formulation, for "verified"
        for check in checks:
            start = time.perf_counter()
            if check in _CASES:
                cases, task, judge = _CASES[check]
                failure = None
                for inst in cases:
                    res = solver.solve(inst, backend, formulation, task, options, time_limit_s=CASE_LIMIT_S)
                    seen.append((inst.name, res))
                    failure = judge(res, inst.name)
                    if failure:
                        break
                done(CheckResult(formulation, check, failure is None, len(cases),
                                 time.perf_counter() - start, failure or ""))
            elif check == "verified":
                failure = _verified(seen)
                boards = sum(len(r.boards) for _, r in seen)
                done(CheckResult(formulation, check, failure is None, boards, 0.0,
                                 failure or f"{boards} boards verified"))
            elif check == "limit":
                failure, wall = _limit(solver, backend, formulation, options, _small_call_s(seen))
                done(CheckResult(formulation, check, failure is None, 1, time.perf_counter() - start,
                                 failure or f"stopped itself after {wall:.1f} s"))
            else:
                raise ValueError(f"unknown conformance check {check!r}")
    return out


__all__ = ["CHECKS", "CheckResult", "LIMIT_CASE", "conform"]
