"""experiments/generate_speed.py: one process per puzzle, figures from the file's meta, targets judged."""

from __future__ import annotations

import csv


def test_measures_each_seed_and_judges_the_target(tmp_path, load_benchmark):
    gs = load_benchmark("generate_speed")
    out = tmp_path / "report"
    code = gs.main(["--size", "6x6", "--seeds", "2", "--limit", "120", "--target", "6x6=1e-6", "--out", str(out)])
    assert code == 1  # nobody generates a puzzle in a microsecond
    with open(out / "puzzles.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["seed"] for r in rows] == ["0", "1"]
    assert all(r["outcome"] == "ok" and float(r["total_s"]) > 0 and r["certify_pair"] for r in rows)
    summary = (out / "summary.md").read_text()
    assert "| 6x6 | 2 | 2 |" in summary and "**no**" in summary


def test_a_puzzle_over_the_limit_counts_as_the_limit(tmp_path, load_benchmark):
    gs = load_benchmark("generate_speed")
    row = gs.one(30, 20, 0, "minimal", 0.5, tmp_path)
    assert row["outcome"] == "over-limit" and row["wall_s"] == 0.5
    text, ok = gs.summarize([row], 0.5, {"30x20": 10.0}, "minimal")
    assert ok is False
    assert "(≥, over limit)" in text


def test_density_reaches_the_command_and_the_summary(tmp_path, load_benchmark):
    gs = load_benchmark("generate_speed")
    row = gs.one(8, 8, 0, "unique", 120, tmp_path, density=0.1)
    assert row["outcome"] == "ok"
    from harness.puzzle.formats import read_instance

    made = read_instance(next((tmp_path / "8x8-s0").glob("*.toml")))
    assert "--density 0.1" in made.meta["command"]
    text, _ = gs.summarize([row], 120, {}, "unique", 0.1)
    assert "default fleet at `--density 0.1`" in text.splitlines()[0]
