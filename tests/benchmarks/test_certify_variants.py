"""experiments/certify_variants.py: each variant's answer is checked, timed, and compared with lf."""

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


def test_a_run_too_quick_to_measure_counts_as_the_resolution_not_zero(load_benchmark):
    # CI once measured 0.0 s CPU for a 5x5 instance (rounded to 0.01 s) and the ratio divided by zero
    bench = load_benchmark("certify_variants")
    rows = [{"instance": "a", "variant": v, "result": "no-board", "wall_s": w, "cpu_s": c}
            for v, w, c in [("lf", 0.01, 0.0), ("x", 0.02, 0.0)]]
    n, wall, cpu = bench.ratios(rows)["x"]
    assert n == 1 and wall == pytest.approx(2.0) and cpu == pytest.approx(1.0)


def _fake_run(calls):
    def run_one(path, variant, limit):
        from pathlib import Path

        calls.append((Path(path).stem, variant))
        return {"instance": Path(path).stem, "variant": variant, "result": "unique", "boards": 1, "wall_s": 2.0,
                "cpu_s": 2.0, "branches": "", "conflicts": "", "detail": "new"}
    return run_one


def test_an_existing_runs_csv_is_never_overwritten_without_resume(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    (tmp_path / "runs.csv").write_text("earlier runs\n")
    monkeypatch.setattr(bench, "run_one", lambda *a: pytest.fail("a run started"))
    with pytest.raises(SystemExit, match="runs.csv exists: --resume"):
        bench.main(["--variants", "lf", "--out", str(tmp_path), UNIQUE])
    assert (tmp_path / "runs.csv").read_text() == "earlier runs\n"


def test_resume_keeps_whole_instances_and_runs_a_partial_one_again_whole(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    calls: list = []
    monkeypatch.setattr(bench, "run_one", _fake_run(calls))
    assert bench.main(["--variants", "lf,runs", "--out", str(tmp_path), UNIQUE, MANY]) == 0
    with open(tmp_path / "runs.csv") as fh:  # the second instance was cut off after its first variant
        lines = fh.read().splitlines()
    (tmp_path / "runs.csv").write_text("\n".join(lines[:4]) + "\n")
    calls.clear()
    assert bench.main(["--variants", "lf,runs", "--resume", "--out", str(tmp_path), UNIQUE, MANY, NONE]) == 0
    assert calls == [("seed004_12x12", "lf"), ("seed004_12x12", "runs"), ("unsat_hint_5x5", "lf"),
                     ("unsat_hint_5x5", "runs")]
    with open(tmp_path / "runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["instance"], r["variant"]) for r in rows] == [
        ("classic_10x10_minimal-pieces_s200", "lf"), ("classic_10x10_minimal-pieces_s200", "runs")] + calls
    assert "| lf | 3 | 1.00 | 1.00 | 3 |" in (tmp_path / "summary.md").read_text()
    calls.clear()  # instances not asked for this time keep their runs
    assert bench.main(["--variants", "lf,runs", "--resume", "--out", str(tmp_path), NONE]) == 0
    assert calls == []
    with open(tmp_path / "runs.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 6


@pytest.mark.parametrize("text, problem", [
    ("instance,variant\nx,lf\n", "line 1: not this script's header"),
    (",".join(["instance", "variant", "result", "boards", "wall_s", "cpu_s", "branches", "conflicts", "detail"])
     + "\nclassic_10x10_minimal-pieces_s200,lf,unique,1,fast,1,,,\n", "line 2: wall_s/cpu_s are not numbers"),
])
def test_resume_from_a_corrupt_runs_csv_is_a_one_line_error_that_keeps_the_file(
        tmp_path, load_benchmark, monkeypatch, text, problem):
    bench = load_benchmark("certify_variants")
    (tmp_path / "runs.csv").write_text(text)
    monkeypatch.setattr(bench, "run_one", lambda *a: pytest.fail("a run started"))
    with pytest.raises(SystemExit, match=problem) as err:
        bench.main(["--variants", "lf", "--resume", "--out", str(tmp_path), UNIQUE])
    assert "\n" not in str(err.value) and str(tmp_path / "runs.csv") in str(err.value)
    assert (tmp_path / "runs.csv").read_text() == text


def test_resume_with_other_variants_keeps_the_runs_of_the_variants_not_asked_for(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    calls: list = []
    monkeypatch.setattr(bench, "run_one", _fake_run(calls))
    assert bench.main(["--variants", "lf,clause", "--out", str(tmp_path), UNIQUE]) == 0
    calls.clear()
    assert bench.main(["--variants", "lf,runs", "--resume", "--out", str(tmp_path), UNIQUE]) == 0
    assert calls == [("classic_10x10_minimal-pieces_s200", "lf"), ("classic_10x10_minimal-pieces_s200", "runs")]
    with open(tmp_path / "runs.csv") as fh:
        assert sorted(r["variant"] for r in csv.DictReader(fh)) == ["clause", "lf", "runs"]
    summary = (tmp_path / "summary.md").read_text()
    assert "| clause |" not in summary and "also holds 1 other run(s)" in summary


def test_resume_refuses_a_runs_csv_naming_a_variant_this_script_does_not_know(tmp_path, load_benchmark, monkeypatch):
    bench = load_benchmark("certify_variants")
    (tmp_path / "runs.csv").write_text(",".join(bench.FIELDS) + "\nclassic_10x10_minimal-pieces_s200,turbo,unique,1,1,1,,,\n")
    monkeypatch.setattr(bench, "run_one", lambda *a: pytest.fail("a run started"))
    with pytest.raises(SystemExit, match=r"runs.csv: line 2: unknown variant 'turbo'"):
        bench.main(["--variants", "lf", "--resume", "--out", str(tmp_path), UNIQUE])


@pytest.mark.parametrize("variant", ["runs", "bands", "automaton", "hint"])
def test_a_variant_that_changes_the_model_keeps_every_board(load_benchmark, variant):
    bench = load_benchmark("certify_variants")
    for path, boards in ((MANY, 51), (UNIQUE, 1), (NONE, 0)):
        _, be = bench._backend(path, bench.VARIANTS[variant][1], bench.VARIANTS[variant][2])
        answer = be.enumerate(None, 60)
        assert answer.exhausted and len(answer.boards) == boards, (variant, path)
