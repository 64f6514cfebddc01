"""Placements: every way each piece can lie on the board, with the hints applied, over cells in a fixed order.

:func:`layout` numbers the board's cells (row-major on square boards; on hex boards the
coordinate order that keeps placements shortest) and lists, per piece, its placements as
sorted tuples of cell indices.  A placement is a translated orientation of the piece's
shape whose cells are all on the board and none a miss; a sunk piece has exactly its
stated cells as its only placement (none if they are not its shape); a piece that sank at
a cell covers it and lies within the hits (within those made up to its sink, where
``sunk_within`` says which); with sinks announced, a piece that is not sunk
never lies wholly within the hits.  Hits (cells some piece must cover) and clues are not
placement filters: the counters enforce them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from harness.counting.deployment import Deployment
from harness.counting.geometry import Cell


@dataclass(frozen=True)
class PieceType:
    """One piece of a layout: its name, identical copies and placements (sorted cell indices)."""

    name: str
    count: int
    placements: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Layout:
    """The board's cells in counting order and every piece's placements over them."""

    cells: tuple[Cell, ...]  # index -> cell
    index: dict  # cell -> index
    types: tuple[PieceType, ...]
    halo: Mapping  # placement (tuple of indices) -> sorted indices touching it (touching forbidden only)
    hits: frozenset[int]
    rows: tuple[int, ...]  # per cell index, its row (square boards; 0 on hex boards)

    @property
    def n(self) -> int:
        return len(self.cells)

    def span(self) -> int:
        """The largest last-minus-first index of a placement (with its halo): the frontier's width."""
        widest = 0
        for t in self.types:
            for p in t.placements:
                last = max(p[-1], *(self.halo.get(p, ()) or (p[-1],)))
                widest = max(widest, last - p[0])
        return widest


def _order(dep: Deployment) -> list[Cell]:
    if dep.grid.kind == "square":
        return sorted(dep.cells)
    best = None
    for perm in permutations(range(3)):  # the coordinate order with the narrowest placements
        cells = sorted(dep.cells, key=lambda c: tuple(c[i] for i in perm))
        index = {c: i for i, c in enumerate(cells)}
        span = 0
        for p in dep.pieces:
            for shape in dep.grid.orientations(p.cells, dep.reflections):
                for base in cells:
                    ids = [index.get(dep.grid.add(base, s)) for s in shape]
                    if None not in ids:
                        span = max(span, max(ids) - min(ids))
        if best is None or span < best[0]:
            best = (span, cells)
    return best[1]


@lru_cache(maxsize=256)
def _on_board(grid, cells: frozenset, shape: tuple, reflections: bool) -> tuple[tuple, ...]:
    """Every translated orientation of ``shape`` lying wholly on ``cells`` (no hints): cell tuples.  Cached:
    game positions ask for the same board and pieces shot after shot."""
    out = set()
    for orient in grid.orientations(shape, reflections):
        for base in cells:
            placed = tuple(sorted(grid.add(base, s) for s in orient))
            if all(c in cells for c in placed):
                out.add(placed)
    return tuple(sorted(out))


def placements_of(dep: Deployment, piece_index: int, index: dict) -> set[tuple[int, ...]]:
    """Every placement of one piece (cell indices, sorted), hints applied (see the module docstring)."""
    piece = dep.pieces[piece_index]
    grid = dep.grid
    hit_ids = {index[c] for c in dep.hits}
    miss_ids = {index[c] for c in dep.misses}
    if piece.name in dep.sunk:
        cells = dep.sunk[piece.name]
        if grid.normal(cells) not in grid.orientations(piece.cells, dep.reflections):
            return set()
        return {tuple(sorted(index[c] for c in cells))}
    out = set()
    sink = index[dep.sunk_at[piece.name]] if piece.name in dep.sunk_at else None
    within = {index[c] for c in dep.sunk_within[piece.name]} if piece.name in dep.sunk_within else hit_ids
    for cells in _on_board(grid, dep.cells, tuple(piece.cells), dep.reflections):
        ids = tuple(sorted(index[c] for c in cells))
        if miss_ids.intersection(ids):
            continue
        if sink is not None:
            if sink not in ids or not within.issuperset(ids):
                continue
        elif dep.announce_sinks and hit_ids.issuperset(ids):
            continue
        out.add(ids)
    return out


class _Halos(Mapping):
    """Every placement's halo (the cells touching it), computed on first use: the profile programme, which
    counts most no-touch positions, never asks."""

    def __init__(self, grid, cells, index, types):
        self._args = (grid, cells, index, types)
        self._map: dict | None = None

    def _halos(self) -> dict:
        if self._map is None:
            grid, cells, index, types = self._args
            self._map = {}
            for t in types:
                for p in t.placements:
                    around = {index[n] for i in p for n in grid.around(cells[i]) if n in index}
                    self._map[p] = tuple(sorted(around - set(p)))
        return self._map

    def __getitem__(self, p):
        return self._halos()[p]

    def __iter__(self):
        return iter(self._halos())

    def __len__(self) -> int:
        return len(self._halos())


def layout(dep: Deployment) -> Layout:
    """Cells in counting order and every piece's placements (and halos when touching is forbidden)."""
    cells = _order(dep)
    index = {c: i for i, c in enumerate(cells)}
    types = tuple(PieceType(p.name, p.count, tuple(sorted(placements_of(dep, k, index))))
                  for k, p in enumerate(dep.pieces))
    halo = {} if dep.touching else _Halos(dep.grid, cells, index, types)
    rows = tuple(c[0] if dep.grid.kind == "square" else 0 for c in cells)
    return Layout(tuple(cells), index, types, halo, frozenset(index[c] for c in dep.hits), rows)


def bent(lay: Layout) -> str | None:
    """The first piece with a placement neither in one row nor in one column ("piece NAME is not straight"),
    or None: what the row and profile programmes need (square boards)."""
    for t in lay.types:
        for p in t.placements:
            if len({lay.cells[i][0] for i in p}) > 1 and len({lay.cells[i][1] for i in p}) > 1:
                return f"piece {t.name} is not straight"
    return None


def shape_of(dep: Deployment, piece) -> frozenset:
    """A piece's shape up to the moves the rules allow (its orientations): pieces with one shape are alike."""
    return frozenset(dep.grid.orientations(piece.cells, dep.reflections))


def straight(dep: Deployment) -> bool:
    """Does every piece lie in one row or one column (what :func:`bent` finds of a layout, without one)?"""
    return dep.grid.kind == "square" and all(len({r for r, _ in p.cells}) == 1 or len({c for _, c in p.cells}) == 1
                                             for p in dep.pieces)


def told_apart(dep: Deployment, groups: list) -> bool:
    """Do hints tell pieces of one shape apart: do pieces of one shape fall in different ``groups`` (lists of piece
    indices merged because they share their placements)?  Then boards cannot be counted as merged deployments."""
    group_of = {k: g for g, ks in enumerate(groups) for k in ks}
    shapes: dict = {}
    for k, piece in enumerate(dep.pieces):
        shapes.setdefault(shape_of(dep, piece), set()).add(group_of[k])
    return any(len(gs) > 1 for gs in shapes.values())


__all__ = ["Layout", "PieceType", "bent", "layout", "placements_of", "shape_of", "straight", "told_apart"]
