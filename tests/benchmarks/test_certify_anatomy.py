"""benchmarks/certify_anatomy.py: the proof cut into cubes and given ships, every board checked."""

from __future__ import annotations

import csv

import pytest

from tests.benchmarks.conftest import ROOT

UNIQUE = str(ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml")
MANY = str(ROOT / "instances/seeds/seed004_12x12.toml")  # 51 boards


def _rows(out):
    with open(out / "runs.csv") as fh:
        return list(csv.DictReader(fh))


def test_the_cubes_together_hold_every_board_exactly_once(tmp_path, load_benchmark):
    bench = load_benchmark("certify_anatomy")
    assert bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE, MANY]) == 0
    rows = _rows(tmp_path)
    for inst, boards in (("classic_10x10_minimal-pieces_s200", 1), ("seed004_12x12", 51)):
        cubes = [r for r in rows if r["instance"] == inst and r["part"] == "cube"]
        assert cubes and all(r["result"] == "done" for r in cubes)
        assert sum(int(r["boards"]) for r in cubes) == boards  # disjoint and exhaustive
        assert sum(r["holds_board"] == "True" for r in cubes) == 1
        given = [r for r in rows if r["instance"] == inst and r["part"] == "given"]
        assert given[0]["key"].startswith(">=") and all(int(r["boards"]) >= 1 for r in given)
    whole = {r["instance"]: r for r in rows if r["part"] == "whole"}
    assert whole["seed004_12x12"]["boards"] == "2" and whole["classic_10x10_minimal-pieces_s200"]["boards"] == "1"
    summary = (tmp_path / "summary.md").read_text()
    assert "| classic_10x10_minimal-pieces_s200 |" in summary and "| >=4 |" in summary


def test_a_board_the_verifier_rejects_makes_the_run_wrong_and_the_exit_code_1(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    import harness.puzzle.verify as verify_mod

    monkeypatch.setattr(verify_mod, "verify", lambda inst, board: verify_mod.Verdict.fail("row-clue", None, "x"))
    assert bench.measure(UNIQUE, "whole", 30)[0]["result"] == "wrong"
    assert bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE]) == 1


def test_a_search_out_of_time_is_a_timeout_and_no_core_count_reaches_the_target(load_benchmark):
    bench = load_benchmark("certify_anatomy")
    rows = [{"instance": "a", "part": "whole", "key": "count-2", "holds_board": True, "result": "done", "cpu_s": 50.0},
            {"instance": "a", "part": "cube", "key": "8@x", "holds_board": True, "result": "done", "cpu_s": 20.0},
            {"instance": "a", "part": "cube", "key": "8@y", "holds_board": False, "result": "done", "cpu_s": 25.0},
            {"instance": "a", "part": "cube", "key": "8@z", "holds_board": False, "result": "done", "cpu_s": 15.0}]
    fig = bench.instance_figures(rows)
    assert fig["cube_sum"] == 60.0 and fig["board_cube"] == 20.0 and fig["lpt"][2] == 35.0 and fig["reach"] == 4
    rows[2] = rows[2] | {"result": "timeout"}
    assert bench.instance_figures(rows)["reach"] is None
    assert bench.lpt([5.0, 4.0, 3.0, 3.0, 3.0], 2) == 10.0  # longest first: 5+3, 4+3+3 (the optimum is 9)


def test_a_part_whose_worker_fails_is_an_error_row(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")

    def broken(path, part, limit):
        raise RuntimeError("solver crashed")
    monkeypatch.setattr(bench, "measure", broken)
    rows = bench.run_part(UNIQUE, "whole", 5, 5)
    assert [r["result"] for r in rows] == ["error"] and "solver crashed" in rows[0]["conflicts"]


def test_resume_keeps_finished_instances_and_refuses_a_corrupt_file(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    assert bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE]) == 0
    before = (tmp_path / "runs.csv").read_text()
    monkeypatch.setattr(bench, "run_part", lambda *a: pytest.fail("a part ran again"))
    with pytest.raises(SystemExit, match="runs.csv exists: --resume"):
        bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE])
    assert bench.main(["--limit", "30", "--resume", "--out", str(tmp_path), UNIQUE]) == 0
    assert (tmp_path / "runs.csv").read_text() == before
    monkeypatch.setattr(bench, "run_part", lambda path, part, limit, budget: [
        {"instance": "seed004_12x12", "part": part, "key": ">=5", "holds_board": True, "result": "done",
         "boards": 1, "wall_s": 1.0, "cpu_s": 1.0, "branches": 0, "conflicts": 0}])
    assert bench.main(["--limit", "30", "--resume", "--parts", "given", "--out", str(tmp_path), MANY]) == 0
    rows = _rows(tmp_path)  # the first instance, not asked for this time, keeps every row
    assert len(rows) == before.count("\n") - 1 + 1 and rows[-1]["instance"] == "seed004_12x12"
    monkeypatch.setattr(bench, "run_part", lambda *a: pytest.fail("a part ran again"))
    before = (tmp_path / "runs.csv").read_text()
    (tmp_path / "runs.csv").write_text(before.replace(",done,", ",fine,", 1))
    with pytest.raises(SystemExit, match=r"runs.csv: line 2: unknown part or result"):
        bench.main(["--limit", "30", "--resume", "--out", str(tmp_path), UNIQUE])
    with pytest.raises(SystemExit, match="nope.toml: no such instance file"):
        bench.main(["--out", str(tmp_path / "x"), str(tmp_path / "nope.toml")])
