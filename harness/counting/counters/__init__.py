"""The counters: one module per counting algorithm behind :class:`Counter`, a plugin family found by name.

A counter takes a :class:`~harness.counting.deployment.Deployment` and says how many
deployments (or distinct boards) it has, as an exact Python integer.  The contract (the
page ``docs/reference/plugins/counters.md``; ``battlebench conform --counter NAME`` qualifies one):

* ``name``, ``by`` (the semantics it supports: ``deployments``, ``boards``), ``options``
  (``{name: Option(default, type, ...)}``: a counter takes only the options it declares,
  converted to their types, in ``self.opts``; a pair ``dp[split=2]/deployments``),
  ``library`` (the package that does the counting, whose version names the run's solver;
  None when the algorithm is battlebench's own), ``packages`` (every package whose version
  a record keeps), ``requires``/``install`` (modules it needs; how to install them);
* ``available()``: None when it can run here, else one line saying how to install what
  is missing;
* ``refuses(dep, by)``: None when the counter takes the instance, else one line why not
  (cheap, pure: nothing is counted); a counter that says None here must not raise
  :class:`Unsupported` for that instance;
* ``count(dep, by, deadline)``: a :class:`CountAnswer`.  ``deadline`` is a
  ``time.monotonic()`` instant or None; a counter that can stop early returns
  ``complete=False`` with what it has; the runner enforces limits from outside anyway.
  An instance the counter cannot express raises :class:`Unsupported` with one line.

Built-ins are :data:`COUNTERS`; an installed distribution adds one as an entry point of
the group ``battlebench.counters``; ``module:Class`` names any class (:data:`FAMILY`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.core.options import Option, resolve
from harness.core.plugins import Family, named_version, overridden, own_versions
from harness.errors import Unsupported  # re-exported from its old home

BY = ("deployments", "boards")


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
    library: str | None = None  # the distribution that counts (None: battlebench's own algorithm)
    packages: tuple[str, ...] = ()  # further distributions whose versions a record keeps (a compiler, ...)
    requires: tuple[str, ...] = ()  # top-level modules it needs: found, never imported, by available()
    install = ""  # how to install them
    options: dict[str, Option] = {}

    def __init__(self, **options: Any):
        self.opts = self.resolve_options(options)

    @classmethod
    def resolve_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in, converted to their declared types; unknown names and bad values a UsageError."""
        return resolve(cls.options, given, f"counter {cls.name}")

    @classmethod
    def versions(cls) -> dict[str, str]:
        """Versions of the code that counts: the counter's own distribution, its library and packages."""
        from importlib.metadata import PackageNotFoundError, version

        out = own_versions(cls)
        for package in (cls.library, *cls.packages):
            if package:
                try:
                    out[package] = version(package)
                except PackageNotFoundError:
                    out[package] = "not installed"
        return out

    @classmethod
    def solver_label(cls, versions: dict[str, str]) -> str | None:
        """``"NAME VERSION"`` of what counted: the library, else the counter's own distribution."""
        return named_version(versions, cls.library, *own_versions(cls))

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        """None when this counter takes ``dep`` counted ``by``, else one line saying why not (nothing counted)."""
        if by not in cls.by:
            return f"the {cls.name} counter counts by {' or '.join(cls.by)}, not by {by}"
        return None

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
    "profile": "harness.counting.counters.profile:ProfileCounter",
    "cluster": "harness.counting.counters.cluster:ClusterCounter",
    "dlx": "harness.counting.counters.dlx:DlxCounter",
    "sharpsat": "harness.counting.counters.sharpsat:SharpSatCounter",
    "cpsat": "harness.counting.counters.cpsat:CpSatCounter",
    "sat": "harness.counting.counters.sat:SatCounter",
    "brute": "harness.counting.counters.brute:BruteCounter",
}
DEFAULT_COUNTER = "dp"


def _contract(cls: type[Counter]) -> list[str]:
    """What keeps a subclass of Counter from being a counter (empty: nothing)."""
    problems = []
    if not isinstance(cls.name, str) or not cls.name or cls.name == Counter.name:
        problems.append("its name is not set")
    if not isinstance(cls.by, tuple) or not cls.by or any(b not in BY for b in cls.by):
        problems.append(f"by must be a non-empty tuple of {', '.join(BY)}")
    if cls.library is not None and not isinstance(cls.library, str):
        problems.append("library must be a distribution's name or None")
    if not isinstance(cls.options, dict) or not all(isinstance(o, Option) for o in cls.options.values()):
        problems.append("options must be a dict of Option")
    if not isinstance(cls.requires, tuple) or not all(isinstance(m, str) for m in cls.requires):
        problems.append("requires must be a tuple of module names")
    if not overridden(cls, Counter, "count"):
        problems.append("it does not implement count()")
    return problems


FAMILY = Family("counter", "battlebench.counters", COUNTERS, base="harness.counting.counters:Counter",
                check=_contract, default=DEFAULT_COUNTER)


def get_counter(name: str) -> type[Counter]:
    """The counter class called ``name`` (UsageError if unknown, not importable or not a counter)."""
    return FAMILY.load(name)


__all__ = ["BY", "COUNTERS", "CountAnswer", "Counter", "DEFAULT_COUNTER", "FAMILY", "Unsupported", "get_counter"]
