"""The ``cpsat`` counter: every solution enumerated by OR-Tools CP-SAT over one boolean per placement.

The model's only variables are the placement booleans, so each solution CP-SAT reports
is one deployment (identical copies are one type with "exactly ``count``", so unlabelled).
Constraints: per piece type, its placements sum to its copies; per cell, at most one
placement covers it; touching forbidden, at most one of a placement and the placements
covering a cell of its halo; a hit cell is covered; a row or column clue equals the sum
of the placements covering its cells (weighted by how many of its cells each covers).
By boards the callback collects the distinct sets of occupied cells (small counts only).
The solver's time limit is what is left before ``deadline``; stopped early the count is
what was enumerated (``complete=False``).
"""

from __future__ import annotations

import time
from typing import Any

from harness.counting.counters import CountAnswer, Counter


class CpSatCounter(Counter):
    name = "cpsat"
    by = ("deployments", "boards")
    library = "ortools"

    requires = ('ortools',)
    install = 'pip install ortools'

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from ortools.sat.python import cp_model

        from harness.counting.placements import layout

        self.check_by(by)
        lay = layout(dep)
        if any(len(t.placements) < t.count for t in lay.types) or any(
                not any(i in p for t in lay.types for p in t.placements) for i in lay.hits):
            return CountAnswer(0, True, {"variables": 0})
        model = cp_model.CpModel()
        covering: list[list[Any]] = [[] for _ in range(lay.n)]
        chosen: list[tuple[Any, tuple[int, ...]]] = []
        for k, t in enumerate(lay.types):
            xs = []
            for p in t.placements:
                x = model.NewBoolVar(f"p{k}_{'_'.join(map(str, p))}")
                xs.append(x)
                chosen.append((x, p))
                for i in p:
                    covering[i].append(x)
            model.Add(sum(xs) == t.count)
        for xs in covering:
            if len(xs) > 1:
                model.AddAtMostOne(xs)
        if not dep.touching:
            for x, p in chosen:
                for i in lay.halo[p]:
                    if covering[i]:
                        model.AddAtMostOne([x, *covering[i]])
        for i in lay.hits:
            model.AddBoolOr(covering[i])
        for clues, axis in ((dep.row_clues, 0), (dep.col_clues, 1)):
            for line, v in enumerate(clues or ()):
                if v is None:
                    continue
                xs = [x for i, c in enumerate(lay.cells) if c[axis] == line for x in covering[i]]
                if not xs:  # nothing can lie on this line
                    if v:
                        return CountAnswer(0, True, {"variables": len(chosen)})
                    continue
                model.Add(sum(xs) == v)

        boards: set[frozenset[int]] = set()

        class Tally(cp_model.CpSolverSolutionCallback):
            def __init__(self) -> None:
                super().__init__()
                self.found = 0

            def on_solution_callback(self) -> None:
                self.found += 1
                if by == "boards":
                    boards.add(frozenset(i for x, p in chosen if self.Value(x) for i in p))

        solver = cp_model.CpSolver()
        solver.parameters.enumerate_all_solutions = True
        solver.parameters.num_workers = 1
        if deadline is not None:
            solver.parameters.max_time_in_seconds = max(0.0, deadline - time.monotonic())
        tally = Tally()
        status = solver.Solve(model, tally)
        complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        detail = {"variables": len(chosen), "constraints": len(model.Proto().constraints),
                  "status": solver.StatusName(status)}
        return CountAnswer(tally.found if by == "deployments" else len(boards), complete, detail)


__all__ = ["CpSatCounter"]
