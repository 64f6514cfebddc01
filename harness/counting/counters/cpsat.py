"""The ``cpsat`` counter: every solution enumerated by OR-Tools CP-SAT over one boolean per placement.

The model's only variables are the placement booleans, so each solution CP-SAT reports
is one deployment (identical copies are one type with "exactly ``count``", so unlabelled);
placements that cannot be in any (:func:`possible`: more cells on a line than its clue, or
next to a hit when pieces may not touch) have none.
Constraints: per piece type, its placements sum to its copies; a hit cell is covered; a
row or column clue equals the sum of the placements covering its cells (weighted by how
many of its cells each covers); no two placements share a cell and, touching forbidden,
none touches another: on square boards at most one placement meets each 2x2 window of
cells (two pieces that share or touch a cell meet one window: one constraint per window
instead of one per placement and halo cell, and a tighter LP), on hex boards at most one
of a placement and the placements covering a cell of its halo.

Clued instances (puzzles) are searched longest pieces first (those lying along a row
before the others, then in board order), with every linear constraint in the LP from the
start: the solve task's fastest certifying configuration (``reports/certify-speed``), its
model built the way the cpsat backend builds it (variables in the search's order; fleet,
clues, windows, hits in that order), on which CP-SAT's fixed search is as fast as there
(the same constraints in another order, with the impossible placements kept, split into
cubes as below: 53 s of CPU against 31 s on ``large_30x20_minimal-u20_s600``).  It
counted the board of a minimal 30x20 puzzle (``instances/large/large_30x20_minimal_s502.toml``)
in 16 s of CPU where CP-SAT's own search took 71 s (the 2x2 windows: 22 s before them; the
pieces along rows first: 89 s instead of over 120 s on seed 517, 59 s instead of 70 s on
seed 501).  Without clues CP-SAT's own search is kept.

``split = N`` (default 1) counts with N single-worker CP-SAT searches at once, each in a thread:
the deployments are cut into ``CUBES_PER_SEARCH * N`` disjoint cubes (:func:`cubes`: the
placements of the longest piece type with one copy dealt among them, else a chain over the
first placements longest first: "p1..p(i-1) absent, p(i) present", the last "all absent"),
each cube one search with the same model and order; the count is the cubes' sum (by
boards, the union of their boards).  The solve task's ``split`` of the cpsat backend cuts
the same way (``reports/large-certify``: 10 of the 15 minimal 30x20 puzzles certified in
120 s with two searches at once, 8 with one).

By boards the callback collects the distinct sets of occupied cells (small counts only).
``exclude`` takes deployments (or boards) already counted elsewhere, as sets of
(piece type, placement) or of occupied cell indices, each forbidden by one linear
constraint: the ``dp`` counter lists a puzzle's easy boards with CaDiCaL and leaves the
rest here.  The solver's time limit is what is left before ``deadline``; stopped early
the count is what was enumerated (``complete=False``).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Iterable

from harness.core.options import Option
from harness.counting.counters import CountAnswer, Counter

CUBES_PER_SEARCH = 4
"""Cubes per search of a split, so that a slow cube does not leave a thread idle."""


def cubes(lay: Any, count: int, kept: dict[int, list] | None = None) -> list[list[tuple[str, list]]]:
    """At most ``count`` disjoint cubes covering every deployment of ``lay``, over its placements ``(type k,
    placement)`` (those of ``kept[k]``, in that order; default: every placement of the layout): each a list of
    ``("some", placements)`` (one of these: a type with one copy places it on one) and ``("none", ...)`` /
    ``("all", ...)`` (all absent / all present) constraints (module docstring)."""
    if kept is None:
        kept = {k: list(t.placements) for k, t in enumerate(lay.types)}
    if count <= 1:
        return [[]]
    ones = [(len(kept[k][0]), -k) for k, t in enumerate(lay.types) if t.count == 1 and len(kept[k]) >= 2]
    if ones:
        k = -max(ones)[1]
        group = [(k, p) for p in kept[k]]
        n = min(count, len(group))
        return [[("some", group[g::n])] for g in range(n)]
    every = sorted(((k, p) for k in kept for p in kept[k]), key=lambda kp: -len(kp[1]))
    order = every[:count - 1]
    return [[("none", order[:i]), ("all", [order[i]])] for i in range(len(order))] + [[("none", order)]]


def possible(dep: Any, lay: Any) -> dict[int, list[tuple[int, ...]]]:
    """Per layout type, the placements that can be in a deployment, in the order the search tries them: those
    lying along a row first, then by their first cell.  Left out: a placement with more cells on a line than its
    clue, and (pieces apart) one next to a hit (that cell is another piece's)."""
    def fits(p: tuple[int, ...]) -> bool:
        if not dep.touching and any(i in lay.hits for i in lay.halo[p]):
            return False
        for clues, axis in ((dep.row_clues, 0), (dep.col_clues, 1)):
            if clues is None:
                continue
            on: dict[int, int] = {}
            for i in p:
                on[lay.cells[i][axis]] = on.get(lay.cells[i][axis], 0) + 1
            if any(clues[line] is not None and n > clues[line] for line, n in on.items()):
                return False
        return True

    def across(p: tuple[int, ...]) -> bool:
        return dep.grid.kind == "square" and len({lay.cells[i][0] for i in p}) > 1

    return {k: sorted((p for p in t.placements if fits(p)), key=lambda p: (across(p), lay.cells[p[0]]))
            for k, t in enumerate(lay.types)}


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
    options = {"split": Option(1, int, minimum=1, help="CP-SAT searches at once, each in a thread, over disjoint "
                                                     "cubes of the deployments (by the longest piece's placements)")}

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None,
              exclude: Iterable[frozenset] = ()) -> CountAnswer:
        from harness.counting.placements import layout

        self.check_by(by)
        lay = layout(dep)
        kept = possible(dep, lay)
        if _hopeless(lay, kept):
            return CountAnswer(0, True, {"variables": 0})
        built = _placement_model(lay, kept)
        if not _add_clues(built, dep, lay):
            return CountAnswer(0, True, {"variables": len(built.chosen)})
        _add_apart(built, dep, lay)
        _add_hits(built, lay)
        excluded = _add_exclusions(built, exclude, by)
        _add_search_order(built)
        searches = self.opts["split"]
        todo = cubes(lay, CUBES_PER_SEARCH * searches, kept)
        run = _Enumeration(built, by, deadline)
        done = run.all(todo, searches)
        return CountAnswer(run.found if by == "deployments" else len(run.boards), all(done),
                           _detail(built, run.statuses, todo, searches, done, excluded))


def _hopeless(lay: Any, kept: dict[int, list]) -> bool:
    """Is there no deployment at all: a piece type with fewer possible placements than copies, or a hit no
    possible placement covers?"""
    return any(len(kept[k]) < t.count for k, t in enumerate(lay.types)) or any(
        not any(i in p for ps in kept.values() for p in ps) for i in lay.hits)


@dataclass
class _Built:
    """The CP-SAT model as it is built: its placement booleans (``var`` by (type, placement); ``chosen`` in the
    order the search tries them; ``covering`` per cell) and whether a clue constrains it."""

    model: Any
    covering: list[list[Any]]
    chosen: list[tuple[Any, tuple[int, ...]]] = field(default_factory=list)
    var: dict[tuple[int, tuple[int, ...]], Any] = field(default_factory=dict)
    clued: bool = False


def _placement_model(lay: Any, kept: dict[int, list]) -> _Built:
    """One boolean per possible placement, longest pieces first, and the fleet: per piece type, its placements
    sum to its copies."""
    from ortools.sat.python import cp_model

    built = _Built(cp_model.CpModel(), [[] for _ in range(lay.n)])
    model = built.model
    for k in sorted(kept, key=lambda k: -max(map(len, kept[k]), default=0)):  # longest pieces first
        xs = []
        for p in kept[k]:
            x = built.var[k, p] = model.NewBoolVar(f"p{k}_{'_'.join(map(str, p))}")
            xs.append(x)
            built.chosen.append((x, p))
            for i in p:
                built.covering[i].append(x)
        if lay.types[k].count == 1:
            model.AddExactlyOne(xs)
        else:
            model.Add(sum(xs) == lay.types[k].count)
    return built


def _add_clues(built: _Built, dep: Any, lay: Any) -> bool:
    """Each row and column clue equals the sum of the placements covering its cells, weighted by how many of
    its cells each covers (sets ``built.clued``); False: a non-zero clue on a line no placement can reach (no
    deployment)."""
    from ortools.sat.python import cp_model

    model = built.model
    for clues, axis in ((dep.row_clues, 0), (dep.col_clues, 1)):
        for line, v in enumerate(clues or ()):
            if v is None:
                continue
            built.clued = True
            weight: dict[int, int] = {}  # per placement (variable index), its cells on the line
            for i, c in enumerate(lay.cells):
                if c[axis] == line:
                    for x in built.covering[i]:
                        weight[x.Index()] = weight.get(x.Index(), 0) + 1
            if not weight:  # nothing can lie on this line
                if v:
                    return False
                continue
            model.Add(cp_model.LinearExpr.WeightedSum([model.GetBoolVarFromProtoIndex(j) for j in weight],
                                                      list(weight.values())) == v)
    return True


def _add_apart(built: _Built, dep: Any, lay: Any) -> None:
    """No two placements share a cell and, touching forbidden, none touches another: one at-most-one per 2x2
    window on square boards, else per cell and per placement and cell of its halo (module docstring)."""
    model, covering = built.model, built.covering
    if not dep.touching and dep.grid.kind == "square":
        for cells in windows(lay):
            meets = {id(x): x for i in cells for x in covering[i]}
            if len(meets) > 1:
                model.AddAtMostOne(list(meets.values()))
        return
    for xs in covering:
        if len(xs) > 1:
            model.AddAtMostOne(xs)
    if not dep.touching:
        for x, p in built.chosen:
            for i in lay.halo[p]:
                if covering[i]:
                    model.AddAtMostOne([x, *covering[i]])


def _add_hits(built: _Built, lay: Any) -> None:
    """One piece covers each hit cell (two never share a cell), in board order."""
    for i in sorted(lay.hits, key=lambda i: lay.cells[i]):
        built.model.AddExactlyOne(built.covering[i])


def _add_exclusions(built: _Built, exclude: Iterable[frozenset], by: str) -> int:
    """Each deployment (set of (type, placement)) or board (set of occupied cells) counted elsewhere forbidden
    by one linear constraint: not all of these again; how many."""
    excluded = 0
    for known in exclude:
        xs = ([built.var[kp] for kp in known] if by == "deployments" else
              [x for i in known for x in built.covering[i]])
        built.model.Add(sum(xs) <= len(known) - 1)
        excluded += 1
    return excluded


def _add_search_order(built: _Built) -> None:
    """Clued: the search tries the placements in order, longest pieces first (the LP whole: module docstring);
    unclued, CP-SAT's own search is kept."""
    from ortools.sat.python import cp_model

    if built.clued:
        built.model.AddDecisionStrategy([x for x, _ in built.chosen], cp_model.CHOOSE_FIRST,
                                        cp_model.SELECT_MIN_VALUE)


class _Enumeration:
    """The searches of one count, each a single-worker CP-SAT enumeration (in threads when split): the
    deployments found, the distinct boards (by boards), each search's status."""

    def __init__(self, built: _Built, by: str, deadline: float | None) -> None:
        self.built, self.by, self.deadline = built, by, deadline
        self.lock = threading.Lock()
        self.found = 0
        self.boards: set[frozenset[int]] = set()
        self.statuses: list[str] = []

    def all(self, todo: list[list], searches: int) -> list[bool]:
        """Every cube of ``todo`` searched, ``searches`` at once (one search without cubes when not split);
        per search, whether it ran to the end."""
        if searches > 1:
            with ThreadPoolExecutor(max_workers=searches, thread_name_prefix="battlebench-cpsat-cube") as pool:
                return [future.result() for future in [pool.submit(self.search, cube) for cube in todo]]
        return [self.search([])]

    def search(self, cube: list) -> bool:
        """Count the deployments of one cube (all of them when ``cube`` is empty); whether it was searched
        to the end."""
        from ortools.sat.python import cp_model

        built = self.built
        md = built.model.Clone() if cube else built.model
        lit = {key: md.GetBoolVarFromProtoIndex(x.Index()) for key, x in built.var.items()}
        for kind, keys in cube:
            if kind == "some":
                md.AddBoolOr([lit[key] for key in keys])
            else:
                for key in keys:
                    md.AddBoolOr([lit[key] if kind == "all" else lit[key].Not()])
        mine = [(lit[key], key[1]) for key in built.var]
        run = self

        class Tally(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                board = frozenset(i for x, p in mine if self.Value(x) for i in p) if run.by == "boards" else None
                with run.lock:
                    run.found += 1
                    if board is not None:
                        run.boards.add(board)

        solver = cp_model.CpSolver()
        solver.parameters.enumerate_all_solutions = True
        solver.parameters.num_workers = 1
        if built.clued:
            solver.parameters.search_branching = cp_model.FIXED_SEARCH
            solver.parameters.add_lp_constraints_lazily = False
        if self.deadline is not None:
            solver.parameters.max_time_in_seconds = max(0.0, self.deadline - time.monotonic())
        status = solver.Solve(md, Tally())
        with self.lock:
            self.statuses.append(solver.StatusName(status))
        return status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)


def _detail(built: _Built, statuses: list[str], todo: list, searches: int, done: list[bool],
            excluded: int) -> dict[str, Any]:
    """What the answer says of its model and searches: variables, constraints, statuses, search order, the
    split, the exclusions."""
    detail: dict[str, Any] = {
        "variables": len(built.chosen), "constraints": len(built.model.Proto().constraints),
        "status": ", ".join(f"{statuses.count(s)} {s}" if len(statuses) > 1 else s for s in sorted(set(statuses))),
        "search": "longest first" if built.clued else "CP-SAT's own"}
    if searches > 1:
        detail["split"] = f"{len(todo)} cubes, {searches} searches at once, {sum(done)} searched to the end"
    if excluded:
        detail["excluded"] = excluded
    return detail


__all__ = ["CUBES_PER_SEARCH", "CpSatCounter", "cubes", "possible", "windows"]
