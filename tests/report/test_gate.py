"""`battlebench check` as a CI gate: it fails on every kind of bad data it exists to catch, and passes clean data."""

from __future__ import annotations

import io

import pytest
from functools import partial

import handstore
from handstore import BOARD_A, BOARD_B, run

from harness.errors import InputError
from harness.report.gate import CheckOptions, run_check

A, B = "sat/cell", "cpsat/placement"
make_store = partial(handstore.make_store, files=True)  # every board judged again from its file


def clean(n: int = 3, slow: float = 1.0):
    return [run(f"i{k}", p, "sat", t * slow, complete=0, exhausted=0, boards=[BOARD_A, BOARD_B])
            for k in range(1, n + 1) for p, t in ((A, 1.0), (B, 2.0))]


def check(path, **opts) -> tuple[int, str]:
    out = io.StringIO()
    code = run_check(path, CheckOptions(**opts), out)
    return code, out.getvalue()


def test_clean_complete_results_pass(tmp_path):
    code, text = check(make_store(tmp_path / "r", clean()))
    assert code == 0, text
    assert "completeness: all 6 planned runs are stored" in text and "errors: none" in text
    assert text.rstrip().endswith("check: passed (6 runs)")


def test_an_empty_store_fails_even_when_incomplete_is_allowed(tmp_path):
    path = make_store(tmp_path / "r", [], plan=clean())
    for opts in ({}, {"allow_incomplete": True, "allow_errors": True}):
        code, text = check(path, **opts)
        assert code == 1 and "no runs stored of 6 planned" in text and "FAILED" in text


def test_missing_runs_fail_unless_allowed(tmp_path):
    runs = clean()
    path = make_store(tmp_path / "r", runs[:4], plan=runs)
    code, text = check(path)
    assert code == 1 and "2 of 6 planned runs are missing (cpsat/placement 1, sat/cell 1)" in text
    assert "check: FAILED: incomplete" in text
    code, text = check(path, allow_incomplete=True)
    assert code == 0 and "allowed by --allow-incomplete" in text


def test_a_store_without_a_plan_fails_unless_allowed(tmp_path):
    path = make_store(tmp_path / "r", clean(), plan=None)
    code, text = check(path)
    assert code == 1 and "completeness: unknown" in text and "completeness unknown" in text.splitlines()[-1]
    assert check(path, allow_incomplete=True)[0] == 0


def test_error_runs_fail_unless_allowed_and_are_listed_by_message(tmp_path):
    runs = clean()
    runs[1] = run("i1", B, "error", 0.1, error="worker process died (killed by SIGSEGV)")
    runs[3] = run("i2", B, "error", 0.1, error="worker process died (killed by SIGSEGV)\nstack...")
    path = make_store(tmp_path / "r", runs)
    code, text = check(path)
    assert code == 1 and "2 runs ended in error" in text
    assert "worker process died (killed by SIGSEGV)  (e.g. i1 × cpsat/placement)" in text
    assert "check: FAILED: 2 error runs" in text
    code, text = check(path, allow_errors=True)
    assert code == 0 and "allowed by --allow-errors" in text


def test_a_disagreement_fails(tmp_path):
    runs = clean()
    runs[1] = run("i1", B, "unsat", 1.0)
    code, text = check(make_store(tmp_path / "r", runs), allow_incomplete=True, allow_errors=True)
    assert code == 1 and "unsat-vs-sat" in text and "1 disagreement" in text


def test_regressions_fail_and_cpu_time_is_the_default(tmp_path):
    old = make_store(tmp_path / "old", clean())
    busy = [dict(r, wall_s=r["wall_s"] * 3) for r in clean()]  # wall tripled, cpu_s unchanged
    new = make_store(tmp_path / "new", busy)
    code, text = check(new, baseline=str(old))
    assert code == 0 and "regression: none against" in text and "(cpu time" in text
    code, text = check(new, baseline=str(old), time="wall")
    assert code == 1 and "slowdown" in text and "FAILED: 6 regressions" in text


def test_a_missing_store_is_bad_input_not_a_verdict(tmp_path):
    with pytest.raises(InputError):
        check(tmp_path / "nothing")
    good = make_store(tmp_path / "r", clean())
    with pytest.raises(InputError):
        check(good, baseline=str(tmp_path / "nothing"))


def test_a_stored_verdict_the_verifier_contradicts_fails(tmp_path):
    from harness.puzzle.formats import write_instance
    from harness.puzzle.instance import Instance

    inst = Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1), name="i1")
    (tmp_path / "inst").mkdir()
    write_instance(inst, tmp_path / "inst" / "i1.toml", "native")
    good = [run("i1", p, "sat", 1.0, instance_path=str(tmp_path / "inst" / "i1.toml"),
                instance_hash=inst.content_hash(), boards=[BOARD_A]) for p in (A, B)]
    code, text = check(make_store(tmp_path / "ok", good))
    assert code == 0 and "verdicts: 2 stored boards verified again in 2 runs" in text
    forged = [dict(good[0], boards='[["OO", "OO", "OO"]]'), good[1]]  # a board of all ships, stored as "ok"
    code, text = check(make_store(tmp_path / "forged", forged))
    assert code == 1 and f"verdicts: i1 {A}: stored 'ok', judged again '" in text \
        and "contradicted when judged again" in text
    gone = [dict(r, instance_path="nowhere/i1.toml") for r in good]
    code, text = check(make_store(tmp_path / "gone", gone))  # judged nothing: never passed
    assert code == 1 and "not verified: 2 runs, their subject file not found (nowhere/i1.toml)" in text \
        and text.rstrip().endswith("check: FAILED: 2 runs not verified; nothing was judged again"), text
    code, text = check(tmp_path / "gone", allow_unverified=True)
    assert code == 1 and text.rstrip().endswith("check: FAILED: nothing was judged again"), text


def test_an_empty_or_unmatched_baseline_compares_nothing_and_fails(tmp_path):
    new = make_store(tmp_path / "new", clean())
    empty = make_store(tmp_path / "empty", [], plan=None)
    code, text = check(new, baseline=str(empty))
    assert code == 1 and "the baseline holds no runs" in text and "nothing compared with the baseline" in text
    other = handstore.make_store(tmp_path / "other", [run("zz", A, "sat", 1.0)])  # a baseline: not judged again
    code, text = check(new, baseline=str(other))
    assert code == 1 and "no run matches the baseline" in text
    part = make_store(tmp_path / "part", clean()[:2], plan=clean())
    code, text = check(new, baseline=str(part))
    assert code == 0 and "2 of the baseline's 2 instance × pairs compared; the baseline is incomplete" in text


def test_a_stored_status_its_answer_does_not_give_fails(tmp_path):
    """Every solve run's status is derived again by classify() from its termination, boards and verdicts."""
    runs = [run("i1", A, "timeout", 10.0), run("i1", B, "sat", 1.0)]
    assert check(make_store(tmp_path / "ok", runs))[0] == 0
    forged = [dict(runs[0], status="unsat"), runs[1]]  # a run killed at its limit, stored as a proof of no board
    code, text = check(make_store(tmp_path / "forged", forged))
    assert code == 1 and f"verdicts: i1 {A}: stored 'status unsat', judged again 'status timeout" in text, text
    miscounted = [runs[0], dict(runs[1], count=2)]
    code, text = check(make_store(tmp_path / "miscounted", miscounted))
    assert code == 1 and "stored 'count 2', judged again '1 boards stored'" in text, text


def _manifest(path, *names: str) -> str:
    import hashlib

    from harness.store import ResultsStore

    with ResultsStore(path.parent / "r", create=False) as store:  # the instances' hashes, as stored
        stored = {r["instance"]: r["instance_hash"] for r in store.records()}
    hashes = {n: stored.get(n) or hashlib.sha256(n.encode()).hexdigest()[:16] for n in names}
    path.write_text("".join(f'[[instance]]\nname = "{n}"\ncontent_hash = "{hashes[n]}"\n'
                            f'expected_status = "sat"\n\n' for n in names), encoding="utf-8")
    return str(path)


def test_check_says_what_each_instance_was_compared_against_in_the_manifest(tmp_path, monkeypatch):
    store = make_store(tmp_path / "r", clean())  # instances i1, i2, i3
    some = _manifest(tmp_path / "some.toml", "i1", "elsewhere")
    code, text = check(store, manifest=some)
    assert code == 0 and f"expected statuses: 1 of 3 instances from {some}; 2 have no expectation" in text
    every = _manifest(tmp_path / "every.toml", "i1", "i2", "i3")
    assert f"expected statuses: all 3 instances from {every}\n" in check(store, manifest=every)[1]
    monkeypatch.chdir(tmp_path)  # under the working directory: the path as one would write it
    assert "expected statuses: 1 of 3 instances from some.toml; " in check(store, manifest=some)[1]


def test_a_manifest_none_of_the_stores_instances_is_in_is_not_mentioned(tmp_path):
    """A manifest that judged nothing must not read as passed: the old line said 'expected statuses from ...'."""
    store = make_store(tmp_path / "r", clean())
    other = _manifest(tmp_path / "MANIFEST.toml", "someone-elses")
    code, text = check(store, manifest=other)
    text = "\n".join(line for line in text.splitlines() if not line.startswith("subject files: "))  # tmp path
    assert code == 0 and "expected statuses" not in text and other not in text and "manifest" not in text.lower()


def test_a_count_answer_listing_the_same_board_twice_fails(tmp_path):
    """Two boards stored for count 2 say "not unique"; the same board twice is one solution, not two."""
    runs = clean()
    runs[0] = dict(runs[0], boards=handstore.dumps([BOARD_A, BOARD_A]))
    code, text = check(make_store(tmp_path / "r", runs))
    assert code == 1, text
    assert f"verdicts: i1 {A}: stored '2 boards', judged again 'boards 1 and 2 are the same board (listed twice)'" \
        in text and "1 stored result contradicted when judged again" in text


@pytest.mark.parametrize("column, value", [("question", "count-1"), ("task", "count"), ("pair", "sat/placement")])
def test_a_row_edited_away_from_the_recorded_plan_fails(tmp_path, column, value):
    """The run id hashes the question and pair, so an edited row keeps its id: its plan row says otherwise."""
    import sqlite3

    store = make_store(tmp_path / "r", clean())
    assert check(store)[0] == 0
    with sqlite3.connect(store / "results.sqlite") as db:
        run_id = db.execute("select run_id from runs where instance = 'i1' and pair = ?", (A,)).fetchone()[0]
        db.execute(f"update runs set {column} = ? where run_id = ?", (value, run_id))
    code, text = check(store)
    planned = {"question": "count-2", "task": "solve", "pair": A}[column]
    assert code == 1 and f"plan: i1 {A if column != 'pair' else value} (run {run_id}): stored {column} " \
        f"'{value}', planned '{planned}'" in text, text
    assert "check: FAILED: 1 stored run contradicting the recorded plan" in text
