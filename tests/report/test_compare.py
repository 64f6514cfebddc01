"""`battlebench compare`'s numbers and documents on two hand-built campaigns that differ in known ways."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from handstore import make_store, run
from harness.report.compare import (CHANGES, PAIR_COLUMNS, ROW_COLUMNS, CompareOptions, comparison, compare_runs,
                                    html_page, markdown, write_comparison)
from harness.report.data import load
from harness.report.metrics import shifted_geomean

SAT, CP, GONE, NEW = "sat/cell", "cpsat/placement", "mip/cell", "mip/placement"


def reps(instance: str, pair: str, status: str, cpus: list[float], **more) -> list[dict]:
    """Repetitions with these CPU times; wall time 1.1 × CPU time (so the two ratios are told apart below)."""
    return [run(instance, pair, status, 1.1 * c if status != "timeout" else 10.0, cpu_s=c, repetition=i + 1,
                **more) for i, c in enumerate(cpus)]


SAME = [1.0, 1.1, 0.9]
OLD = (reps("i1", SAT, "sat", SAME) + reps("i2", SAT, "sat", SAME) + reps("i3", SAT, "sat", [2.0, 2.1, 1.9])
       + reps("i4", SAT, "sat", SAME)
       + reps("i1", CP, "sat", SAME) + reps("i2", CP, "sat", [4.0, 4.1, 3.9]) + reps("i3", CP, "sat", SAME)
       + reps("i4", CP, "timeout", [9.0, 9.0, 9.0])
       + reps("i1", GONE, "sat", SAME) + reps("i2", GONE, "sat", SAME))
NEW_RUNS = (reps("i1", SAT, "sat", [3.0, 3.3, 2.7])              # 3x slower in CPU
            + reps("i2", SAT, "timeout", [9.0, 9.0, 9.0])        # sat -> timeout
            + reps("i3", SAT, "sat", [2.0, 2.1, 1.9]) + reps("i4", SAT, "sat", SAME)  # the same
            + reps("i1", CP, "sat", SAME)                        # the same
            + reps("i2", CP, "sat", [1.234, 1.3, 1.2])           # faster: 4.0 -> 1.234
            + reps("i3", CP, "wrong", SAME)                      # became wrong
            + reps("i4", CP, "sat", SAME)                        # timeout -> sat: fixed
            + reps("i1", NEW, "sat", SAME) + reps("i2", NEW, "sat", SAME)  # a pair that appeared
            + reps("i5", SAT, "sat", SAME) + reps("i5", CP, "sat", SAME))  # an instance only in the new campaign
EXPECTED = {
    (SAT, "i1"): "slower", (SAT, "i2"): "status changed", (SAT, "i3"): "same", (SAT, "i4"): "same",
    (SAT, "i5"): "appeared", (CP, "i1"): "same", (CP, "i2"): "faster", (CP, "i3"): "became wrong",
    (CP, "i4"): "fixed", (CP, "i5"): "appeared", (GONE, "i1"): "disappeared", (GONE, "i2"): "disappeared",
    (NEW, "i1"): "appeared", (NEW, "i2"): "appeared",
}


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("compare")
    return make_store(base / "old", OLD), make_store(base / "new", NEW_RUNS)


@pytest.fixture(scope="module")
def c(stores):
    old, new = stores
    return comparison(load(old), load(new), new="NEWDIR", old="OLDDIR")


def _row(rows: pd.DataFrame, pair: str, instance: str) -> pd.Series:
    (i,) = rows.index[(rows["pair"] == pair) & (rows["instance"] == instance)]
    return rows.loc[i]


def test_every_match_is_classified_as_planted(c):
    rows = c.rows
    assert list(rows.columns) == ROW_COLUMNS
    assert dict(zip(zip(rows["pair"], rows["instance"]), rows["change"])) == EXPECTED
    assert list(zip(rows["pair"], rows["instance"])) == sorted(EXPECTED)  # by pair, then instance name
    assert set(rows["change"]) == set(CHANGES)  # every class is met once at least


def test_the_ratios_and_statuses_of_the_planted_changes(c):
    rows = c.rows
    slow = _row(rows, SAT, "i1")
    assert (slow["old_cpu_s"], slow["new_cpu_s"]) == pytest.approx((1.0, 3.0))
    assert slow["cpu_ratio"] == pytest.approx(3.0) and slow["wall_ratio"] == pytest.approx(3.0)
    assert slow["old_wall_s"] == pytest.approx(1.1) and slow["judged_on"] == "cpu"
    assert "Mann-Whitney p = 0.05, 3 vs 3 runs" in slow["note"] and "3.00x slower" in slow["note"]
    fast = _row(rows, CP, "i2")
    assert fast["cpu_ratio"] == pytest.approx(1.234 / 4.0) and "faster" in fast["note"]
    timeout = _row(rows, SAT, "i2")
    assert (timeout["old_status"], timeout["new_status"]) == ("sat", "timeout")
    assert not timeout["new_solved"] and timeout["old_solved"]
    wrong = _row(rows, CP, "i3")
    assert (wrong["old_status"], wrong["new_status"]) == ("sat", "wrong") and "verifier" in wrong["note"]
    assert (_row(rows, CP, "i4")["old_status"], _row(rows, CP, "i4")["new_status"]) == ("timeout", "sat")
    same = _row(rows, SAT, "i3")
    assert same["cpu_ratio"] == pytest.approx(1.0) and same["note"] == "within 2×"
    gone, new = _row(rows, GONE, "i1"), _row(rows, NEW, "i1")
    assert pd.isna(gone["new_status"]) and math.isnan(gone["cpu_ratio"]) and gone["old_runs"] == 3
    assert pd.isna(new["old_status"]) and new["new_runs"] == 3 and new["old_runs"] == 0


def test_the_pairs_summary(c):
    pairs = c.pairs.set_index("pair")
    assert list(c.pairs.columns) == PAIR_COLUMNS and list(pairs.index) == sorted([SAT, CP, GONE, NEW])
    assert pairs.loc[NEW, "pair_change"] == "appeared" and pairs.loc[GONE, "pair_change"] == "disappeared"
    assert pairs.loc[SAT, "pair_change"] == pairs.loc[CP, "pair_change"] == "in both"
    sat = pairs.loc[SAT]
    assert (sat["instances_in_both"], sat["solved_old"], sat["solved_new"]) == (4, 4, 3)
    assert (sat["slower"], sat["status_changed"], sat["same"], sat["appeared"], sat["faster"]) == (1, 1, 2, 1, 0)
    # over the instances both solved (i1, i3, i4): the new shifted geometric mean over the old one
    new, old = [3.0, 2.0, 1.0], [1.0, 2.0, 1.0]
    assert sat["cpu_ratio"] == pytest.approx(shifted_geomean(new) / shifted_geomean(old))
    assert sat["cpu_ratio"] > 1.2 and sat["cpu_lo"] <= sat["cpu_ratio"] <= sat["cpu_hi"]
    cp = pairs.loc[CP]
    assert (cp["solved_old"], cp["solved_new"], cp["became_wrong"], cp["fixed"], cp["faster"]) == (3, 3, 1, 1, 1)
    assert cp["cpu_ratio"] < 1  # i1 the same, i2 faster (i3 wrong and i4 fixed are not solved in both)
    assert pairs.loc[GONE, "disappeared"] == 2 and pairs.loc[GONE, "solved_old"] == 2
    assert pairs.loc[NEW, "appeared"] == 2 and pairs.loc[NEW, "solved_new"] == 2
    assert math.isnan(pairs.loc[NEW, "cpu_ratio"])


def test_identical_campaigns_are_the_same(stores):
    old, _ = stores
    rows = compare_runs(load(old), load(old))
    assert set(rows["change"]) == {"same"} and (rows["cpu_ratio"].dropna() == 1.0).all()


def test_the_time_and_ratio_options_decide_slower(stores, tmp_path):
    old, new = (load(s) for s in stores)
    assert _row(compare_runs(old, new, CompareOptions(ratio=4)), SAT, "i1")["change"] == "same"
    # the machine was busy: wall time tripled, CPU time did not move -- slower on wall time only
    a = make_store(tmp_path / "a", reps("i1", SAT, "sat", SAME))
    b = make_store(tmp_path / "b", [run("i1", SAT, "sat", 3.3 * c, cpu_s=c, repetition=i + 1)
                                    for i, c in enumerate(SAME)])
    on_cpu = _row(compare_runs(load(a), load(b)), SAT, "i1")
    on_wall = _row(compare_runs(load(a), load(b), CompareOptions(time="wall")), SAT, "i1")
    assert on_cpu["change"] == "same" and on_wall["change"] == "slower" and on_wall["judged_on"] == "wall"
    assert on_cpu["wall_ratio"] == pytest.approx(3.0) and on_cpu["cpu_ratio"] == pytest.approx(1.0)


def test_same_says_why_the_floor_or_the_noise(tmp_path):
    a = make_store(tmp_path / "a", reps("i1", SAT, "sat", [0.01, 0.01, 0.01]) + reps("i2", SAT, "sat", [1.0, 1.0, 5.0]))
    b = make_store(tmp_path / "b", reps("i1", SAT, "sat", [0.05, 0.05, 0.05]) + reps("i2", SAT, "sat", [3.0, 3.0, 0.5]))
    rows = compare_runs(load(a), load(b))
    tiny, overlap = _row(rows, SAT, "i1"), _row(rows, SAT, "i2")
    assert tiny["change"] == "same" and tiny["note"] == "both under the 0.1 s floor" and tiny["cpu_ratio"] == 5.0
    # medians 1 -> 3, but one old run took 5 s and one new run 0.5 s: the test does not call it slower
    assert overlap["change"] == "same" and overlap["note"].startswith("within noise (Mann-Whitney p = ")
    assert _row(compare_runs(load(a), load(b), CompareOptions(floor_s=0.001)), SAT, "i1")["change"] == "slower"


def test_the_markdown_lists_the_pairs_and_every_change(c):
    md = markdown(c)
    assert md.startswith("# battlebench compare: NEWDIR against OLDDIR\n")
    assert ("14 instance × pair matches, 8 in both campaigns: 1 became wrong, 1 status changed, 1 slower, "
            "2 disappeared, 4 appeared, 1 fixed, 1 faster, 3 same.") in md
    assert f"Pairs appeared: {NEW}." in md and f"Pairs disappeared: {GONE}." in md
    lines = md.splitlines()
    changes = lines[lines.index("## Changes"):]
    for (pair, instance), change in EXPECTED.items():
        hit = [line for line in changes if line.startswith(f"| {pair} | {instance} | ")]
        # the same: only counted; a pair that appeared or disappeared whole: said in the pairs table
        assert len(hit) == (change != "same" and pair not in (NEW, GONE)), (pair, instance)
        if hit:
            assert f"| {change} |" in hit[0]
    assert "| 0.308 |" in next(line for line in changes if line.startswith(f"| {CP} | i2 |"))  # rounded here
    assert "The 4 matches of the pairs that appeared or disappeared are not listed here" in md
    assert "3 matches are the same" in md
    pairs = lines[lines.index("## Pairs"):lines.index("## Changes")]
    assert sum(line.startswith("| ") for line in pairs) == 1 + 4  # the header and the four pairs


def test_the_page_holds_every_row_and_stands_alone(c):
    page = html_page(c)
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page and "tr.best" in page  # the report's CSS
    assert "src=" not in page and "<link" not in page and "<script" not in page
    every = page[page.index('<h2 id="matches">'):]
    body = every[every.index("<tbody>"):every.index("</tbody>")]
    assert body.count("<tr>") == len(c.rows) == len(EXPECTED)
    for (pair, instance), change in EXPECTED.items():
        assert f"<tr><td>{pair}</td><td>{instance}</td><td>{change}</td>" in body, (pair, instance)
    assert "NEWDIR against OLDDIR" in page


def test_written_files_and_the_csv_is_unrounded(c, tmp_path):
    written = write_comparison(c, tmp_path / "out")
    assert sorted(written) == ["compare.csv", "compare.html", "compare.md"]
    assert written["compare.md"].read_text() == markdown(c)
    csv = pd.read_csv(written["compare.csv"])
    assert list(csv.columns) == ROW_COLUMNS and len(csv) == len(EXPECTED)
    fast = csv[(csv["pair"] == CP) & (csv["instance"] == "i2")].iloc[0]
    assert fast["cpu_ratio"] == pytest.approx(0.3085, abs=1e-12)


def test_two_empty_campaigns_compare_nothing(tmp_path):
    a, b = make_store(tmp_path / "a", []), make_store(tmp_path / "b", [])
    c = comparison(load(a), load(b))
    assert c.rows.empty and c.pairs.empty
    assert "nothing was compared" in markdown(c) and "No rows." in html_page(c)
