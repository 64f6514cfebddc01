"""Ground-truth counting: hand-counted cases, clues and hints, limits, a cross-check by subsets."""

from __future__ import annotations

import itertools
import random

import pytest

from harness.puzzle.board import Board
from harness.puzzle.brute import count_boards, enumerate_boards
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.plant import instance_from_board, random_board
from harness.puzzle.verify import verify


def make(rows, cols, fleet, row_clues=None, col_clues=None, hints=None, touching=False):
    return Instance(
        rows, cols, fleet,
        (None,) * rows if row_clues is None else row_clues,
        (None,) * cols if col_clues is None else col_clues,
        hints or {}, touching,
    )


@pytest.mark.parametrize(
    "instance,expected",
    [
        (make(1, 3, {1: 1}), 3),
        (make(3, 3, {1: 2}), 16),  # pairs of cells at Chebyshev distance >= 2
        (make(3, 3, {1: 2}, touching=True), 36),  # C(9, 2)
        (make(2, 2, {2: 1}), 4),
        (make(2, 2, {1: 2}), 0),
        (make(2, 2, {3: 1}), 0),
        (make(1, 4, {2: 1, 1: 1}), 2),  # "<>.O" and "O.<>"
        (make(1, 5, {2: 1, 1: 1}), 6),
        (make(3, 3, {1: 2}, row_clues=(2, 0, None)), 1),  # only O.O on top
        (make(1, 3, {1: 1}, col_clues=(None, 1, None)), 1),
        (make(3, 3, {1: 2}, row_clues=(1, 0, 1), col_clues=(1, 0, 1)), 2),
        (make(3, 3, {1: 2}, hints={(1, 1): Hint.SHIP}), 0),
        (make(3, 3, {1: 2}, hints={(1, 1): Hint.WATER}), 16),
        (make(3, 3, {1: 2}, hints={(0, 0): Hint.SUBMARINE}), 5),
        (make(1, 3, {2: 1}, hints={(0, 1): Hint.LEFT}), 1),
        (make(1, 3, {2: 1}, hints={(0, 0): Hint.RIGHT}), 0),
        (make(3, 3, {2: 1}, hints={(1, 1): Hint.MIDDLE}), 0),
        (make(3, 3, {3: 1}, hints={(1, 1): Hint.MIDDLE}), 2),
        (make(1, 3, {2: 1, 1: 1}, touching=True), 1),  # "<>O" and "O<>": one cell set
        (make(2, 2, {2: 1, 1: 2}, touching=True), 1),
        (make(1, 3, {1: 2}, touching=True), 3),
    ],
)
def test_known_counts(instance, expected):
    assert count_boards(instance) == expected


def test_enumerated_boards_verify_and_are_distinct():
    for inst in (make(4, 4, {2: 1, 1: 2}), make(3, 4, {2: 1, 1: 2}, touching=True)):
        boards = enumerate_boards(inst)
        assert boards
        assert all(verify(inst, b).ok for b in boards)
        assert len({b.cells for b in boards}) == len(boards)


def test_limit():
    inst = make(3, 3, {1: 2})
    assert count_boards(inst, limit=5) == 5
    assert count_boards(inst, limit=100) == 16
    assert count_boards(inst, limit=0) == 16  # 0 and None: all
    assert count_boards(make(3, 3, {1: 2}, touching=True), limit=36) == 36
    assert count_boards(make(1, 3, {2: 1, 1: 1}, touching=True), limit=2) == 1


def _count_by_subsets(inst: Instance) -> int:
    """Every subset of cells drawn as a board: an enumeration sharing nothing with brute."""
    cells = [(r, c) for r in range(inst.rows) for c in range(inst.cols)]
    n = 0
    for k in range(len(cells) + 1):
        if k != inst.ship_cells:
            continue
        for subset in itertools.combinations(cells, k):
            n += verify(inst, Board.from_cells(inst.rows, inst.cols, subset)).ok
    return n


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_subset_enumeration(seed):
    rng = random.Random(seed)
    rows, cols = rng.choice([(2, 3), (3, 3), (3, 4), (4, 3), (2, 5), (4, 4)])
    fleet = rng.choice([{1: 2}, {2: 1, 1: 1}, {3: 1, 1: 1}, {2: 2}, {1: 3}, {3: 1}, {2: 1, 1: 2}])
    board = random_board(rows, cols, fleet, rng)
    if board is None:  # no room: the count must be 0 (or tiny), still worth comparing
        inst = make(rows, cols, fleet)
    else:
        inst = instance_from_board(
            board, fleet, hint_cells=rng.randint(0, 2), piece_hints=rng.random() < 0.5,
            unknown_clue_fraction=rng.choice([0.5, 0.75, 1.0]), rng=rng,
        )
        if rng.random() < 0.25:  # a clue that may no longer fit the planted board
            r = rng.randrange(rows)
            inst = inst.replace(row_clues=inst.row_clues[:r] + (rng.randint(0, cols),) + inst.row_clues[r + 1:])
    assert count_boards(inst) == _count_by_subsets(inst)


def test_six_by_six_with_clues_is_fast():
    board = (
        "<#>..O",
        "......",
        "^.<>..",
        "v....O",
        "...O..",
        "<>....",
    )
    fleet = {3: 1, 2: 3, 1: 3}
    rows = tuple(sum(ch != "." for ch in line) for line in board)
    cols = tuple(sum(line[c] != "." for line in board) for c in range(6))
    inst = make(6, 6, fleet, rows, cols)
    assert verify(inst, board).ok
    boards = enumerate_boards(inst)
    assert frozenset(Board(board).cells) in {b.cells for b in boards}
