"""The status tables of the solver families: what one solve call's status means, per enumeration mode.

One table per family, written once here and imported one way (by the family's backend and
by :mod:`harness.backends.cubes`, the split search of cpsat): a status name maps to its
meaning for one call in each mode -- ``board`` (a board found), ``exhausted`` (no more
boards), ``stopped`` (the call stopped before the end, a limit or a count reached),
``hit_limit``/``limit`` (the solver's limit) or ``error`` (raised as a
:class:`~harness.errors.BackendError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import BackendError


@dataclass(frozen=True)
class StatusTable:
    """One family's statuses: ``rows[name][i]`` is the meaning of status ``name`` in ``modes[i]``."""

    solver: str  # the family's name in messages
    modes: tuple[str, ...]
    rows: dict[str, tuple[str, ...]]
    unknown: str  # the message for a status not in the table ({name} is the status)
    error: str  # the message for a status meaning "error"

    def meaning(self, status: Any, mode: str) -> str:
        """The meaning of ``status`` (an enum member or its name) for one call in ``mode``."""
        name = getattr(status, "name", str(status))
        try:
            meaning = self.rows[name][self.modes.index(mode)]
        except KeyError:
            raise BackendError(self.unknown.format(name=name)) from None
        if meaning == "error":
            raise BackendError(self.error.format(name=name))
        return meaning


# CP-SAT (blocking: one board per call, callback: enumerate_all_solutions in one call).
CPSAT = StatusTable(
    "CP-SAT", ("blocking", "callback"),
    {"OPTIMAL": ("board", "exhausted"),
     "FEASIBLE": ("board", "stopped"),
     "INFEASIBLE": ("exhausted", "exhausted"),
     "UNKNOWN": ("hit_limit", "hit_limit"),
     "MODEL_INVALID": ("error", "error")},
    "CP-SAT returned an unknown status {name!r}", "CP-SAT says the model is invalid ({name})")

# MiniZinc (blocking: one solution per call; all: --all-solutions / --num-solutions K).
MINIZINC = StatusTable(
    "MiniZinc", ("blocking", "all"),
    {"SATISFIED": ("board", "stopped"),  # all: -n reached, or stopped early (a limit)
     "ALL_SOLUTIONS": ("board", "exhausted"),
     "UNSATISFIABLE": ("exhausted", "exhausted"),
     "UNKNOWN": ("limit", "limit"),
     "ERROR": ("error", "error")},
    "MiniZinc returned an unexpected status {name!r} for a satisfaction model", "MiniZinc reported an error ({name})")

TABLES = {"cpsat": CPSAT, "minizinc": MINIZINC}

__all__ = ["CPSAT", "MINIZINC", "StatusTable", "TABLES"]
