"""Ground-truth board counting by plain backtracking, for tiny instances only.

Independent of ``harness.model``: it builds its own ship positions as bitmasks and
checks every board it finds with :func:`harness.puzzle.verify.verify`.  It is meant
for boards up to about 6x6 with clues (or about 5x5 without clues): the number of
boards of an unclued instance grows combinatorially and every one is materialised.

Ships are placed longest first; ships of one length take increasing positions, so a
labelling is never produced twice.  Boards are distinct *sets of ship cells*: with
``touching`` allowed, two decompositions of one cell set (``OO`` and ``<>``) count
once.  Pruning: water hints, piece hints (a ship may cover a piece-hinted cell only
with that piece), row/column clue upper bounds and the ship cells still needed by
known clues, and ship-hinted cells that no later ship may reach any more.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.errors import Signal
from harness.puzzle.board import Board, Ship
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.verify import verify


@dataclass(frozen=True)
class _Position:
    ship: Ship
    mask: int  # the ship's cells
    halo: int  # its cells and their eight neighbours
    rows: tuple[tuple[int, int], ...]  # (row, cells in it)
    cols: tuple[tuple[int, int], ...]  # (col, cells in it)
    in_known_rows: int
    in_known_cols: int


def _positions(instance: Instance, length: int) -> list[_Position]:
    """Every position of a ship of ``length`` that fits the board and the hints."""
    R, C = instance.rows, instance.cols
    known_rows = {r for r, v in enumerate(instance.row_clues) if v is not None}
    known_cols = {c for c, v in enumerate(instance.col_clues) if v is not None}
    out = []
    for horizontal in ((True,) if length == 1 else (True, False)):
        for r in range(R - (0 if horizontal else length - 1)):
            for c in range(C - (length - 1 if horizontal else 0)):
                ship = Ship(r, c, length, horizontal)
                cells = ship.cells()
                if any(not _piece_fits(instance.hints.get(cell), p) for cell, p in zip(cells, ship.pieces())):
                    continue
                mask = halo = 0
                for rr, cc in cells:
                    mask |= 1 << (rr * C + cc)
                    for dr in (-1, 0, 1):
                        for dc in (-1, 0, 1):
                            if 0 <= rr + dr < R and 0 <= cc + dc < C:
                                halo |= 1 << ((rr + dr) * C + cc + dc)
                rows: dict[int, int] = {}
                cols: dict[int, int] = {}
                for rr, cc in cells:
                    rows[rr] = rows.get(rr, 0) + 1
                    cols[cc] = cols.get(cc, 0) + 1
                out.append(_Position(
                    ship, mask, halo, tuple(rows.items()), tuple(cols.items()),
                    sum(n for rr, n in rows.items() if rr in known_rows),
                    sum(n for cc, n in cols.items() if cc in known_cols),
                ))
    return out


def _piece_fits(hint: Hint | None, piece: str) -> bool:
    return hint is None or hint is Hint.SHIP or hint.value == piece


def enumerate_boards(instance: Instance, limit: int | None = None) -> list[Board]:
    """All distinct boards (by ship-cell set) of ``instance``, at most ``limit`` of them."""
    if limit is not None and limit <= 0:
        limit = None
    R, C = instance.rows, instance.cols
    lengths = sorted((length for length, n in instance.fleet.items() for _ in range(n)), reverse=True)
    positions = {length: _positions(instance, length) for length in set(lengths)}
    row_clues, col_clues = instance.row_clues, instance.col_clues
    row_known_total = sum(v for v in row_clues if v is not None)
    col_known_total = sum(v for v in col_clues if v is not None)
    after = [sum(lengths[i + 1:]) for i in range(len(lengths))]
    water = ship_hints = 0
    for (r, c), hint in instance.hints.items():
        if hint is Hint.WATER:
            water |= 1 << (r * C + c)
        else:
            ship_hints |= 1 << (r * C + c)
    touching = instance.touching
    row_count, col_count = [0] * R, [0] * C
    seen: set[int] = set()
    boards: list[Board] = []
    chosen: list[Ship] = []

    class _Done(Signal):
        """Enough boards found: the search unwinds."""

    def record(occupied: int) -> None:
        if occupied in seen:
            return
        if any(v is not None and v != n for v, n in zip(row_clues, row_count)):
            return
        if any(v is not None and v != n for v, n in zip(col_clues, col_count)):
            return
        board = Board.from_ships(R, C, chosen)
        verdict = verify(instance, board)
        if not verdict.ok:  # a bug in this module, not in the puzzle
            raise AssertionError(f"brute force built a bad board ({verdict}):\n{board.render()}")
        seen.add(occupied)
        boards.append(board)
        if limit is not None and len(boards) >= limit:
            raise _Done

    def search(i: int, first: int, occupied: int, blocked: int, in_rows: int, in_cols: int) -> None:
        if i == len(lengths):
            if occupied & ship_hints == ship_hints:
                record(occupied)
            return
        length = lengths[i]
        start = first if i > 0 and lengths[i - 1] == length else 0
        left = after[i]  # ship cells of the ships after this one
        for j in range(start, len(positions[length])):
            p = positions[length][j]
            if p.mask & blocked:
                continue
            if any(row_clues[r] is not None and row_count[r] + n > row_clues[r] for r, n in p.rows):
                continue
            if any(col_clues[c] is not None and col_count[c] + n > col_clues[c] for c, n in p.cols):
                continue
            new_rows, new_cols = in_rows + p.in_known_rows, in_cols + p.in_known_cols
            if row_known_total - new_rows > left or col_known_total - new_cols > left:
                continue
            new_occupied = occupied | p.mask
            new_blocked = blocked | (p.mask if touching else p.halo)
            if ship_hints & new_blocked & ~new_occupied:
                continue  # a ship-hinted cell can no longer be covered
            for r, n in p.rows:
                row_count[r] += n
            for c, n in p.cols:
                col_count[c] += n
            chosen.append(p.ship)
            search(i + 1, j + 1, new_occupied, new_blocked, new_rows, new_cols)
            chosen.pop()
            for r, n in p.rows:
                row_count[r] -= n
            for c, n in p.cols:
                col_count[c] -= n

    try:
        search(0, 0, 0, water, 0, 0)
    except _Done:
        pass
    return boards


def count_boards(instance: Instance, limit: int | None = None) -> int:
    """The number of distinct boards of ``instance``, counting at most ``limit``."""
    return len(enumerate_boards(instance, limit))
