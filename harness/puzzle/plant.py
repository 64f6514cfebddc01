"""Planted instances: random boards, instances derived from them, and rule-breaking mutations.

A *planted* instance is made backwards: place the fleet at random
(:func:`random_board`), then read the clues off the board and reveal some hints
(:func:`instance_from_board`).  It has at least one board -- the planted one -- so it
serves property tests now and an instance generator later.

:func:`mutate` breaks a valid (instance, board) pair so that the verifier's *first*
violated rule is known in advance (see :data:`MUTATIONS`); it is independent of the
verifier's checking code except for reading ships off a valid board.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping

from harness.puzzle.board import Board, Ship
from harness.puzzle.instance import Cell, Hint, Instance
from harness.puzzle.verify import parse_ships, verify


def _all_ships(rows: int, cols: int, length: int) -> list[Ship]:
    out = []
    for horizontal in ((True,) if length == 1 else (True, False)):
        for r in range(rows - (0 if horizontal else length - 1)):
            for c in range(cols - (length - 1 if horizontal else 0)):
                out.append(Ship(r, c, length, horizontal))
    return out


def _halo(ship: Ship) -> set[Cell]:
    return {(r + dr, c + dc) for r, c in ship.cells() for dr in (-1, 0, 1) for dc in (-1, 0, 1)}


def _place(rows: int, cols: int, lengths: list[int], rng: random.Random, touching: bool) -> list[Ship] | None:
    ships: list[Ship] = []
    blocked: set[Cell] = set()
    for length in lengths:
        free = [s for s in _all_ships(rows, cols, length) if blocked.isdisjoint(s.cells())]
        if not free:
            return None
        ship = rng.choice(free)
        ships.append(ship)
        blocked |= set(ship.cells()) if touching else _halo(ship)
    return ships


def default_fleet(rows: int, cols: int, density: float = 0.2) -> dict[int, int]:
    """A fleet shaped like the classic one (n ships of length 1, n-1 of length 2, ...).

    The longest ship grows with the board (4 on 10x10, 8 on 30x20, 12 on 50x50) and the
    counts are scaled so that about ``density`` of the cells are ship cells.
    """
    longest = 2 + -(-max(rows, cols) // 5)
    base = longest * (longest + 1) * (longest + 2) // 6  # cells of the unscaled pattern
    scale = density * rows * cols / base
    fleet = {length: max(round(scale * (longest - length + 1)), 0) for length in range(1, longest + 1)}
    fleet[longest] = max(fleet[longest], 1)
    return fleet


def random_board(
    rows: int, cols: int, fleet: Mapping[int, int], rng: random.Random, touching: bool = False, tries: int = 1000
) -> Board | None:
    """The fleet placed at random (longest ships first), or None after ``tries`` failures."""
    lengths = sorted((length for length, n in fleet.items() for _ in range(n)), reverse=True)
    for _ in range(tries):
        ships = _place(rows, cols, lengths, rng, touching)
        if ships is not None:
            return Board.from_ships(rows, cols, ships)
    return None


def instance_from_board(
    board: Board,
    fleet: Mapping[int, int],
    *,
    name: str = "planted",
    touching: bool = False,
    hint_cells: int = 0,
    piece_hints: bool = False,
    unknown_clue_fraction: float = 0.0,
    rng: random.Random | None = None,
    seed: int | None = None,
) -> Instance:
    """The instance whose clues are read off ``board``, with some cells revealed.

    ``hint_cells`` distinct random cells become hints: WATER for water, and for ship
    cells SHIP or (``piece_hints``) their exact piece.  ``round(fraction * (rows+cols))``
    random clues become unknown.  ``rng`` defaults to ``random.Random(seed)``.  The
    board must be a valid board of the fleet (checked with the verifier).  ``meta``
    records the planted board and these settings.
    """
    if rng is None:
        rng = random.Random(seed)
    R, C = board.height, board.width
    row_clues: list[int | None] = [sum(ch != "." for ch in line) for line in board.rows]
    col_clues: list[int | None] = [sum(line[c] != "." for line in board.rows) for c in range(C)]
    hidden = rng.sample(range(R + C), round(unknown_clue_fraction * (R + C)))
    for k in hidden:
        if k < R:
            row_clues[k] = None
        else:
            col_clues[k - R] = None
    hints: dict[Cell, Hint] = {}
    cells = [(r, c) for r in range(R) for c in range(C)]
    for r, c in rng.sample(cells, min(hint_cells, len(cells))):
        ch = board.rows[r][c]
        hints[(r, c)] = Hint.WATER if ch == "." else (Hint.from_symbol(ch) if piece_hints else Hint.SHIP)
    meta = {
        "planted": list(board.rows),
        "plant": {
            **({"seed": seed} if seed is not None else {}),
            "touching": touching,
            "hint_cells": hint_cells,
            "piece_hints": piece_hints,
            "unknown_clue_fraction": unknown_clue_fraction,
        },
    }
    instance = Instance(R, C, dict(fleet), row_clues, col_clues, hints, touching, name, meta)
    verdict = verify(instance, board)
    if not verdict.ok:
        raise ValueError(f"not a valid board of this fleet: {verdict}")
    return instance


# ---------------------------------------------------------------------- mutations

MUTATIONS = (
    "size", "symbol", "shape", "fleet-remove", "fleet-add", "row-clue", "col-clue", "hint", "touch",
)
"""Mutation kinds; each is named after the rule it breaks (both ``fleet-*`` break ``fleet``)."""


@dataclass(frozen=True)
class Mutation:
    """A broken pair and what the verifier must say of it (``cell`` None: no cell)."""

    kind: str
    instance: Instance
    board: Board
    rule: str
    cell: Cell | None


def mutation_kinds(instance: Instance, board: Board) -> list[str]:
    """The kinds of :data:`MUTATIONS` that apply to this valid pair."""
    ships, _ = parse_ships(board.rows)
    kinds = ["size", "symbol", "fleet-remove", "row-clue", "col-clue", "hint"]
    if any(s.length > 1 for s in ships):
        kinds.append("shape")
    if any(ch == "." for line in board.rows for ch in line):
        kinds.append("fleet-add")
    if not instance.touching and _touch_moves(board, ships):
        kinds.append("touch")
    return [k for k in MUTATIONS if k in kinds]


def mutate(instance: Instance, board: Board, rng: random.Random, kind: str | None = None) -> Mutation:
    """Break the valid pair (``instance``, ``board``) in one way (random kind if None).

    Board mutations keep every rule before the broken one intact; where a board change
    would also upset clues or hints (``touch``), the returned instance has all clues
    unknown and no hints.
    """
    verdict = verify(instance, board)
    if not verdict.ok:
        raise ValueError(f"mutate needs a valid pair: {verdict}")
    kinds = mutation_kinds(instance, board)
    if kind is None:
        kind = rng.choice(kinds)
    elif kind not in kinds:
        raise ValueError(f"mutation {kind!r} does not apply (applicable: {', '.join(kinds)})")
    R, C = instance.rows, instance.cols
    grid = [list(line) for line in board.rows]
    ships, _ = parse_ships(board.rows)

    def done(rule: str, cell: Cell | None, inst: Instance = instance, rows=None) -> Mutation:
        new = Board(tuple("".join(line) for line in grid)) if rows is None else Board(rows)
        return Mutation(kind, inst, new, rule, cell)

    if kind == "size":
        if rng.random() < 0.5:
            return done("size", None, rows=board.rows[:-1] if R > 1 else board.rows + board.rows)
        return done("size", None, rows=tuple(line[:-1] if C > 1 else line + line for line in board.rows))
    if kind == "symbol":
        r, c = rng.randrange(R), rng.randrange(C)
        grid[r][c] = rng.choice("x~*0-")
        return done("symbol", (r, c))
    if kind == "shape":  # an end piece becomes '#': the ship's run is left open
        ship = rng.choice([s for s in ships if s.length > 1])
        r, c = rng.choice([ship.cells()[0], ship.cells()[-1]])
        grid[r][c] = "#"
        return done("shape", (ship.row, ship.col))
    if kind == "fleet-remove":
        ship = rng.choice(ships)
        for r, c in ship.cells():
            grid[r][c] = "."
        return done("fleet", None)
    if kind == "fleet-add":
        r, c = rng.choice([(r, c) for r in range(R) for c in range(C) if grid[r][c] == "."])
        grid[r][c] = "O"
        first_sub = min((rr, cc) for rr in range(R) for cc in range(C) if grid[rr][cc] == "O")
        return done("fleet", first_sub)
    if kind == "row-clue":
        r = rng.randrange(R)
        clues = list(instance.row_clues)
        clues[r] = rng.choice([v for v in range(C + 1) if v != sum(ch != "." for ch in board.rows[r])])
        return done("row-clue", (r, 0), inst=instance.replace(row_clues=clues))
    if kind == "col-clue":
        c = rng.randrange(C)
        clues = list(instance.col_clues)
        clues[c] = rng.choice([v for v in range(R + 1) if v != sum(line[c] != "." for line in board.rows)])
        return done("col-clue", (0, c), inst=instance.replace(col_clues=clues))
    if kind == "hint":
        r, c = rng.randrange(R), rng.randrange(C)
        ch = board.rows[r][c]
        wrong = [h for h in Hint if h is not Hint.WATER] if ch == "." else [
            h for h in Hint if h is not Hint.SHIP and h.value != ch
        ]
        hints = dict(instance.hints)
        hints[(r, c)] = rng.choice(wrong)
        return done("hint", (r, c), inst=instance.replace(hints=hints))
    # touch: move one ship next to another, with clues and hints forgotten
    i, ship = rng.choice(_touch_moves(board, ships))
    for r, c in ships[i].cells():
        grid[r][c] = "."
    for (r, c), p in zip(ship.cells(), ship.pieces()):
        grid[r][c] = p
    moved = ships[:i] + [ship] + ships[i + 1:]
    blind = instance.replace(row_clues=(None,) * R, col_clues=(None,) * C, hints={})
    return done("touch", _first_touching_cell(moved), inst=blind)


def _touch_moves(board: Board, ships: list[Ship]) -> list[tuple[int, Ship]]:
    """(index, new position) pairs that move one ship, without overlap, to touch another."""
    R, C = board.height, board.width
    moves = []
    for i, old in enumerate(ships):
        others = [s for k, s in enumerate(ships) if k != i]
        taken = {cell for s in others for cell in s.cells()}
        near = {cell for s in others for cell in _halo(s)}
        for ship in _all_ships(R, C, old.length):
            cells = set(ship.cells())
            if ship != old and cells.isdisjoint(taken) and not cells.isdisjoint(near):
                moves.append((i, ship))
    return moves


def _first_touching_cell(ships: list[Ship]) -> Cell:
    owner = {cell: k for k, s in enumerate(ships) for cell in s.cells()}
    for cell in sorted(owner):
        r, c = cell
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if owner.get((r + dr, c + dc), owner[cell]) != owner[cell]:
                    return cell
    raise AssertionError("no ships touch")
