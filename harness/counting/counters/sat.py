"""The ``sat`` counter: enumerate the shared CNF's models with a pysat solver and blocking clauses.

The CNF is :func:`~harness.counting.counters.cnf.build_cnf`.  Each model found is
blocked on what is counted: by deployments the clause "not all of these placements"
over its true placement variables, by boards "not all of these cells" over its occupied
cells.  Short clauses suffice because every deployment has the same number of
placements (and every board the same number of occupied cells), so no other model has a
superset of them; the auxiliaries are never blocked, so they never multiply the count.
Any board, touching rule, hints and clues.  ``deadline`` is checked between models (one
solver call is not interrupted); enumeration suits small counts only.
"""

from __future__ import annotations

import time
from typing import Any

from harness.counting.counters import CountAnswer, Counter

SOLVER = "cadical195"


class SatCounter(Counter):
    name = "sat"
    by = ("deployments", "boards")
    library = "python-sat"

    requires = ('pysat',)
    install = 'pip install python-sat'

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        self.check_by(by)
        return enumerate_count(dep, by, deadline)


def enumerate_count(dep: Any, by: str, deadline: float | None = None, most: int | None = None,
                    budget: int | None = None, listed: list | None = None, lay: Any = None) -> CountAnswer:
    """The models of the shared CNF, blocked one by one (see the module docstring); at most ``most`` of them:
    past that the answer is not complete and its detail says ``more_than``.  ``budget``: the conflicts one
    solver call may take; a call that runs out ends the listing (not complete, detail ``budget_out``).
    ``listed`` receives each model found, as what it counts: a frozenset of (piece type, placement) by
    deployments, of occupied cell indices by boards (the ``cpsat`` counter's ``exclude``).  ``lay``: the
    instance's layout where the caller has it (made here otherwise)."""
    from pysat.solvers import Solver

    from harness.counting.counters.cnf import build_cnf
    from harness.counting.placements import layout

    lay = layout(dep) if lay is None else lay
    cnf = build_cnf(dep, lay)
    detail: dict[str, Any] = {"variables": cnf.nvars, "clauses": len(cnf.clauses), "solver": SOLVER}
    if cnf.unsat:
        return CountAnswer(0, True, detail)
    watch = cnf.placement_vars if by == "deployments" else cnf.cell_vars
    what = ([] if listed is None else [(k, p) for k, t in enumerate(lay.types) for p in t.placements]
            if by == "deployments" else list(range(lay.n)))
    found = 0
    with Solver(name=SOLVER, bootstrap_with=cnf.clauses) as solver:
        while True:
            if budget is not None:
                solver.conf_budget(budget)
            sat = solver.solve_limited() if budget is not None else solver.solve()
            if sat is None:
                return CountAnswer(found, False, {**detail, "budget_out": budget})
            if not sat:
                break
            if most is not None and found == most:
                return CountAnswer(found, False, {**detail, "more_than": most})
            model = solver.get_model()
            found += 1
            chosen = [k for k, v in enumerate(watch) if model[v - 1] > 0]
            if listed is not None:
                listed.append(frozenset(what[k] for k in chosen))
            if not chosen:  # nothing placed: this was the only model
                break
            solver.add_clause([-watch[k] for k in chosen])
            if deadline is not None and time.monotonic() >= deadline:
                return CountAnswer(found, False, detail)
    return CountAnswer(found, True, detail)


__all__ = ["SatCounter", "enumerate_count"]
