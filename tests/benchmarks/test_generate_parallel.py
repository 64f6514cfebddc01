"""experiments/generate_parallel.py: the same puzzles from every --jobs value, the ratio judged against the goal."""

from __future__ import annotations

import json


def test_compares_jobs_values_on_the_same_seeds_and_judges_the_goal(tmp_path, load_benchmark):
    gp = load_benchmark("generate_parallel")
    out = tmp_path / "report"
    code = gp.main(["--rows", "6", "--cols", "6", "--seeds", "2", "--rounds", "1", "--certify", "sat/cell",
                    "--goal", "1e-6", "--out", str(out)])
    assert code == 1  # no parallel run is a million times faster
    data = json.loads((out / "results.json").read_text())
    assert [r["jobs"] for r in data["runs"]] == [1, 2]
    assert data["same_puzzles"] is True and len(data["runs"][0]["puzzles"]) == 2
    assert all(r["wall_s"] > 0 and r["cpu_s"] > 0 for r in data["runs"])
    assert "not met" in (out / "README.md").read_text()
