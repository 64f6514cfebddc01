"""The abstract model: filtered placements, cell->placement index, 2x2 windows, stats.

Every backend compiles *this* object; none re-derives placements.  Building it:

1. enumerate every placement of every fleet length (both orientations; length 1 once);
2. drop placements that cover a row/column whose clue is 0, that lie along a line
   whose clue is smaller than their length, that cover a water hint, that give a
   piece-hinted cell a different piece, or (ships may not touch) whose surrounding
   ring holds a ship hint;
3. index cells -> covering placements and 2x2 windows -> intersecting placements
   (two placements touch or overlap exactly when they meet in one window);
4. run sound counting prechecks (clue sums against the fleet, too few placements
   for a length, a hinted ship cell nobody can cover): ``infeasible`` names the
   first one that fails, and backends may answer unsat from it without solving.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterator

from harness.puzzle.board import Board, Ship
from harness.puzzle.instance import Cell, Hint, Instance


@dataclass(frozen=True)
class Placement:
    """One way to put one ship of a given length on the board."""

    index: int
    ship: Ship
    cells: tuple[Cell, ...]
    pieces: tuple[str, ...]

    @property
    def length(self) -> int:
        return self.ship.length

    def piece_at(self, cell: Cell) -> str:
        return self.pieces[self.cells.index(cell)]


@dataclass
class Model:
    """What all backends share.  Indices refer to ``placements``."""

    instance: Instance
    placements: list[Placement]
    by_length: dict[int, list[int]]
    cover: dict[Cell, list[int]]
    windows: list[tuple[tuple[Cell, ...], list[int]]]
    forced_ship: frozenset[Cell]
    forced_water: frozenset[Cell]
    piece_hints: dict[Cell, Hint]
    infeasible: str | None
    stats: dict[str, object] = field(default_factory=dict)

    # ---------------------------------------------------------------- geometry
    @property
    def rows(self) -> int:
        return self.instance.rows

    @property
    def cols(self) -> int:
        return self.instance.cols

    def cells(self) -> Iterator[Cell]:
        for r in range(self.rows):
            for c in range(self.cols):
                yield (r, c)

    def row_cells(self, r: int) -> list[Cell]:
        return [(r, c) for c in range(self.cols)]

    def col_cells(self, c: int) -> list[Cell]:
        return [(r, c) for r in range(self.rows)]

    def lines(self) -> Iterator[tuple[str, int, list[Cell], int]]:
        """Every line with a known clue: (kind, index, cells, clue)."""
        for r, clue in enumerate(self.instance.row_clues):
            if clue is not None:
                yield ("row", r, self.row_cells(r), clue)
        for c, clue in enumerate(self.instance.col_clues):
            if clue is not None:
                yield ("col", c, self.col_cells(c), clue)

    @property
    def fleet(self) -> dict[int, int]:
        """Lengths with at least one ship."""
        return {length: n for length, n in self.instance.fleet.items() if n > 0}

    def conflict_pairs(self) -> Iterator[tuple[int, int]]:
        """Pairs (i < j) of placements that may not both be chosen.

        Without touching: pairs meeting in a 2x2 window (overlap or contact).  With
        touching: pairs sharing a cell.  Each pair is yielded once.
        """
        groups = (
            (ps for _, ps in self.windows)
            if not self.instance.touching
            else (ps for ps in self.cover.values() if len(ps) > 1)
        )
        seen: set[tuple[int, int]] = set()
        for ps in groups:
            for i, j in combinations(sorted(ps), 2):
                if (i, j) not in seen:
                    seen.add((i, j))
                    yield (i, j)

    def board_from(self, chosen: list[int]) -> Board:
        """The board drawn by a list of chosen placement indices."""
        return Board.from_ships(self.rows, self.cols, (self.placements[i].ship for i in chosen))


def _enumerate(inst: Instance) -> Iterator[Ship]:
    R, C = inst.rows, inst.cols
    for length, count in inst.fleet.items():
        if count <= 0:
            continue
        for horizontal in (True, False) if length > 1 else (True,):
            max_r = R if horizontal else R - length + 1
            max_c = C - length + 1 if horizontal else C
            for r in range(max_r):
                for c in range(max_c):
                    yield Ship(r, c, length, horizontal)


def _ring(ship: Ship, rows: int, cols: int) -> list[Cell]:
    """Cells adjacent (including diagonally) to the ship but not on it."""
    r0, c0 = ship.row, ship.col
    r1 = r0 + (0 if ship.horizontal else ship.length - 1)
    c1 = c0 + (ship.length - 1 if ship.horizontal else 0)
    out = []
    for r in range(max(r0 - 1, 0), min(r1 + 2, rows)):
        for c in range(max(c0 - 1, 0), min(c1 + 2, cols)):
            if not (r0 <= r <= r1 and c0 <= c <= c1):
                out.append((r, c))
    return out


def build_model(inst: Instance) -> Model:
    """Build the shared abstract model of ``inst`` (pure; no solver involved)."""
    R, C = inst.rows, inst.cols
    rc, cc = inst.row_clues, inst.col_clues
    hints = inst.hints
    ship_hints = {cell for cell, h in hints.items() if h.is_ship}
    total_by_len: dict[int, int] = {}
    placements: list[Placement] = []

    for ship in _enumerate(inst):
        total_by_len[ship.length] = total_by_len.get(ship.length, 0) + 1
        L = ship.length
        line_clue = rc[ship.row] if ship.horizontal else cc[ship.col]
        if line_clue is not None and line_clue < L:
            continue
        cells = ship.cells()
        pieces = ship.pieces()
        ok = True
        for (r, c), piece in zip(cells, pieces):
            if rc[r] == 0 or cc[c] == 0:
                ok = False
                break
            h = hints.get((r, c))
            if h is not None and (h is Hint.WATER or (h.is_piece and h.value != piece)):
                ok = False
                break
        if not ok:
            continue
        if not inst.touching and ship_hints and any(cell in ship_hints for cell in _ring(ship, R, C)):
            continue
        placements.append(Placement(len(placements), ship, cells, pieces))

    by_length: dict[int, list[int]] = {L: [] for L, n in inst.fleet.items() if n > 0}
    cover: dict[Cell, list[int]] = {(r, c): [] for r in range(R) for c in range(C)}
    for p in placements:
        by_length[p.length].append(p.index)
        for cell in p.cells:
            cover[cell].append(p.index)

    # 2x2 windows clipped to the board (1x2 / 2x1 on one-line boards).
    wr, wc = max(R - 1, 1), max(C - 1, 1)
    win_of_cell: dict[Cell, list[int]] = {cell: [] for cell in cover}
    win_cells: list[tuple[Cell, ...]] = []
    for r in range(wr):
        for c in range(wc):
            cells = tuple((r + dr, c + dc) for dr in (0, 1) for dc in (0, 1) if r + dr < R and c + dc < C)
            for cell in cells:
                win_of_cell[cell].append(len(win_cells))
            win_cells.append(cells)
    win_pl: list[list[int]] = [[] for _ in win_cells]
    for p in placements:
        seen: set[int] = set()
        for cell in p.cells:
            for w in win_of_cell[cell]:
                if w not in seen:
                    seen.add(w)
                    win_pl[w].append(p.index)
    windows = [(win_cells[w], win_pl[w]) for w in range(len(win_cells)) if len(win_pl[w]) > 1]

    forced_water = frozenset(
        cell for cell, ps in cover.items() if not ps or hints.get(cell) is Hint.WATER
    )
    piece_hints = {cell: h for cell, h in hints.items() if h.is_piece}
    model = Model(
        instance=inst,
        placements=placements,
        by_length=by_length,
        cover=cover,
        windows=windows,
        forced_ship=frozenset(ship_hints),
        forced_water=forced_water,
        piece_hints=piece_hints,
        infeasible=None,
    )
    model.infeasible = _precheck(model)
    model.stats = {
        "placements_total": sum(total_by_len.values()),
        "placements_kept": len(placements),
        "placements_by_length": {
            L: {"total": total_by_len.get(L, 0), "kept": len(by_length[L])} for L in by_length
        },
        "cells": R * C,
        "windows": len(windows),
        "forced_ship": len(model.forced_ship),
        "forced_water": len(forced_water),
    }
    return model


def _precheck(m: Model) -> str | None:
    """Sound counting arguments that prove infeasibility without search."""
    inst = m.instance
    need = inst.ship_cells
    for kind, clues in (("row", inst.row_clues), ("column", inst.col_clues)):
        if all(v is not None for v in clues) and sum(clues) != need:  # type: ignore[arg-type]
            return f"{kind} clues sum to {sum(clues)} but the fleet has {need} ship cells"  # type: ignore[arg-type]
    for L, n in m.fleet.items():
        if len(m.by_length[L]) < n:
            return f"only {len(m.by_length[L])} placements remain for {n} ship(s) of length {L}"
    for cell in sorted(m.forced_ship):
        if not m.cover[cell]:
            return f"no placement can cover the ship hint at {cell}"
    for kind, idx, cells, clue in m.lines():
        open_cells = sum(1 for cell in cells if cell not in m.forced_water)
        if open_cells < clue:
            return f"{kind} {idx} needs {clue} ship cells but only {open_cells} can hold one"
        fixed = sum(1 for cell in cells if cell in m.forced_ship)
        if fixed > clue:
            return f"{kind} {idx} has {fixed} hinted ship cells but its clue is {clue}"
    return None
