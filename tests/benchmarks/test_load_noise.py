"""The load-noise benchmark on a tiny fake campaign: three stores, both clocks judged, a summary."""

from __future__ import annotations

import csv
import sqlite3
import statistics

import pytest

from fakecampaign import GOOD
from harness.puzzle.formats import write_instance
from harness.puzzle.instance import Instance


def test_load_noise_judges_idle_and_loaded_campaigns_on_both_clocks(load_benchmark, tmp_path):
    bench = load_benchmark("load_noise")
    (tmp_path / "inst").mkdir()
    for i in range(3):
        write_instance(Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1),
                                name=f"g{i}", meta={"fake_boards": [GOOD]}), tmp_path / "inst" / f"g{i}.toml")
    cfg = tmp_path / "c.toml"
    cfg.write_text('name = "ln"\ninstances = ["inst"]\n[[pairs]]\nbackend = "fake"\n'
                   'options = { mode = "work", iterations = 2000000 }\n')
    code = bench.main([str(cfg), "--out", str(tmp_path / "out"), "--hogs", "1", "--floor", "0.01"])
    assert bench.main([str(cfg), "--out", str(tmp_path / "out"), "--reuse", "--floor", "0.01"]) == code
    with open(tmp_path / "out" / "ratios.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["repetitions"], r["floor_s"], r["campaign"], r["time"]) for r in rows] == [
        ("all", "0.01", "idle-b", "wall"), ("all", "0.01", "idle-b", "cpu"),
        ("all", "0.01", "loaded", "wall"), ("all", "0.01", "loaded", "cpu")]
    assert all(int(r["runs_compared"]) == 3 for r in rows)
    cpu = [r for r in rows if r["time"] == "cpu"]

    def times(name, column):
        with sqlite3.connect(tmp_path / "out" / name / "results.sqlite") as db:
            return dict(db.execute(f"select run_id, {column} from runs"))
    for r in rows:  # each campaign's median per-run ratio to idle-a, on the clock the row names
        base, other = times("idle-a", f"{r['time']}_s"), times(r["campaign"], f"{r['time']}_s")
        assert float(r["median_ratio"]) == pytest.approx(statistics.median(other[k] / base[k] for k in base))
    # the same work takes CPU time of the same order; not closer: on a 2-vCPU machine whose vCPUs share a core,
    # a hog (or any other load) stretches CPU time too (1.62x measured in a CI run beside another test run)
    assert all(1 / 3 < float(r["median_ratio"]) < 3 for r in cpu)
    assert code == (1 if any(int(r["slowdowns"]) for r in cpu) else 0)
    assert "| all | 0.01 | loaded | cpu |" in (tmp_path / "out" / "summary.md").read_text()
    for name in ("idle-a", "idle-b", "loaded"):
        assert (tmp_path / "out" / name / "results.sqlite").is_file()
