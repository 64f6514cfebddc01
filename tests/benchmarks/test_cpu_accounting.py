"""The CPU-accounting benchmark: both modes measured, alternating, and a summary written."""

from __future__ import annotations

import csv


def test_both_modes_are_measured_alternately(load_benchmark, tmp_path):
    bench = load_benchmark("cpu_accounting")
    assert bench.main(["--runs", "3", "--backend", "sat", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["readings"] for r in rows] == ["on", "off", "off", "on", "on", "off"]
    assert all(float(r["overhead_ms"]) >= 0 for r in rows)
    # readings off: cpu_s is still the worker's own getrusage
    assert all(r["cpu_ms"] not in ("", None) for r in rows)
    assert "| sat | 3 |" in (tmp_path / "summary.md").read_text()
