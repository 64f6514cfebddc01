"""experiments/certify_anatomy.py: the proof cut into cubes and given ships, every board checked."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.benchmarks.conftest import ROOT

UNIQUE = str(ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml")
MANY = str(ROOT / "instances/seeds/seed004_12x12.toml")  # 51 boards, no planted board
HARD = str(ROOT / "instances/large/large_30x20_minimal_s502.toml")


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
    many = next(line for line in summary.splitlines() if line.startswith("| seed004_12x12 | "))
    assert many.split(" | ")[4] == "–"  # x whole: a count-2 stopped at its second board is no baseline


def test_a_board_the_verifier_rejects_makes_the_run_wrong_and_the_exit_code_1(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    import harness.puzzle.verify as verify_mod

    real = verify_mod.verify
    calls = {"n": 0}

    def verify_all_but_the_planted(inst, board):  # the first call checks the planted board
        calls["n"] += 1
        return real(inst, board) if calls["n"] == 1 else verify_mod.Verdict.fail("row-clue", None, "x")
    monkeypatch.setattr(verify_mod, "verify", verify_all_but_the_planted)
    assert list(bench.measure(UNIQUE, "whole", 30))[0]["result"] == "wrong"
    calls["n"] = 0
    assert bench.main(["--limit", "30", "--parts", "whole", "--out", str(tmp_path), UNIQUE]) == 1


def test_a_planted_board_that_is_no_solution_is_an_error_row(tmp_path, load_benchmark):
    bench = load_benchmark("certify_anatomy")
    text = Path(UNIQUE).read_text()
    assert '    ".........O",' in text  # the planted board's first row: its submarine moves off the board's one
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('    ".........O",', '    "O.........",', 1))
    rows = list(bench.run_part(str(bad), "whole", 10))
    assert [r["result"] for r in rows] == ["error"] and "planted board is not a solution" in rows[0]["conflicts"]


def test_a_search_past_its_limit_is_a_timeout_and_gives_no_makespan(load_benchmark):
    bench = load_benchmark("certify_anatomy")
    assert list(bench.measure(HARD, "whole", 0.05))[0]["result"] == "timeout"
    rows = [{"instance": "a", "part": "whole", "key": "count-2", "holds_board": True, "result": "done", "cpu_s": 50.0,
             "boards": "1"},
            {"instance": "a", "part": "cube", "key": "8@x", "holds_board": True, "result": "done", "cpu_s": 20.0},
            {"instance": "a", "part": "cube", "key": "8@y", "holds_board": False, "result": "done", "cpu_s": 25.0},
            {"instance": "a", "part": "cube", "key": "8@z", "holds_board": False, "result": "done", "cpu_s": 15.0}]
    fig = bench.instance_figures(rows)
    assert fig["cube_sum"] == 60.0 and fig["board_cube"] == 20.0 and fig["lpt"][2] == 35.0 and fig["reach"] == 4
    assert fig["ratio"] == pytest.approx(1.2) and fig["state"] == "complete"
    for bad in ("timeout", "error", "wrong"):
        fig = bench.instance_figures(rows[:2] + [rows[2] | {"result": bad}] + rows[3:])
        assert fig["state"] == bad and fig["reach"] is None and fig["lpt"][2] is None and fig["ratio"] is None
    assert bench.lpt([5.0, 4.0, 3.0, 3.0, 3.0], 2) == 10.0  # longest first: 5+3, 4+3+3 (the optimum is 9)


def test_a_part_whose_worker_fails_ends_with_an_error_row_after_the_rows_it_sent(load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")

    def broken(path, part, limit):
        yield {"key": "8@x", "holds_board": False, "result": "done", "boards": 0, "wall_s": 1.0, "cpu_s": 1.0,
               "branches": 0, "conflicts": 0}
        raise RuntimeError("solver crashed")
    monkeypatch.setattr(bench, "measure", broken)
    rows = list(bench.run_part(UNIQUE, "cube", 5))
    assert [r["result"] for r in rows] == ["done", "error"] and "solver crashed" in rows[1]["conflicts"]
    assert rows[0]["instance"] == "classic_10x10_minimal-pieces_s200" and rows[0]["part"] == "cube"


def test_an_error_row_in_a_part_is_marked_in_the_summary_not_a_crash(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    real = bench.run_part

    def given_fails(path, part, limit):
        if part != "given":
            yield from real(path, part, limit)
            return
        yield {"instance": "classic_10x10_minimal-pieces_s200", "part": "given", "key": "-", "holds_board": False,
               "result": "error", "boards": 0, "wall_s": "", "cpu_s": "", "branches": "", "conflicts": "killed"}
    monkeypatch.setattr(bench, "run_part", given_fails)
    assert bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE]) == 1
    assert "| classic_10x10_minimal-pieces_s200 * |" in (tmp_path / "summary.md").read_text()


def test_resume_keeps_finished_instances_whole_and_their_summary(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    assert bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE]) == 0
    before, summary = (tmp_path / "runs.csv").read_text(), (tmp_path / "summary.md").read_text()
    monkeypatch.setattr(bench, "run_part", lambda *a: pytest.fail("a part ran again"))
    with pytest.raises(SystemExit, match="runs.csv exists: --resume"):
        bench.main(["--limit", "30", "--out", str(tmp_path), UNIQUE])
    assert bench.main(["--limit", "30", "--resume", "--out", str(tmp_path), UNIQUE]) == 0
    assert (tmp_path / "runs.csv").read_text() == before
    assert (tmp_path / "summary.md").read_text() == summary  # the board's cube read back as the board's
    monkeypatch.setattr(bench, "run_part", lambda path, part, limit: [
        {"instance": "seed004_12x12", "part": part, "key": ">=5", "holds_board": True, "result": "done",
         "boards": 1, "wall_s": 1.0, "cpu_s": 1.0, "branches": 0, "conflicts": 0}])
    assert bench.main(["--limit", "30", "--resume", "--parts", "given", "--out", str(tmp_path), MANY]) == 0
    rows = _rows(tmp_path)  # the first instance, not asked for this time, keeps every row
    assert len(rows) == before.count("\n") and rows[-1]["instance"] == "seed004_12x12"
    assert "also holds 1 other instance" in (tmp_path / "summary.md").read_text()


def test_resume_runs_an_instance_cut_off_in_its_cubes_again(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    assert bench.main(["--limit", "30", "--parts", "whole,cube", "--out", str(tmp_path), UNIQUE]) == 0
    lines = (tmp_path / "runs.csv").read_text().splitlines()
    (tmp_path / "runs.csv").write_text("\n".join(lines[:2]) + "\n")  # the whole search only: no cube row
    ran = []
    real = bench.run_part
    monkeypatch.setattr(bench, "run_part", lambda path, part, limit: ran.append(part) or real(path, part, limit))
    assert bench.main(["--limit", "30", "--parts", "whole,cube", "--resume", "--out", str(tmp_path), UNIQUE]) == 0
    assert ran == ["whole", "cube"] and len(_rows(tmp_path)) == len(lines) - 1


def test_bad_arguments_and_a_corrupt_file_stop_before_any_search(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_anatomy")
    monkeypatch.setattr(bench, "run_part", lambda *a: pytest.fail("a part ran"))
    (tmp_path / "runs.csv").write_text(",".join(bench.FIELDS) + "\nx,cube,8@a,True,fine,0,1,1,0,0\n")
    with pytest.raises(SystemExit, match=r"runs.csv: line 2: unknown part or result"):
        bench.main(["--limit", "30", "--resume", "--out", str(tmp_path), UNIQUE])
    with pytest.raises(SystemExit, match="nope.toml: no such instance file"):
        bench.main(["--out", str(tmp_path / "x"), str(tmp_path / "nope.toml")])
    with pytest.raises(SystemExit, match="--parts 'whole,cubes': choose from whole, cube, given"):
        bench.main(["--parts", "whole,cubes", "--out", str(tmp_path / "y"), UNIQUE])
