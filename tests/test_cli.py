"""The battlebench command line as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness.cli import main
from harness.puzzle.formats import read_instance, write_instance
from harness.puzzle.instance import Hint, Instance

JSON_KEYS = {"instance", "backend", "formulation", "status", "count", "complete", "unique", "boards", "times",
             "model", "versions"}


@pytest.fixture
def puzzle(tmp_path):
    inst = Instance(rows=3, cols=4, fleet={1: 1, 2: 1}, row_clues=(2, 0, 1), col_clues=(1, 1, 0, 1),
                    hints={(0, 0): Hint.LEFT}, name="tiny")
    path = tmp_path / "tiny.toml"
    write_instance(inst, path, "native")
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_board_and_status(capsys, puzzle):
    code, out, err = run(capsys, "solve", str(puzzle), "--count", "2")
    assert code == 0, err
    assert "status: sat" in out and "unique" in out and "not unique" not in out
    assert "<>.." in out.replace(" ", "")


@pytest.mark.parametrize("k", ["0", "2", "5"])
def test_counting_a_unique_puzzle_says_unique(capsys, puzzle, k):
    """Before, only count-2 said it: count-0 (all boards, search exhausted) never did."""
    code, out, err = run(capsys, "solve", str(puzzle), "-k", k)
    assert code == 0, err
    assert "boards: 1 (exact)  unique" in out and "not unique" not in out
    code, out, err = run(capsys, "solve", str(puzzle), "-k", k, "--json")
    assert json.loads(out)["unique"] is True


@pytest.mark.parametrize("k, said", [("0", "boards: 2 (exact)  not unique (2 boards)"),
                                     ("2", "boards: 2 (at least)  not unique (at least 2 boards)"),
                                     ("1", "boards: 1 (at least)  build")])
def test_counting_a_puzzle_with_two_boards_says_not_unique_and_how_many(capsys, tmp_path, k, said):
    two = tmp_path / "two.toml"  # one submarine in the top row of two cells: two boards
    write_instance(Instance(rows=2, cols=2, fleet={1: 1}, row_clues=(1, 0), col_clues=(None, None), name="two"),
                   two, "native")
    code, out, err = run(capsys, "solve", str(two), "-k", k)
    assert code == 0, err
    assert said in out and (k != "1" or "unique" not in out)  # one board of count-1 cannot tell
    code, out, err = run(capsys, "solve", str(two), "-k", k, "--json")
    assert json.loads(out)["unique"] is (None if k == "1" else False)
    code, out, err = run(capsys, "solve", str(two), "--json")  # the solve question never tells
    assert json.loads(out)["unique"] is None


def test_solve_json_has_the_documented_keys(capsys, puzzle):
    code, out, _ = run(capsys, "solve", str(puzzle), "--json", "--backend", "sat", "--formulation", "cell",
                       "--count", "2", "--time-limit", "30", "--seed", "3", "-o", "solver=glucose4")
    assert code == 0
    obj = json.loads(out.strip())
    assert JSON_KEYS <= obj.keys()
    assert obj["status"] == "sat" and obj["count"] == 1 and obj["complete"] is True
    assert obj["boards"] == [["<>..", "....", "...O"]]
    assert {"build_s", "solve_s", "total_s"} <= obj["times"].keys()
    assert obj["model"]["variables"] > 0 and obj["options"]["solver"] == "glucose4"


@pytest.mark.parametrize("argv,needle", [
    (["--backend", "gurobi"], "unknown backend 'gurobi'"),
    (["--formulation", "ship-pairs"], "no formulation 'ship-pairs'"),
    (["-o", "colour=red"], "no option 'colour'"),
    (["--count", "-1"], "--count must be >= 0, not -1"),
    (["--time-limit", "inf"], "--time-limit must be a number of seconds > 0, not inf"),
    (["--time-limit", "nan"], "--time-limit must be"),
    (["--threads", "-1"], "'threads' of backend 'cpsat' must be >= 1, not -1"),
    (["--backend", "mip", "--seed", "-3"], "'seed' of backend 'mip' must be >= 0, not -3"),
    (["-b", "sat", "-o", "solver=glucose5"], "option 'solver' of backend 'sat' must be one of cadical103, "),
    (["-b", "sat", "-o", "solver=glucose5"], ", glucose4, glucose42, maplechrono, maplecm, maplesat, mergesat3, minicard, minisat22, "
                                "minisatep, not 'glucose5'"),
    (["--backend", "mip", "-o", "engine=gurobi"], "option 'engine' of backend 'mip' must be one of highs, scip, not 'gurobi'"),
    (["--format", "xml"], "unknown format 'xml'"),  # the old spelling of --input-format
    (["--input-format", "xml"], "unknown format 'xml'"),
    (["--grace", "-1"], "--grace must be a number of seconds >= 0, not -1"),
    (["--memory-mb", "10"], "--memory-mb must be at least 64 (a Python worker needs that much), not 10"),
    (["--in-process", "--memory-mb", "100"], "--in-process runs the pair in this process, without a worker: no "
                                             "memory limit holds there (leave out --in-process or --memory-mb)"),
    (["--in-process", "--race", "cpsat/placement,sat/placement"], "without a worker: a race needs a worker per pair"),
])
def test_usage_errors_are_one_line_and_exit_2(capsys, puzzle, argv, needle):
    code, out, err = run(capsys, "solve", str(puzzle), *argv)
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_missing_and_broken_files_are_reported_and_the_rest_still_solved(capsys, puzzle, tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text(puzzle.read_text().replace("[fleet]", "[fleet]\n0 = 3"))
    code, out, err = run(capsys, "solve", str(tmp_path / "nope.toml"), str(broken), str(puzzle))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "nope.toml" in lines[0] and "broken.toml" in lines[1]
    assert "status: sat" in out  # the good file was still solved


def test_undecided_instance_exits_1(capsys, puzzle):
    code, out, _ = run(capsys, "solve", str(puzzle), "--backend", "fake", "-o", "exhausted=false")
    assert code == 1 and "status: unknown" in out  # it returned undecided, no limit stopped it


def test_wrong_board_is_never_shown_as_solved(capsys, tmp_path):
    inst = Instance(rows=2, cols=3, fleet={1: 2}, row_clues=(None, None), col_clues=(None,) * 3,
                    name="w", meta={"fake_boards": [["OO.", "..."]]})
    path = tmp_path / "w.toml"
    write_instance(inst, path, "native")
    code, out, _ = run(capsys, "solve", str(path), "--backend", "fake", "--json")
    obj = json.loads(out)
    assert code == 1 and obj["status"] == "wrong" and obj["boards"] == []


def test_solve_in_process_starts_no_worker_verifies_and_says_so(capsys, tmp_path, monkeypatch):
    """``--in-process``: the pair runs in the CLI's process (no worker is started), its boards still go through
    the verifier (a wrong one is refused), and the JSON names the isolation."""
    from harness.runner import process

    def no_worker(*args, **kw):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(process.WorkerProcess, "__init__", no_worker)
    inst = Instance(rows=2, cols=3, fleet={1: 2}, row_clues=(None, None), col_clues=(None,) * 3,
                    name="w", meta={"fake_boards": [["OO.", "..."], ["O.O", "..."]]})
    path = tmp_path / "w.toml"
    write_instance(inst, path, "native")
    code, out, err = run(capsys, "solve", str(path), "--backend", "fake", "--count", "0", "--in-process", "--json")
    obj = json.loads(out)
    assert code == 1 and obj["status"] == "wrong" and obj["isolation"] == "in-process", (out, err)
    assert obj["boards"] == [] and any(v.startswith("ok") for v in obj["verdicts"])
    with pytest.raises(AssertionError, match="a worker was started"):  # without it: a worker, as ever
        main(["solve", str(path), "--backend", "fake", "--count", "0", "--json"])


@pytest.mark.parametrize("suffix", [".txt", ".dzn", ".toml", ""])
def test_convert_round_trip(capsys, puzzle, tmp_path, suffix):
    dst = tmp_path / f"copy{suffix}"
    code, _, err = run(capsys, "convert", str(puzzle), str(dst))
    assert code == 0, err
    assert read_instance(dst).same_puzzle(read_instance(puzzle))


def test_convert_refuses_what_a_format_cannot_express(capsys, tmp_path):
    inst = Instance(rows=2, cols=2, fleet={1: 1}, row_clues=(None, 1), col_clues=(1, 0), name="u")
    src = tmp_path / "u.toml"
    write_instance(inst, src, "native")
    code, out, err = run(capsys, "convert", str(src), str(tmp_path / "u.dzn"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "unknown" in err
    assert not (tmp_path / "u.dzn").exists()


def test_console_script_runs_without_solver_imports_at_startup():
    # `battlebench backends --no-versions` lists everything without importing any solver library
    code = ("import sys; from harness.cli import main; main(['backends', '--no-versions']); "
            "bad = [m for m in ('ortools', 'highspy', 'pyomo', 'pysat', 'cpmpy', 'minizinc', 'pyscipopt') "
            "if m in sys.modules]; assert not bad, bad")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "  cpsat  [built-in]  available" in proc.stdout and "formulations: placement, cell" in proc.stdout


def test_backends_lists_the_versions_of_what_solves():
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "backends", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = {r["backend"]: r for r in json.loads(proc.stdout) if "backend" in r}
    assert rows["cpsat"]["source"] == "built-in" and "ortools" in rows["cpsat"]["versions"]
    assert "python-sat" in rows["sat"]["versions"] and rows["sat"]["available"] is True


@pytest.mark.parametrize("argv", [["solve"], ["solve", "x.toml", "--count", "abc"], ["frob"]])
def test_command_line_errors_are_one_line(argv):
    proc = subprocess.run([sys.executable, "-m", "harness.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("battlebench: error:")


def test_an_extension_less_target_is_written_as_jolyonb(capsys, puzzle, tmp_path):
    dst = tmp_path / "puzzle7"  # does not exist yet: its format comes from the name, not the content
    code, _, err = run(capsys, "convert", str(puzzle), str(dst))
    assert code == 0 and "(jolyonb)" in err, err
    assert dst.read_text().startswith("# Row clues") and read_instance(dst).same_puzzle(read_instance(puzzle))


def test_solve_takes_the_campaign_limits(capsys, puzzle):
    start = __import__("time").perf_counter()
    code, out, err = run(capsys, "solve", str(puzzle), "-b", "fake", "-o", "mode=stubborn", "-o", "seconds=600",
                         "--time-limit", "0.3", "--grace", "0.2", "--json")
    took = __import__("time").perf_counter() - start
    # killed at 0.3 + 0.2 s, not after the fake's 600 s: a hang detector, no time limit (a loaded machine's start-up
    # takes seconds, not minutes)
    assert code == 1 and json.loads(out)["status"] == "timeout" and took < 300
    code, out, err = run(capsys, "solve", str(puzzle), "-b", "fake", "-o", "mode=hog", "-o", "megabytes=3000",
                         "--memory-mb", "600", "--json")
    assert code == 1 and json.loads(out)["status"] == "memout"
    obj = json.loads(run(capsys, "solve", str(puzzle), "--json", "--memory-mb", "2048")[1])
    assert obj["status"] == "sat" and obj["times"]["cpu_s"] is not None
