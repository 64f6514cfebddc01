"""The abstract model: filtering is sound, indices are consistent, prechecks are right."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.model import build_model
from harness.puzzle.brute import enumerate_boards
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.plant import instance_from_board, random_board
from harness.puzzle.verify import parse_ships


def placement_cells(model):
    return {frozenset(p.cells): p for p in model.placements}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), rows=st.integers(1, 5), cols=st.integers(1, 5),
       touching=st.booleans(), hints=st.integers(0, 6), unknown=st.sampled_from([0.0, 0.5]))
def test_filtering_never_drops_a_placement_of_a_valid_board(seed, rows, cols, touching, hints, unknown):
    rng = random.Random(seed)
    fleet = {1: rng.randint(0, 2), 2: rng.randint(0, 2), 3: rng.randint(0, 1)}
    if not any(fleet.values()):
        fleet[1] = 1
    board = random_board(rows, cols, fleet, rng, touching=touching)
    if board is None:
        return
    inst = instance_from_board(board, fleet, touching=touching, hint_cells=hints, piece_hints=rng.random() < 0.5,
                               unknown_clue_fraction=unknown, rng=rng)
    model = build_model(inst)
    assert model.infeasible is None
    kept = placement_cells(model)
    for b in enumerate_boards(inst, limit=20):
        for ship in parse_ships(b.rows)[0]:
            p = kept.get(frozenset(ship.cells()))
            assert p is not None, f"valid ship {ship} was filtered out"
            assert p.ship == ship


def test_indices_are_consistent():
    inst = Instance(rows=4, cols=5, fleet={1: 1, 2: 1, 3: 1}, row_clues=(None, 2, None, 0),
                    col_clues=(None,) * 5, hints={(1, 1): Hint.LEFT, (0, 4): Hint.WATER})
    m = build_model(inst)
    for p in m.placements:
        assert m.placements[p.index] is p
        assert p.index in m.by_length[p.length]
        assert all(p.index in m.cover[c] for c in p.cells)
        assert all(r != 3 for r, _ in p.cells)  # zero clue row
        assert (0, 4) not in p.cells  # water hint
        if (1, 1) in p.cells:  # piece hint: only a left end of a horizontal ship
            assert p.piece_at((1, 1)) == "<"
    # line capacity: row 1 has clue 2, so no horizontal length-3 ship lies in it
    assert not any(p.length == 3 and p.ship.horizontal and p.ship.row == 1 for p in m.placements)
    assert m.stats["placements_kept"] == len(m.placements) < m.stats["placements_total"]


def test_windows_on_one_line_boards_forbid_touching():
    inst = Instance(rows=1, cols=4, fleet={1: 2}, row_clues=(None,), col_clues=(None,) * 4)
    m = build_model(inst)
    pairs = set(m.conflict_pairs())
    by_cell = {p.cells[0]: p.index for p in m.placements}
    assert (by_cell[(0, 0)], by_cell[(0, 1)]) in pairs
    assert (by_cell[(0, 0)], by_cell[(0, 2)]) not in pairs


def test_no_touch_ring_filter_and_touching_rules():
    hints = {(0, 0): Hint.SUBMARINE}
    strict = build_model(Instance(rows=3, cols=3, fleet={1: 2}, row_clues=(None,) * 3, col_clues=(None,) * 3,
                                  hints=hints))
    loose = build_model(Instance(rows=3, cols=3, fleet={1: 2}, row_clues=(None,) * 3, col_clues=(None,) * 3,
                                 hints=hints, touching=True))
    assert (0, 1) not in {p.cells[0] for p in strict.placements}
    assert (0, 1) in {p.cells[0] for p in loose.placements}


@pytest.mark.parametrize("rows,cols,fleet,hints,expect", [
    ((1, 1), (1, 0), {1: 1}, {}, "row clues sum to 2"),
    ((1, 0), (1, 1), {1: 1}, {}, "column clues sum to 2"),
    ((None, None), (None, None), {3: 1}, {}, "only 0 placements remain"),
    ((None, None), (None, None, None), {1: 1}, {(0, 0): Hint.TOP}, "no placement can cover"),
    ((2, None), (None, None), {1: 1}, {(0, 1): Hint.WATER}, "row 0 needs 2 ship cells"),
])
def test_prechecks(rows, cols, fleet, hints, expect):
    m = build_model(Instance(rows=len(rows), cols=len(cols), fleet=fleet, row_clues=rows, col_clues=cols,
                             hints=hints))
    assert m.infeasible is not None and expect in m.infeasible


def test_precheck_is_silent_on_a_solvable_instance():
    m = build_model(Instance(rows=3, cols=3, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 0, 1)))
    assert m.infeasible is None
