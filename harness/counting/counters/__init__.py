"""The counters: one module per counting algorithm behind :class:`Counter`, found by name without importing any.

A counter takes a :class:`~harness.counting.deployment.Deployment` and says how many
deployments (or distinct boards) it has, as an exact Python integer.  The contract:

* ``name``, ``by`` (the semantics it supports: ``deployments``, ``boards``),
  ``library`` (the package whose version identifies it, or None);
* ``available()``: None when it can run here, else one line saying how to install what
  is missing;
* ``count(dep, by, deadline)``: a :class:`CountAnswer`.  ``deadline`` is a
  ``time.monotonic()`` instant or None; a counter that can stop early returns
  ``complete=False`` with what it has; the runner enforces limits from outside anyway.
  An instance the counter cannot express raises :class:`Unsupported` with one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.core.plugins import load_plugin

BY = ("deployments", "boards")


class Unsupported(ValueError):
    """This counter cannot express this instance (one line says why)."""


@dataclass
class CountAnswer:
    """What a counter said: the count (exact int; a lower bound when not complete) and how it got there."""

    count: int | None
    complete: bool
    detail: dict[str, Any] = field(default_factory=dict)  # counter facts: states, placements, clauses, ...


class Counter:
    """Base of every counter (see the module docstring)."""

    name = "counter"
    by: tuple[str, ...] = ("deployments",)
    library: str | None = None
    requires: tuple[str, ...] = ()  # top-level modules it needs: found, never imported, by available()
    install = ""  # how to install them

    @classmethod
    def available(cls) -> str | None:
        import importlib.util

        missing = [m for m in cls.requires if importlib.util.find_spec(m) is None]
        return f"the {cls.name} counter needs {', '.join(missing)}: {cls.install}" if missing else None

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        raise NotImplementedError

    def check_by(self, by: str) -> None:
        if by not in self.by:
            raise Unsupported(f"the {self.name} counter counts by {' or '.join(self.by)}, not by {by}")


COUNTERS: dict[str, str] = {
    "dp": "harness.counting.counters.dp:DpCounter",
    "frontier": "harness.counting.counters.frontier:FrontierCounter",
    "cluster": "harness.counting.counters.cluster:ClusterCounter",
    "dlx": "harness.counting.counters.dlx:DlxCounter",
    "sharpsat": "harness.counting.counters.sharpsat:SharpSatCounter",
    "cpsat": "harness.counting.counters.cpsat:CpSatCounter",
    "sat": "harness.counting.counters.sat:SatCounter",
    "brute": "harness.counting.counters.brute:BruteCounter",
}
DEFAULT_COUNTER = "dp"


def get_counter(name: str) -> type[Counter]:
    """The counter class called ``name`` (UsageError if unknown)."""
    return load_plugin(COUNTERS, name, "counter")


__all__ = ["BY", "COUNTERS", "CountAnswer", "Counter", "DEFAULT_COUNTER", "Unsupported", "get_counter"]
