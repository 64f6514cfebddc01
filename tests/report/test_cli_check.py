"""`battlebench check` and `battlebench report` as a user (or a CI job) runs them."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import handstore
import pytest
from handstore import BOARD_A, BOARD_B, run

from harness.cli import main
import procs

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ("sat/cell", "cpsat/placement")
make_store = partial(handstore.make_store, files=True)  # every board judged again from its file


def clean_runs(slow: float = 1.0):
    return [run(inst, pair, "sat", t * slow, complete=0, exhausted=0, boards=[BOARD_A, BOARD_B])
            for inst, t in (("i1", 1.0), ("i2", 2.0)) for pair in PAIRS]


def test_agreeing_results_pass(tmp_path, capsys):
    make_store(tmp_path / "r", clean_runs())
    assert main(["check", str(tmp_path / "r")]) == 0
    assert "all pairs agree" in capsys.readouterr().out
    assert main(["check", str(tmp_path / "r"), "--manifest", str(tmp_path / "none.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "none.toml" in err[0]


def test_a_planted_disagreement_fails_and_is_named(tmp_path, capsys):
    runs = clean_runs()
    runs[1] = run("i1", "cpsat/placement", "unsat", 1.0)
    make_store(tmp_path / "r", runs)
    assert main(["check", str(tmp_path / "r")]) == 1
    out = capsys.readouterr().out
    assert "unsat-vs-sat" in out and "i1" in out and "cpsat/placement" in out and "sat/cell" in out


def test_a_planted_slowdown_fails_the_baseline_check(tmp_path, capsys):
    make_store(tmp_path / "old", clean_runs())
    new = clean_runs()
    new[3] = run("i2", "cpsat/placement", "sat", 2.0 * 3, complete=0, exhausted=0, boards=[BOARD_A, BOARD_B])
    make_store(tmp_path / "new", new)
    assert main(["check", str(tmp_path / "new"), "--baseline", str(tmp_path / "old")]) == 1
    out = capsys.readouterr().out
    assert "slowdown" in out and "i2" in out and "cpsat/placement" in out
    # under the threshold ratio: not a regression
    assert main(["check", str(tmp_path / "new"), "--baseline", str(tmp_path / "old"), "--ratio", "4"]) == 0
    # a floor above every run times nothing: a gate that could not fail fails, and says why
    capsys.readouterr()
    assert main(["check", str(tmp_path / "new"), "--baseline", str(tmp_path / "old"), "--floor", "10"]) == 1
    out = capsys.readouterr().out
    assert "regression: none" in out and "no slowdown could be judged" in out


def slowed(tmp_path: Path, factors: dict[str, float], config_text: str = "# hand-built\n") -> list[str]:
    """A baseline and new results whose pairs took ``factors`` × the CPU time (wall time unchanged): the check's
    arguments."""
    make_store(tmp_path / "old", clean_runs())
    new = [{**r, "cpu_s": r["cpu_s"] * factors.get(r["pair"], 1.0)} for r in clean_runs()]
    make_store(tmp_path / "new", new, config_text=config_text)
    return ["check", str(tmp_path / "new"), "--baseline", str(tmp_path / "old")]


def flagged(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("slowdown")]


def test_a_pair_of_its_own_ratio(tmp_path, capsys):
    """Issue 47: a known-noisy pair gets a looser ratio, a pair that must not slow down a stricter one."""
    check = slowed(tmp_path, {"sat/cell": 2.5, "cpsat/placement": 1.6})
    assert main(check + ["--ratio", "2"]) == 1
    out = capsys.readouterr().out
    assert "check: 2 regressions" in out and len(flagged(out)) == 2
    # each flagged run names the threshold it was judged by
    assert all("sat/cell" in line and line.endswith("ratio 2 (--ratio 2)") for line in flagged(out))
    # sat/cell's own ratio lets its 2.5x through; the global ratio still holds for the other pair
    assert main(check + ["--ratio", "2", "--ratio", "sat/cell=3"]) == 0
    out = capsys.readouterr().out
    assert "ratio 2, floor 0.1 s; per pair: ratio sat/cell=3 (command line)" in out
    # a stricter ratio for cpsat/placement catches the 1.6x the global ratio lets pass, and says so
    assert main(check + ["--ratio", "3", "--ratio", "cpsat/*=1.5"]) == 1
    out = capsys.readouterr().out
    assert "check: 2 regressions" in out
    assert all("cpsat/placement" in line and "1.60x" in line and line.endswith("ratio 1.5 (--ratio cpsat/*=1.5)")
               for line in flagged(out)) and len(flagged(out)) == 2
    # an exact label beats a pattern, whatever the order; of two patterns the last wins
    assert main(check + ["--ratio", "sat/cell=3", "--ratio", "*/cell=2"]) == 0
    assert main(check + ["--ratio", "*/cell=3", "--ratio", "sat/*=2"]) == 1
    capsys.readouterr()
    # a pair's own floor above its runs: sat/cell is never called slower, and the output says whose floor
    assert main(check + ["--floor", "sat/cell=100"]) == 0
    assert "at or above its pair's floor" in capsys.readouterr().out


CHECK_CONFIG = """name = "hand"
instances = ["inst"]
[[pairs]]
backend = "sat"
formulation = "cell"
[check]
ratio = 3
[check.ratio_by_pair]
"cpsat/*" = 1.5
"""


def test_thresholds_from_the_stored_config(tmp_path, capsys):
    """The campaign config's [check] table, read from the store; the command line overrides it."""
    check = slowed(tmp_path, {"sat/cell": 2.5, "cpsat/placement": 1.6}, config_text=CHECK_CONFIG)
    assert main(check) == 1  # the config's ratio 3 lets sat/cell's 2.5x through, its cpsat/* 1.5 does not
    out = capsys.readouterr().out
    assert "check: 2 regressions" in out and len(flagged(out)) == 2
    assert all("cpsat/placement" in line and line.endswith("ratio 1.5 (config check.ratio_by_pair)")
               for line in flagged(out))
    assert main(check + ["--ratio", "cpsat/placement=2"]) == 0  # the command line's per-pair value first
    assert ("per pair: ratio cpsat/placement=2 (command line), ratio cpsat/*=1.5 (config)"
            in capsys.readouterr().out)
    # the command line's global ratio replaces the config's, not the config's per-pair values
    assert main(check + ["--ratio", "2"]) == 1
    out = capsys.readouterr().out
    assert "check: 4 regressions" in out and "ratio 2 (--ratio 2)" in out


@pytest.mark.parametrize("args, words", [
    (["--ratio", "1"], ["argument --ratio", "'1'", "> 1"]),
    (["--ratio", "sat/cell=0.5"], ["argument --ratio", "sat/cell=0.5", "> 1"]),
    (["--ratio", "sat/cell"], ["argument --ratio", "PAIR=NUMBER", "'sat/cell'"]),
    (["--ratio", "=3"], ["argument --ratio", "PAIR=R", "'=3'"]),
    (["--ratio", "sat/cell=x"], ["argument --ratio", "'sat/cell=x'"]),
    (["--floor", "-1"], ["argument --floor", ">= 0"]),
    (["--floor", "sat/cell=-1"], ["argument --floor", ">= 0"]),
    (["--ratio", "mip/cell=3"], ["--ratio mip/cell=3: names no pair of", "old", "new",
                                 "pairs: cpsat/placement, sat/cell"]),
    (["--floor", "mip/*=3"], ["--floor mip/*=3: names no pair"]),
])
def test_bad_thresholds_are_one_line(tmp_path, capsys, args, words):
    check = slowed(tmp_path, {})
    try:
        code = main(check + args)
    except SystemExit as exc:  # argparse refuses a malformed value, with battlebench's one line
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and captured.out == "", captured
    for word in words:
        assert word in err[0], err[0]


def test_a_stored_config_with_a_bad_check_table_is_one_line(tmp_path, capsys):
    check = slowed(tmp_path, {}, config_text='name = "hand"\n[check]\nratio = 0.5\n')
    assert main(check) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "results.sqlite (its config): check.ratio: must be a number > 1" in err[0], err


def test_check_of_a_missing_store_is_one_line(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing" in err[0]


def test_report_writes_html_markdown_csv_and_plots(tmp_path, capsys):
    make_store(tmp_path / "r", clean_runs())
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep")]) == 0
    names = {p.name for p in (tmp_path / "rep").iterdir()}
    assert {"index.html", "summary.md", "pairs.csv", "cactus.png"} <= names
    assert main(["report", str(tmp_path / "r")]) == 0  # default: RESULTS/report
    assert (tmp_path / "r" / "report" / "index.html").is_file()
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r"), "--shift", "-1"]) == 2
    assert "--shift must be >= 0, not -1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:  # refused by the parser, the value echoed
        main(["check", str(tmp_path / "r"), "--ratio", "0.5"])
    assert refused.value.code == 2
    assert "argument --ratio: '0.5': the value must be a number > 1" in capsys.readouterr().err


def test_report_onto_a_file_is_one_line(tmp_path, capsys):
    make_store(tmp_path / "r", clean_runs())
    (tmp_path / "afile").write_text("x")
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "afile")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "afile: cannot write the report" in err[0]


def test_check_into_a_closed_pipe_ends_quietly(tmp_path):
    import sys

    # a long report (1,000 disputed instances, far more than a pipe holds) into a reader that stops at once
    runs = [run(f"i{k}", pair, status, 1.0) for k in range(1000)
            for pair, status in (("sat/cell", "sat"), ("cpsat/placement", "unsat"))]
    make_store(tmp_path / "r", runs)
    proc = procs.run(f"{sys.executable} -m harness.cli check {tmp_path / 'r'} | head -1", shell=True,
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_a_full_disk_under_the_report_is_one_line(tmp_path, capsys, monkeypatch):
    """Finding 8 of issue 32: ``report --out`` on a full file system ended in a traceback."""
    import errno
    from pathlib import Path

    make_store(tmp_path / "r", clean_runs())
    real = Path.write_bytes

    def full(self, data):
        if self.suffix == ".png":
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write the report: No space left on device" in err[0] and ".png" in err[0]
