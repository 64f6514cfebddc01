"""benchmarks/oracle_workers.py: records the oracle's CP-SAT questions and replays them per worker count."""

from __future__ import annotations

import csv


def test_records_questions_and_replays_them_with_the_same_answers(tmp_path, load_benchmark):
    ow = load_benchmark("oracle_workers")
    out = tmp_path / "report"
    # budget 1: CaDiCaL settles nothing, so every question of an 8x8 search goes to CP-SAT
    assert ow.main(["--rows", "8", "--cols", "8", "--seed", "1", "--questions", "6", "--budget", "1", "--workers", "1",
                    "--workers", "2", "--limit", "60", "--out", str(out)]) == 0
    with open(out / "questions.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6
    assert {r["answer"] for r in rows} <= {"board", "none"}
    assert all(r["w1_outcome"] == "ok" and r["w2_outcome"] == "ok" for r in rows)
    summary = (out / "summary.md").read_text()
    assert "| 1 | " in summary and "| 2 | " in summary and "ratio_to_first" in summary


def test_record_stops_at_the_asked_number_of_questions(load_benchmark):
    ow = load_benchmark("oracle_workers")
    asked = ow.record(8, 8, 1, 3, 1, 1)
    assert len(asked) == 3
    assert all(q["flip"] and q["answer"] in ("board", "none") for q in asked)
