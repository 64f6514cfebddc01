"""The ``dp`` counter: the fastest of battlebench's exact programmes that takes the instance, behind the counter contract.

Five exact programmes, each with its domain as a predicate (:func:`refusals`: None where
it takes the instance, else one line why not), tried in the order of :data:`ENGINES`,
fastest first as measured by ``benchmarks/counting_dispatch.py`` (``reports/counting-dispatch``);
the answer's ``detail.method`` says which ran and ``detail.refused`` why each faster one did not:

* ``cluster`` (:mod:`.cluster`): the cluster expansion, independent of the board's size:
  full rectangles without hints or clues, at most :data:`~.cluster.MAX_PIECES` pieces, by
  deployments; without touching only once the fleet's tables are computed (shipped for the
  standard fleet; another fleet's first computation takes minutes, once: ``--backend cluster``).
* ``rows`` (:mod:`harness.counting.rows`): straight pieces that may touch on square
  boards, misses, islands, hits and sunk pieces; no clues; by deployments.  Its state holds
  at most three pieces lying across the rows, so its cost barely grows with the board.
* ``profile`` (:mod:`harness.counting.profile`): straight pieces on square boards, touching
  or not, every hint; no clues; a profile of the narrower side that fits 62 bits.
* ``enumerate`` (:func:`harness.counting.counters.sat.enumerate_count`): clued instances
  (a puzzle's boards are few): the shared CNF's models listed with python-sat (CaDiCaL)
  and blocked one by one, at most :data:`ENUMERATE_MOST`; past that the frontier counts
  (and ``detail.refused`` says so), or, where the frontier cannot hold the column clues,
  the listing goes on.  On boards of :data:`BUDGET_CELLS` cells or more (the 30x20
  puzzles) a board that takes CaDiCaL more than :data:`ENUMERATE_BUDGET` conflicts leaves
  the rest to CP-SAT (the ``cpsat`` counter, longest pieces first) with the boards found
  excluded (``detail.listed_by`` says how many each listed); the option ``split = N``
  gives that CP-SAT listing N searches at once (the ``cpsat`` counter's ``split``).  Exact
  when it finishes, like every programme here.
* ``frontier`` (:mod:`harness.counting.frontier`): any board (square or hex, islands),
  any pieces, touching allowed or forbidden, hints and clues: row clues with a running
  count in the state, column clues with one 4-bit count per clued column in the state
  (at most :data:`~harness.counting.frontier.MAX_COL_CLUES`; exact, but the states
  multiply).  The ``frontier`` counter (:mod:`.frontier`) always uses it.

Puzzle piece hints (``O < > ^ v``) and unknown-shape hints have no deployment form: such
puzzles are refused when they are read.  By boards only when pieces may not touch (profile
or frontier): every board is one arrangement (its pieces are its connected groups of
cells), so the boards are the deployments with identical pieces not told apart.
"""

from __future__ import annotations

from typing import Any

from harness.core.options import Option
from harness.counting.counters import CountAnswer, Counter, Unsupported


ENGINES = ("cluster", "rows", "profile", "enumerate", "frontier")
"""The programmes ``dp`` tries, fastest first where their domains meet (see the module docstring)."""

ENUMERATE_MOST = 1000
"""Boards (or deployments) the ``enumerate`` programme lists before it leaves a clued instance to the frontier."""

ENUMERATE_BUDGET = 2_000
"""On boards of :data:`BUDGET_CELLS` cells or more, the conflicts CaDiCaL may take to find the ``enumerate``
programme's next board (or to prove there is none) before CP-SAT lists the rest: a minimal 30x20 puzzle's board
took CaDiCaL 83 s of CPU, CP-SAT longest first 16 s (10,000 conflicts cost about 2 s there, so few)."""

BUDGET_CELLS = 400
"""Boards smaller than this are listed by CaDiCaL to the end: on the solbat puzzles (at most 15x15) CP-SAT
took 5 to 10 s where CaDiCaL took under 1 s, even where one of their boards took CaDiCaL 11,000 conflicts."""

BOARDS_TOUCHING = ("the dp counts boards only when pieces may not touch (else a board can hold several "
                   "arrangements): use sat, cpsat or sharpsat")


def frontier_refusal(dep: Any) -> str | None:
    """What the frontier programme does not take: more column clues (or larger ones) than its state holds."""
    if dep.col_clues is not None:
        from harness.counting.frontier import MAX_COL_CLUES

        clued = [v for v in dep.col_clues if v is not None]
        if len(clued) > MAX_COL_CLUES or any(v > 15 for v in clued):
            return f"it keeps at most {MAX_COL_CLUES} column clues of at most 15 in its state"
    return None


def _cluster_refusal(dep: Any, by: str) -> str | None:
    from harness.counting.counters.cluster import ClusterCounter, tables_ready

    why = ClusterCounter.refuses(dep, by)
    if why is None and not dep.touching and not tables_ready(dep):
        why = ("its tables for this fleet without touching are not computed yet (minutes, once: "
               "battlebench count FILE --backend cluster)")
    return why


def refusals(dep: Any, lay: Any = None, by: str = "deployments") -> dict[str, str | None]:
    """Each programme's domain as a predicate on the instance (after sunk pieces are taken off; ``lay`` its
    layout, made here when not given): None where it takes it, else one line why not.  Cheap: nothing is
    counted; only the cluster's answer depends on something besides the instance (which tables are on disk)."""
    from harness.counting import profile, rows
    from harness.counting.placements import layout

    out: dict[str, str | None] = {"cluster": _cluster_refusal(dep, by)}
    lay = layout(dep) if lay is None else lay
    out["rows"] = "it counts deployments, not boards" if by == "boards" else rows.unsupported(dep, lay)
    out["profile"] = profile.unsupported(dep, lay)
    out["enumerate"] = (None if dep.row_clues is not None or dep.col_clues is not None else
                        "no clues (it lists the boards of clued instances, which are few)")
    out["frontier"] = frontier_refusal(dep)
    return out


KERNELS = {"cluster": "harness.counting._cluster_nb", "rows": "harness.counting._rows_nb",
           "profile": "harness.counting._profile_nb", "frontier": "harness.counting._frontier_nb"}
"""The kernel module (:data:`harness.core.jitcache.KERNELS`) each programme compiles, by its name (and the
counter's of the same name); ``enumerate`` compiles none."""


def warm_needs(dep: Any, by: str = "deployments", marginals: bool = False) -> tuple[str, ...]:
    """The compiled programmes a dp run on ``dep`` will use (the ``marginals`` too when asked), decided without
    building a layout — cheap enough for the process that plans the runs, whatever the board's size — so a
    worker compiles only those before its runs (:meth:`harness.tasks.count.CountRequest.warm`).  Exact on the
    instances tried (tested against the programme each run names); where a hint tells same-shaped pieces
    apart the profile's fleet vector may be larger than guessed here: the run then compiles inside its time."""
    from harness.counting import profile
    from harness.counting import rows as rows_mod
    from harness.counting.reduce import without_sunk

    dep, _ = without_sunk(dep)
    clued = dep.row_clues is not None or dep.col_clues is not None
    rows, fits = rows_mod.may_take(dep), profile.may_take(dep)
    if _cluster_refusal(dep, by) is None:
        needs: tuple[str, ...] = ("cluster",)
    elif clued:
        needs = ("enumerate", "frontier")  # past ENUMERATE_MOST boards the frontier counts
    elif rows and by == "deployments":
        needs = ("rows",)
    elif fits:
        needs = ("profile",)
    else:
        needs = ("frontier",)
    if marginals:
        extra = marginals_engine(dep)
        needs += (extra,) if extra not in needs else ()
    return needs


def marginals_engine(dep: Any) -> str:
    """The programme that gives ``dep``'s marginals, decided as :func:`warm_needs` decides (no layout built): rows,
    else profile, else frontier (:data:`harness.counting.marginals.METHODS`)."""
    from harness.counting import profile
    from harness.counting import rows as rows_mod
    from harness.counting.reduce import without_sunk

    dep, _ = without_sunk(dep)
    return "rows" if rows_mod.may_take(dep) else "profile" if profile.may_take(dep) else "frontier"


class DpCounter(Counter):
    name = "dp"
    by = ("deployments", "boards")
    library = None  # battlebench's own programmes, compiled by numba
    packages = ("numba", "python-sat", "ortools")  # the enumerate programme's SAT solver and CP-SAT
    engines = ENGINES  # tried in this order
    options = {"split": Option(1, int, minimum=1, help="CP-SAT searches at once where the enumerate programme leaves "
                                                     "a large puzzle's boards to CP-SAT (the cpsat counter's split)")}

    requires = ('numba', 'pysat', 'ortools')
    install = 'pip install numba python-sat ortools'

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        if by == "boards" and dep.touching:
            return BOARDS_TOUCHING
        return super().refuses(dep, by)

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from harness.counting import profile, rows
        from harness.counting.counters.cluster import count_rectangle
        from harness.counting.placements import layout
        from harness.counting.reduce import cannot_fit, without_sunk

        why = self.refuses(dep, by)
        if why:
            raise Unsupported(why)
        empty = cannot_fit(dep)  # the programmes check a line's clue only at its cells: a line without any is here
        if empty:
            return CountAnswer(0, True, {"method": "precheck", "precheck": empty})
        dep, taken = without_sunk(dep)
        if self.engines[0] == "cluster" and _cluster_refusal(dep, by) is None:  # no layout needed
            return CountAnswer(count_rectangle(dep), True, {"cells": len(dep.cells), "sunk_taken_off": len(taken),
                                                            "refused": {}, "method": "cluster"})
        lay = layout(dep)
        detail: dict[str, Any] = {"placements": sum(len(t.placements) for t in lay.types), "cells": lay.n,
                                  "sunk_taken_off": len(taken)}
        refused = refusals(dep, lay, by)
        method = next((m for m in self.engines if refused.get(m) is None), None)
        if method is None:  # a counter of one programme, on what that programme does not take
            raise Unsupported("; ".join(f"{m}: {refused[m]}" for m in self.engines))
        detail["refused"] = {m: refused[m] for m in self.engines[:self.engines.index(method)]}
        if method == "cluster":
            return CountAnswer(count_rectangle(dep), True, {**detail, "method": "cluster"})
        if method == "rows":
            return CountAnswer(rows.count(lay), True, {**detail, "method": "rows"})
        if method == "enumerate":
            return self._enumerate(dep, lay, by, deadline, detail, refused["frontier"] is None)
        if method == "profile":
            if by == "boards":
                try:
                    total = profile.boards(dep, lay)
                except ValueError as exc:
                    raise Unsupported(f"{exc}: the dp cannot count their boards") from None
                return CountAnswer(total, True, {**detail, "method": "profile"})
            total, peak = profile.count(dep, lay)
            return CountAnswer(total, True, {**detail, "method": "profile", "peak_states": peak})
        return self._frontier(dep, lay, by, detail)

    def _enumerate(self, dep: Any, lay: Any, by: str, deadline: float | None, detail: dict,
                   frontier_takes: bool) -> CountAnswer:
        """A clued instance's boards listed by CaDiCaL; past :data:`ENUMERATE_MOST` boards the frontier counts
        (where it takes the instance); on boards of :data:`BUDGET_CELLS` cells or more a board that takes
        CaDiCaL more than :data:`ENUMERATE_BUDGET` conflicts leaves the rest to CP-SAT searching longest pieces
        first, the boards found excluded."""
        from harness.counting.counters.cpsat import CpSatCounter
        from harness.counting.counters.sat import SOLVER, enumerate_count

        frontier_next = frontier_takes and "frontier" in self.engines
        found: list[frozenset] = []
        budget = ENUMERATE_BUDGET if lay.n >= BUDGET_CELLS else None
        listed = enumerate_count(dep, by, deadline, ENUMERATE_MOST if frontier_next else None, budget, found,
                                 lay)
        detail = {**detail, **listed.detail, "method": "enumerate"}
        if "more_than" in listed.detail:
            detail["refused"]["enumerate"] = f"more than {ENUMERATE_MOST} to list: left to the frontier"
            for key in ("more_than", "variables", "clauses", "solver"):
                detail.pop(key)
            return self._frontier(dep, lay, by, detail)
        if "budget_out" not in listed.detail:
            return CountAnswer(listed.count, listed.complete, detail)
        rest = CpSatCounter(split=self.opts.get("split", 1)).count(dep, by, deadline, exclude=found)
        detail.pop("budget_out")
        detail.update({"listed_by": {SOLVER: len(found), "cpsat": rest.count},
                       "handoff": (f"after {len(found)} board(s) CaDiCaL ran out of its {ENUMERATE_BUDGET:,} conflicts "
                                   "for the next: CP-SAT (longest pieces first) listed the rest"),
                       "cpsat": rest.detail})
        total = None if rest.count is None else len(found) + rest.count
        return CountAnswer(total, rest.complete, detail)

    @staticmethod
    def _frontier(dep: Any, lay: Any, by: str, detail: dict) -> CountAnswer:
        from harness.counting import frontier
        from harness.counting.placements import told_apart

        prog = frontier.compile_layout(dep, lay)
        total, peak = frontier.count(prog, frontier.count_bound(lay))
        detail.update({"method": "frontier", "peak_states": peak, "window": lay.span() + 1})
        if by == "boards":
            if dep.touching:
                raise Unsupported(BOARDS_TOUCHING)
            if told_apart(dep, prog.groups):
                raise Unsupported("pieces of one shape that hints tell apart: the dp cannot count their boards")
            total //= prog.labels
        return CountAnswer(total, True, detail)


__all__ = ["DpCounter", "ENGINES", "KERNELS", "marginals_engine", "frontier_refusal", "refusals", "warm_needs"]
