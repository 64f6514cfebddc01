"""benchmarks/cube_makespan.py: cubes cut again when slow, the cubes still to run, the tree's cover, makespans."""

from __future__ import annotations

import argparse
import csv

import pytest

from tests.benchmarks.conftest import ROOT


def _row(cube: str, cpu: float, parts: int = 0, *, exhausted: int = 1, hashes: str = "", puzzle: str = "p",
         cubes: int = 2) -> dict:
    return {"puzzle": puzzle, "cubes": str(cubes), "cube": cube, "boards": str(len([h for h in hashes.split("|") if h])),
            "board_hashes": hashes, "exhausted": str(exhausted), "hit_limit": str(int(not exhausted)),
            "cpu_s": str(cpu), "wall_s": str(cpu), "build_s": "0", "worker": "w", "verdicts": "ok" if hashes else "",
            "limit_s": "4", "parts": str(parts)}


TREE = [_row("0", 4, 2, exhausted=0), _row("1", 1, hashes="b1"), _row("0/0", 3), _row("0/1", 2)]


def test_a_cut_cubes_parts_start_when_it_ends(load_benchmark):
    bench = load_benchmark("cube_makespan")
    assert bench.simulate(TREE, 0.0, 1) == pytest.approx(10.0)  # one worker: everything in turn
    assert bench.simulate(TREE, 0.0, 2) == pytest.approx(7.0)  # 0 ends at 4, then its parts side by side
    assert bench.simulate(TREE, 0.5, 2) == pytest.approx(7.5)  # each worker builds the model once
    assert bench.simulate(TREE, 0.0, 8) == pytest.approx(7.0)  # the chain 0 -> 0/0 bounds it
    flat = [_row(str(i), t) for i, t in enumerate([1, 1, 1, 3])]
    assert bench.simulate(flat, 0.0, 2) == pytest.approx(4.0)  # the order submitted: 1, 1 | 1, 3
    assert bench.simulate(flat, 0.0, 2, longest_first=True) == pytest.approx(3.0)


def test_the_cubes_still_to_run_are_the_first_and_the_parts_of_the_cut(load_benchmark):
    bench = load_benchmark("cube_makespan")
    done = {"0": _row("0", 4, 3, exhausted=0), "0/1": _row("0/1", 2, 2, exhausted=0), "1": _row("1", 1)}
    assert bench.to_run(3, done) == ["2", "0/0", "0/2", "0/1/0", "0/1/1"]
    assert bench.to_run(2, {}) == ["0", "1"]
    assert bench.tree_state(TREE, 2) == "complete"
    assert bench.tree_state(TREE[:-1], 2) == "incomplete"  # a part of a cut cube missing
    assert bench.tree_state(TREE[1:], 2) == "incomplete"  # a first cube missing


@pytest.mark.parametrize("bad, why", [
    (TREE[:-1], "a part missing"),
    (TREE[:2] + [_row("0/0", 3, exhausted=0), TREE[3]], "a cube not cut that did not end"),
    (TREE[:3] + [_row("0/1", 2, hashes="b2")], "two boards"),
])
def test_a_puzzle_is_certified_only_when_its_cubes_cover_it_and_hold_one_board(tmp_path, load_benchmark, bad, why):
    bench = load_benchmark("cube_makespan")
    args = argparse.Namespace(cubes=2, workers=2, cube_limit=300, simulate="2,32", resplit_after=4, parts=2,
                              clock="cpu")

    def report(rows, out):
        journal = tmp_path / f"{out}.csv"
        with open(journal, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=bench.FIELDS)
            writer.writeheader()
            writer.writerows(rows)
        bench.write_report(journal, tmp_path / "none.csv", args, tmp_path / out)
        with open(tmp_path / out / "makespan.csv") as fh:
            return {(r["workers"], r["certified"], r["simulated_s"]) for r in csv.DictReader(fh)}

    assert report(TREE, "good") == {("2", "1", "7.0"), ("32", "1", "7.0")}
    assert {c for _, c, _ in report(bad, "bad")} == {"0"}, why


def test_a_cube_is_named_by_its_path_of_parts(load_benchmark):
    from harness.backends.cubes import split
    from harness.model.abstract import build_model
    from harness.puzzle.formats import read_instance

    bench = load_benchmark("cube_makespan")
    model = build_model(read_instance(ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml"))
    first = split(model, (), 4)
    assert bench.cube_at(model, "2", 4, 3) == first[2]
    assert bench.cube_at(model, "2/1", 4, 3) == split(model, first[2], 3)[1]
    assert bench.cube_at(model, "9", 4, 3) is None
    assert bench.cut(ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml", 4) == len(first)
