"""experiments/certify_two_level.py: the hardest cubes cut again, disjoint and exhaustive, every board checked."""

from __future__ import annotations

import csv

import pytest

from tests.benchmarks.conftest import ROOT

UNIQUE = str(ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml")
MANY = str(ROOT / "instances/seeds/seed004_12x12.toml")  # 51 boards, no planted board


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def level_one(tmp_path, load_benchmark):
    """certify_anatomy's cube rows of the unique 10x10 and seed004 (126 cubes of a 3-ship)."""
    anatomy = load_benchmark("certify_anatomy")
    assert anatomy.main(["--parts", "cube", "--limit", "30", "--out", str(tmp_path / "l1"), UNIQUE, MANY]) == 0
    return tmp_path / "l1" / "runs.csv"


def test_the_sub_cubes_of_a_cube_hold_its_boards_exactly_once(tmp_path, load_benchmark, level_one):
    bench = load_benchmark("certify_two_level")
    assert bench.main(["--cubes-from", str(level_one), "--split-above", "-1", "--limit", "30",
                       "--out", str(tmp_path / "l2"), UNIQUE]) == 0
    rows = _rows(tmp_path / "l2" / "runs.csv")
    cubes = [r for r in _rows(level_one) if r["instance"] == "classic_10x10_minimal-pieces_s200"]
    assert {r["part"] for r in rows} == {r["key"] for r in cubes}  # every cube cut
    assert all(r["result"] == "done" for r in rows)
    assert sum(int(r["boards"]) for r in rows) == 1 and sum(r["holds_board"] == "True" for r in rows) == 1
    held = next(r for r in rows if r["holds_board"] == "True")
    assert held["boards"] == "1" and held["part"] == next(c["key"] for c in cubes if c["holds_board"] == "True")
    summary = (tmp_path / "l2" / "summary.md").read_text()
    line = next(x for x in summary.splitlines() if x.startswith("| classic_10x10_minimal-pieces_s200 |"))
    assert line.split(" | ")[1:3] == ["5", "5"] and line.endswith("| 1 |")  # 5 cubes, all cut, 1 core in 30 s
    # seed004 (51 boards): three cubes' sub-cubes hold exactly the boards of their cubes
    many = {r["key"]: int(r["boards"]) for r in _rows(level_one) if r["instance"] == "seed004_12x12"}
    for key in sorted(many, key=lambda k: -many[k])[:3]:
        subs = list(bench.sub_cubes(MANY, key, 30))
        assert all(r["result"] == "done" for r in subs) and sum(r["boards"] for r in subs) == many[key] > 0


def test_cut_deeper_the_next_ship_of_a_length_comes_after_the_first(tmp_path, load_benchmark, level_one):
    bench = load_benchmark("certify_two_level")
    cubes = {r["key"]: r for r in _rows(level_one) if r["instance"] == "classic_10x10_minimal-pieces_s200"}
    top = next(k for k, r in cubes.items() if r["holds_board"] == "True")
    second = next(r for r in bench.sub_cubes(UNIQUE, top, 30) if r["holds_board"])
    third = list(bench.sub_cubes(UNIQUE, f"{top}/{second['key']}", 30))  # the second 3-ship of the fleet
    assert all(r["result"] == "done" for r in third) and sum(r["boards"] for r in third) == 1
    assert [r["boards"] for r in third if r["holds_board"]] == [1]
    many = {r["key"]: int(r["boards"]) for r in _rows(level_one) if r["instance"] == "seed004_12x12"}
    key = max(many, key=lambda k: many[k])
    for sub in [r for r in bench.sub_cubes(MANY, key, 30) if r["boards"]][:2]:
        deeper = list(bench.sub_cubes(MANY, f"{key}/{sub['key']}", 30))
        assert sum(r["boards"] for r in deeper) == sub["boards"]
    with pytest.raises(ValueError, match="is not a placement of ship 2"):
        list(bench.sub_cubes(UNIQUE, f"{top}/{top}", 30))
    leaves = bench.leaves({"8@a": {}, "8@a/7@b": {}, "8@a/7@c": {}, "8@a/7@b/7@d": {}, "8@e": {}})
    assert sorted(leaves) == ["8@a/7@b/7@d", "8@a/7@c", "8@e"]


def test_a_cube_under_the_threshold_keeps_its_time_and_a_timeout_gives_no_makespan(load_benchmark):
    bench = load_benchmark("certify_two_level")
    cubes = {"8@a": {"cpu_s": 40.0}, "8@b": {"cpu_s": 12.0}, "8@c": {"cpu_s": 5.0}}
    subs = [{"instance": "x", "part": "8@a", "key": f"7@{i}", "holds_board": i == 0, "result": "done",
             "cpu_s": t} for i, t in enumerate((20.0, 10.0, 14.0))]
    fig = bench.figures(cubes, subs, 15.0)
    assert fig["cut"] == 1 and fig["cut_s"] == 40.0 and fig["sub_s"] == 44.0 and fig["largest_sub"] == 20.0
    assert fig["largest_kept"] == 12.0 and fig["board_sub"] == 20.0 and fig["state"] == "complete"
    assert fig["lpt"][1] == 61.0 and fig["lpt"][2] == 31.0 and fig["lpt"][4] == 20.0 and fig["reach"] == 4
    for bad in ("timeout", "error", "wrong"):
        fig = bench.figures(cubes, subs[:1] + [subs[1] | {"result": bad}] + subs[2:], 15.0)
        assert fig["state"] == bad and fig["reach"] is None and fig["lpt"][4] is None
    fig = bench.figures(cubes, [], 15.0)  # the cube to cut has no rows: not complete
    assert fig["state"] == "error" and fig["reach"] is None


def test_missing_or_unfinished_level_one_cubes_stop_before_any_search(tmp_path, load_benchmark, level_one,
                                                                       monkeypatch):
    bench = load_benchmark("certify_two_level")
    monkeypatch.setattr(bench.anatomy, "run_part", lambda *a, **k: pytest.fail("a search ran"))
    out = str(tmp_path / "l2")
    with pytest.raises(SystemExit, match=r"runs.csv: large_30x20_minimal_s502 has no complete set of level-1"):
        bench.main(["--cubes-from", str(level_one), "--out", out,
                    str(ROOT / "instances/large/large_30x20_minimal_s502.toml")])
    text = level_one.read_text().splitlines()
    cut = next(i for i, x in enumerate(text) if x.startswith("classic_10x10_minimal-pieces_s200,cube,"))
    for bad, message in (("timeout", "no complete set of cubes"), ("done", "cpu_s is not a number")):
        fields = text[cut].split(",")
        fields[4] = bad
        fields[7] = "x" if bad == "done" else fields[7]
        broken = tmp_path / f"{bad}.csv"
        broken.write_text("\n".join(text[:cut] + [",".join(fields)] + text[cut + 1:]) + "\n")
        with pytest.raises(SystemExit, match=message):
            bench.main(["--cubes-from", str(broken), "--out", out, UNIQUE])
    with pytest.raises(SystemExit, match="nope.csv: no such file"):
        bench.main(["--cubes-from", str(tmp_path / "nope.csv"), "--out", out, UNIQUE])


def test_resume_keeps_a_finished_instance_and_reruns_one_cut_off(tmp_path, load_benchmark, level_one, monkeypatch):
    bench = load_benchmark("certify_two_level")
    args = ["--cubes-from", str(level_one), "--split-above", "-1", "--limit", "30", "--out", str(tmp_path / "l2"),
            UNIQUE]
    assert bench.main(args) == 0
    runs = tmp_path / "l2" / "runs.csv"
    before = runs.read_text()
    with pytest.raises(SystemExit, match="runs.csv exists: --resume"):
        bench.main(args)
    real = bench.anatomy.run_part
    ran = []
    monkeypatch.setattr(bench.anatomy, "run_part", lambda *a, **k: ran.append(a[1]) or real(*a, **k))
    assert bench.main(args + ["--resume"]) == 0 and ran == [] and runs.read_text() == before
    parent = _rows(runs)[-1]["part"]
    runs.write_text("".join(x for x in before.splitlines(keepends=True) if f",{parent}," not in x))
    assert bench.main(args + ["--resume"]) == 0
    assert len(ran) == 5
    assert len(_rows(runs)) == before.count("\n") - 1  # cut off in one cube: the instance ran again whole


def test_a_failed_or_wrong_sub_cube_makes_the_exit_code_1_and_no_makespan(tmp_path, load_benchmark, level_one,
                                                                          monkeypatch):
    bench = load_benchmark("certify_two_level")
    for bad in ("error", "wrong"):
        monkeypatch.setattr(bench.anatomy, "run_part", lambda path, part, limit, rows_of=None, bad=bad: [
            {"instance": "classic_10x10_minimal-pieces_s200", "part": part, "key": "3@r0c0h", "holds_board": False,
             "result": bad, "boards": 0, "wall_s": "", "cpu_s": "", "branches": "", "conflicts": "killed"}])
        out = tmp_path / bad
        assert bench.main(["--cubes-from", str(level_one), "--split-above", "-1", "--out", str(out), UNIQUE]) == 1
        line = next(x for x in (out / "summary.md").read_text().splitlines()
                    if x.startswith("| classic_10x10_minimal-pieces_s200 |"))
        assert line.endswith("| – |") and ("failed" in line or "wrong" in line)
