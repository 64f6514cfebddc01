"""Tiny instances with brute-force ground truth (``harness.conform.cases``) and a soundness assertion for tests."""

from __future__ import annotations

from harness.conform.cases import BY_NAME, HAND_MADE, MANY, SOLVER_UNSAT, TINY, U, inst, truth
from harness.core.status import Status
from harness.puzzle.instance import Instance
from harness.puzzle.verify import verify

__all__ = ["BY_NAME", "HAND_MADE", "MANY", "SOLVER_UNSAT", "TINY", "U", "assert_sound", "inst", "truth"]


def assert_sound(res, instance: Instance) -> None:
    """Decided, every board verified, no board twice."""
    assert res.status in (Status.SAT, Status.UNSAT), (instance.name, res.status, res.error, res.detail)
    assert all(verify(instance, b).ok for b in res.boards), instance.name
    assert len({b.cells for b in res.boards}) == len(res.boards), instance.name
