"""The counters' conformance suite: what every counter must do, checked in isolated workers.

Each check runs the counter the way campaigns do (the count task's own path: the
counter's worker, limits from outside, the count judged in this process) on the
catalogue of :mod:`harness.conform.deployments`, against brute force:

``count``    every case it takes (its ``refuses()`` says None), counted by each semantics it
             declares, gives exactly the brute-force count, complete; at least one case is taken;
``refuses``  its ``refuses()`` predicate is what it does: every case it declines ends as a
             ``refused`` run (it raised ``Unsupported``), never a crash or a count;
``limit``    on a board no enumeration counts in seconds (the standard fleet on 12 x 12, ships
             apart: 85,700,116,176 deployments), under a 2 s limit, the run either gives that
             exact count or ends as a timeout (stopped by itself with what it has, or killed
             from outside) whose partial count is not above it: never a wrong count, a crash or
             a memout.

A check fails on the first case that breaks it; the detail names the case.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from harness.conform.deployments import CASES, LIMIT_CASE, LIMIT_COUNT, truth
from harness.conform.suite import CheckResult
from harness.core.status import Status
from harness.core.task import Limits, PairSpec, Subject, TaskSpec, make_spec

CHECKS = ("count", "refuses", "limit")
CASE_LIMIT_S = 60.0  # per tiny case: generous, they take milliseconds
LIMIT_S = 2.0


def _run(pool: Any, counter: str, dep: Any, by: str, limit_s: float, grace_s: float, options: tuple = ()) -> Any:
    from harness.tasks.count import CountTask

    subject = Subject(dep.name, dep, dep.name, dep.content_hash())
    spec = make_spec(subject, PairSpec(counter, by, options), TaskSpec("count", by), None, 1,
                     Limits(limit_s, None, grace_s))
    return CountTask().execute(pool, spec, trust_refuses=False).result  # count() itself, whatever refuses() says


def _why(res: Any) -> str:
    return f"{res.status}" + (f" ({res.error[:160]})" if res.error else "")


def _count(pool: Any, name: str, cls: Any, grace_s: float, options: tuple = ()) -> tuple[str | None, int]:
    taken = 0
    for dep in CASES:
        for by in cls.by:
            if cls.refuses(dep, by):
                continue
            taken += 1
            res = _run(pool, name, dep, by, CASE_LIMIT_S, grace_s, options)
            want = truth(dep.name, by)
            if res.status is Status.REFUSED:
                return f"{dep.name} by {by}: refused though its refuses() takes it: {res.error[:160]}", taken
            if res.status not in (Status.SAT, Status.UNSAT) or not res.complete:
                return f"{dep.name} by {by}: {_why(res)}, expected the complete count {want:,}", taken
            if res.count != want:
                return f"{dep.name} by {by}: counted {res.count:,}, brute force has {want:,}", taken
    if not taken:
        return "it takes none of the catalogue's cases (its refuses() declines them all)", taken
    return None, taken


def _refuses(pool: Any, name: str, cls: Any, grace_s: float, options: tuple = ()) -> tuple[str | None, int]:
    declined = 0
    for dep in CASES:
        for by in cls.by:
            why = cls.refuses(dep, by)
            if not why:
                continue
            declined += 1
            res = _run(pool, name, dep, by, CASE_LIMIT_S, grace_s, options)
            if res.status is not Status.REFUSED:
                return (f"{dep.name} by {by}: its refuses() declines it ({why[:80]}) but the run ended "
                        f"{_why(res)}" + (f" with {res.count:,}" if res.count is not None else "")), declined
    return None, declined


def _limit(pool: Any, name: str, cls: Any, grace_s: float, options: tuple = ()) -> tuple[str, str | None]:
    by = "deployments" if "deployments" in cls.by else cls.by[0]
    if cls.refuses(LIMIT_CASE, by):
        return "declined (its refuses() says so)", None
    res = _run(pool, name, LIMIT_CASE, by, LIMIT_S, grace_s, options)
    wall = res.times.get("wall_s") or 0.0
    if res.status is Status.REFUSED:
        return "", f"{LIMIT_CASE.name}: refused though its refuses() takes it: {res.error[:160]}"
    if by == "deployments" and res.count is not None and (res.count != LIMIT_COUNT if res.complete
                                                          else res.count > LIMIT_COUNT):
        return "", (f"{LIMIT_CASE.name}: {'counted' if res.complete else 'a partial count of'} {res.count:,}, the "
                    f"count is {LIMIT_COUNT:,}")
    if res.status in (Status.SAT, Status.UNSAT):
        return f"counted {res.count:,} exactly in {wall:.1f} s", None
    if res.status is Status.TIMEOUT:
        how = "killed from outside" if str(res.termination) == "timeout" else "stopped by itself"
        return f"{how} after {wall:.1f} s" + (f" with a partial {res.count:,}" if res.count is not None else ""), None
    return "", f"{LIMIT_CASE.name}: {_why(res)}"


def conform_counter(pool: Any, name: str, checks: tuple[str, ...] = CHECKS, grace_s: float = Limits.grace_s,
                    progress: Callable[[CheckResult], None] | None = None,
                    options: dict[str, Any] | None = None) -> list[CheckResult]:
    """Run ``checks`` on the counter ``name`` (a name or ``module:Class``) with ``options`` in ``pool``'s
    workers."""
    from harness.counting.counters import get_counter

    cls = get_counter(name)
    resolved = cls.resolve_options(options or {})
    given = tuple(sorted((k, resolved[k]) for k in options or {}))
    out: list[CheckResult] = []
    for check in checks:
        start = time.perf_counter()
        if check == "count":
            failure, n = _count(pool, name, cls, grace_s, given)
            row = CheckResult("-", check, failure is None, n, time.perf_counter() - start,
                              failure or f"{n} counts equal brute force")
        elif check == "refuses":
            failure, n = _refuses(pool, name, cls, grace_s, given)
            row = CheckResult("-", check, failure is None, n, time.perf_counter() - start,
                              failure or f"{n} declined cases refused cleanly")
        elif check == "limit":
            said, failure = _limit(pool, name, cls, grace_s, given)
            row = CheckResult("-", check, failure is None, 1, time.perf_counter() - start, failure or said)
        else:
            raise ValueError(f"unknown conformance check {check!r}")
        out.append(row)
        if progress is not None:
            progress(row)
    return out


__all__ = ["CHECKS", "conform_counter"]
