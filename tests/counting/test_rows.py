"""The row-transfer programme against brute force and the frontier programme: counts and per-placement counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from boards import straight_boards

from harness.counting import frontier, rows
from harness.counting.brute import brute_count, brute_placement_counts
from harness.counting.counters import get_counter
from harness.counting.deployment import Deployment, Piece
from harness.counting.format import read_deployment
from harness.counting.geometry import HEX, SQUARE
from harness.counting.placements import layout

ROOT = Path(__file__).resolve().parents[2] / "instances" / "deployments"


def _frontier(dep):
    return get_counter("frontier")().count(dep).count


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(straight_boards())
def test_rows_counts_as_brute_force_and_the_frontier(dep):
    lay = layout(dep)
    assert rows.unsupported(dep, lay) is None
    assert rows.count(lay) == brute_count(dep) == _frontier(dep)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(straight_boards())
def test_rows_per_placement_counts_are_brute_forces(dep):
    total, per = rows.placement_counts(layout(dep))
    b_total, b_per = brute_placement_counts(dep)
    assert total == b_total
    assert {k: v for k, v in per.items() if v} == b_per


def test_rows_counts_the_seed_numbers_and_the_sweep():
    for name in ("standard_10x10", "standard_10x10_unlabelled", "standard_12x10", "sweep/sweep_30x30"):
        dep = read_deployment(ROOT / f"{name}.toml")
        answer = get_counter("dp")().count(dep)
        assert answer.detail["method"] in ("cluster", "rows")
        assert rows.count(layout(dep)) == answer.count == int(dep.meta["expected_count"]), name


def test_the_residue_path_gives_the_exact_count(monkeypatch):
    dep = read_deployment(ROOT / "sweep" / "sweep_7x7.toml")
    lay = layout(dep)
    exact = rows.placement_counts(lay)
    monkeypatch.setattr(rows, "moduli_for", lambda bound: np.array(frontier.PRIMES[:3], np.int64))
    assert rows.placement_counts(lay) == exact
    assert exact[0] == int(dep.meta["expected_count"])


def test_dp_and_frontier_agree_on_a_game_position():
    base = read_deployment(ROOT / "standard_10x10.toml")
    hits = frozenset({(2, 3), (2, 4), (7, 7)})
    misses = frozenset({(0, 0), (5, 5), (2, 2), (9, 9), (4, 4)})
    dep = Deployment(SQUARE, base.cells, base.pieces, misses=misses, hits=hits, sunk={"Destroyer": ((2, 3), (2, 4))},
                     announce_sinks=True)
    fast = get_counter("dp")().count(dep)
    assert fast.detail["method"] == "rows" and fast.detail["sunk_taken_off"] == 1
    assert "rectangle" in fast.detail["refused"]["cluster"]
    assert fast.count == _frontier(dep) > 0


@pytest.mark.parametrize("dep, reason", [
    (Deployment(HEX, frozenset({(0, 0, 0), (1, -1, 0)}), (Piece("a", HEX.straight(2)),)), "not a square board"),
    (Deployment(SQUARE, frozenset((r, c) for r in range(3) for c in range(3)), (Piece("a", SQUARE.straight(2)),),
                touching=False), "may not touch"),
    (Deployment(SQUARE, frozenset((r, c) for r in range(3) for c in range(3)), (Piece("a", SQUARE.straight(2)),),
                row_clues=(1, 1, 0)), "clues"),
    (Deployment(SQUARE, frozenset((r, c) for r in range(3) for c in range(3)),
                (Piece("L", ((0, 0), (1, 0), (1, 1))),)), "not straight"),
    (Deployment(SQUARE, frozenset((r, c) for r in range(9) for c in range(9)), (Piece("a", SQUARE.straight(2), 8),)),
     "more than 7 pieces longer"),
])
def test_what_the_rows_programme_leaves_to_the_frontier(dep, reason):
    lay = layout(dep)
    assert reason in rows.unsupported(dep, lay)
    answer = get_counter("dp")().count(dep)
    assert answer.detail["method"] != "rows" and answer.count == _frontier(dep)
    assert answer.detail["method"] == "cluster" or reason in answer.detail["refused"]["rows"]


def test_marginals_by_rows_and_by_frontier_are_the_same_integers():
    from harness.counting.marginals import marginals

    base = read_deployment(ROOT / "standard_10x10.toml")
    dep = Deployment(SQUARE, base.cells, base.pieces, misses=frozenset({(0, 0), (3, 3), (6, 1), (8, 8)}),
                     hits=frozenset({(4, 4), (4, 5)}), sunk_at={"Destroyer": (4, 5)}, announce_sinks=True)
    fast, slow = marginals(dep), marginals(dep, "frontier")
    assert fast.total == slow.total > 0
    assert fast.occupied == slow.occupied and fast.by_piece == slow.by_piece
    with pytest.raises(ValueError, match="not a square board"):
        marginals(Deployment(HEX, frozenset({(0, 0, 0), (1, -1, 0)}), (Piece("a", HEX.straight(2)),)), "rows")


def test_a_sunk_ship_with_one_placement_left_is_pinned_and_taken_off():
    from harness.counting.brute import brute_count
    from harness.counting.reduce import pinned, without_sunk

    base = Deployment(SQUARE, frozenset((r, c) for r in range(5) for c in range(5)),
                      (Piece("A", SQUARE.straight(3)), Piece("B", SQUARE.straight(2))))
    dep = Deployment(SQUARE, base.cells, base.pieces, hits=frozenset({(0, 0), (0, 1)}), misses=frozenset({(1, 0)}),
                     sunk_at={"B": (0, 1)}, announce_sinks=True)  # B lies on (0,0)-(0,1): nowhere else
    pin = pinned(dep)
    assert pin.sunk == {"B": ((0, 0), (0, 1))} and not pin.sunk_at
    rest, taken = without_sunk(dep)
    assert set(taken) == {"B"} and [p.name for p in rest.pieces] == ["A"]
    assert get_counter("dp")().count(dep).count == brute_count(dep) == brute_count(pin) > 0
    open_ended = Deployment(SQUARE, base.cells, base.pieces, hits=frozenset({(2, 1), (2, 2), (2, 3)}),
                            sunk_at={"B": (2, 2)}, announce_sinks=True)  # two placements: left alone
    assert pinned(open_ended) is open_ended
