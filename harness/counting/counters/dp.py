"""The ``dp`` counter: the frontier dynamic programme of :mod:`harness.counting.frontier` behind the counter contract.

Handles any board (square or hex, islands), any pieces, touching allowed or forbidden,
hints (misses, hits, sunk pieces, sinks announced) and clues: row clues with a running
count in the state, column clues with one 4-bit count per clued column in the state (at
most :data:`~harness.counting.frontier.MAX_COL_CLUES`; exact, but the states multiply).
Puzzle piece hints (``O < > ^ v``) and unknown-shape hints have no deployment form: such
puzzles are refused when they are read.  By boards only when pieces may not touch: then
every board is one arrangement (its pieces are its connected groups of cells), so the
boards are the deployments with identical pieces not told apart.
"""

from __future__ import annotations

from typing import Any

from harness.counting.counters import CountAnswer, Counter, Unsupported


class DpCounter(Counter):
    name = "dp"
    by = ("deployments", "boards")
    library = "numba"

    requires = ('numba',)
    install = 'pip install numba'

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from harness.counting import frontier
        from harness.counting.placements import layout

        from harness.counting.reduce import without_sunk

        self.check_by(by)
        dep, taken = without_sunk(dep)
        lay = layout(dep)
        prog = frontier.compile_layout(dep, lay)
        total, peak = frontier.count(prog, frontier.count_bound(lay))
        detail = {"placements": sum(len(t.placements) for t in lay.types), "cells": lay.n, "peak_states": peak,
                  "window": lay.span() + 1, "sunk_taken_off": len(taken)}
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
