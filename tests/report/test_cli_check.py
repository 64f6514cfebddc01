"""`battlebench check` and `battlebench report` as a user (or a CI job) runs them."""

from __future__ import annotations

from pathlib import Path

from handstore import BOARD_A, BOARD_B, make_store, run

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ("sat/cell", "cpsat/placement")


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
    assert main(["check", str(tmp_path / "r"), "--ratio", "0.5"]) == 2
    assert "--ratio must be > 1, not 0.5" in capsys.readouterr().err


def test_report_onto_a_file_is_one_line(tmp_path, capsys):
    make_store(tmp_path / "r", clean_runs())
    (tmp_path / "afile").write_text("x")
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "afile")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "afile: cannot write the report" in err[0]


def test_check_into_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys

    # a long report (1,000 disputed instances, far more than a pipe holds) into a reader that stops at once
    runs = [run(f"i{k}", pair, status, 1.0) for k in range(1000)
            for pair, status in (("sat/cell", "sat"), ("cpsat/placement", "unsat"))]
    make_store(tmp_path / "r", runs)
    proc = subprocess.run(f"{sys.executable} -m harness.cli check {tmp_path / 'r'} | head -1", shell=True,
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
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
