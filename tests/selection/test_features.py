"""harness/selection/features.py: a puzzle's features -- from the puzzle alone, right on a hand-made one, cached."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.puzzle.formats import read_instance
from harness.puzzle.instance import Hint, Instance
from harness.selection import features as feats

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml"


def _hand_made() -> Instance:
    return Instance(rows=4, cols=5, fleet={2: 1, 1: 2}, row_clues=(2, None, 1, 1), col_clues=(1, 0, 2, None, 1),
                    hints={(0, 0): Hint.SUBMARINE, (1, 1): Hint.WATER, (2, 2): Hint.TOP}, name="hand")


def test_the_features_of_a_hand_made_puzzle():
    got = feats.features(_hand_made())
    v = got.values
    assert (v["rows"], v["cols"], v["cells"]) == (4, 5, 20)
    assert (v["pieces"], v["lengths"], v["longest"], v["ship_cells"], v["single_lengths"]) == (3, 2, 2, 4, 1)
    assert v["ship_share"] == pytest.approx(0.2)
    assert (v["row_clues_known"], v["row_clues_unknown"], v["col_clues_zero"]) == (3, 1, 1)
    assert v["clues_known_share"] == pytest.approx(7 / 9)
    assert (v["hints"], v["hints_submarine"], v["hints_water"], v["hints_top"], v["hints_middle"]) == (3, 1, 1, 1, 0)
    # a 2-ship has 4*4 + 5*3 = 31 places on an empty 4x5 board, a 1-ship 20
    assert v["placements_geometric"] == 31 + 20
    assert 0 < v["placements_kept"] < v["placements_geometric"]
    assert v["cnf_placement_variables"] > 0 and v["cnf_cell_clauses"] > 0
    assert set(got.costs) == set(feats.GROUPS) and all(c >= 0 for c in got.costs.values())
    assert [n for g in feats.GROUPS for n in got.groups[g]] == list(v)


def test_the_features_know_nothing_of_the_solution_or_the_name():
    inst = read_instance(CLASSIC)
    other = inst.replace(name="renamed", meta={"planted": ["." * 10] * 10, "expected_count": 7})
    assert feats.features(inst).values == feats.features(other).values
    moved = dict(inst.hints)
    moved.pop(next(iter(moved)))
    assert feats.features(inst.replace(hints=moved)).values != feats.features(inst).values


def test_the_gbd_hash_is_gbds_own_of_the_cnf_battlebench_writes(tmp_path):
    import gbdc

    from harness.cli import main

    assert main(["write", str(CLASSIC), "--format", "cnf", "--formulation", "placement", "--out", str(tmp_path)]) == 0
    cnf = next(tmp_path.rglob("*.cnf"))
    got = feats.features(read_instance(CLASSIC))
    assert got.gbd_hash == gbdc.gbdhash(str(cnf))
    assert got.values["gbd_clauses"] == got.values["cnf_placement_clauses"]


def test_the_cache_keeps_features_by_content_and_computes_a_damaged_entry_again(tmp_path, monkeypatch):
    from harness.core import jitcache

    monkeypatch.setenv(jitcache.CACHE_ENV, str(tmp_path))
    jitcache.cache_dir.cache_clear()
    try:
        inst = read_instance(CLASSIC)
        first = feats.cached_features(inst)
        files = list(tmp_path.rglob("*.json"))
        assert len(files) == 1 and files[0].stem == inst.content_hash()
        monkeypatch.setattr(feats, "features", lambda i: (_ for _ in ()).throw(AssertionError("computed")))
        assert feats.cached_features(inst.replace(name="same puzzle")).values == first.values  # read, not computed
        files[0].write_text("{not json")
        monkeypatch.undo()
        monkeypatch.setenv(jitcache.CACHE_ENV, str(tmp_path))
        assert feats.cached_features(inst).values == first.values  # a damaged entry: computed again
    finally:
        jitcache.cache_dir.cache_clear()


def test_the_tally_only_count_is_the_boards_the_clues_alone_allow():
    import math

    from harness.counting.counters import FAMILY
    from harness.counting.format import from_puzzle

    inst = _hand_made().replace(row_clues=(2, None, None, None))
    got = feats.features(inst)
    brute = FAMILY.load("brute")().count(from_puzzle(inst.replace(hints={})), "boards")
    assert brute.complete and brute.count > 1  # the hints narrow it; the clues alone allow several boards
    assert got.values["tally_counted"] == 1.0
    assert got.values["tally_log10_boards"] == pytest.approx(math.log10(1 + brute.count))
    assert got.values["frontier_width"] > 5  # a 2-ship down a 5-wide board, with its halo: more than a row
    assert got.groups["layout"] == ["frontier_width"] and got.costs["tally"] > 0


def test_the_tally_only_count_is_left_out_where_it_is_not_cheap(monkeypatch):
    inst = _hand_made()
    monkeypatch.setattr(feats, "TALLY_MAX_WIDTH", 3)  # narrower than this board's frontier: not tried
    assert feats.features(inst).values["tally_counted"] == 0.0
    monkeypatch.undo()
    monkeypatch.setattr(feats, "TALLY_BUDGET_S", 0.0)  # no time for the child: killed, not counted
    got = feats.features(inst)
    assert got.values["tally_counted"] == 0.0 and "tally_log10_boards" not in got.values
    monkeypatch.undo()
    # a fifth of the clues unknown: more states than the child's budget -- not counted, and this process unharmed
    # (counted in this process without limits, the 20 classic puzzles of test_aslib grew it past 24 GB)
    import resource

    got = feats.features(read_instance(ROOT / "instances/classic/classic_10x10_minimal-u20_s304.toml"))
    assert got.values["tally_counted"] == 0.0 and 0 < got.costs["tally"] <= feats.TALLY_BUDGET_S + 1
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 4 << 20  # KB: under 4 GB


def test_a_count_or_play_board_has_its_own_small_feature_set():
    from harness.counting.format import read_deployment

    hexed = feats.board_features(read_deployment(ROOT / "instances/deployments/hex_blue.toml"))
    v = hexed.values
    assert v["hex"] == 1.0 and v["cells"] == 79 and v["pieces"] == 5 and v["hits"] == 0
    assert v["placements"] >= v["placements_fewest_of_a_piece"] * 5 > 0
    assert list(hexed.groups) == list(feats.BOARD_GROUPS) and set(hexed.costs) == set(feats.BOARD_GROUPS)
    square = feats.board_features(read_deployment(ROOT / "instances/deployments/standard_10x10.toml"))
    assert square.values["hex"] == 0.0 and square.values["cells"] == 100 and square.values["frontier_width"] > 10
