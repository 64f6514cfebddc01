"""Grids: square and hex cells, their neighbours, rotations, reflections and a drawing position.  Pure.

A cell is a tuple of ints: ``(row, col)`` on the square grid, cube coordinates
``(x, y, z)`` with ``x + y + z == 0`` on the hex grid (seed-003's convention: the centres
of the hexagons are the integer points of the plane ``x + y + z = 0``).

* **touching neighbours** (the cells a piece may not share a side or a corner with when
  touching is forbidden): the 8 surrounding squares; the 6 surrounding hexagons;
* **piece adjacency** (what makes a shape connected): the 4 side neighbours of a square,
  the 6 of a hexagon;
* **rotations**: 4 quarter turns ``(r, c) -> (c, -r)``; 6 sixth turns
  ``(x, y, z) -> (-y, -z, -x)`` (seed-003's matrix); **reflections**: ``(r, c) -> (r, -c)``,
  ``(x, y, z) -> (x, z, y)``;
* **normal form** of a shape: translated so that its smallest cell is the origin, sorted.
"""

from __future__ import annotations

from collections.abc import Iterable

Cell = tuple[int, ...]
KINDS = ("square", "hex")

_SQUARE_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))
_SQUARE_AROUND = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))
_HEX_SIDES = ((1, -1, 0), (-1, 1, 0), (1, 0, -1), (-1, 0, 1), (0, 1, -1), (0, -1, 1))


class Grid:
    """One kind of grid: ``Grid("square")`` or ``Grid("hex")``."""

    def __init__(self, kind: str):
        if kind not in KINDS:
            raise ValueError(f"unknown grid kind {kind!r} (expected one of {', '.join(KINDS)})")
        self.kind = kind
        self.dim = 2 if kind == "square" else 3

    def __repr__(self) -> str:
        return f"Grid({self.kind!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    # -- cells ---------------------------------------------------------------------------

    def valid(self, cell: Cell) -> bool:
        """Is ``cell`` a cell of this grid (right arity, integers, cube coordinates summing to 0)?"""
        if len(cell) != self.dim or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell):
            return False
        return self.kind == "square" or sum(cell) == 0

    def add(self, a: Cell, b: Cell) -> Cell:
        return tuple(x + y for x, y in zip(a, b))

    def sub(self, a: Cell, b: Cell) -> Cell:
        return tuple(x - y for x, y in zip(a, b))

    def sides(self, cell: Cell) -> list[Cell]:
        """The cells sharing a side with ``cell`` (piece connectivity)."""
        steps = _SQUARE_SIDES if self.kind == "square" else _HEX_SIDES
        return [self.add(cell, s) for s in steps]

    def around(self, cell: Cell) -> list[Cell]:
        """The cells touching ``cell`` at a side or a corner (the touching rule)."""
        steps = _SQUARE_AROUND if self.kind == "square" else _HEX_SIDES
        return [self.add(cell, s) for s in steps]

    # -- shapes --------------------------------------------------------------------------

    def rotate(self, cell: Cell) -> Cell:
        if self.kind == "square":
            r, c = cell
            return (c, -r)
        x, y, z = cell
        return (-y, -z, -x)

    def reflect(self, cell: Cell) -> Cell:
        if self.kind == "square":
            r, c = cell
            return (r, -c)
        x, y, z = cell
        return (x, z, y)

    @property
    def turns(self) -> int:
        return 4 if self.kind == "square" else 6

    def normal(self, cells: Iterable[Cell]) -> tuple[Cell, ...]:
        """The shape's normal form: translated so its smallest cell is the origin, sorted."""
        cells = sorted(cells)
        origin = cells[0]
        return tuple(sorted(self.sub(c, origin) for c in cells))

    def orientations(self, cells: Iterable[Cell], reflections: bool = False) -> list[tuple[Cell, ...]]:
        """Every distinct orientation of a shape (rotations, and reflections when allowed), in normal form."""
        shape = list(cells)
        seen: dict[tuple[Cell, ...], None] = {}
        for mirrored in ((False, True) if reflections else (False,)):
            current = [self.reflect(c) for c in shape] if mirrored else list(shape)
            for _ in range(self.turns):
                seen.setdefault(self.normal(current))
                current = [self.rotate(c) for c in current]
        return list(seen)

    def connected(self, cells: Iterable[Cell]) -> bool:
        """Is the shape connected through shared sides?"""
        cells = set(cells)
        if not cells:
            return False
        start = next(iter(cells))
        seen, todo = {start}, [start]
        while todo:
            for n in self.sides(todo.pop()):
                if n in cells and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen) == len(cells)

    def straight(self, length: int) -> tuple[Cell, ...]:
        """A straight piece of ``length`` cells: along a row; on the hex grid along ``(x, 0, -x)``."""
        if self.kind == "square":
            return tuple((0, i) for i in range(length))
        return tuple((i, 0, -i) for i in range(length))

    # -- drawing -------------------------------------------------------------------------

    def position(self, cell: Cell) -> tuple[float, float]:
        """(row, column) of the cell's centre in a drawing: squares as they are; hexagons in
        offset rows (row ``z``, column ``x + z / 2``)."""
        if self.kind == "square":
            return float(cell[0]), float(cell[1])
        x, _, z = cell
        return float(z), x + z / 2


SQUARE = Grid("square")
HEX = Grid("hex")

__all__ = ["Cell", "Grid", "HEX", "KINDS", "SQUARE"]
