"""Which backends exist, their formulations and options, without importing solvers."""

from __future__ import annotations

import importlib

from harness.backends.base import Backend
from harness.errors import UsageError

# backend name -> "module:Class"; importing the module must not import its solver.
BACKENDS: dict[str, str] = {
    "cpsat": "harness.backends.cpsat:CpSatBackend",
    "mip": "harness.backends.mip:MipBackend",
    "sat": "harness.backends.sat:SatBackend",
}
TEST_BACKENDS: dict[str, str] = {
    "fake": "harness.backends.fake:FakeBackend",
}
DEFAULT_FORMULATION = "placement"


def get_backend(name: str) -> type[Backend]:
    """The backend class called ``name`` (UsageError if unknown)."""
    target = BACKENDS.get(name) or TEST_BACKENDS.get(name)
    if target is None:
        raise UsageError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)


def all_pairs() -> list[tuple[str, str]]:
    """Every (backend, formulation) pair of the real backends."""
    return [(b, f) for b in BACKENDS for f in get_backend(b).formulations]


def check_pair(backend: str, formulation: str) -> type[Backend]:
    cls = get_backend(backend)
    if formulation not in cls.formulations:
        raise UsageError(
            f"backend {backend!r} has no formulation {formulation!r} (choose from {', '.join(cls.formulations)})"
        )
    return cls
