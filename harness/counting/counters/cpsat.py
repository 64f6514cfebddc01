"""The ``cpsat`` counter: every solution enumerated by OR-Tools CP-SAT over one boolean per placement.

The model's only variables are the placement booleans, so each solution CP-SAT reports
is one deployment (identical copies are one type with "exactly ``count``", so unlabelled).
Constraints: per piece type, its placements sum to its copies; a hit cell is covered; a
row or column clue equals the sum of the placements covering its cells (weighted by how
many of its cells each covers); no two placements share a cell and, touching forbidden,
none touches another: on square boards at most one placement meets each 2x2 window of
cells (two pieces that share or touch a cell meet one window: one constraint per window
instead of one per placement and halo cell, and a tighter LP), on hex boards at most one
of a placement and the placements covering a cell of its halo.

Clued instances (puzzles) are searched longest pieces first (those lying along a row
before the others, then in board order), with every linear constraint in the LP from the
start: the solve task's fastest certifying configuration (``reports/certify-speed``).  It
counted the board of a minimal 30x20 puzzle (``instances/large/large_30x20_minimal_s502.toml``)
in 16 s of CPU where CP-SAT's own search took 71 s (the 2x2 windows: 22 s before them; the
pieces along rows first: 89 s instead of over 120 s on seed 517, 59 s instead of 70 s on
seed 501).  Without clues CP-SAT's own search is kept.

By boards the callback collects the distinct sets of occupied cells (small counts only).
``exclude`` takes deployments (or boards) already counted elsewhere, as sets of
(piece type, placement) or of occupied cell indices, each forbidden by one linear
constraint: the ``dp`` counter lists a puzzle's easy boards with CaDiCaL and leaves the
rest here.  The solver's time limit is what is left before ``deadline``; stopped early
the count is what was enumerated (``complete=False``).
"""

from __future__ import annotations

import time
from typing import Any, Iterable

from harness.counting.counters import CountAnswer, Counter


def windows(lay: Any) -> list[list[int]]:
    """Square boards: the cell indices of every 2x2 window holding two or more board cells."""
    anchors = {(r - dr, c - dc) for r, c in lay.index for dr in (0, 1) for dc in (0, 1)}
    out = []
    for r, c in sorted(anchors):
        cells = [lay.index[x] for x in ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)) if x in lay.index]
        if len(cells) > 1:
            out.append(cells)
    return out


class CpSatCounter(Counter):
    name = "cpsat"
    by = ("deployments", "boards")
    library = "ortools"

    requires = ('ortools',)
    install = 'pip install ortools'

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None,
              exclude: Iterable[frozenset] = ()) -> CountAnswer:
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
        var: dict[tuple[int, tuple[int, ...]], Any] = {}
        for k, t in enumerate(lay.types):
            xs = []
            for p in t.placements:
                x = var[k, p] = model.NewBoolVar(f"p{k}_{'_'.join(map(str, p))}")
                xs.append(x)
                chosen.append((x, p))
                for i in p:
                    covering[i].append(x)
            model.Add(sum(xs) == t.count)
        if not dep.touching and dep.grid.kind == "square":
            for cells in windows(lay):
                meets = {id(x): x for i in cells for x in covering[i]}
                if len(meets) > 1:
                    model.AddAtMostOne(list(meets.values()))
        else:
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
        clued = False
        for clues, axis in ((dep.row_clues, 0), (dep.col_clues, 1)):
            for line, v in enumerate(clues or ()):
                if v is None:
                    continue
                clued = True
                xs = [x for i, c in enumerate(lay.cells) if c[axis] == line for x in covering[i]]
                if not xs:  # nothing can lie on this line
                    if v:
                        return CountAnswer(0, True, {"variables": len(chosen)})
                    continue
                model.Add(sum(xs) == v)
        excluded = 0
        for known in exclude:  # not all of these placements (or occupied cells) again
            xs = ([var[kp] for kp in known] if by == "deployments" else
                  [x for i in known for x in covering[i]])
            model.Add(sum(xs) <= len(known) - 1)
            excluded += 1

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
        if clued:  # longest pieces first, the LP whole (see the module docstring)
            def first(j: int) -> tuple:  # longest first, those lying along a row before the others
                p = chosen[j][1]
                return -len(p), dep.grid.kind == "square" and len({lay.cells[i][0] for i in p}) > 1, j

            order = sorted(range(len(chosen)), key=first)
            model.AddDecisionStrategy([chosen[j][0] for j in order], cp_model.CHOOSE_FIRST,
                                      cp_model.SELECT_MIN_VALUE)
            solver.parameters.search_branching = cp_model.FIXED_SEARCH
            solver.parameters.add_lp_constraints_lazily = False
        if deadline is not None:
            solver.parameters.max_time_in_seconds = max(0.0, deadline - time.monotonic())
        tally = Tally()
        status = solver.Solve(model, tally)
        complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        detail = {"variables": len(chosen), "constraints": len(model.Proto().constraints),
                  "status": solver.StatusName(status), "search": "longest first" if clued else "CP-SAT's own"}
        if excluded:
            detail["excluded"] = excluded
        return CountAnswer(tally.found if by == "deployments" else len(boards), complete, detail)


__all__ = ["CpSatCounter", "windows"]
