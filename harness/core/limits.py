"""The limits of a run -- time, memory, grace, output, warm-up: one value, its defaults and its range check.

A :class:`Limits` is built here and nowhere else (:meth:`Limits.checked`: from a config's
``[limits]``, the command line's ``--time-limit``/``--memory-mb``/``--grace`` and the
Python API alike), carried by the run's spec and the request it sends to the worker, and
read by the worker pool that enforces it.  One word each: ``time_s`` is the limit itself
(a length of time; the record column ``time_limit_s`` and the option ``--time-limit``
keep their names), a *deadline* is the point in time it ends at (start + ``time_s``), and
*remaining* is what is left of it at some moment (a backend's own budget after its build).

Pure but for one thing: :func:`current` is the limits of the run in progress in this process (the worker sets
them around each run, :func:`running`), for a backend that enforces one itself (the tool backend's output cap).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.errors import LimitError

DEFAULT_TIME_S = 60.0
DEFAULT_MEMORY_MB = 4096
DEFAULT_GRACE_S = 5.0
DEFAULT_OUTPUT_MB = 64
"""What a run's tool processes may write on stdout and stderr together (MiB) before the run is stopped
(``error``, termination ``output-limit``)."""
MIN_MEMORY_MB = 64  # a Python worker needs that much
MEMOUT_HINTS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory", "Out of memory")
"""What a process that failed to allocate at its memory limit says (Python, C++, libc, the JVM, most C solvers)."""
WARM_S = 300.0
WARM_MIN_S = 60.0
"""A new worker's warm-up (imports, compilation, a first tiny run) runs outside the runs' time limits, under their
memory limit, for as long as a run may take, at least :data:`WARM_MIN_S` and at most :data:`WARM_S`
(:attr:`Limits.warm_s`); what it took is recorded with the run that follows it (``warmup_s``)."""


@dataclass(frozen=True)
class Limits:
    """The limits of one run (every run of a campaign, or a single-shot command's).

    ``time_s``: wall-clock seconds, enforced from outside (SIGTERM at the limit; None: none);
    ``memory_mb``: the worker's memory limit in MB (None: none); ``grace_s``: seconds from
    the SIGTERM to the SIGKILL; ``output_mb``: the MiB of stdout and stderr a run's tool processes may write
    (None: no cap; not part of run ids, and part of a config's hash only when not the default).  The defaults
    are a campaign's; build one with :meth:`checked` wherever the values come from a user.
    """

    time_s: float | None = DEFAULT_TIME_S
    memory_mb: int | None = DEFAULT_MEMORY_MB
    grace_s: float = DEFAULT_GRACE_S
    output_mb: int | None = DEFAULT_OUTPUT_MB

    @classmethod
    def checked(cls, **given: float | int | None) -> "Limits":
        """The limits of the values ``given`` (``time_s``, ``memory_mb``, ``grace_s``, ``output_mb``; a key left
        out takes the default; ``time_s``/``memory_mb``/``output_mb`` None: no limit; ``grace_s`` None: the
        default), range-checked: a :class:`~harness.errors.LimitError` names the field and the problem, the caller
        says where."""
        unknown = set(given) - {"time_s", "memory_mb", "grace_s", "output_mb"}
        if unknown:
            raise TypeError(f"Limits.checked() got unknown limits {sorted(unknown)}")
        time_s = given.get("time_s", DEFAULT_TIME_S)
        memory_mb = given.get("memory_mb", DEFAULT_MEMORY_MB)
        grace_s = given.get("grace_s")
        output_mb = given.get("output_mb", DEFAULT_OUTPUT_MB)
        if time_s is not None and not 0 < time_s < 1e7:
            raise LimitError("time_s", f"must be a number of seconds > 0, not {time_s:g}")
        if memory_mb is not None and memory_mb < MIN_MEMORY_MB:
            raise LimitError("memory_mb", f"must be at least {MIN_MEMORY_MB} (a Python worker needs that much), "
                             f"not {memory_mb:g}")
        if grace_s is not None and not 0 <= grace_s < 1e5:
            raise LimitError("grace_s", f"must be a number of seconds >= 0, not {grace_s:g}")
        if output_mb is not None and not 1 <= output_mb < 1e7:
            raise LimitError("output_mb", f"must be a number of MiB >= 1, not {output_mb:g}")
        return cls(time_s, memory_mb, DEFAULT_GRACE_S if grace_s is None else grace_s,  # as given: run ids hash them
                   output_mb)

    @property
    def warm_s(self) -> float:
        """How long a new worker's warm-up may take (module doc)."""
        return WARM_S if self.time_s is None else min(WARM_S, max(WARM_MIN_S, self.time_s))


NO_LIMITS = Limits(None, None)
"""No time nor memory limit (a request that names none: the pool's ``pid`` call, an in-process run); the output
cap is the default."""

_current: Limits = NO_LIMITS


def current() -> Limits:
    """The limits of the run in progress in this process (:data:`NO_LIMITS` outside a worker's run)."""
    return _current


class running:
    """``with running(limits):`` -- the worker's run under ``limits`` (what :func:`current` says meanwhile)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def __enter__(self) -> Limits:
        global _current
        self.before, _current = _current, self.limits
        return self.limits

    def __exit__(self, *exc: object) -> None:
        global _current
        _current = self.before


__all__ = ["DEFAULT_GRACE_S", "DEFAULT_MEMORY_MB", "DEFAULT_OUTPUT_MB", "DEFAULT_TIME_S", "Limits", "LimitError",
           "MEMOUT_HINTS", "MIN_MEMORY_MB", "NO_LIMITS", "WARM_MIN_S", "WARM_S", "current", "running"]
