"""experiments/oracle_cadical_budget.py: journaled questions asked of CaDiCaL, budgets simulated."""

from __future__ import annotations

import csv


def test_questions_are_asked_of_cadical_and_budgets_are_costed(tmp_path, load_benchmark, journal_of_a_search):
    path = journal_of_a_search(1)  # every question journaled with CP-SAT's time
    out = tmp_path / "report"
    bench = load_benchmark("oracle_cadical_budget")
    assert bench.main(["--rows", "8", "--cols", "8", "--seed", "1", "--journal", str(path),
                       "--cap", "2000", "--out", str(out)]) == 0
    with open(out / "questions.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(path.read_text().splitlines()) - 1
    assert all(r["cadical"] in ("board", "none", "undecided") for r in rows)
    assert all(r["cadical"] in (r["answer"], "undecided") for r in rows)
    assert any(r["cadical"] != "undecided" for r in rows)  # an 8x8 board is easy for CaDiCaL
    summary = (out / "summary.md").read_text()
    assert "| 0 (CP-SAT alone) |" in summary and "| 2000 |" in summary and "| 3000 |" not in summary


def test_simulated_cost_counts_the_budget_spent_before_cpsat(load_benchmark):
    bench = load_benchmark("oracle_cadical_budget")
    rows = [{"cadical": "board", "conflicts": 100, "cadical_cpu_s": 1.0, "cpsat_s": 10.0},
            {"cadical": "undecided", "conflicts": 300, "cadical_cpu_s": 3.0, "cpsat_s": 20.0}]
    rate, sims = bench.simulate(rows, (50, 100))
    assert rate == 100.0
    assert sims == [(50, 0, 50 / 100 + 10.0 + 50 / 100 + 20.0), (100, 1, 1.0 + 1.0 + 20.0)]
