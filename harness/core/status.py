"""Tasks, terminations and statuses, and the pure ``classify()`` that joins them.

Three facts are kept apart (BenchExec's habit): the *answer* (boards the solver
returned and whether it says its search was exhausted), the *termination* (why the
run ended) and the *verdict* (whether every board passed the independent verifier).
``classify`` maps them to one status and nothing else decides a status.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Status(str, enum.Enum):
    SAT = "sat"  # task decided, at least one verified board
    UNSAT = "unsat"  # task decided, proven no board
    TIMEOUT = "timeout"  # a time limit ended the run before the task was decided
    MEMOUT = "memout"  # the memory limit ended the run
    ERROR = "error"  # crash, exception, unavailable solver
    WRONG = "wrong"  # a returned board failed the verifier

    def __str__(self) -> str:
        return self.value


class Termination(str, enum.Enum):
    COMPLETED = "completed"  # the solver returned on its own, within its limits
    SOLVER_LIMIT = "solver-limit"  # the solver stopped on its own time limit
    TIMEOUT = "timeout"  # killed from outside after the wall-clock limit
    MEMOUT = "memout"  # the memory limit was hit
    CRASH = "crash"  # exception, signal, import failure

    def __str__(self) -> str:
        return self.value


COUNTING = ("deployments", "boards")
"""The kinds of the counting task: what is counted."""

PLAY = "play"
"""The play task: one game of a strategy against a hidden deployment."""


@dataclass(frozen=True)
class Task:
    """``solve`` (k=1) or ``count`` k distinct boards (k=0: all); or the counting task:
    ``deployments`` / ``boards`` (every deployment, or every distinct board, of a
    deployment instance counted exactly; k=0); or ``play`` (one game; k=0)."""

    kind: str = "solve"
    k: int = 1

    def __post_init__(self) -> None:
        if self.kind not in ("solve", "count", *COUNTING, PLAY):
            raise ValueError(f"unknown task {self.kind!r}")
        if self.k < 0:
            raise ValueError("count K must be >= 0")
        if self.kind in COUNTING and self.k != 0:
            raise ValueError("the counting task counts everything (k=0)")
        if self.kind == PLAY and self.k != 0:
            raise ValueError("the play task plays one game (k=0)")
        if self.kind == "solve" and self.k != 1:
            raise ValueError("the solve task looks for one board")

    @classmethod
    def count(cls, k: int) -> "Task":
        return cls("count", k)

    @property
    def limit(self) -> int | None:
        """How many distinct boards to look for (None: all)."""
        return None if self.k == 0 else self.k

    def decided(self, n_boards: int, exhausted: bool) -> bool:
        """Is the task answered by n distinct boards (and an exhausted search or not)?"""
        return exhausted or (self.limit is not None and n_boards >= self.limit)

    @property
    def counting(self) -> bool:
        """The counting task (a deployment instance, counters), not a puzzle task."""
        return self.kind in COUNTING

    @property
    def play(self) -> bool:
        """The play task (a board, strategies, games), not a puzzle task."""
        return self.kind == PLAY

    @property
    def label(self) -> str:
        if self.kind in COUNTING or self.kind == PLAY:
            return self.kind
        return "solve" if self.kind == "solve" else f"count-{self.k}"


def ended_early(termination: Termination) -> Status | None:
    """The status of a run that ended before answering (crash, memout, timeout), else None.  Pure."""
    return {Termination.CRASH: Status.ERROR, Termination.MEMOUT: Status.MEMOUT,
            Termination.TIMEOUT: Status.TIMEOUT}.get(termination)


def classify(
    task: Task,
    termination: Termination,
    n_boards: int,
    exhausted: bool,
    verdicts_ok: bool,
) -> Status:
    """The status of a run from its termination, answer and verdict.  Pure.

    A wrong board wins over everything (it must never be shown as solved); then a
    crash or memout; then an undecided task is a timeout (boards found before the
    limit are kept as detail by the caller); otherwise sat or unsat.
    """
    if n_boards and not verdicts_ok:
        return Status.WRONG
    early = ended_early(termination)
    if early is not None:
        return early
    if not task.decided(n_boards, exhausted):
        return Status.TIMEOUT
    return Status.SAT if n_boards else Status.UNSAT
