"""Tasks, terminations and statuses, and the pure ``classify()`` that joins them.

Three facts are kept apart (BenchExec's habit): the *answer* (boards the solver
returned and whether it says its search was exhausted), the *termination* (why the
run ended) and the *verdict* (whether every board passed the independent verifier).
``classify`` maps them to one status and nothing else decides a status.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Status(str, enum.Enum):
    SAT = "sat"  # task decided, at least one verified board
    UNSAT = "unsat"  # task decided, proven no board
    TIMEOUT = "timeout"  # a time limit ended the run before the task was decided
    UNKNOWN = "unknown"  # the solver stopped on its own, well within its limits, without deciding (s UNKNOWN)
    MEMOUT = "memout"  # the memory limit ended the run
    ERROR = "error"  # crash, exception, unavailable solver
    WRONG = "wrong"  # a returned board failed the verifier
    REFUSED = "refused"  # the plugin declined the instance (it cannot express it): not an error
    LOST = "lost"  # its worker or node was lost on every attempt the campaign's ``retries`` allow: not measured

    def __str__(self) -> str:
        return self.value


STATUS_ORDER = ("sat", "unsat", "timeout", "unknown", "memout", "error", "wrong", "lost")
"""The statuses a campaign's tables count, in report order (``refused`` is shown apart, as "other")."""
NOT_MEASURED = ("lost",)
"""Statuses of runs that hold no measurement: a campaign's resume executes them again (the new record replaces
the old), and reports and checks count them apart, never as a solver's result."""
WHEN_PRESENT = ("unknown", "output-limit", "lost")
"""The statuses (of :data:`STATUS_ORDER`) and terminations a table shows only when some run has one: a report of
runs without one (every report written before they existed) stays as it was."""


def shown_statuses(present: Iterable[object]) -> tuple[str, ...]:
    """The statuses of :data:`STATUS_ORDER` a table shows for runs of the statuses ``present``."""
    have = {str(s) for s in present}
    return tuple(s for s in STATUS_ORDER if s not in WHEN_PRESENT or s in have)


class Termination(str, enum.Enum):
    COMPLETED = "completed"  # the solver returned on its own, within its limits
    SOLVER_LIMIT = "solver-limit"  # the solver stopped on its own time limit
    TIMEOUT = "timeout"  # killed from outside after the wall-clock limit
    MEMOUT = "memout"  # the memory limit was hit
    CRASH = "crash"  # exception, signal, import failure
    REFUSED = "refused"  # the plugin declined the instance before working on it (a counter's Unsupported)
    OUTPUT_LIMIT = "output-limit"  # its tool processes wrote more than the run's output cap: stopped

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Question:
    """What the solve task asks of a puzzle: ``solve`` (k=1: one board, or proof that none exists) or
    ``count`` k distinct boards (k=0: all; k=2 certifies uniqueness).  Its ``label`` is the runs' ``task``
    column: ``solve`` or ``count-K``.  (Counting a deployment instance exactly is the *count task*, another
    task; see the glossary.)"""

    kind: str = "solve"
    k: int = 1

    def __post_init__(self) -> None:
        if self.kind not in ("solve", "count"):
            raise ValueError(f"unknown question {self.kind!r}")
        if self.k < 0:
            raise ValueError("count K must be >= 0")
        if self.kind == "solve" and self.k != 1:
            raise ValueError("the solve question looks for one board")

    @classmethod
    def count(cls, k: int) -> "Question":
        return cls("count", k)

    @classmethod
    def of_label(cls, label: str) -> "Question":
        """The question a ``task`` column names (``solve``, ``count-K``); ValueError for anything else."""
        if label == "solve":
            return cls()
        head, _, k = label.partition("-")
        if head == "count" and k.isascii() and k.isdigit():
            return cls.count(int(k))
        raise ValueError(f"not a question of the solve task: {label!r}")

    @property
    def limit(self) -> int | None:
        """How many distinct boards to look for (None: all)."""
        return None if self.k == 0 else self.k

    def decided(self, n_boards: int, exhausted: bool) -> bool:
        """Is the question answered by n distinct boards (and an exhausted search or not)?"""
        return exhausted or (self.limit is not None and n_boards >= self.limit)

    @property
    def label(self) -> str:
        return "solve" if self.kind == "solve" else f"count-{self.k}"


def ended_early(termination: Termination) -> Status | None:
    """The status of a run that ended before answering (crash, memout, timeout), else None.  Pure."""
    return {Termination.CRASH: Status.ERROR, Termination.MEMOUT: Status.MEMOUT,
            Termination.TIMEOUT: Status.TIMEOUT, Termination.REFUSED: Status.REFUSED,
            Termination.OUTPUT_LIMIT: Status.ERROR}.get(termination)


def classify(
    task: Question,
    termination: Termination,
    n_boards: int,
    exhausted: bool,
    verdicts_ok: bool,
) -> Status:
    """The status of a run from its termination, answer and verdict.  Pure.

    A wrong board wins over everything (it must never be shown as solved); then a
    crash or memout; then an undecided task is a timeout when a limit stopped it
    (``solver-limit``; boards found before the limit are kept as detail by the caller)
    and ``unknown`` when the solver returned on its own within its limits without
    deciding (``completed``: the SAT competition's ``s UNKNOWN``, BenchExec's
    ``unknown``; a timeout is a run its limit ended); otherwise sat or unsat.
    """
    if n_boards and not verdicts_ok:
        return Status.WRONG
    early = ended_early(termination)
    if early is not None:
        return early
    if not task.decided(n_boards, exhausted):
        return Status.UNKNOWN if termination is Termination.COMPLETED else Status.TIMEOUT
    return Status.SAT if n_boards else Status.UNSAT
