"""`battlebench run` and `battlebench export` as a user runs them."""

from __future__ import annotations

import pandas as pd

from harness.cli import main
from fakecampaign import FAKE, write_config


def test_run_then_rerun_then_export(tmp_path, capsys):
    cfg = write_config(tmp_path, FAKE)
    out = tmp_path / "elsewhere"
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(out)]) == 1  # a wrong board: exit 1
    captured = capsys.readouterr()
    assert "10 executed now, 0 were already stored" in captured.out
    assert "fake/placement" in captured.err and "wrong" in captured.err  # the summary table
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(out)]) == 1
    assert "0 executed now, 10 were already stored" in capsys.readouterr().out

    assert main(["export", str(out), "--format", "csv"]) == 0
    csv = pd.read_csv(out / "results.csv")
    assert len(csv) == 10 and {"run_id", "pair", "status", "wall_s", "peak_rss_mb"} <= set(csv.columns)
    assert main(["export", str(out), "--format", "parquet", "--out", str(tmp_path / "r.parquet")]) == 0
    pq = pd.read_parquet(tmp_path / "r.parquet")
    assert sorted(pq["status"].astype(str)) == sorted(csv["status"])
    assert main(["export", str(out), "--file", str(tmp_path / "f.csv")]) == 0  # --file: the table's file
    assert len(pd.read_csv(tmp_path / "f.csv")) == 10
    folder = tmp_path / "tables"
    folder.mkdir()
    assert main(["export", str(out), "--format", "parquet", "--out", str(folder)]) == 0  # --out: a folder, as elsewhere
    assert len(pd.read_parquet(folder / "results.parquet")) == 10
    capsys.readouterr()
    assert main(["export", str(out), "--file", str(tmp_path / "g.csv"), "--out", str(folder)]) == 2
    assert "give one" in capsys.readouterr().err


def test_export_of_a_directory_without_results_is_one_line(tmp_path, capsys):
    assert main(["export", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path) in err[0] and "results.sqlite" in err[0]


def test_a_resumed_run_sweeps_the_work_folders_a_killed_runner_left(tmp_path, capsys):
    """``kill -9`` of ``battlebench run`` leaves its workers' scratch folders (the guard kills the workers, nobody
    removes their folders): the next run of the campaign, its resume, removes those of owners that are gone."""
    import subprocess
    import sys

    from harness.core import scratch

    cfg = write_config(tmp_path, FAKE)
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(out)]) == 1  # a wrong board: exit 1
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = scratch.root(dead.pid) / "cadical-x1y2"
    left.mkdir(parents=True)
    (left / "input.cnf").write_text("p cnf 1 1\n1 0\n")
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(out)]) == 1  # the resume: nothing to run
    assert "0 executed now, 10 were already stored" in capsys.readouterr().out
    assert not scratch.root(dead.pid).exists()
