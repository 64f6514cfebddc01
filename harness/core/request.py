"""What crosses to a worker and back: the request, the worker's outcome, the judged run, its timing and termination.

Each task's request class subclasses :class:`Request` (picklable; it names its warm worker and
carries its :class:`~harness.core.limits.Limits`); the worker answers a :class:`WorkerOutcome`;
the task's ``execute`` returns an :class:`Executed`.  :data:`TERMINATIONS` is the one table from
how the runner saw an execution end to the run's termination.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from harness.core.limits import NO_LIMITS, Limits
from harness.core.status import Termination


def worker_key(plugin: str, options: dict[str, Any] | None = None) -> str:
    """A worker key: ``plugin`` alone, or ``plugin {json options}`` (pairs with other options never share a
    process: one's solver state, loaded libraries or reserved address space cannot reach another)."""
    if not options:
        return plugin
    import json

    return f"{plugin} {json.dumps(options, sort_keys=True, default=str)}"


class Request:
    """What a worker gets for one run (picklable); each task's request class subclasses it.

    ``limits`` is its :class:`~harness.core.limits.Limits` (a field of the subclass: the
    run spec's limits, the one channel from the config or command line to the worker);
    ``key()`` names the warm worker it runs in (runs of one key share a process, runs of
    two keys never do); ``execute()`` is the part the worker does, its failures caught
    and returned (an exception escaping it is recorded as a crash); ``warm()`` imports
    what the runs of this key need, in a new worker before its first run, and returns
    versions; ``kernels()`` names the harness's numba kernel modules that warm-up compiles
    (the pool says so on stderr when they are not cached yet:
    :func:`harness.core.jitcache.announce`); ``memory_limit_by()`` says how the memory limit
    holds: ``address-space`` (``RLIMIT_AS``) or ``rss`` (sampled from outside).
    """

    limits: Limits = NO_LIMITS

    def key(self) -> str:
        raise NotImplementedError

    def execute(self) -> Any:
        raise NotImplementedError

    def warm(self) -> dict[str, str]:
        return {}

    def kernels(self) -> tuple[str, ...]:
        return ()

    def memory_limit_by(self) -> str:
        return "address-space"

    def budget(self) -> Limits:
        """The limits the runner holds this request to: its limits, unless it spends time after its answer (a
        proof's check, :class:`harness.tasks.solve.run.RunRequest`)."""
        return limits_of(self)


def limits_of(request: Any) -> Limits:
    """The limits ``request`` carries.  A request of a plugin task written before requests carried
    :class:`Limits` (``time_limit_s`` and ``memory_mb`` attributes) is read as those, with the default grace."""
    limits = getattr(request, "limits", None)
    if isinstance(limits, Limits) and (limits is not NO_LIMITS or not hasattr(request, "time_limit_s")):
        return limits
    return Limits(getattr(request, "time_limit_s", None), getattr(request, "memory_mb", None))


def budget_of(request: Any) -> Limits:
    """:meth:`Request.budget` of ``request`` (its limits for a plugin task's request without the method)."""
    budget = getattr(request, "budget", None)
    return budget() if callable(budget) else limits_of(request)


@dataclass
class WorkerOutcome:
    """What a worker sends back for one run: the task's own fields, and these the worker fills in."""

    failure: str = ""  # "" ran to its end; "memout" or "MemoryError": out of memory; else one line why not
    cpu_s: float | None = None  # user + system CPU of the worker and its children during the run
    peak_rss_mb: float | None = None

    def summary(self) -> str:
        """What this answer said, in a few words (the runner's note on a late answer)."""
        return type(self).__name__


@dataclass
class Executed:
    """One run executed and judged: its record (what the store keeps) and the task's result (what a
    single-shot command shows)."""

    record: dict[str, Any]
    result: Any = None
    files: dict[str, bytes] | None = None  # what the run keeps beside the store: path in the output folder -> bytes


KEPT_FILES = "kept files"
"""The key under which a record travels with its :attr:`Executed.files` from the executor to the store (taken
off before the record is stored: :meth:`harness.store.sqlite.ResultsStore.keep`)."""


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def times_of(wall_s: float) -> tuple[str, str]:
    """(started_at, ended_at) of a run that ended now after ``wall_s`` seconds."""
    ended = dt.datetime.now(dt.timezone.utc)
    started = ended - dt.timedelta(seconds=wall_s)
    return started.isoformat(timespec="milliseconds"), ended.isoformat(timespec="milliseconds")


TERMINATIONS = {"ok": Termination.COMPLETED, "timeout": Termination.TIMEOUT, "memout": Termination.MEMOUT,
                "crash": Termination.CRASH}
"""The one table from how the runner saw an execution end (its ``kind``) to the run's termination."""


def termination_of(kind: str) -> Termination:
    """The termination of an execution as the runner measured it (``ok``: the worker answered)."""
    return TERMINATIONS[kind]
