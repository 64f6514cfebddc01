"""The harness-cost benchmark: its files and columns, and ratios taken from the same instances of the same run."""

from __future__ import annotations

import csv

import pytest

FAMILY_COLUMNS = ["family", "mode", "instances", "bare_cpu_s", "harness_cpu_s", "cpu_ratio", "bare_wall_s",
                  "harness_wall_s", "wall_ratio", "store_cpu_s", "least_bare_cpu_s", "all_ok", "target"]


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_a_tiny_selection_writes_the_report_and_its_ratios_come_from_the_same_run(load_benchmark, tmp_path):
    bench = load_benchmark("harness_cost")
    out = tmp_path / "out"
    assert bench.main(["--out", str(out), "--families", "sat", "--modes", "single,command",
                       "--instances", "sat=instances/smoke/nonsquare_4x6.toml", "--steps", "",
                       "--runexec-repeat", "0"]) == 0
    for name in ("summary.md", "families.csv", "runs.csv", "steps.csv", "runexec.csv"):
        assert (out / name).is_file(), name
    runs = _rows(out / "runs.csv")
    fams = _rows(out / "families.csv")
    assert list(fams[0]) == FAMILY_COLUMNS
    # single: the tiny floor and the instance, each measured bare and through the harness; then one command
    assert [(r["mode"], r["side"], r["instance"]) for r in runs] == [
        ("single", "bare", "tiny_4x4"), ("single", "harness", "tiny_4x4"),
        ("single", "harness", "nonsquare_4x6"), ("single", "bare", "nonsquare_4x6"),  # the order alternates
        ("command", "bare", "nonsquare_4x6"), ("command", "harness", "nonsquare_4x6")]
    assert all(r["ok"] == "True" and float(r["cpu_s"]) > 0 for r in runs)
    for fam in fams:
        insts = "tiny_4x4" if fam["instances"] == "tiny" else "nonsquare_4x6"
        same = [r for r in runs if r["mode"] == fam["mode"] and r["instance"] == insts]
        bare = sum(float(r["cpu_s"]) for r in same if r["side"] == "bare")
        harness = sum(float(r["cpu_s"]) for r in same if r["side"] == "harness")
        assert float(fam["cpu_ratio"]) == pytest.approx(harness / bare, abs=2e-3)
        assert fam["target"] in ("floor", "n/a (bare < 1 s a run)")  # a puzzle this small is no >= 1 s run
    text = (out / "summary.md").read_text()
    assert "| sat | single | tiny |" in text and "load average" in text and "Bytecode: allowed" in text


def test_the_target_is_judged_only_on_runs_of_a_second_or_more_on_average(load_benchmark):
    bench = load_benchmark("harness_cost")

    def run(side, instance, cpu):
        return {"family": "f", "mode": "command", "side": side, "instance": instance, "cpu_s": cpu, "wall_s": cpu,
                "ok": True, "store_cpu_s": None}

    long = bench.family_rows([run("bare", "a", 2.0), run("bare", "b", 1.5), run("harness", "a+b", 3.8)])
    assert [(r["cpu_ratio"], r["target"]) for r in long] == [(round(3.8 / 3.5, 3), "met")]
    slow = bench.family_rows([run("bare", "a", 2.0), run("bare", "b", 1.5), run("harness", "a+b", 4.0)])
    assert slow[0]["target"] == "not met"
    mean = bench.family_rows([run("bare", "a", 2.0), run("bare", "b", 0.5), run("harness", "a+b", 2.7)])
    assert mean[0]["target"] == "met"  # 1.25 s a run on average
    short = bench.family_rows([run("bare", "a", 0.9), run("bare", "b", 0.5), run("harness", "a+b", 1.5)])
    assert short[0]["target"] == "n/a (bare < 1 s a run)"


def test_an_unknown_family_or_instance_file_is_one_line_before_any_run(load_benchmark, tmp_path, capsys):
    bench = load_benchmark("harness_cost")
    with pytest.raises(SystemExit):
        bench.main(["--out", str(tmp_path), "--families", "sat,nosuch"])
    assert "unknown nosuch" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--out", str(tmp_path), "--families", "sat", "--instances", "sat=no/such.toml"])
    assert "no such file" in capsys.readouterr().err
    assert not (tmp_path / "summary.md").exists()
