"""benchmarks/proof_cost.py: logging measured per suite against the twin without proof, checks against solves,
and the targets judged from those medians (met and not met both said)."""

from __future__ import annotations

import sqlite3

import pandas as pd


def _store(tmp_path, slow_logging: bool):
    runs = []
    for i in range(3):
        plain = 1.0 + i
        runs.append(dict(instance=f"sb_{i}", pair="sat/placement", status="unsat", cpu_s=plain, wall_s=plain, claim="unsat",
                         certificate="trusted", proof_bytes=None, check_cpu_s=None, check_s=None))
        runs.append(dict(instance=f"sb_{i}", pair="sat[proof=check]/placement", status="unsat", cpu_s=plain * (2 if slow_logging else 1.2),
                         wall_s=plain * 1.2, claim="unsat", certificate="certified", proof_bytes=1e6 * (i + 1),
                         check_cpu_s=plain * 3, check_s=plain * 3))
    folder = tmp_path / "results"
    folder.mkdir()
    with sqlite3.connect(folder / "results.sqlite") as con:
        pd.DataFrame(runs).to_sql("runs", con, index=False)
    return folder


def test_the_targets_are_judged_from_the_medians(load_benchmark, tmp_path):
    mod = load_benchmark("proof_cost")
    assert mod.main([str(_store(tmp_path, False)), "--out", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "targets.md").read_text()
    row = pd.read_csv(tmp_path / "out" / "targets.csv").set_index("suite").loc["solbat"]
    assert row["logging_cpu_x"] == 1.2 and row["check_over_solve_cpu_x"] == 2.5 and row["certified"] == 3
    assert "logging 1.2x the solve CPU (target <= 1.5): met; checking 2.5x (target <= 10.0, over 3 proofs): met" in text


def test_a_target_missed_is_said(load_benchmark, tmp_path):
    mod = load_benchmark("proof_cost")
    mod.main([str(_store(tmp_path, True)), "--out", str(tmp_path / "out")])
    assert "logging 2x the solve CPU (target <= 1.5): not met" in (tmp_path / "out" / "targets.md").read_text()


def test_each_run_of_the_large_suite_is_listed_with_its_proof(load_benchmark, tmp_path):
    mod = load_benchmark("proof_cost")
    runs = pd.DataFrame([
        dict(instance="large_30x20_minimal_s1", pair="sat[proof=check]/placement", status="sat", cpu_s=80.0,
             wall_s=80.0, claim="no further board", certificate="certified", proof_bytes=3e8, check_cpu_s=200.0,
             check_s=201.0),
        dict(instance="large_30x20_minimal_s2", pair="sat[proof=check]/placement", status="timeout", cpu_s=240.0,
             wall_s=240.0, claim=None, certificate=None, proof_bytes=None, check_cpu_s=None, check_s=None)])
    table = mod.cost_table(runs)
    assert table.iloc[0]["check_over_solve_cpu_x"] == 2.5  # the certified one's 200/80
    unfinished = runs.assign(certificate=["unchecked", None])
    assert pd.isna(mod.cost_table(unfinished).iloc[0]["check_over_solve_cpu_x"])  # no finished check: no ratio
    text = mod.write(table, tmp_path, tmp_path, runs)
    assert "## Each run of the large suite" in text and "| large_30x20_minimal_s1 | sat[proof=check]/placement | sat " \
        "| 80 | no further board | certified | 300 | 200 |" in text
    assert "| large_30x20_minimal_s2 | sat[proof=check]/placement | timeout | 240 | – |" in text


def test_each_checker_of_check_all_has_its_ratio_and_the_target_is_the_faster_ones(load_benchmark, tmp_path):
    import json

    mod = load_benchmark("proof_cost")
    runs = []
    for i in range(3):
        checks = [dict(checker="drat-trim 0.0~git-2", outcome="accepted", cpu_s=0.5 * (i + 1), wall_s=1.0),
                  dict(checker="dratify-native 0.1.7", outcome="accepted" if i < 2 else "unfinished",
                       cpu_s=4.0 * (i + 1), wall_s=1.0)]
        runs.append(dict(instance=f"sb_{i}", pair="sat[proof=check-all]/placement", status="unsat",
                         cpu_s=1.0 * (i + 1), wall_s=1.0, claim="unsat", certificate="certified", proof_bytes=1e6,
                         check_cpu_s=4.5 * (i + 1), check_s=5.0, checks=json.dumps(checks)))
    runs = pd.DataFrame(runs)
    table = mod.cost_table(runs)
    row = table.set_index("suite").loc["solbat"]
    assert row["check_cpu_x[drat-trim]"] == 0.5 and row["check_cpu_x[dratify-native]"] == 4.0  # finished ones only
    text = mod.write(table, tmp_path, tmp_path, runs)
    assert "checking 0.5x with drat-trim, the faster (target <= 10.0, over 3 proofs): met" in text
