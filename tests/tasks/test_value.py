"""The value task: exact values in a campaign, the optimality-gap report, the gates on forged values, and ``play --optimal``."""

from __future__ import annotations

import json
import sqlite3
from fractions import Fraction

import pytest

from clirun import ROOT, run
from harness.core.status import Status, Termination
from harness.tasks.value import classify_value

BOARDS = ROOT / "instances" / "optimal"
B33 = BOARDS / "r3x3_s2_s1.toml"


def _config(tmp_path, pairs, extra="", boards=(B33,)):
    cfg = tmp_path / "value.toml"
    files = ", ".join(f'"{b}"' for b in boards)
    cfg.write_text(f'name = "v"\ninstances = [{files}]\ntask = "value"\n{extra}'
                   f'pairs = [{", ".join(pairs)}]\nlimits = {{ time_s = 120 }}\noutput = "{tmp_path / "out"}"\n')
    return cfg


PAIRS = ['{ strategy = "optimal" }', '{ strategy = "posterior" }', '{ strategy = "random" }',
         '{ strategy = "density", rule = "none" }', '{ strategy = "optimal", rule = "none" }']


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("value")
    from harness.cli import main

    assert main(["run", str(_config(tmp, PAIRS))]) == 0
    return tmp / "out"


def _rows(store):
    with sqlite3.connect(store / "results.sqlite") as db:
        return {(r[0], r[1]): (r[2], json.loads(r[3])) for r in
                db.execute("select backend, formulation, status, detail from runs")}


def test_a_value_campaign_stores_exact_values_and_passes_check(capsys, store):
    rows = _rows(store)
    assert {s for s, _ in rows.values()} == {"sat"}
    assert Fraction(rows[("optimal", "ship")][1]["expected"]) == Fraction(269, 42)
    assert Fraction(rows[("random", "ship")][1]["expected"]) == Fraction(15, 2)
    assert rows[("posterior", "ship")][1]["method"] == "walk" and rows[("optimal", "ship")][1]["work"] > 0
    code, out, _ = run(capsys, "check", store)
    assert code == 0 and "values judged again" in out, out


def test_the_report_has_the_optimality_gap_table(capsys, store, tmp_path):
    code, _, err = run(capsys, "report", store, "--out", tmp_path / "rep")
    assert code == 0, err
    text = (tmp_path / "rep" / "summary.md").read_text()
    assert "## Optimality gap" in text and "costly_games" in text
    table = (tmp_path / "rep" / "gap.csv").read_text()
    assert "density/none" in table and "optimal/none" in table


def _forge(store, tmp_path, backend, rule, **changes):
    import shutil

    copy = tmp_path / "forged"
    shutil.copytree(store, copy)
    with sqlite3.connect(copy / "results.sqlite") as db:
        (detail,) = db.execute("select detail from runs where backend = ? and formulation = ?",
                               (backend, rule)).fetchone()
        d = {**json.loads(detail), **changes}
        db.execute("update runs set detail = ? where backend = ? and formulation = ?", (json.dumps(d), backend, rule))
    return copy


@pytest.mark.parametrize("backend, rule, changes, says", [
    ("posterior", "ship", {"expected": "6", "mean": 6.0}, "below the optimum 6.4"),
    ("random", "ship", {"expected": "7", "mean": 7.0}, "K (N + 1) / (K + 1)"),
    ("optimal", "ship", {"expected": "61/12", "mean": 61 / 12, "misses": 175}, "the brute force over every policy"),
    ("optimal", "ship", {"expected": "27/5", "mean": 5.4}, "286 misses / 84 deployments"),
    ("optimal", "none", {"deployments": 80}, "the dp counts 84"),
    ("density", "none", {"expected": "1/2", "mean": 0.5}, "outside"),
])
def test_check_fails_on_forged_values(capsys, store, tmp_path, backend, rule, changes, says):
    code, out, _ = run(capsys, "check", _forge(store, tmp_path, backend, rule, **changes))
    assert code == 1 and "check: FAILED" in out, out
    assert any(says in line for line in out.splitlines() if not line.startswith("agreement:")), out


@pytest.mark.parametrize("mean, fails", [(6.0, True), (6.6, False)])
def test_a_sampled_value_fails_the_gate_only_far_below_the_optimum(capsys, store, tmp_path, mean, fails):
    """The optimum (none rule) is 187/28 = 6.68; a sampled 6.0 +- 0.1 (95%) lies far below it, 6.6 +- 0.1 within
    3.29 standard errors."""
    forged = _forge(store, tmp_path, "density", "none", expected=None, mean=mean, half_width=0.1, method="sample")
    code, out, _ = run(capsys, "check", forged)
    assert (code == 1) == fails and ("check: passed" in out) != fails, out
    assert any("6.000000 expected shots, below the optimum" in line for line in out.splitlines()) == fails


@pytest.mark.parametrize("pairs, message", [
    (['{ strategy = "nope" }'], "unknown strategy 'nope'"),
    (['{ strategy = "optimal", options = { depth = 2 } }'], "optimal takes no options"),
    (['{ strategy = "optimal", rule = "loud" }'], "announcement rule"),
    (['{ strategy = "shiponly:ShipOnly", rule = "none" }'], "under the ship rule, not 'none'"),
])
def test_an_invalid_value_config_fails_before_any_run(capsys, tmp_path, pairs, message):
    code, _, err = run(capsys, "run", _config(tmp_path, pairs))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_classify_value_is_pure_and_orders_its_reasons():
    assert classify_value(Termination.COMPLETED, True, True, "ok") is Status.SAT
    assert classify_value(Termination.COMPLETED, False, True, "none") is Status.SAT  # a sampled value
    assert classify_value(Termination.SOLVER_LIMIT, False, False, "none") is Status.TIMEOUT
    assert classify_value(Termination.MEMOUT, False, False, "none") is Status.MEMOUT
    assert classify_value(Termination.COMPLETED, True, True, "below") is Status.WRONG


def test_play_optimal_prints_the_optimum_and_each_strategys_gap(capsys):
    code, out, err = run(capsys, "play", "--optimal", B33, "-s", "posterior", "-s", "random", "--rule", "none")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("optimal") and "exact: 187/28" in lines[0] and "belief states" in lines[0]
    assert "posterior" in lines[1] and "exact: 281/42" in lines[1] and "gap +0.0119" in lines[1]
    assert "costly shot" in lines[1] and "exact: 15/2" in lines[2]


def test_play_optimal_json_and_limits(capsys):
    code, out, _ = run(capsys, "play", "--optimal", B33, "--json")
    got = json.loads(out)
    assert code == 0 and got["expected"] == "269/42" and got["first_shot"] == [1, 1]
    code, out, _ = run(capsys, "play", "--optimal", BOARDS / "r5x5_s3_s2.toml", "-t", "5", "--json")
    got = json.loads(out)
    assert code == 1 and got["status"] == "timeout" and got["expected"] is None
    # the search stopped itself before the limit, with a true lower bound: at least the 5 ship cells, at most the
    # posterior strategy's exact value (10873/956, its walk)
    assert got["stopped"] == "time limit reached" and 5 <= Fraction(got["lower"]) <= Fraction(10873, 956)
    code, out, _ = run(capsys, "play", "--optimal", BOARDS / "r5x5_s2_s2_s2.toml", "--memory-mb", "300", "--json")
    assert code == 1 and json.loads(out)["status"] == "memout"


def test_play_optimal_bad_input_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "play", "--optimal", tmp_path / "missing.toml")
    assert code == 2 and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "play", "--optimal", B33, "--watch")
    assert code == 2 and "--optimal" in err
