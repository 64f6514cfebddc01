"""Plugin families: named classes found as built-ins, entry points or ``module:Class``, checked on load.

Every family -- backends, counters, strategies, tasks -- has this one shape:

* **built-ins**: a table of ``name -> "module:Class"`` (importing the table imports
  nothing; a class is imported when it is asked for);
* **entry points**: an installed distribution declares ``name = "module:Class"`` in the
  family's group (``battlebench.backends``, ``battlebench.counters``,
  ``battlebench.strategies``, ``battlebench.tasks``); a built-in's name cannot be taken;
* **references**: ``module:Class`` written where a name goes, imported from the installed
  packages, ``PYTHONPATH`` or the current directory;
* a **contract check** on load: the class must subclass the family's base and fill in
  what the base leaves open; what it lacks is listed in one line.

Every failure to find, import or accept a plugin is one :class:`~harness.errors.UsageError`
naming it, raised before any run starts.

The installed distributions' entry points are read once per process (every group at once) and only when
a name is not a built-in's: a run of built-ins reads none.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

from harness.errors import UsageError


@dataclass(frozen=True)
class Origin:
    """Where a plugin's name comes from: ``built-in``, ``entry point (DIST VERSION)`` or ``module:Class``."""

    name: str
    target: str  # "module:Class"
    source: str


@functools.lru_cache(maxsize=1)
def _installed() -> Any:
    """Every entry point the installed distributions declare: one scan of them all, whichever family asks first
    (importlib.metadata itself is imported here, not at start-up)."""
    from importlib.metadata import entry_points

    return entry_points()


def installed_entry_points(group: str) -> Any:
    """The entry points of ``group`` the installed distributions declare (read once per process, for every group;
    a family's ``plugin_origins.cache_clear()`` reads them again)."""
    return _installed().select(group=group)


def is_reference(name: str) -> bool:
    return ":" in name


def import_target(target: str, what: str) -> Any:
    """The object ``module:attr.attr`` names (imported now); UsageError naming ``what`` if that fails."""
    module, sep, attr = target.partition(":")
    if not module or not sep or not attr:
        raise UsageError(f"{what}: {target!r} is not of the form module:Class")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as in the workers (python -m puts the directory first)
    try:
        obj: Any = importlib.import_module(module)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a plugin's import may fail in any way (sys.exit too): never end the harness
        raise UsageError(f"{what}: cannot import module {module!r}: {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise UsageError(f"{what}: module {module!r} has no attribute {attr!r}")
    return obj


def overridden(cls: type, base: type, method: str) -> bool:
    """Does ``cls`` (a subclass of ``base``) define ``method`` itself or through a class other than ``base``?"""
    owner = next((k for k in cls.__mro__ if method in k.__dict__), None)
    return owner is not None and owner is not base


class Family:
    """One plugin family (see the module docstring).

    ``base`` is ``"module:Class"`` of the base class (imported when a plugin is first
    checked); ``check(cls)`` lists what keeps a subclass from being a plugin (empty:
    nothing); ``hidden`` names built-ins that are not listed (test doubles).
    """

    def __init__(self, word: str, group: str, builtins: dict[str, str], *, base: str,
                 check: Callable[[type], list[str]] | None = None, hidden: dict[str, str] | None = None,
                 default: str | None = None):
        self.word = word
        self.group = group
        self.builtins = builtins
        self.base = base
        self._check = check
        self.hidden = hidden or {}
        self.default = default
        self.plugin_origins = functools.lru_cache(maxsize=1)(self._scan)
        forget = self.plugin_origins.cache_clear

        def cache_clear() -> None:  # a distribution installed since: read the entry points again
            _installed.cache_clear()
            forget()

        self.plugin_origins.cache_clear = cache_clear  # type: ignore[method-assign]

    def _scan(self) -> dict[str, Origin]:
        """The plugins installed distributions declare in this family's group."""
        out: dict[str, Origin] = {}
        for ep in installed_entry_points(self.group):
            dist = getattr(ep, "dist", None)
            where = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
            out.setdefault(ep.name, Origin(ep.name, ep.value, f"entry point ({where})"))
        return out

    def origins(self) -> dict[str, Origin]:
        """Every plugin that can be named without a reference: built-ins first, then entry points (an entry
        point that reuses a built-in's name is left out)."""
        out = {name: Origin(name, target, "built-in") for name, target in self.builtins.items()}
        for name, origin in self.plugin_origins().items():
            out.setdefault(name, origin)
        return out

    def names(self) -> list[str]:
        return list(self.origins())

    def origin_of(self, name: str) -> Origin:
        """Where ``name`` comes from (UsageError if nothing has that name)."""
        if is_reference(name):
            return Origin(name, name, "module:Class")
        if name in self.hidden:
            return Origin(name, self.hidden[name], "built-in (tests)")
        if name in self.builtins:  # no entry point can take a built-in's name: nothing to scan
            return Origin(name, self.builtins[name], "built-in")
        known = self.origins()
        if name not in known:
            raise UsageError(f"unknown {self.word} {name!r} (choose from {', '.join(known)}, "
                             "or name a class as module:Class)")
        return known[name]

    def base_class(self) -> type:
        return import_target(self.base, f"the {self.word} base class")

    def contract_problems(self, cls: object) -> list[str]:
        """What keeps ``cls`` from being a plugin of this family (empty: nothing)."""
        base = self.base_class()
        if not (isinstance(cls, type) and issubclass(cls, base)):
            module = base.__module__.removesuffix(".base")  # harness.backends.base.Backend is harness.backends'
            return [f"it is not a subclass of {module}.{base.__name__}"]
        return list(self._check(cls)) if self._check else []

    def load_origin(self, origin: Origin) -> type:
        what = f"{self.word} {origin.name!r}" + ("" if origin.source.startswith("built-in")
                                                 else f" [{origin.source}]")
        cls = import_target(origin.target, what)
        problems = self.contract_problems(cls)
        if problems:
            raise UsageError(f"{what}: {origin.target} does not implement the {self.word} contract: "
                             f"{'; '.join(problems)}")
        return cls

    def load(self, name: str) -> type:
        """The class called ``name`` (UsageError if unknown, not importable or not a plugin of this family)."""
        return self.load_origin(self.origin_of(name))

    def source_of(self, cls: type) -> str:
        """Where a loaded class comes from, as :meth:`origin_of` says it (``module:Class`` when unnamed)."""
        target = f"{cls.__module__}:{cls.__qualname__}"
        if target in self.builtins.values():
            return "built-in"
        for origin in self.origins().values():
            if origin.target == target:
                return origin.source
        return "module:Class"


def distribution_of(cls: type) -> tuple[str, str] | None:
    """(distribution, version) that installed the module of ``cls``, or None (a loose module)."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    top = cls.__module__.split(".")[0]
    if top == "harness":
        from harness import __version__

        return "battlebench", __version__
    for dist in packages_distributions().get(top, []):
        try:
            return dist, version(dist)
        except PackageNotFoundError:
            continue
    return None


def own_versions(cls: type) -> dict[str, str]:
    """``{distribution: version}`` of the code of ``cls`` (battlebench for built-ins; empty for a loose module)."""
    own = distribution_of(cls)
    return {own[0]: own[1]} if own else {}


def named_version(versions: dict[str, str], *names: str | None) -> str | None:
    """``"NAME VERSION"`` of the first of ``names`` that ``versions`` has (a run's ``solver_version``)."""
    return next((f"{n} {versions[n]}" for n in names if n and n in versions), None)


def load_plugin(table: dict[str, str], name: str, what: str) -> Any:
    """The class ``table[name]`` names (imported now); UsageError naming the choices if ``name`` is unknown."""
    target = table.get(name)
    if target is None:
        raise UsageError(f"unknown {what} {name!r} (choose from {', '.join(table)})")
    return import_target(target, f"{what} {name!r}")


__all__ = ["Family", "Origin", "distribution_of", "import_target", "installed_entry_points", "is_reference",
           "load_plugin", "named_version", "overridden", "own_versions"]
