"""Fakes of a value run whose answer comes after its limit: a pool that answers late, and two late answers."""

from __future__ import annotations

from harness.runner.process import Execution
from harness.tasks.value import ValueOutcome


class LatePool:
    """A pool whose every run answers after its limit: the runner's timeout holding ``outcome`` as a late answer."""

    def __init__(self, outcome: ValueOutcome, after_s: float = 3.4):
        self.outcome, self.after_s = outcome, after_s

    def execute(self, request):
        return Execution("timeout", self.outcome, self.after_s, 50.0, 1,
                         detail=f"killed at the wall-clock limit (3 s; grace 5 s); a late answer came after "
                                f"{self.after_s:.2f} s: ValueOutcome", cpu_s=2.0)


def stopped_late() -> ValueOutcome:
    """The optimum's search stopped with a proved lower bound, its answer after the limit."""
    return ValueOutcome(method="search", lower="20/3", deployments=84, ship_cells=3, cells=9, work=500,
                        stopped="time limit reached", compute_s=3.3)


def exact_late() -> ValueOutcome:
    """The optimum found exactly (3 + 286 misses / 84 deployments), its answer after the limit."""
    return ValueOutcome(method="search", expected="269/42", mean=269 / 42, lower="269/42", deployments=84,
                        ship_cells=3, cells=9, misses=286, first_shot=[1, 1], work=727, compute_s=3.3)
