"""Certification: a complete count-2 of one harness pair, run in an isolated worker.

The generator never trusts its own oracle for the claim it writes into a file: each
puzzle is solved again by a configured pair (``backend/formulation``, default
``cpsat/placement``) in a limited worker process, and every board that comes back
goes through the verifier (``IsolatedSolver`` judges in this process).
"""

from __future__ import annotations

from typing import Any

from harness.backends.registry import check_pair
from harness.core.status import Question
from harness.errors import UsageError
from harness.puzzle.instance import Instance
from harness.tasks.isolated import IsolatedSolver
from harness.tasks.solve.run import SolveResult

DEFAULT_PAIR = "cpsat/placement"


def parse_pair(text: str) -> tuple[str, str]:
    """``backend/formulation`` checked against the registry (UsageError otherwise)."""
    backend, sep, formulation = text.partition("/")
    if not sep or not backend or not formulation:
        raise UsageError(f"--certify {text!r}: expected BACKEND/FORMULATION, e.g. cpsat/placement")
    check_pair(backend, formulation)
    return backend, formulation


def parse_certify(text: str) -> list[tuple[str, str, dict[str, Any]]]:
    """``--certify``: one pair (``cpsat/placement``) or a race of pairs separated by commas
    (``cpsat/placement,sat[solver=glucose4]/placement``), each checked with its options."""
    from harness.tasks.solve.race import parse_leg, split_pairs

    legs = []
    for part in split_pairs(text):
        try:
            backend, formulation, options = parse_leg(part)
        except UsageError as exc:
            raise UsageError(f"--certify {text!r}: {exc}") from None
        check_pair(backend, formulation).resolve_options(options)
        legs.append((backend, formulation, options))
    if len({repr(leg) for leg in legs}) < len(legs):
        raise UsageError(f"--certify {text!r}: a pair is named twice")
    return legs


class Certifier:
    """Callable: instance -> the verified, classified result of a complete count-2.

    With several pairs (``parse_certify``) it races them (:mod:`harness.tasks.solve.race`):
    the first decided answer certifies, and ``last_race`` says who won."""

    def __init__(self, pair: str = DEFAULT_PAIR, limit_s: float = 600.0, options: dict[str, Any] | None = None,
                 memory_mb: int | None = None):
        self.pair = pair
        self.legs = parse_certify(pair)
        self.backend, self.formulation, leg_options = self.legs[0]
        self.limit_s = limit_s
        self.options = {**leg_options, **dict(options or {})}
        self.solver = IsolatedSolver(memory_mb=memory_mb)
        self.last_race: Any = None

    @property
    def racing(self) -> bool:
        return len(self.legs) > 1

    def __call__(self, instance: Instance) -> SolveResult:
        if self.racing:
            self.last_race = self.solver.race(instance, self.legs, Question.count(2), self.limit_s)
            return self.last_race.result
        return self.solver.solve(instance, self.backend, self.formulation, Question.count(2), self.options, self.limit_s)

    def close(self) -> None:
        self.solver.close()

    def __enter__(self) -> "Certifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Certifier", "DEFAULT_PAIR", "parse_certify", "parse_pair"]
