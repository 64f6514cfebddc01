"""benchmarks/certify_variants.py: each variant's answer is checked, timed, and compared with lf."""

from __future__ import annotations

import csv

import pytest

from tests.benchmarks.conftest import ROOT

UNIQUE = str(ROOT / "instances/classic/classic_10x10_minimal-pieces_s200.toml")
MANY = str(ROOT / "instances/seeds/seed004_12x12.toml")  # 51 boards
NONE = str(ROOT / "instances/smoke/unsat_hint_5x5.toml")


def test_every_variant_tells_unique_from_many_from_none(tmp_path, load_benchmark):
    bench = load_benchmark("certify_variants")
    out = tmp_path / "report"
    code = bench.main(["--limit", "30", "--variants", "lf,clause,runs,ships,backbone", "--out", str(out),
                       UNIQUE, MANY, NONE])
    assert code == 0
    with open(out / "runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 15
    want = {"classic_10x10_minimal-pieces_s200": "unique", "seed004_12x12": "not-unique", "unsat_hint_5x5": "no-board"}
    assert all(r["result"] == want[r["instance"]] for r in rows), rows
    assert all(float(r["cpu_s"]) >= 0 and float(r["wall_s"]) > 0 for r in rows)
    summary = (out / "summary.md").read_text()
    assert "| lf | 3 | 1.00 | 1.00 | 3 |" in summary
    assert "| classic_10x10_minimal-pieces_s200 |" in summary and "not-unique" in summary


def test_a_board_the_verifier_rejects_is_wrong_not_unique(load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    import harness.puzzle.verify as verify_mod

    monkeypatch.setattr(verify_mod, "verify", lambda inst, board: verify_mod.Verdict.fail("row-clue", None, "planted"))
    assert bench.measure(UNIQUE, "clause", 30)["result"] == "wrong"
    assert bench.measure(UNIQUE, "lf", 30)["result"] == "wrong"


def test_a_wrong_or_failed_run_makes_the_exit_code_1(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    for bad in ("wrong", "error"):
        monkeypatch.setattr(bench, "run_one", lambda path, variant, limit, bad=bad: {
            "instance": "x", "variant": variant, "result": bad if variant == "clause" else "unique", "boards": 1,
            "wall_s": 1.0, "cpu_s": 1.0, "branches": "", "conflicts": "", "detail": ""})
        assert bench.main(["--variants", "lf,clause", "--out", str(tmp_path / bad), UNIQUE]) == 1


def test_bad_arguments_stop_before_any_run(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    monkeypatch.setattr(bench, "run_one", lambda *a: pytest.fail("a run started"))
    with pytest.raises(SystemExit, match="unknown variant 'fast'"):
        bench.main(["--variants", "lf,fast", "--out", str(tmp_path), UNIQUE])
    with pytest.raises(SystemExit, match="nope.toml: no such instance file"):
        bench.main(["--out", str(tmp_path), str(tmp_path / "nope.toml")])


def test_ratios_leave_out_runs_either_side_did_not_decide(load_benchmark):
    bench = load_benchmark("certify_variants")
    rows = [{"instance": i, "variant": v, "result": res, "wall_s": w, "cpu_s": c} for i, v, res, w, c in [
        ("a", "lf", "unique", 10.0, 10.0), ("a", "x", "unique", 5.0, 20.0),
        ("b", "lf", "unique", 10.0, 10.0), ("b", "x", "unique", 20.0, 20.0),
        ("c", "lf", "timeout", 150.0, 150.0), ("c", "x", "unique", 1.0, 1.0),
        ("d", "lf", "unique", 1.0, 1.0), ("d", "x", "timeout", 150.0, 150.0)]]
    got = bench.ratios(rows)
    assert got["lf"] == (3, 1.0, 1.0)
    n, wall, cpu = got["x"]
    assert n == 2 and wall == pytest.approx(1.0) and cpu == pytest.approx(2.0)
