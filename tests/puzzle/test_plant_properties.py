"""Properties of planted instances: they verify, brute force finds them, mutations are caught."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from harness.puzzle.brute import enumerate_boards
from harness.puzzle.instance import Hint
from harness.puzzle.plant import MUTATIONS, instance_from_board, mutate, mutation_kinds, random_board
from harness.puzzle.verify import verify

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@st.composite
def planted(draw, min_side=3, max_side=8, fractions=(0.0, 0.25, 0.5, 1.0)):
    """(instance, board, rng): a random fleet planted on a random board."""
    rows = draw(st.integers(min_side, max_side))
    cols = draw(st.integers(min_side, max_side))
    touching = draw(st.booleans())
    longest = min(4, max(rows, cols))
    budget = rows * cols // (3 if touching else 4)  # ship cells that usually fit
    fleet: dict[int, int] = {}
    for length in draw(st.lists(st.integers(1, longest), min_size=1, max_size=7)):
        if sum(k * n for k, n in fleet.items()) + length <= budget:
            fleet[length] = fleet.get(length, 0) + 1
    fleet = fleet or {1: 1}
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    board = random_board(rows, cols, fleet, rng, touching=touching)
    assume(board is not None)
    instance = instance_from_board(
        board, fleet, touching=touching,
        hint_cells=draw(st.integers(0, rows * cols // 3)),
        piece_hints=draw(st.booleans()),
        unknown_clue_fraction=draw(st.sampled_from(fractions)),
        rng=rng,
    )
    return instance, board, rng


@settings(max_examples=100, **SETTINGS)
@given(planted())
def test_planted_board_verifies(case):
    instance, board, _ = case
    assert verify(instance, board).ok
    assert (instance.rows, instance.cols) == (board.height, board.width)
    assert instance.meta["planted"] == list(board.rows)
    assert instance.ship_cells == len(board.cells)
    for (r, c), hint in instance.hints.items():
        assert (board.rows[r][c] == ".") == (hint is Hint.WATER)


@settings(max_examples=60, **SETTINGS)
@given(planted(max_side=5, fractions=(0.0, 0.25)))
def test_brute_force_finds_the_planted_board(case):
    instance, board, _ = case
    boards = enumerate_boards(instance)
    assert board.cells in {b.cells for b in boards}


@settings(max_examples=100, **SETTINGS)
@given(planted(), st.sampled_from(MUTATIONS))
def test_mutations_are_caught_with_the_expected_rule(case, kind):
    instance, board, rng = case
    assume(kind in mutation_kinds(instance, board))
    m = mutate(instance, board, rng, kind)
    v = verify(m.instance, m.board)
    assert not v.ok
    assert (v.rule, v.cell) == (m.rule, m.cell), f"{kind}: {v}\n{board.render()}\n->\n{m.board.render()}"


def test_planting_is_deterministic():
    fleet = {3: 1, 2: 2, 1: 3}
    a = random_board(7, 7, fleet, random.Random(5))
    b = random_board(7, 7, fleet, random.Random(5))
    assert a == b and a is not None
    ia = instance_from_board(a, fleet, hint_cells=5, unknown_clue_fraction=0.5, seed=9)
    ib = instance_from_board(b, fleet, hint_cells=5, unknown_clue_fraction=0.5, seed=9)
    assert ia.content_hash() == ib.content_hash()
    assert ia.meta["plant"]["seed"] == 9
    assert sum(v is None for v in ia.row_clues + ia.col_clues) == 7
    assert len(ia.hints) == 5


def test_random_board_gives_up():
    assert random_board(2, 2, {3: 1}, random.Random(0)) is None
    assert random_board(3, 3, {1: 5}, random.Random(0), tries=20) is None
    assert random_board(3, 3, {1: 5}, random.Random(0), touching=True) is not None


def test_instance_from_board_rejects_a_board_of_another_fleet():
    board = random_board(4, 4, {2: 1}, random.Random(0))
    with pytest.raises(ValueError):
        instance_from_board(board, {1: 1})


def test_mutate_rejects_inapplicable_kind():
    fleet = {2: 1, 1: 1}
    board = random_board(4, 4, fleet, random.Random(1), touching=True)
    inst = instance_from_board(board, fleet, touching=True)
    assert "touch" not in mutation_kinds(inst, board)
    with pytest.raises(ValueError):
        mutate(inst, board, random.Random(0), "touch")
