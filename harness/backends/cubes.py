"""Split enumeration for the cpsat backend: disjoint cubes of placements, searched at once.

A *cube* is a set of constraints on the placement literals; the cubes of a split are
disjoint (no board satisfies two) and exhaustive (every board satisfies one), so the
boards of a puzzle are the union of the cubes' boards, and a count is their sum.

How the cubes are cut (:func:`cubes`), for ``split = N`` searches at once and
``CUBES_PER_SEARCH * N`` cubes so that a slow cube does not leave a thread idle:

* when the fleet has exactly one ship of some length (the default fleet's longest ship),
  the longest such length's placements are dealt round-robin into the cubes, and cube g
  says "that ship is in group g" (the fleet's exactly-one makes them disjoint);
* otherwise the first placements in longest-first order p1, p2, ... make a chain:
  cube i says "p1..p(i-1) absent, p(i) present", the last "all of them absent".

Each cube is a clone of the built model plus its constraints, enumerated by one
single-worker CP-SAT search (``enumerate_all_solutions``, a solution callback; the
backend's own options apply) in a thread of a pool of N (CP-SAT releases the GIL while it
searches).  Boards are pooled; when the limit is reached every running search is stopped.
The answer is exhausted only when every cube was searched to the end; a cube that runs
out of time makes it ``hit_limit``.  ``solver_reported_s`` is the sum of the cubes'
CP-SAT wall times (the solver's own accounting of its searches, which overlap).

Measured on the three minimal-hint 30x20 puzzles: reports/certify-speed.

A cube that takes too long is cut again (cube-and-conquer, :func:`split`): the cubes of a
puzzle are then *paths* down the fleet, one fix per ship in :func:`ship_order` (the single
ship of the longest unique length first, then the others longest first, the ships of one
length in placement order), each fix a set of placements that ship is at.  A fix of a set
is cut into parts of that set; a fix of one placement is followed by the next ship's fix.
The parts of a cube are disjoint and together the cube (:func:`constraints` says why),
so the boards of a puzzle are still the union of its uncut cubes' boards.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.backends.base import Answer, Deadline
from harness.backends.status_tables import CPSAT

CUBES_PER_SEARCH = 4


def cubes(backend: Any, count: int) -> list[list[tuple[str, list[int]]]]:
    """``count`` disjoint, exhaustive cubes over ``backend.cp_y``: each a list of
    ``("some", indices)`` (at least one of these placements) and ``("none", indices)`` /
    ``("all", indices)`` (all absent / all present) constraints.  Fewer cubes when there are
    fewer placements to cut."""
    m = backend.model
    if _dealt(m) is not None:
        return [constraints(m, path) for path in split(m, (), count)]
    order = sorted(range(len(backend.cp_y)), key=lambda i: (-m.placements[i].length, i))[:max(count - 1, 1)]
    chain = [[("none", order[:i]), ("all", [order[i]])] for i in range(len(order))]
    return chain + [[("none", order)]]


def _dealt(model: Any) -> int | None:
    """The length whose placements :func:`cubes` deals: the longest with a single ship (and two placements)."""
    ones = [L for L, n in model.fleet.items() if n == 1 and len(model.by_length.get(L, ())) >= 2]
    return max(ones) if ones else None


def ship_order(model: Any) -> list[int]:
    """The lengths of the fleet's ships in the order :func:`split` fixes them: :func:`cubes`' dealt ship
    first, then every other ship, longest first."""
    first = [] if _dealt(model) is None else [_dealt(model)]
    return first + [L for L in sorted(model.fleet, reverse=True) for _ in range(model.fleet[L] - (L in first))]


def _candidates(model: Any, path: tuple, level: int) -> list[int]:
    """The placements ship ``level`` of :func:`ship_order` may be at, given the fixes before it: those of its
    length after the placement its length's previous ship is fixed at (its fix then holds one placement)."""
    lengths = ship_order(model)
    before = [fix[0] for fix, L in zip(path[:level], lengths) if L == lengths[level]]
    return [q for q in sorted(model.by_length.get(lengths[level], ())) if not before or q > before[-1]]


def constraints(model: Any, path: tuple) -> list[tuple[str, list[int]]]:
    """The cube ``path`` (a fix -- a tuple of placements -- per ship of :func:`ship_order`, a prefix of it) as
    :func:`cube_model`'s constraints.

    A ship whose length has one ship: "some placement of its fix" (the fleet's exactly-one makes the fixes of
    a split disjoint).  A ship of a length with several, its previous one fixed at p (or none): "no placement
    of that length after p and before the fix's first, and some placement of the fix" -- the lowest ship of
    that length after p lies in the fix.  Its fixes are runs of consecutive candidates, so the runs of a split
    are disjoint, and since the fleet has that ship, one of them holds it."""
    lengths = ship_order(model)
    out: list[tuple[str, list[int]]] = []
    for level, fix in enumerate(path):
        if fix and model.fleet[lengths[level]] > 1:
            out.append(("none", [q for q in _candidates(model, path, level) if q < min(fix)]))
        out.append(("some", sorted(fix)))
    return out


def split(model: Any, path: tuple, parts: int) -> list[tuple] | None:
    """The cube ``path`` cut into up to ``parts`` disjoint cubes that together are it (module docstring), or
    None when every ship is fixed at one placement.  ``split(model, (), n)`` is :func:`cubes`' dealt cut when
    the fleet has a single longest-unique ship."""
    lengths = ship_order(model)
    if path and not path[-1]:  # a cube with no placement left for a ship: nothing to cut
        return None
    if path and len(path[-1]) > 1:
        base, members, level = path[:-1], list(path[-1]), len(path) - 1
    elif len(path) < len(lengths):
        base, level = path, len(path)
        members = _candidates(model, path, level)
    else:
        return None
    if not members:  # no placement left for this ship: the cube holds no board, one cube says so
        return [base + ((),)]
    k = max(1, min(parts, len(members)))
    if model.fleet[lengths[level]] == 1:  # dealt round-robin: neighbouring placements apart
        chunks = [members[g::k] for g in range(k)]
    else:  # runs of consecutive candidates
        size, extra = divmod(len(members), k)
        chunks, at = [], 0
        for g in range(k):
            chunks.append(members[at:at + size + (g < extra)])
            at += size + (g < extra)
    return [base + (tuple(c),) for c in chunks]


def cube_model(backend: Any, cube: list[tuple[str, list[int]]]) -> Any:
    """(a clone of ``backend``'s built CP-SAT model with ``cube``'s constraints, its placement literals)."""
    md = backend.cp_model.clone()
    lit = [md.get_bool_var_from_proto_index(v.index) for v in backend.cp_y]
    for kind, ids in cube:
        if kind == "some":
            md.add_bool_or([lit[i] for i in ids])
        elif kind == "none":
            for i in ids:
                md.add_bool_or([~lit[i]])
        else:
            for i in ids:
                md.add_bool_or([lit[i]])
    return md, lit


def search_cube(backend: Any, cube: list[tuple[str, list[int]]], limit: int | None,
                time_s: float | None) -> tuple[list, str, float, float]:
    """One cube of ``backend``'s built model searched alone, by one single-worker CP-SAT search in this thread:
    (its boards, up to ``limit``; what the search's end means -- ``exhausted``, ``hit_limit``, ``stopped`` --; the
    thread's CPU seconds; wall seconds).  What a cluster task of a distributed certification runs."""
    import time

    from harness.backends.cpsat_core import load

    cp_model = load()
    md, lit = cube_model(backend, cube)
    boards: list = []

    class Collector(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            boards.append(backend.model.board_from([i for i, v in enumerate(lit) if self.boolean_value(v)]))
            if limit is not None and len(boards) >= limit:
                self.stop_search()

    solver = backend.new_solver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    if time_s is not None:
        solver.parameters.max_time_in_seconds = time_s
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    status = solver.solve(md, Collector())
    cpu, wall = time.thread_time() - cpu0, time.perf_counter() - wall0
    meaning = CPSAT.meaning(status, "callback")
    if meaning == "stopped" and (limit is None or len(boards) < limit):  # a board found, then out of time
        meaning = "hit_limit"
    return boards, meaning, cpu, wall


def enumerate_split(backend: Any, limit: int | None, deadline: Deadline) -> Answer:
    """Boards of ``backend``'s built model, by ``backend.opts['split']`` searches at once (module docstring)."""
    from harness.backends.cpsat_core import load

    cp_model = load()

    searches = int(backend.opts["split"])
    todo = cubes(backend, CUBES_PER_SEARCH * searches)
    lock = threading.Lock()
    boards: list = []
    seen: set = set()
    running: list = []
    state = {"stopped": False, "hit_limit": False, "reported": 0.0, "searched": 0}

    def search(cube: list[tuple[str, list[int]]]) -> None:
        md, lit = cube_model(backend, cube)

        class Collector(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                board = backend.model.board_from([i for i, v in enumerate(lit) if self.boolean_value(v)])
                with lock:
                    if state["stopped"]:  # another search reached the limit first
                        self.stop_search()
                        return
                    if board.cells not in seen:
                        seen.add(board.cells)
                        boards.append(board)
                    if limit is not None and len(boards) >= limit and not state["stopped"]:
                        state["stopped"] = True
                        for solver in running:
                            solver.stop_search()

        solver = backend.new_solver()
        solver.parameters.enumerate_all_solutions = True
        solver.parameters.num_workers = 1
        with lock:
            if state["stopped"]:
                return
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0:
                state["hit_limit"] = True
                return
            if remaining is not None:
                solver.parameters.max_time_in_seconds = remaining
            running.append(solver)
        status = solver.solve(md, Collector())
        with lock:
            running.remove(solver)
            state["reported"] += solver.wall_time
            meaning = CPSAT.meaning(status, "callback")
            if meaning == "exhausted" and not state["stopped"]:
                state["searched"] += 1
            elif meaning == "hit_limit" or (meaning == "stopped" and not state["stopped"]):
                state["hit_limit"] = True

    with ThreadPoolExecutor(max_workers=searches) as pool:
        for future in [pool.submit(search, cube) for cube in todo]:
            future.result()  # an error in a search is raised here
    answer = Answer(boards=boards, solver_reported_s=state["reported"])
    answer.exhausted = state["searched"] == len(todo) and not state["stopped"]
    answer.hit_limit = state["hit_limit"] and not state["stopped"]
    answer.detail = (f"split: {len(todo)} cubes, {searches} searches at once, {state['searched']} searched to "
                     f"the end, {len(boards)} board(s)")
    return answer


__all__ = ["CUBES_PER_SEARCH", "constraints", "cube_model", "cubes", "enumerate_split", "search_cube", "ship_order",
           "split"]
