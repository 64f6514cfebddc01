"""The counting task as runs: one counter on one deployment instance, executed in a worker, judged in the caller.

``execute_count`` is the worker's part (import the counter, count, time it, catch
failures); ``judge_count`` the caller's: the verdict compares the count with the
instance's known count (``meta.expected_count``, or the manifest's), and the pure
:func:`classify_count` gives the status.  Counts stay Python integers throughout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from harness.core.failures import failure_of
from harness.core.status import Status, Termination, ended_early
from harness.counting.counters import CountAnswer, Unsupported, get_counter


@dataclass
class CountOutcome:
    """What the worker sends back for one counting run."""

    count: int | None = None
    complete: bool = False
    detail: dict[str, Any] = field(default_factory=dict)
    failure: str = ""  # one line: why no count came back
    trace: str = ""
    build_s: float = 0.0
    count_s: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    cpu_s: float | None = None
    peak_rss_mb: float | None = None


@dataclass(frozen=True)
class CountRequest:
    """What a worker needs for one counting run (picklable)."""

    instance: Any  # a Deployment
    backend: str  # the counter's name
    formulation: str  # what is counted: deployments | boards
    time_limit_s: float | None = None
    memory_mb: int | None = None


def versions_of(counter: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from harness import __version__

    out = {"battlebench": __version__}
    library = get_counter(counter).library
    if library:
        try:
            out[library] = version(library)
        except PackageNotFoundError:
            pass
    return out


def execute_count(dep: Any, counter: str, by: str, time_limit_s: float | None = None) -> CountOutcome:
    """Count in this process; failures come back as ``failure`` (never raised)."""
    t0 = time.perf_counter()
    out = CountOutcome()
    try:
        cls = get_counter(counter)
        missing = cls.available()
        if missing:
            out.failure = missing
            return out
        out.versions = versions_of(counter)
        deadline = None if time_limit_s is None else time.monotonic() + time_limit_s
        t1 = time.perf_counter()
        out.build_s = t1 - t0
        answer: CountAnswer = cls().count(dep, by, deadline)
        out.count_s = time.perf_counter() - t1
        out.count, out.complete, out.detail = answer.count, answer.complete, dict(answer.detail)
    except Unsupported as exc:
        out.failure = f"unsupported: {exc}"
    except Exception as exc:  # noqa: BLE001 - a counter's crash is a result
        out.failure, out.trace = failure_of(exc)
    return out


def expected_count(dep: Any, by: str) -> int | None:
    """The instance's known count for ``by`` (``meta.expected_count`` / ``expected_boards``), if any."""
    key = "expected_count" if by == "deployments" else "expected_boards"
    value = dep.meta.get(key)
    return int(value) if isinstance(value, (int, str)) and str(value).isdigit() else None


def classify_count(termination: Termination, count: int | None, complete: bool, expected: int | None) -> Status:
    """The status of a counting run.  Pure.

    A count that contradicts the known count is ``wrong`` (a complete count that differs,
    or a partial count already above it); then crash, memout, timeout; an incomplete count
    is a timeout; else ``sat`` (some deployment) or ``unsat`` (none).
    """
    if count is not None and expected is not None and (count != expected if complete else count > expected):
        return Status.WRONG
    early = ended_early(termination)
    if early is not None:
        return early
    if count is None or not complete:
        return Status.TIMEOUT
    return Status.SAT if count > 0 else Status.UNSAT


def verdict_of(count: int | None, complete: bool, expected: int | None) -> str:
    """``ok``, ``none`` (nothing to judge) or what is wrong with the count."""
    if count is None or expected is None:
        return "none"
    if complete and count != expected:
        return f"count {count} is not the known {expected}"
    if not complete and count > expected:
        return f"partial count {count} exceeds the known {expected}"
    return "ok"


@dataclass
class CountResult:
    """One judged counting run: what the counter said, why the run ended, whether it is right."""

    instance: str
    backend: str
    by: str
    status: Status
    termination: Termination
    count: int | None
    complete: bool
    expected: int | None
    verdict: str
    error: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    times: dict[str, float | None] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON object: the count an exact integer (JSON numbers are arbitrary precision)."""
        return {"instance": self.instance, "backend": self.backend, "by": self.by, "count": self.count,
                "complete": self.complete, "status": str(self.status), "termination": str(self.termination),
                "expected": self.expected, "verdict": self.verdict, "times": self.times,
                "detail": self.detail, "error": self.error or None}


def judge_count(request: CountRequest, kind: str, outcome: CountOutcome | None, error: str = "",
                wall_s: float | None = None, cpu_s: float | None = None) -> CountResult:
    """Judge one execution (``kind``: ok, timeout, memout, crash, as the runner measured it)."""
    termination = {"ok": Termination.COMPLETED, "timeout": Termination.TIMEOUT, "memout": Termination.MEMOUT,
                   "crash": Termination.CRASH}[kind]
    count, complete, detail, times, versions = None, False, {}, {}, {}
    if outcome is not None:
        if outcome.failure == "MemoryError":
            termination = Termination.MEMOUT
        elif outcome.failure:
            termination = Termination.CRASH
            error = error or outcome.failure
        if kind == "ok" or outcome.count is not None:
            count, complete = outcome.count, outcome.complete and kind == "ok"
        detail, versions = outcome.detail, outcome.versions
        times = {"build_s": outcome.build_s, "count_s": outcome.count_s}
        if outcome.trace:
            detail = {**detail, "trace": outcome.trace}
    times.update(wall_s=wall_s, cpu_s=cpu_s)
    expected = expected_count(request.instance, request.formulation)
    return CountResult(request.instance.name, request.backend, request.formulation,
                       classify_count(termination, count, complete, expected), termination, count, complete,
                       expected, verdict_of(count, complete, expected), error, detail, times, versions)


__all__ = ["CountOutcome", "CountResult", "judge_count", "CountRequest", "classify_count", "execute_count", "expected_count", "verdict_of",
           "versions_of"]
