"""The instance: board size, fleet, clues, hints and rules, with validation.

An :class:`Instance` is immutable and format-agnostic; readers and writers live in
``harness.puzzle.formats``.  Validation errors are :class:`InstanceFormatError` with
the place (``fleet``, ``row-clues[3]``, ``hint (2,5)``) and the problem.
"""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from harness.errors import InstanceFormatError

Cell = tuple[int, int]
"""(row, column), both 0-based from the top-left corner."""


class Hint(enum.Enum):
    """What is revealed about one cell; the value is its native-format symbol."""

    WATER = "~"
    SHIP = "*"  # a ship cell of unknown piece
    SUBMARINE = "O"
    LEFT = "<"
    RIGHT = ">"
    TOP = "^"
    BOTTOM = "v"
    MIDDLE = "#"

    @property
    def is_ship(self) -> bool:
        return self is not Hint.WATER

    @property
    def is_piece(self) -> bool:
        """A ship hint that fixes the piece (not WATER, not SHIP)."""
        return self not in (Hint.WATER, Hint.SHIP)

    @classmethod
    def from_symbol(cls, symbol: str) -> "Hint":
        for h in cls:
            if h.value == symbol:
                return h
        raise ValueError(f"unknown hint symbol {symbol!r}")


# The cell alphabet, written once (by Hint): a Hint's value doubles as the piece.
# PIECE_SYMBOLS: the six pieces a solved board uses ('.' water there); CELL_SYMBOLS: the seven cell values of
# the cell formulation (every backend's), water ("~") first.
WATER_SYMBOL = "."
PIECE_SYMBOLS = "".join(h.value for h in Hint if h.is_piece)  # "O<>^v#"
CELL_SYMBOLS = Hint.WATER.value + PIECE_SYMBOLS  # "~O<>^v#"


def _freeze(d: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Instance:
    """One Solitaire Battleship puzzle.

    ``fleet`` maps ship length to number of ships (zero counts are kept, e.g. from
    MiniZinc ``ship = [2,0,1,...]``).  Clues are ``None`` when unknown.  ``hints``
    maps cells to :class:`Hint`.  ``touching`` is True when ships may touch (the
    two-player game's deployment rule); the puzzle rule (default) forbids it, even
    diagonally.  ``meta`` carries name, source, provenance, expected results.
    """

    rows: int
    cols: int
    fleet: Mapping[int, int]
    row_clues: tuple[int | None, ...]
    col_clues: tuple[int | None, ...]
    hints: Mapping[Cell, Hint] = field(default_factory=dict)
    touching: bool = False
    name: str = "unnamed"
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fleet", _freeze(dict(sorted(self.fleet.items()))))
        object.__setattr__(self, "hints", _freeze(dict(sorted(self.hints.items()))))
        object.__setattr__(self, "row_clues", tuple(self.row_clues))
        object.__setattr__(self, "col_clues", tuple(self.col_clues))
        object.__setattr__(self, "meta", _freeze(self.meta))
        self.validate()

    def __reduce__(self):  # mapping proxies do not pickle; rebuild from plain dicts
        return (
            Instance,
            (self.rows, self.cols, dict(self.fleet), self.row_clues, self.col_clues,
             dict(self.hints), self.touching, self.name, dict(self.meta)),
        )

    def replace(self, **changes: Any) -> "Instance":
        """A copy with some fields changed (validated again)."""
        fields = dict(
            rows=self.rows, cols=self.cols, fleet=dict(self.fleet), row_clues=self.row_clues,
            col_clues=self.col_clues, hints=dict(self.hints), touching=self.touching,
            name=self.name, meta=dict(self.meta),
        )
        fields.update(changes)
        return Instance(**fields)

    # ------------------------------------------------------------------ checks
    def validate(self) -> None:
        """Raise InstanceFormatError naming the place and the problem."""
        for what, v in (("rows", self.rows), ("cols", self.cols)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InstanceFormatError(f"board {what} must be a positive integer, got {v!r}", place="size")
        if not self.fleet:
            raise InstanceFormatError("fleet is empty", place="fleet")
        for length, count in self.fleet.items():
            if not isinstance(length, int) or isinstance(length, bool) or length < 1:
                raise InstanceFormatError(f"ship length must be an integer >= 1, got {length!r}", place="fleet")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise InstanceFormatError(
                    f"number of ships of length {length} must be an integer >= 0, got {count!r}", place="fleet"
                )
        if sum(self.fleet.values()) == 0:
            raise InstanceFormatError("fleet has no ships", place="fleet")
        for what, clues, n, cap in (
            ("row-clues", self.row_clues, self.rows, self.cols),
            ("col-clues", self.col_clues, self.cols, self.rows),
        ):
            if len(clues) != n:
                raise InstanceFormatError(f"expected {n} clues, got {len(clues)}", place=what)
            for i, v in enumerate(clues):
                if v is None:
                    continue
                if not isinstance(v, int) or isinstance(v, bool):
                    raise InstanceFormatError(f"clue must be an integer or unknown, got {v!r}", place=f"{what}[{i}]")
                if not 0 <= v <= cap:
                    raise InstanceFormatError(f"clue {v} out of range 0..{cap}", place=f"{what}[{i}]")
        for (r, c), h in self.hints.items():
            if not isinstance(h, Hint):
                raise InstanceFormatError(f"not a hint: {h!r}", place=f"hint ({r},{c})")
            if not (0 <= r < self.rows and 0 <= c < self.cols):
                raise InstanceFormatError(
                    f"hint outside the {self.rows}x{self.cols} board", place=f"hint ({r},{c})"
                )

    # ------------------------------------------------------------------ views
    @property
    def ship_cells(self) -> int:
        """Number of ship cells the fleet occupies."""
        return sum(length * count for length, count in self.fleet.items())

    @property
    def max_length(self) -> int:
        return max(length for length, count in self.fleet.items() if count > 0)

    def hint_at(self, cell: Cell) -> Hint | None:
        return self.hints.get(cell)

    def content_hash(self) -> str:
        """A stable hash of what defines the puzzle (not its name, metadata, or the
        zero counts some formats list in the fleet)."""
        payload = {
            "rows": self.rows,
            "cols": self.cols,
            "fleet": sorted((length, n) for length, n in self.fleet.items() if n > 0),
            "row_clues": list(self.row_clues),
            "col_clues": list(self.col_clues),
            "hints": sorted((r, c, h.value) for (r, c), h in self.hints.items()),
            "touching": self.touching,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def same_puzzle(self, other: "Instance") -> bool:
        return self.content_hash() == other.content_hash()


def add_hints(pairs: Iterable[tuple[Cell, Hint]], *, file: str | None = None) -> dict[Cell, Hint]:
    """Collect hints, rejecting conflicting duplicates (same cell, different hint)."""
    out: dict[Cell, Hint] = {}
    for cell, h in pairs:
        old = out.get(cell)
        if old is not None and old is not h:
            raise InstanceFormatError(
                f"conflicting hints {old.value!r} and {h.value!r}", file=file, place=f"hint ({cell[0]},{cell[1]})"
            )
        out[cell] = h
    return out
