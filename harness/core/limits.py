"""The limits of a run -- time, memory, grace, warm-up: one value, its defaults and its range check.  Pure.

A :class:`Limits` is built here and nowhere else (:meth:`Limits.checked`: from a config's
``[limits]``, the command line's ``--time-limit``/``--memory-mb``/``--grace`` and the
Python API alike), carried by the run's spec and the request it sends to the worker, and
read by the worker pool that enforces it.  One word each: ``time_s`` is the limit itself
(a length of time; the record column ``time_limit_s`` and the option ``--time-limit``
keep their names), a *deadline* is the point in time it ends at (start + ``time_s``), and
*remaining* is what is left of it at some moment (a backend's own budget after its build).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.errors import LimitError

DEFAULT_TIME_S = 60.0
DEFAULT_MEMORY_MB = 4096
DEFAULT_GRACE_S = 5.0
MIN_MEMORY_MB = 64  # a Python worker needs that much
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
    the SIGTERM to the SIGKILL.  The defaults are a campaign's; build one with
    :meth:`checked` wherever the values come from a user.
    """

    time_s: float | None = DEFAULT_TIME_S
    memory_mb: int | None = DEFAULT_MEMORY_MB
    grace_s: float = DEFAULT_GRACE_S

    @classmethod
    def checked(cls, **given: float | int | None) -> "Limits":
        """The limits of the values ``given`` (``time_s``, ``memory_mb``, ``grace_s``; a key left out takes the
        default; ``time_s``/``memory_mb`` None: no limit; ``grace_s`` None: the default), range-checked: a
        :class:`~harness.errors.LimitError` names the field and the problem, the caller says where."""
        unknown = set(given) - {"time_s", "memory_mb", "grace_s"}
        if unknown:
            raise TypeError(f"Limits.checked() got unknown limits {sorted(unknown)}")
        time_s = given.get("time_s", DEFAULT_TIME_S)
        memory_mb = given.get("memory_mb", DEFAULT_MEMORY_MB)
        grace_s = given.get("grace_s")
        if time_s is not None and not 0 < time_s < 1e7:
            raise LimitError("time_s", f"must be a number of seconds > 0, not {time_s:g}")
        if memory_mb is not None and memory_mb < MIN_MEMORY_MB:
            raise LimitError("memory_mb", f"must be at least {MIN_MEMORY_MB} (a Python worker needs that much), "
                             f"not {memory_mb:g}")
        if grace_s is not None and not 0 <= grace_s < 1e5:
            raise LimitError("grace_s", f"must be a number of seconds >= 0, not {grace_s:g}")
        return cls(time_s, memory_mb, DEFAULT_GRACE_S if grace_s is None else grace_s)  # as given: run ids hash them

    @property
    def warm_s(self) -> float:
        """How long a new worker's warm-up may take (module doc)."""
        return WARM_S if self.time_s is None else min(WARM_S, max(WARM_MIN_S, self.time_s))


NO_LIMITS = Limits(None, None)
"""No time nor memory limit (a request that names none: the pool's ``pid`` call, an in-process run)."""


__all__ = ["DEFAULT_GRACE_S", "DEFAULT_MEMORY_MB", "DEFAULT_TIME_S", "Limits", "LimitError", "MIN_MEMORY_MB",
           "NO_LIMITS", "WARM_MIN_S", "WARM_S"]
