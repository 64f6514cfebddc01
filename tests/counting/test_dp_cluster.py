"""The dp and cluster counters against brute force, each other and the seed's numbers; marginals against brute force."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.counting.brute import brute_count
from harness.counting.counters import Unsupported, get_counter
from harness.counting.deployment import Deployment, Piece
from harness.counting.format import read_deployment
from harness.counting.geometry import HEX, SQUARE
from harness.counting.marginals import heat_map, marginals

ROOT = Path(__file__).resolve().parents[2] / "instances" / "deployments"
TINY = sorted((ROOT / "tiny").glob("*.toml"))


def rect(h, w, lengths, touching=True, **kw):
    pieces = []
    for i, (length, n) in enumerate(lengths):
        pieces.append(Piece(f"p{i}", SQUARE.straight(length), n))
    return Deployment(SQUARE, frozenset((r, c) for r in range(h) for c in range(w)), tuple(pieces),
                      touching=touching, **kw)


def dp(dep, by="deployments"):
    return get_counter("dp")().count(dep, by).count


CASES = [
    rect(4, 4, [(3, 1), (2, 1)]),
    rect(5, 4, [(3, 1), (2, 2)]),
    rect(5, 5, [(3, 1), (2, 1), (2, 1)], touching=False),
    rect(4, 5, [(2, 3)]),
    rect(5, 5, [(3, 1), (2, 1)], misses=frozenset({(0, 0), (2, 2)}), hits=frozenset({(1, 1)})),
    rect(5, 5, [(3, 1), (2, 1)], row_clues=(1, 0, 3, 1, 0)),
    rect(5, 5, [(3, 1), (2, 1)], col_clues=(0, 2, 1, 1, 1)),
    rect(5, 5, [(3, 1), (2, 1)], row_clues=(None, 2, None, 3, 0), col_clues=(1, None, 2, 1, None)),
    Deployment(SQUARE, frozenset((r, c) for r in range(5) for c in range(5)) - {(2, 2), (1, 3)},
               (Piece("L", ((0, 0), (1, 0), (1, 1))), Piece("I", SQUARE.straight(2))), touching=False),
    Deployment(SQUARE, frozenset((r, c) for r in range(4) for c in range(4)),
               (Piece("L", ((0, 0), (1, 0), (1, 1), (1, 2))), Piece("I", SQUARE.straight(2))), reflections=True),
]


@pytest.mark.parametrize("dep", CASES, ids=range(len(CASES)))
def test_dp_agrees_with_brute_force(dep):
    assert dp(dep) == brute_count(dep)


@pytest.mark.parametrize("path", TINY, ids=lambda p: p.stem)
def test_dp_counts_the_tiny_instances_as_brute_force_and_the_manifest(path):
    dep = read_deployment(path)
    assert dp(dep) == brute_count(dep) == int(dep.meta["expected_count"])


def test_dp_on_a_hex_board_with_an_island():
    cells = frozenset((x, y, -x - y) for x in range(-2, 3) for y in range(-2, 3) if abs(x + y) <= 2) - {(0, 0, 0)}
    dep = Deployment(HEX, cells, (Piece("I", HEX.straight(3)), Piece("V", ((0, 0, 0), (1, 0, -1), (0, 1, -1)))),
                     touching=False)
    assert dp(dep) == brute_count(dep) > 0


def test_dp_counts_boards_when_pieces_may_not_touch():
    dep = rect(5, 5, [(3, 1), (2, 1), (2, 1)], touching=False)
    assert dp(dep, "boards") == brute_count(dep, "boards") == brute_count(dep) // 2


def test_dp_refuses_boards_when_pieces_may_touch():
    with pytest.raises(Unsupported, match="may not touch"):
        dp(rect(4, 4, [(2, 2)]), "boards")


def test_a_piece_that_fits_nowhere_gives_zero():
    assert dp(rect(3, 3, [(4, 1)])) == 0
    assert get_counter("cluster")().count(rect(3, 3, [(4, 1), (2, 1)])).count == 0


@pytest.mark.parametrize("h,w,lengths,touching", [
    (5, 5, [(3, 1), (2, 2)], True),
    (6, 4, [(4, 1), (3, 1), (2, 1)], True),
    (7, 3, [(3, 1), (2, 1), (1, 2)], True),
    (5, 5, [(3, 1), (2, 1)], False),
    (5, 6, [(3, 1), (2, 1), (2, 1)], False),
])
def test_cluster_agrees_with_the_dp_and_brute_force(h, w, lengths, touching):
    dep = rect(h, w, lengths, touching)
    assert get_counter("cluster")().count(dep).count == dp(dep) == brute_count(dep)


def test_cluster_gives_the_seed_numbers():
    dep = read_deployment(ROOT / "standard_10x10.toml")
    assert get_counter("cluster")().count(dep).count == 30_093_975_536
    dep = read_deployment(ROOT / "standard_12x10.toml")
    assert get_counter("cluster")().count(dep).count == 101_832_786_704


def test_cluster_refuses_what_it_cannot_express():
    cluster = get_counter("cluster")()
    with pytest.raises(Unsupported, match="rectangle"):
        cluster.count(read_deployment(ROOT / "tiny" / "hex_r2.toml"))
    with pytest.raises(Unsupported, match="hints"):
        cluster.count(rect(4, 4, [(2, 1)], hits=frozenset({(0, 0)})))


def test_dp_reproduces_both_hex_halves():
    for name, known in (("hex_blue", 17_290_404_311), ("hex_green", 21_625_126_041)):
        dep = read_deployment(ROOT / f"{name}.toml")
        assert len(dep.cells) == 79
        assert dp(dep) == known


def test_marginals_are_the_brute_force_counts_of_each_cell_and_piece():
    dep = rect(5, 5, [(3, 1), (2, 1)], misses=frozenset({(0, 0)}), hits=frozenset({(2, 2)}))
    m = marginals(dep)
    assert m.total == brute_count(dep)
    for cell in [(1, 2), (4, 4), (2, 3)]:
        with_ship = Deployment(SQUARE, dep.cells, dep.pieces, misses=dep.misses, hits=dep.hits | {cell})
        assert m.occupied[cell] == brute_count(with_ship)
    assert sum(m.by_piece["p0"].values()) == 3 * m.total
    assert sum(m.by_piece["p1"].values()) == 2 * m.total
    assert m.occupied[(2, 2)] == m.total  # a hit is certain
    text = heat_map(dep, m)
    assert text.splitlines()[0].split()[0] == "o" and "x" in text.splitlines()[2]


def test_marginals_split_identical_and_same_shape_pieces_evenly():
    dep = rect(4, 4, [(2, 1), (2, 1), (3, 1)])  # p0 and p1: same shape, different names (merged in the dp)
    m = marginals(dep)
    assert m.total == brute_count(dep)
    assert m.by_piece["p0"] == m.by_piece["p1"]
    for cell in dep.cells:
        assert sum(m.by_piece[n].get(cell, 0) for n in ("p0", "p1", "p2")) == m.occupied[cell]


def test_the_deployment_manifest_matches_its_files():
    import tomllib

    manifest = tomllib.loads((ROOT / "MANIFEST.toml").read_text())["instance"]
    files = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.toml") if p.name != "MANIFEST.toml")
    assert sorted(e["path"] for e in manifest) == files
    for entry in manifest:
        dep = read_deployment(ROOT / entry["path"])
        assert dep.content_hash() == entry["content_hash"], entry["path"]
        if "expected_count" in entry:
            assert int(dep.meta["expected_count"]) == entry["expected_count"]


@pytest.mark.parametrize("touching", [True, False])
def test_sunk_pieces_taken_off_keep_counts_and_marginals(touching):
    from harness.counting.reduce import without_sunk

    dep = rect(5, 5, [(3, 1), (2, 1), (2, 1)], touching=touching, sunk={"p1": ((0, 0), (0, 1))},
               hits=frozenset({(3, 3)}), misses=frozenset({(4, 0)}))  # (an extra hit with announced
    # sinks would change which placements the hits exclude: not the marginal)
    rest, taken = without_sunk(dep)
    assert taken == {"p1": ((0, 0), (0, 1))} and len(rest.pieces) == 2
    assert dp(dep) == brute_count(dep) > 0
    m = marginals(dep)
    assert m.total == brute_count(dep)
    assert m.occupied[(0, 0)] == m.total and m.by_piece["p1"][(0, 1)] == m.total
    for cell in [(2, 2), (3, 4)]:
        more = Deployment(SQUARE, dep.cells, dep.pieces, touching=touching, sunk=dep.sunk, misses=dep.misses,
                          hits=dep.hits | {cell})
        assert m.occupied[cell] == brute_count(more)


def test_a_sunk_piece_not_of_its_shape_gives_zero():
    dep = rect(4, 4, [(3, 1), (2, 1)], sunk={"p1": ((0, 0), (1, 1))})
    assert dp(dep) == brute_count(dep) == 0


def test_cluster_tables_are_cached_on_disk_and_read_back(tmp_path, monkeypatch):
    from harness.counting.counters import cluster

    monkeypatch.setenv("BATTLEBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(cluster, "SHIPPED", tmp_path / "nothing shipped")  # this block is one the standard fleet's
    shapes = ((((0, 0), (0, 1)), ((0, 0), (1, 0))),  # a 2-ship and a 3-ship, each in both orientations
              (((0, 0), (0, 1), (0, 2)), ((0, 0), (1, 0), (2, 0))))
    cluster.block_table.cache_clear()
    made = cluster.block_table(shapes, True)
    files = list((tmp_path / "cluster").glob("*.json"))
    assert len(files) == 1
    cluster.block_table.cache_clear()
    assert cluster.block_table(shapes, True) == made


def test_a_counter_whose_library_is_missing_says_how_to_install_it():
    from harness.counting.counters import Counter

    class Missing(Counter):
        name = "missing"
        requires = ("battlebench_no_such_module",)
        install = "pip install battlebench-no-such-module"

    assert Missing.available() == ("the missing counter needs battlebench_no_such_module: "
                                   "pip install battlebench-no-such-module")
    assert get_counter("dp").available() is None
