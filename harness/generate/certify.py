"""Certification: a complete count-2 of one harness pair, run in an isolated worker.

The generator never trusts its own oracle for the claim it writes into a file: each
puzzle is solved again by a configured pair (``backend/formulation``, default
``cpsat/placement``) in a limited worker process, and every board that comes back
goes through the verifier (``IsolatedSolver`` judges in this process).
"""

from __future__ import annotations

from typing import Any

from harness.backends.registry import check_pair
from harness.core.status import Task
from harness.errors import UsageError
from harness.puzzle.instance import Instance
from harness.runner.isolated import IsolatedSolver
from harness.solve import SolveResult

DEFAULT_PAIR = "cpsat/placement"


def parse_pair(text: str) -> tuple[str, str]:
    """``backend/formulation`` checked against the registry (UsageError otherwise)."""
    backend, sep, formulation = text.partition("/")
    if not sep or not backend or not formulation:
        raise UsageError(f"--certify {text!r}: expected BACKEND/FORMULATION, e.g. cpsat/placement")
    check_pair(backend, formulation)
    return backend, formulation


class Certifier:
    """Callable: instance -> the verified, classified result of a complete count-2."""

    def __init__(self, pair: str = DEFAULT_PAIR, limit_s: float = 600.0, options: dict[str, Any] | None = None,
                 memory_mb: int | None = None):
        self.pair = pair
        self.backend, self.formulation = parse_pair(pair)
        self.limit_s = limit_s
        self.options = dict(options or {})
        self.solver = IsolatedSolver(memory_mb=memory_mb)

    def __call__(self, instance: Instance) -> SolveResult:
        return self.solver.solve(instance, self.backend, self.formulation, Task.count(2), self.options, self.limit_s)

    def close(self) -> None:
        self.solver.close()

    def __enter__(self) -> "Certifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Certifier", "DEFAULT_PAIR", "parse_pair"]
