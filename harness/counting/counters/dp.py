"""The ``dp`` counter: the row-transfer programme when it applies, else the frontier programme, behind the counter contract.

Two exact dynamic programmes, the first that can express the instance is used (the
answer's ``detail.method`` says which):

* ``rows`` (:mod:`harness.counting.rows`): straight pieces on a square board that may
  touch, with misses, islands, hits and sunk pieces; no clues.  Its state holds at most
  three pieces (those lying across the rows), so its cost barely grows with the board.
* ``frontier`` (:mod:`harness.counting.frontier`): any board (square or hex, islands),
  any pieces, touching allowed or forbidden, hints and clues: row clues with a running
  count in the state, column clues with one 4-bit count per clued column in the state
  (at most :data:`~harness.counting.frontier.MAX_COL_CLUES`; exact, but the states
  multiply).  The ``frontier`` counter (:mod:`.frontier`) always uses it.

Puzzle piece hints (``O < > ^ v``) and unknown-shape hints have no deployment form: such
puzzles are refused when they are read.  By boards only when pieces may not touch (the
frontier then): every board is one arrangement (its pieces are its connected groups of
cells), so the boards are the deployments with identical pieces not told apart.
"""

from __future__ import annotations

from typing import Any

from harness.counting.counters import CountAnswer, Counter, Unsupported


class DpCounter(Counter):
    name = "dp"
    by = ("deployments", "boards")
    library = None  # battlebench's own programmes, compiled by numba
    packages = ("numba",)
    engines = ("rows", "frontier")  # tried in this order

    requires = ('numba',)
    install = 'pip install numba'

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        if by == "boards" and dep.touching:
            return ("the dp counts boards only when pieces may not touch (else a board can hold several "
                    "arrangements): use sat, cpsat or sharpsat")
        if dep.col_clues is not None:
            from harness.counting.frontier import MAX_COL_CLUES

            clued = [v for v in dep.col_clues if v is not None]
            if len(clued) > MAX_COL_CLUES or any(v > 15 for v in clued):
                return f"the dp keeps at most {MAX_COL_CLUES} column clues of at most 15 in its state"
        return super().refuses(dep, by)

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from harness.counting import rows
        from harness.counting.placements import layout
        from harness.counting.reduce import cannot_fit, without_sunk

        why = self.refuses(dep, by)
        if why:
            raise Unsupported(why)
        empty = cannot_fit(dep)  # the programmes check a line's clue only at its cells: a line without any is here
        if empty:
            return CountAnswer(0, True, {"method": "precheck", "precheck": empty})
        dep, taken = without_sunk(dep)
        lay = layout(dep)
        detail: dict[str, Any] = {"placements": sum(len(t.placements) for t in lay.types), "cells": lay.n,
                                  "sunk_taken_off": len(taken)}
        if "rows" in self.engines and by == "deployments":
            why = rows.unsupported(dep, lay)
            if why is None:
                return CountAnswer(rows.count(lay), True, {**detail, "method": "rows"})
            detail["rows_refused"] = why
        return self._frontier(dep, lay, by, detail)

    @staticmethod
    def _frontier(dep: Any, lay: Any, by: str, detail: dict) -> CountAnswer:
        from harness.counting import frontier

        prog = frontier.compile_layout(dep, lay)
        total, peak = frontier.count(prog, frontier.count_bound(lay))
        detail.update({"method": "frontier", "peak_states": peak, "window": lay.span() + 1})
        if by == "boards":
            if dep.touching:
                raise Unsupported("the dp counts boards only when pieces may not touch (else a board can hold "
                                  "several arrangements): use sat, cpsat or sharpsat")
            shapes: dict = {}
            for g, group in enumerate(prog.groups):
                for t in group:
                    piece = dep.pieces[t]
                    shapes.setdefault(frozenset(dep.grid.orientations(piece.cells, dep.reflections)), set()).add(g)
            if any(len(gs) > 1 for gs in shapes.values()):
                raise Unsupported("pieces of one shape that hints tell apart: the dp cannot count their boards")
            total //= prog.labels
        return CountAnswer(total, True, detail)


__all__ = ["DpCounter"]
