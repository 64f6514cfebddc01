"""The board: a solved grid of piece symbols, and the ship ("placement") geometry.

A :class:`Board` is what every backend returns and what the verifier judges: a tuple
of row strings over ``. O < > ^ v #``.  Boards are compared as *sets of ship cells*
(``Board.cells``), not as ship labelings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple

from harness.puzzle.instance import PIECE_SYMBOLS, WATER_SYMBOL, Cell


class Ship(NamedTuple):
    """A straight ship: top-left cell, length, orientation (length 1 is horizontal)."""

    row: int
    col: int
    length: int
    horizontal: bool

    def cells(self) -> tuple[Cell, ...]:
        if self.horizontal:
            return tuple((self.row, self.col + k) for k in range(self.length))
        return tuple((self.row + k, self.col) for k in range(self.length))

    def pieces(self) -> tuple[str, ...]:
        """The piece symbol of each cell, in the order of :meth:`cells`."""
        n = self.length
        if n == 1:
            return ("O",)
        first, last = ("<", ">") if self.horizontal else ("^", "v")
        return (first,) + ("#",) * (n - 2) + (last,)


@dataclass(frozen=True)
class Board:
    """A grid of piece symbols, one string per row."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(self.rows))

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def cells(self) -> frozenset[Cell]:
        """The ship cells: the identity of a board for counting."""
        return frozenset(
            (r, c) for r, line in enumerate(self.rows) for c, ch in enumerate(line) if ch in PIECE_SYMBOLS
        )

    @classmethod
    def from_ships(cls, rows: int, cols: int, ships: Iterable[Ship]) -> "Board":
        grid = [[WATER_SYMBOL] * cols for _ in range(rows)]
        for ship in ships:
            for (r, c), p in zip(ship.cells(), ship.pieces()):
                grid[r][c] = p
        return cls(tuple("".join(line) for line in grid))

    @classmethod
    def from_cells(cls, rows: int, cols: int, cells: Iterable[Cell]) -> "Board":
        """Draw pieces from ship cells, reading each straight run as one ship.

        Only unambiguous when ships do not touch; backends of touching instances
        build boards with :meth:`from_ships`.
        """
        cellset = set(cells)
        grid = [[WATER_SYMBOL] * cols for _ in range(rows)]
        for r, c in cellset:
            left, right = (r, c - 1) in cellset, (r, c + 1) in cellset
            up, down = (r - 1, c) in cellset, (r + 1, c) in cellset
            if left or right:
                grid[r][c] = "#" if left and right else (">" if left else "<")
            elif up or down:
                grid[r][c] = "#" if up and down else ("v" if up else "^")
            else:
                grid[r][c] = "O"
        return cls(tuple("".join(line) for line in grid))

    def render(self) -> str:
        return "\n".join(self.rows)

    def to_json(self) -> list[str]:
        return list(self.rows)
