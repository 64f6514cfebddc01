"""The ``sharpsat`` counter: exact projected model counting of the shared CNF with Ganak (pyganak).

The CNF is :func:`~harness.counting.counters.cnf.build_cnf` (placement variables, cell
variables defined from them, cardinality auxiliaries).  By deployments the count is
projected onto the placement variables, by boards onto the cell variables, so the
encodings' auxiliaries never multiply the count.  Everything the CNF expresses is
supported: any board, touching rule, hints and clues.

Ganak has no time limit through pyganak: ``deadline`` is ignored (the runner stops the
process from outside).  Ganak writes a line to standard output on some formulas, so the
count runs with file descriptor 1 sent to /dev/null.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator

from harness.counting.counters import CountAnswer, Counter


@contextmanager
def _quiet_stdout() -> Iterator[None]:
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class SharpSatCounter(Counter):
    name = "sharpsat"
    by = ("deployments", "boards")
    library = "pyganak"

    requires = ('pyganak', 'pysat')
    install = 'pip install pyganak python-sat'

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        import pyganak

        from harness.counting.counters.cnf import build_cnf

        self.check_by(by)
        cnf = build_cnf(dep)
        detail = {"variables": cnf.nvars, "clauses": len(cnf.clauses)}
        if cnf.unsat:
            return CountAnswer(0, True, detail)
        counter = pyganak.Counter()
        counter.new_vars(cnf.nvars)
        counter.add_clauses(cnf.clauses)
        counter.set_sampling_set(cnf.placement_vars if by == "deployments" else cnf.cell_vars)
        with _quiet_stdout():
            total = counter.count()
        return CountAnswer(int(total), True, detail)


__all__ = ["SharpSatCounter"]
