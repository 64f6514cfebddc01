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

from harness.backends.base import Backend, Option
from harness.core.plugins import Family, Origin, is_reference, overridden
from harness.errors import UsageError

ENTRY_POINT_GROUP = "battlebench.backends"

# backend name -> "module:Class"; importing the module must not import its solver.
BACKENDS: dict[str, str] = {
    "cpsat": "harness.backends.cpsat:CpSatBackend",
    "cpmpy": "harness.backends.cpmpy:CpmpyBackend",
    "mip": "harness.backends.mip:MipBackend",
    "minizinc": "harness.backends.minizinc:MiniZincBackend",
    "sat": "harness.backends.sat:SatBackend",
    "tool": "harness.backends.tool:ToolBackend",
    "asp": "harness.backends.asp:AspBackend",
}
TEST_BACKENDS: dict[str, str] = {
    "fake": "harness.backends.fake:FakeBackend",
}
DEFAULT_BACKEND = "cpsat"
DEFAULT_FORMULATION = "placement"


def _contract(cls: type[Backend]) -> list[str]:
    """What keeps a subclass of Backend from being a backend (empty: nothing)."""
    problems = []
    if not isinstance(cls.name, str) or not cls.name:
        problems.append("its name is not set")
    if not isinstance(cls.formulations, tuple) or not cls.formulations \
            or not all(isinstance(f, str) and f for f in cls.formulations):
        problems.append("formulations must be a non-empty tuple of names")
    if not isinstance(cls.options, dict) or not all(isinstance(o, Option) for o in cls.options.values()):
        problems.append("options must map names to harness.backends.Option")
    for method in ("versions", "build", "enumerate"):
        if not overridden(cls, Backend, method):
            problems.append(f"it does not implement {method}()")
    return problems


FAMILY = Family("backend", ENTRY_POINT_GROUP, BACKENDS, base="harness.backends.base:Backend", check=_contract,
                hidden=TEST_BACKENDS, default=DEFAULT_BACKEND)
plugin_origins = FAMILY.plugin_origins  # (cached; tests clear it with plugin_origins.cache_clear())


def origins() -> dict[str, Origin]:
    """Every backend that can be named without a reference: built-ins first, then entry points.

    An entry point that reuses a built-in's name is left out (the built-in wins).
    """
    return FAMILY.origins()


def origin_of(name: str) -> Origin:
    """Where ``name`` comes from (UsageError if nothing has that name)."""
    return FAMILY.origin_of(name)


def contract_problems(cls: object) -> list[str]:
    """What keeps ``cls`` from being a backend (empty: nothing)."""
    return FAMILY.contract_problems(cls)


def get_backend(name: str) -> type[Backend]:
    """The backend class called ``name`` (UsageError if unknown, not importable or not a backend)."""
    return FAMILY.load(name)


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


__all__ = ["BACKENDS", "DEFAULT_BACKEND", "DEFAULT_FORMULATION", "ENTRY_POINT_GROUP", "FAMILY", "Origin",
           "all_pairs", "check_pair", "contract_problems", "get_backend", "is_reference", "origin_of", "origins",
           "plugin_origins"]
