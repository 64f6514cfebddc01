"""The independent verifier: judges a returned board against an instance, rule by rule.

It reads only the :class:`~harness.puzzle.instance.Instance` and the board's row
strings; it shares no code with ``harness.model`` (whose placements the backends use),
so a bug there cannot hide a wrong board.

Rules are checked in this order and the verdict names the *first* violated rule and,
for that rule, its first cell in row-major order:

1. ``size``     the board has the instance's dimensions (cell None);
2. ``symbol``   every character is one of ``. O < > ^ v #``;
3. ``shape``    the pieces read as ships: ships are parsed from their start pieces
                (``O``; ``<`` then ``#``* then ``>``; ``^`` then ``#``* then ``v``) and
                every ship cell must belong to exactly one parsed ship;
4. ``fleet``    the multiset of ship lengths is the fleet exactly (cell: start of the
                first ship of an over-represented length, None if a length is short);
5. ``row-clue`` / ``col-clue``  known clues equal the ship-cell counts (cell (r,0) / (0,c));
6. ``hint``     every hint holds (WATER: '.', SHIP: any piece, piece hints: that piece);
7. ``touch``    unless ``instance.touching``, no two ships touch, even diagonally.

Shape comes first because nothing else can be judged on pieces that do not read as
ships.  Pieces are unambiguous, so ships drawn end to end (``<>O``) are separate ships:
on a no-touching instance that is a ``touch`` violation, never a ``shape`` one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar, Iterable, Sequence

from harness.puzzle.board import Board, Ship
from harness.puzzle.instance import PIECE_SYMBOLS, WATER_SYMBOL, Cell, Hint, Instance

RULES = ("size", "symbol", "shape", "fleet", "row-clue", "col-clue", "hint", "touch")
"""Every rule name a failing verdict can carry, in checking order."""

_NONE = -1  # no ship claims the cell
_MANY = -2  # two or more ships claim the cell


@dataclass(frozen=True)
class Verdict:
    """``ok``, or the first violated rule, its cell (or None) and a human message."""

    ok: bool
    rule: str | None
    cell: Cell | None
    message: str

    OK: ClassVar["Verdict"]

    @classmethod
    def fail(cls, rule: str, cell: Cell | None, message: str) -> "Verdict":
        if rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}")
        return cls(False, rule, cell, message)

    def __str__(self) -> str:
        if self.ok:
            return "ok"
        where = f" at ({self.cell[0]},{self.cell[1]})" if self.cell is not None else ""
        return f"{self.rule}{where}: {self.message}"

    def to_dict(self) -> dict:
        """A JSON-friendly record (cell as a [row, col] list or None)."""
        return {
            "ok": self.ok,
            "rule": self.rule,
            "cell": list(self.cell) if self.cell is not None else None,
            "message": self.message,
        }


Verdict.OK = Verdict(True, None, None, "ok")


def _rows_of(board: Board | Sequence[str]) -> tuple:
    return board.rows if isinstance(board, Board) else tuple(board)


def parse_ships(rows: Sequence[str]) -> tuple[list[Ship], list[list[int]]]:
    """Read ships from their start pieces, in row-major order of their starts.

    Returns the ships and an owner grid: the index of the one ship that claims each
    cell, ``-1`` if none does, ``-2`` if several do.  ``rows`` must be rectangular.
    """
    height, width = len(rows), len(rows[0]) if rows else 0
    ships: list[Ship] = []
    for r in range(height):
        for c in range(width):
            ch = rows[r][c]
            if ch == "O":
                ships.append(Ship(r, c, 1, True))
            elif ch in "<^":
                horizontal = ch == "<"
                dr, dc, end = (0, 1, ">") if horizontal else (1, 0, "v")
                k = 1
                while 0 <= r + dr * k < height and 0 <= c + dc * k < width:
                    nxt = rows[r + dr * k][c + dc * k]
                    if nxt == "#":
                        k += 1
                        continue
                    if nxt == end:
                        ships.append(Ship(r, c, k + 1, horizontal))
                    break
    owner = [[_NONE] * width for _ in range(height)]
    for i, ship in enumerate(ships):
        for r, c in ship.cells():
            owner[r][c] = i if owner[r][c] == _NONE else _MANY
    return ships, owner


def _shape_message(ch: str, claims: int) -> str:
    if claims == _MANY:
        return f"{ch!r} belongs to two ships"
    if ch == "<":
        return "'<' does not start a ship closed by '>' ('<' '#'... '>')"
    if ch == "^":
        return "'^' does not start a ship closed by 'v' ('^' '#'... 'v')"
    if ch == "#":
        return "'#' is not inside any ship"
    return f"{ch!r} does not end any ship"


def verify(instance: Instance, board: Board | Sequence[str]) -> Verdict:
    """Judge ``board`` against ``instance``: :attr:`Verdict.OK` or the first violation."""
    rows = _rows_of(board)
    R, C = instance.rows, instance.cols

    # 1. size
    if len(rows) != R:
        return Verdict.fail("size", None, f"board has {len(rows)} rows, instance has {R}")
    for r, line in enumerate(rows):
        if not isinstance(line, str):
            return Verdict.fail("size", None, f"row {r} is not a string: {line!r}")
        if len(line) != C:
            return Verdict.fail("size", None, f"row {r} has {len(line)} cells, instance has {C} columns")

    # 2. symbol
    allowed = WATER_SYMBOL + PIECE_SYMBOLS
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch not in allowed:
                return Verdict.fail("symbol", (r, c), f"{ch!r} is not one of '{allowed}'")

    # 3. shape
    ships, owner = parse_ships(rows)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch != WATER_SYMBOL and owner[r][c] < 0:
                return Verdict.fail("shape", (r, c), _shape_message(ch, owner[r][c]))

    # 4. fleet
    found = Counter(ship.length for ship in ships)
    expected = {length: n for length, n in instance.fleet.items() if n > 0}
    for ship in ships:  # row-major order of starts
        if found[ship.length] > expected.get(ship.length, 0):
            return Verdict.fail(
                "fleet", (ship.row, ship.col),
                f"expected {expected.get(ship.length, 0)} ship(s) of length {ship.length}, "
                f"found {found[ship.length]}",
            )
    for length in sorted(expected):
        if found[length] != expected[length]:
            return Verdict.fail(
                "fleet", None, f"expected {expected[length]} ship(s) of length {length}, found {found[length]}"
            )

    # 5. clues
    for r, clue in enumerate(instance.row_clues):
        n = sum(ch != WATER_SYMBOL for ch in rows[r])
        if clue is not None and n != clue:
            return Verdict.fail("row-clue", (r, 0), f"row {r} has {n} ship cells, clue is {clue}")
    for c, clue in enumerate(instance.col_clues):
        n = sum(rows[r][c] != WATER_SYMBOL for r in range(R))
        if clue is not None and n != clue:
            return Verdict.fail("col-clue", (0, c), f"column {c} has {n} ship cells, clue is {clue}")

    # 6. hints (instance.hints is sorted, i.e. row-major)
    for (r, c), hint in instance.hints.items():
        ch = rows[r][c]
        if hint is Hint.WATER:
            good = ch == WATER_SYMBOL
        elif hint is Hint.SHIP:
            good = ch != WATER_SYMBOL
        else:
            good = ch == hint.value
        if not good:
            return Verdict.fail("hint", (r, c), f"hint {hint.name} ({hint.value!r}) but the board has {ch!r}")

    # 7. touch
    if not instance.touching:
        for r in range(R):
            for c in range(C):
                me = owner[r][c]
                if me < 0:
                    continue
                for how, steps in _NEIGHBOURS:
                    for dr, dc in steps:
                        rr, cc = r + dr, c + dc
                        if 0 <= rr < R and 0 <= cc < C and owner[rr][cc] >= 0 and owner[rr][cc] != me:
                            return Verdict.fail("touch", (r, c), f"ships touch {how}")
    return Verdict.OK


_NEIGHBOURS = (
    ("orthogonally", ((-1, 0), (0, -1), (0, 1), (1, 0))),
    ("diagonally", ((-1, -1), (-1, 1), (1, -1), (1, 1))),
)


def verify_all(instance: Instance, boards: Iterable[Board | Sequence[str]]) -> list[Verdict]:
    """One verdict per board, in order."""
    return [verify(instance, board) for board in boards]
