"""Which backends exist, where each comes from, and loading one by name without importing solvers.

A backend is named three ways:

* a **built-in** name (``BACKENDS`` below: modules of this package);
* a name another installed distribution declares as an **entry point** in the group
  ``battlebench.backends`` (``name = "package.module:Class"``);
* a **reference** ``module:Class``, written where a backend name goes (a config's
  ``backend = "mypkg.solver:MyBackend"``, ``--backend`` on the command line); the
  module is imported from the installed packages, ``PYTHONPATH``, or the current
  directory.

Whatever names it, the class must implement the contract of :mod:`harness.backends.base`
(checked on load).  Every failure to find, import or accept a backend is one
:class:`~harness.errors.UsageError` naming it, raised before any run starts.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points as _installed_entry_points

from harness.backends.base import Backend, Option
from harness.errors import UsageError

ENTRY_POINT_GROUP = "battlebench.backends"

# backend name -> "module:Class"; importing the module must not import its solver.
BACKENDS: dict[str, str] = {
    "cpsat": "harness.backends.cpsat:CpSatBackend",
    "cpmpy": "harness.backends.cpmpy:CpmpyBackend",
    "mip": "harness.backends.mip:MipBackend",
    "minizinc": "harness.backends.minizinc:MiniZincBackend",
    "sat": "harness.backends.sat:SatBackend",
}
TEST_BACKENDS: dict[str, str] = {
    "fake": "harness.backends.fake:FakeBackend",
}
DEFAULT_FORMULATION = "placement"


@dataclass(frozen=True)
class Origin:
    """Where a backend name comes from: ``built-in``, ``entry point (DIST VERSION)`` or ``module:Class``."""

    name: str
    target: str  # "module:Class"
    source: str


@functools.lru_cache(maxsize=1)
def plugin_origins() -> dict[str, Origin]:
    """The backends installed distributions declare in the ``battlebench.backends`` group."""
    out: dict[str, Origin] = {}
    for ep in _installed_entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        where = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
        out.setdefault(ep.name, Origin(ep.name, ep.value, f"entry point ({where})"))
    return out


def origins() -> dict[str, Origin]:
    """Every backend that can be named without a reference: built-ins first, then entry points.

    An entry point that reuses a built-in's name is left out (the built-in wins).
    """
    out = {name: Origin(name, target, "built-in") for name, target in BACKENDS.items()}
    for name, origin in plugin_origins().items():
        out.setdefault(name, origin)
    return out


def is_reference(name: str) -> bool:
    return ":" in name


def origin_of(name: str) -> Origin:
    """Where ``name`` comes from (UsageError if nothing has that name)."""
    if is_reference(name):
        return Origin(name, name, "module:Class")
    if name in TEST_BACKENDS:
        return Origin(name, TEST_BACKENDS[name], "built-in (tests)")
    known = origins()
    if name not in known:
        raise UsageError(
            f"unknown backend {name!r} (choose from {', '.join(known)}, or name a class as module:Class)"
        )
    return known[name]


def contract_problems(cls: object) -> list[str]:
    """What keeps ``cls`` from being a backend (empty: nothing)."""
    if not (isinstance(cls, type) and issubclass(cls, Backend)):
        return ["it is not a subclass of harness.backends.Backend"]
    problems = []
    if not isinstance(cls.name, str) or not cls.name:
        problems.append("its name is not set")
    if not isinstance(cls.formulations, tuple) or not cls.formulations \
            or not all(isinstance(f, str) and f for f in cls.formulations):
        problems.append("formulations must be a non-empty tuple of names")
    if not isinstance(cls.options, dict) or not all(isinstance(o, Option) for o in cls.options.values()):
        problems.append("options must map names to harness.backends.Option")
    for method in ("versions", "build", "enumerate"):
        if next(k for k in cls.__mro__ if method in k.__dict__) is Backend:
            problems.append(f"it does not implement {method}()")
    return problems


def _load(origin: Origin) -> type[Backend]:
    what = f"backend {origin.name!r}" + ("" if origin.source.startswith("built-in") else f" [{origin.source}]")
    module, sep, attr = origin.target.partition(":")
    if not module or not sep or not attr:
        raise UsageError(f"{what}: {origin.target!r} is not of the form module:Class")
    if origin.source == "module:Class" and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # as in the workers (python -m puts the directory first)
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # a plugin's import may fail in any way; it must not crash the harness
        raise UsageError(f"{what}: cannot import module {module!r}: {type(exc).__name__}: {exc}") from None
    cls = mod
    for part in attr.split("."):
        cls = getattr(cls, part, None)
        if cls is None:
            raise UsageError(f"{what}: module {module!r} has no attribute {attr!r}")
    problems = contract_problems(cls)
    if problems:
        raise UsageError(f"{what}: {origin.target} does not implement the backend contract: {'; '.join(problems)}")
    return cls  # type: ignore[return-value]


def get_backend(name: str) -> type[Backend]:
    """The backend class called ``name`` (UsageError if unknown, not importable or not a backend)."""
    return _load(origin_of(name))


def all_pairs() -> list[tuple[str, str]]:
    """Every (backend, formulation) pair of the built-in backends, available here or not."""
    return [(b, f) for b in BACKENDS for f in get_backend(b).formulations]


def check_pair(backend: str, formulation: str) -> type[Backend]:
    """The backend class, after checking it has ``formulation`` and can run here (UsageError otherwise)."""
    cls = get_backend(backend)
    if formulation not in cls.formulations:
        raise UsageError(
            f"backend {backend!r} has no formulation {formulation!r} (choose from {', '.join(cls.formulations)})"
        )
    missing = cls.available()
    if missing:
        raise UsageError(f"backend {backend!r} is not available here: {missing}")
    return cls
