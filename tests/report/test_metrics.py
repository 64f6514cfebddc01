"""Golden tables of harness.report.metrics from hand-built stores, the arithmetic written out."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest
from handstore import make_store, run

from harness.errors import InputError
from harness.report import data, metrics
from harness.report.headline import headline

NAN = float("nan")
LIMIT = 10.0

# 3 instances (a, b, c) x 3 pairs; sat/placement has 3 repetitions of each instance.
#   sat/cell          a sat 1.0    b unsat 2.0    c timeout 10.5 (overshoot 0.5)
#   sat/placement     a sat 3,1,2  b unsat 4,5,3  c sat 6.0, memout 3.0, memout 4.0
#   cpsat/placement   a wrong 0.2  b error 0.3    c sat 7.0
SC, SP, CP = "sat/cell", "sat/placement", "cpsat/placement"


def golden_runs():
    return [
        run("a", SC, "sat", 1.0, build_s=0.5, solve_s=0.5, variables=100),
        run("b", SC, "unsat", 2.0, build_s=0.1, solve_s=1.8, variables=200),
        run("c", SC, "timeout", 10.5, variables=400),
        run("a", SP, "sat", 3.0, repetition=1),
        run("a", SP, "sat", 1.0, repetition=2),
        run("a", SP, "sat", 2.0, repetition=3),
        run("b", SP, "unsat", 4.0, repetition=1),
        run("b", SP, "unsat", 5.0, repetition=2),
        run("b", SP, "unsat", 3.0, repetition=3),
        run("c", SP, "sat", 6.0, repetition=1),
        run("c", SP, "memout", 3.0, repetition=2),
        run("c", SP, "memout", 4.0, repetition=3),
        run("a", CP, "wrong", 0.2),
        run("b", CP, "error", 0.3),
        run("c", CP, "sat", 7.0),
    ]


@pytest.fixture
def golden(tmp_path):
    return data.load(make_store(tmp_path / "golden", golden_runs()))


# Per-instance (cell) times: median over repetitions, unsolved at the limit (10).
#   sat/cell          a 1.0   b 2.0   c 10 (timeout)
#   sat/placement     a median(3,1,2)=2.0   b median(4,5,3)=4.0   c median(6,10,10)=10 (1 of 3 solved)
#   cpsat/placement   a 10 (wrong)   b 10 (error)   c 7.0
SGM1 = {
    SC: math.exp((math.log(1.0 + 1) + math.log(2.0 + 1) + math.log(10.0 + 1)) / 3) - 1,
    SP: math.exp((math.log(2.0 + 1) + math.log(4.0 + 1) + math.log(10.0 + 1)) / 3) - 1,
    CP: math.exp((math.log(10.0 + 1) + math.log(10.0 + 1) + math.log(7.0 + 1)) / 3) - 1,
}
SGM10 = {
    SC: math.exp((math.log(1.0 + 10) + math.log(2.0 + 10) + math.log(10.0 + 10)) / 3) - 10,
    SP: math.exp((math.log(2.0 + 10) + math.log(4.0 + 10) + math.log(10.0 + 10)) / 3) - 10,
    CP: math.exp((math.log(10.0 + 10) + math.log(10.0 + 10) + math.log(7.0 + 10)) / 3) - 10,
}


def row(table, column, value):
    rows = table[table[column] == value]
    assert len(rows) == 1, (column, value, table)
    return rows.iloc[0]


def test_pair_table_golden(golden):
    table = metrics.pair_table(golden, shift_s=1.0)
    assert list(table.columns) == metrics.PAIR_COLUMNS
    assert list(table["pair"]) == [SC, SP, CP]  # 2 solved (smaller sgm first), then 1 solved

    sc, sp, cp = (row(table, "pair", p) for p in (SC, SP, CP))
    assert (sc["backend"], sc["formulation"]) == ("sat", "cell")
    assert (cp["backend"], cp["formulation"]) == ("cpsat", "placement")

    # counts: status counts are runs, solved and instances are cells
    assert [sc[c] for c in ("runs", "instances", "solved", "sat", "unsat", "timeout", "memout", "error", "wrong")] \
        == [3, 3, 2, 1, 1, 1, 0, 0, 0]
    assert [sp[c] for c in ("runs", "instances", "solved", "sat", "unsat", "timeout", "memout", "error", "wrong")] \
        == [9, 3, 2, 4, 3, 0, 2, 0, 0]
    assert [cp[c] for c in ("runs", "instances", "solved", "sat", "unsat", "timeout", "memout", "error", "wrong")] \
        == [3, 3, 1, 1, 0, 0, 0, 1, 1]

    # PAR-k: unsolved at k x limit; sat/placement c is the median of (6, 2*10, 2*10)
    assert sc["par2_s"] == pytest.approx((1.0 + 2.0 + 2 * 10) / 3)
    assert sp["par2_s"] == pytest.approx((2.0 + 4.0 + 2 * 10) / 3)
    assert cp["par2_s"] == pytest.approx((2 * 10 + 2 * 10 + 7.0) / 3)
    assert sc["par10_s"] == pytest.approx((1.0 + 2.0 + 10 * 10) / 3)
    assert sp["par10_s"] == pytest.approx((2.0 + 4.0 + 10 * 10) / 3)
    assert cp["par10_s"] == pytest.approx((10 * 10 + 10 * 10 + 7.0) / 3)

    for r in (sc, sp, cp):
        assert r["sgm_s"] == pytest.approx(SGM1[r["pair"]])
        assert r["sgm_ratio"] == pytest.approx(SGM1[r["pair"]] / SGM1[SC])
    assert sc["sgm_ratio"] == 1.0

    # mean/median over solved runs' wall_s
    assert (sc["mean_s"], sc["median_s"]) == (pytest.approx((1.0 + 2.0) / 2), pytest.approx(1.5))
    assert sp["mean_s"] == pytest.approx((3.0 + 1.0 + 2.0 + 4.0 + 5.0 + 3.0 + 6.0) / 7)
    assert sp["median_s"] == pytest.approx(3.0)  # of 1 2 3 3 4 5 6
    assert (cp["mean_s"], cp["median_s"]) == (pytest.approx(7.0), pytest.approx(7.0))

    # VBS per instance: a 1.0 (sat/cell), b 2.0 (sat/cell), c 7.0 (cpsat/placement)
    assert sc["vbs_gap_s"] == pytest.approx(((1.0 - 1.0) + (2.0 - 2.0) + (10.0 - 7.0)) / 3)
    assert sp["vbs_gap_s"] == pytest.approx(((2.0 - 1.0) + (4.0 - 2.0) + (10.0 - 7.0)) / 3)
    assert cp["vbs_gap_s"] == pytest.approx(((10.0 - 1.0) + (10.0 - 2.0) + (7.0 - 7.0)) / 3)
    assert [sc["unique_solves"], sp["unique_solves"], cp["unique_solves"]] == [0, 0, 1]

    # build share over solved runs (handstore default: build 0.2 wall, solve 0.7 wall)
    assert sc["build_share"] == pytest.approx((0.5 + 0.1) / (0.5 + 0.5 + 0.1 + 1.8))
    assert sc["solve_share"] == pytest.approx(1 - (0.5 + 0.1) / (0.5 + 0.5 + 0.1 + 1.8))
    assert sp["build_share"] == pytest.approx(0.2 / (0.2 + 0.7))
    assert cp["build_share"] == pytest.approx(0.2 / (0.2 + 0.7))

    assert sc["median_variables"] == 200.0  # of 100 200 400
    assert sp["median_variables"] == 1000.0
    assert sc["median_constraints"] == 2000.0
    assert sc["median_peak_rss_mb"] == 100.0

    # overshoot: timeout runs only
    assert sc["median_overshoot_s"] == pytest.approx(10.5 - 10.0)
    assert sc["max_overshoot_s"] == pytest.approx(10.5 - 10.0)
    assert math.isnan(sp["median_overshoot_s"]) and math.isnan(sp["max_overshoot_s"])
    assert math.isnan(cp["max_overshoot_s"])


def test_shift_changes_the_sgm(golden):
    table = metrics.pair_table(golden, shift_s=10.0)
    for p in (SC, SP, CP):
        r = row(table, "pair", p)
        assert r["sgm_s"] == pytest.approx(SGM10[p])
        assert r["sgm_ratio"] == pytest.approx(SGM10[p] / SGM10[SC])
    assert SGM10[SP] != pytest.approx(SGM1[SP])
    assert metrics.shifted_geomean([1.0, 2.0, 10.0], 10.0) == pytest.approx(SGM10[SC])
    assert metrics.shifted_geomean([4.0, 1.0], 0.0) == pytest.approx(2.0)
    assert math.isnan(metrics.shifted_geomean([], 1.0))
    with pytest.raises(ValueError):
        metrics.pair_table(golden, shift_s=-1.0)


def test_virtual_best_golden(golden):
    vbs = metrics.virtual_best(golden)
    assert list(vbs.columns) == ["instance", "measure", "best_pair", "best_s", "solved_by"]
    assert list(vbs["instance"]) == ["a", "b", "c"]
    assert list(vbs["measure"]) == ["cpu"] * 3  # one-core pairs: ranked by CPU time
    assert list(vbs["best_pair"]) == [SC, SC, CP]
    assert list(vbs["best_s"]) == pytest.approx([1.0, 2.0, 7.0])
    assert list(vbs["solved_by"]) == [2, 2, 1]


def test_pivots_golden(golden):
    sgm = metrics.pivot_sgm(golden, 1.0).set_index("formulation")
    assert list(sgm.index) == ["cell", "placement"]
    assert list(sgm.columns) == ["cpsat", "sat"]
    assert math.isnan(sgm.loc["cell", "cpsat"])  # cpsat has no cell pair
    assert sgm.loc["cell", "sat"] == pytest.approx(SGM1[SC])
    assert sgm.loc["placement", "sat"] == pytest.approx(SGM1[SP])
    assert sgm.loc["placement", "cpsat"] == pytest.approx(SGM1[CP])

    solved = metrics.pivot_solved(golden).set_index("formulation")
    assert list(solved.columns) == ["cpsat", "sat"]
    assert solved.loc["cell", "cpsat"] is pd.NA
    assert (solved.loc["cell", "sat"], solved.loc["placement", "sat"], solved.loc["placement", "cpsat"]) == (2, 2, 1)


def test_best_of_tables_golden(golden):
    bf = metrics.best_formulation_per_backend(golden, 1.0)
    assert list(bf.columns) == ["backend", "best_formulation", "sgm_s", "runner_up", "ratio"]
    assert list(bf["backend"]) == ["cpsat", "sat"]
    cp, sat = bf.iloc[0], bf.iloc[1]
    assert (cp["best_formulation"], cp["sgm_s"]) == ("placement", pytest.approx(SGM1[CP]))
    assert pd.isna(cp["runner_up"]) and math.isnan(cp["ratio"])
    assert (sat["best_formulation"], sat["runner_up"]) == ("cell", SP)
    assert sat["sgm_s"] == pytest.approx(SGM1[SC])
    assert sat["ratio"] == pytest.approx(SGM1[SP] / SGM1[SC])

    bb = metrics.best_backend_per_formulation(golden, 1.0)
    assert list(bb.columns) == ["formulation", "best_backend", "sgm_s", "runner_up", "ratio"]
    assert list(bb["formulation"]) == ["cell", "placement"]
    cell, placement = bb.iloc[0], bb.iloc[1]
    assert (cell["best_backend"], cell["sgm_s"]) == ("sat", pytest.approx(SGM1[SC]))
    assert pd.isna(cell["runner_up"]) and math.isnan(cell["ratio"])
    # sat/placement solves 2, cpsat/placement 1: sat wins though ranking looks at solved first
    assert (placement["best_backend"], placement["runner_up"]) == ("sat", CP)
    assert placement["ratio"] == pytest.approx(SGM1[CP] / SGM1[SP])


def test_options_variants_are_their_own_entries(tmp_path):
    glucose = "sat[solver=glucose4]/cell"
    runs = [run(i, p, "sat", t) for i in ("a", "b")
            for p, t in ((SC, 2.0), (glucose, 1.0), ("cpsat/cell", 4.0))]
    df = data.load(make_store(tmp_path / "opts", runs))
    bf = row(metrics.best_formulation_per_backend(df), "backend", "sat")
    assert (bf["best_formulation"], bf["runner_up"]) == (glucose, SC)
    assert bf["ratio"] == pytest.approx((math.exp(math.log(2.0 + 1)) - 1) / (math.exp(math.log(1.0 + 1)) - 1))
    bb = row(metrics.best_backend_per_formulation(df), "formulation", "cell")
    assert (bb["best_backend"], bb["runner_up"]) == (glucose, SC)
    sgm = metrics.pivot_sgm(df).set_index("formulation")
    assert sgm.loc["cell", "sat"] == pytest.approx(1.0)  # the best sat/cell variant


def test_repetition_table_golden(golden):
    reps = metrics.repetition_table(golden)
    assert list(reps.columns) == ["pair", "instance", "repetitions", "statuses", "median_s", "min_s", "max_s",
                                  "spread"]
    assert list(reps["pair"]) == [SP, SP, SP] and list(reps["instance"]) == ["a", "b", "c"]
    assert list(reps["repetitions"]) == [3, 3, 3]
    assert list(reps["statuses"]) == ["sat×3", "unsat×3", "sat×1, memout×2"]
    assert list(reps["median_s"]) == pytest.approx([2.0, 4.0, 10.0])
    assert list(reps["min_s"]) == pytest.approx([1.0, 3.0, 6.0])
    assert list(reps["max_s"]) == pytest.approx([3.0, 5.0, 10.0])
    assert list(reps["spread"]) == pytest.approx([(3.0 - 1.0) / 2.0, (5.0 - 3.0) / 4.0, (10.0 - 6.0) / 10.0])


def test_all_tables_keys_and_consistency(golden):
    tables = metrics.all_tables(golden, 1.0)
    assert tuple(tables) == metrics.TABLES == ("pairs", "virtual_best", "pivot_sgm", "pivot_solved",
                                               "best_formulation_per_backend", "best_backend_per_formulation",
                                               "repetitions", "controls")
    pd.testing.assert_frame_equal(tables["pairs"], metrics.pair_table(golden, 1.0))
    pd.testing.assert_frame_equal(tables["virtual_best"], metrics.virtual_best(golden))
    pd.testing.assert_frame_equal(tables["pivot_sgm"], metrics.pivot_sgm(golden, 1.0))
    pd.testing.assert_frame_equal(tables["pivot_solved"], metrics.pivot_solved(golden))
    pd.testing.assert_frame_equal(tables["repetitions"], metrics.repetition_table(golden))
    for table in tables.values():
        assert isinstance(table.index, pd.RangeIndex)


def test_headline_golden(golden):
    text = headline(golden, 1.0)
    # sgm: sat/cell 66**(1/3) - 1 = 3.04; sat/placement 4.48 (1.47x); cpsat/placement 8.89 (2.92x).
    # On 3 instances the paired interval of sat/placement's ratio reaches 1 (a resample of c
    # alone: 10 / 10 = 1; of a alone: 2 / 1 = 2): a tie within noise, not a winner.
    assert text.startswith("Ranked by CPU time. No single winner: sat/cell and sat/placement tie (2/3 solved each; sat/placement "
                           "1.47× the time, 95% CI 1.00–2.00, an interval that holds 1); the smallest shifted "
                           "geometric mean 3.04 s is sat/cell's; ")
    assert "next cpsat/placement is 2.9× slower (95% CI 0.70–10; 1/3 solved)." in text
    assert "Intervals: bootstrap over the 3 instances." in text  # repetitions: no run-to-run caveat
    assert "1 run gave a wrong answer (1 by cpsat/placement): check it" in text


def test_headline_without_wrong_runs(tmp_path):
    runs = [run("a", SC, "sat", 0.41), run("a", SP, "sat", 1.0)]
    text = headline(data.load(make_store(tmp_path / "h", runs)))
    assert text.startswith("Ranked by CPU time. sat/cell wins: 1/1 solved, shifted geometric mean 0.41 s; ")  # 1 instance: no CI
    assert "No run gave a wrong answer." in text


def test_headline_names_three_pairs_then_the_last(tmp_path):
    runs = [run("a", f"p{i}/cell", "sat", float(i)) for i in range(1, 8)]
    runs += [run("b", "p7/cell", "wrong", 0.5), run("b", "p1/cell", "sat", 1.0), run("b", "p6/cell", "wrong", 0.5)]
    runs += [run("b", f"p{i}/cell", "sat", float(i)) for i in range(2, 6)]
    text = headline(data.load(make_store(tmp_path / "many", runs)))
    # p1: sgm 1; p2: 2; ...; p7 solved 1/2: exp((log 8 + log 11) / 2) - 1
    slowest = math.exp((math.log(7.0 + 1) + math.log(10.0 + 1)) / 2) - 1
    assert text == ("Ranked by CPU time. p1/cell wins: 2/2 solved, shifted geometric mean 1 s (95% CI 1–1 s); the "
                    "runner-up p2/cell "
                    "is 2.0× slower (95% CI 2.00–2.00), p3/cell 3.0× (95% CI 3.00–3.00), p4/cell 4.0× "
                    f"(95% CI 4.00–4.00), and 3 more, the last p7/cell {slowest:.1f}× (1/2 solved). Intervals: "
                    "bootstrap over the 2 instances; one run per pair and instance, so run-to-run timing noise "
                    "is not in them. The machine's run-to-run noise was not measured (no A/A controls: [report] "
                    "controls in the config runs a pair twice, interleaved). 2 runs gave a wrong answer (1 by "
                    "p6/cell, 1 by p7/cell): check them before trusting these numbers.")


def test_unsolved_runs_count_at_the_limit(tmp_path):
    runs = [
        run("w", SC, "sat", 1.0, time_limit_s=5.0),
        run("x", SC, "timeout", 5.4, time_limit_s=5.0),  # overshoot ignored: counts 5
        run("y", SC, "wrong", 0.1, time_limit_s=5.0),  # fast but wrong: counts 5
        run("z", SC, "error", 0.2, time_limit_s=5.0),
        run("v", SC, "memout", 0.3, time_limit_s=20.0),  # each run's own limit
    ]
    df = data.load(make_store(tmp_path / "limit", runs))
    assert list(data.ranking_time(df)) == pytest.approx([1.0, 5.0, 5.0, 5.0, 20.0])
    assert list(data.solved_mask(df)) == [True, False, False, False, False]
    r = metrics.pair_table(df).iloc[0]
    assert r["solved"] == 1
    assert r["par2_s"] == pytest.approx((1.0 + 2 * 5.0 + 2 * 5.0 + 2 * 5.0 + 2 * 20.0) / 5)
    assert r["par10_s"] == pytest.approx((1.0 + 10 * 5.0 + 10 * 5.0 + 10 * 5.0 + 10 * 20.0) / 5)
    assert r["sgm_s"] == pytest.approx(math.exp((math.log(2.0) + 3 * math.log(6.0) + math.log(21.0)) / 5) - 1)
    assert (r["mean_s"], r["median_s"]) == (1.0, 1.0)


def test_repetitions_use_the_median(tmp_path):
    runs = [run("a", SC, "sat", t, repetition=i) for i, t in enumerate((1.0, 9.0, 2.0), 1)]
    runs += [run("b", SC, "sat", t, repetition=i) for i, t in enumerate((1.0, 2.0, 3.0, 10.0), 1)]
    runs += [run("c", SC, "sat", 1.0, repetition=1), run("c", SC, "timeout", 10.0, repetition=2)]
    df = data.load(make_store(tmp_path / "reps", runs))
    cells = metrics.instance_times(df)
    assert list(cells[data.INSTANCE_KEY]) == ["inst/a.toml", "inst/b.toml", "inst/c.toml"]
    assert list(cells["repetitions"]) == [3, 4, 2]
    assert list(cells["time_s"]) == pytest.approx([2.0, (2.0 + 3.0) / 2, (1.0 + 10.0) / 2])  # not the mean 4.0
    assert list(cells["solved"]) == [True, True, False]  # c: 1 of 2 is not more than half
    r = metrics.pair_table(df).iloc[0]
    assert (r["runs"], r["instances"], r["solved"], r["sat"], r["timeout"]) == (9, 3, 2, 8, 1)
    assert r["par2_s"] == pytest.approx((2.0 + 2.5 + (1.0 + 2 * 10.0) / 2) / 3)
    assert r["sgm_s"] == pytest.approx(math.exp((math.log(3.0) + math.log(3.5) + math.log(6.5)) / 3) - 1)


def test_ordering_is_deterministic(tmp_path):
    expected = metrics.all_tables(data.load(make_store(tmp_path / "g0", golden_runs())))
    shuffled = golden_runs()
    random.Random(7).shuffle(shuffled)
    for i, runs in enumerate((shuffled, golden_runs()[::-1])):
        got = metrics.all_tables(data.load(make_store(tmp_path / f"g{i + 1}", runs)))
        for key in metrics.TABLES:
            pd.testing.assert_frame_equal(got[key], expected[key])


def test_ties_break_by_pair_label(tmp_path):
    runs = [run(i, p, "sat", 1.0) for i in ("a", "b") for p in ("sat/placement", "cpsat/cell", "sat/cell")]
    tables = metrics.all_tables(data.load(make_store(tmp_path / "tie", runs)))
    assert list(tables["pairs"]["pair"]) == ["cpsat/cell", "sat/cell", "sat/placement"]
    assert list(tables["pairs"]["sgm_ratio"]) == [1.0, 1.0, 1.0]
    assert list(tables["virtual_best"]["best_pair"]) == ["cpsat/cell", "cpsat/cell"]
    assert list(tables["pairs"]["unique_solves"]) == [0, 0, 0]


def test_instances_are_keyed_by_path(tmp_path):
    runs = [run("a", SC, "sat", 1.0), run("a", SC, "sat", 3.0, instance_path="other/a.toml", run_id="other-a")]
    df = data.load(make_store(tmp_path / "paths", runs))
    assert list(df[data.INSTANCE_KEY]) == ["inst/a.toml", "other/a.toml"]
    vbs = metrics.virtual_best(df)
    assert list(vbs["instance"]) == ["a", "a"] and list(vbs["best_s"]) == [1.0, 3.0]
    assert metrics.pair_table(df).iloc[0]["instances"] == 2
    assert metrics.repetition_table(df).empty


def test_empty_store_gives_empty_tables(tmp_path):
    df = data.load(make_store(tmp_path / "empty", []))
    assert df.empty and data.INSTANCE_KEY in df.columns
    tables = metrics.all_tables(df, 1.0)
    assert tuple(tables) == metrics.TABLES
    assert all(t.empty for t in tables.values())
    assert list(tables["pairs"].columns) == metrics.PAIR_COLUMNS
    assert list(tables["virtual_best"].columns) == ["instance", "measure", "best_pair", "best_s", "solved_by"]
    assert list(tables["repetitions"].columns) == metrics.REPETITION_COLUMNS
    assert list(tables["pivot_sgm"].columns) == ["formulation"]
    assert list(tables["best_formulation_per_backend"].columns) == metrics.BEST_FORMULATION_COLUMNS
    assert metrics.instance_times(df).empty
    assert headline(df) == "No runs in these results."


def test_load_without_a_store(tmp_path):
    with pytest.raises(InputError):
        data.load(tmp_path / "nowhere")
    (tmp_path / "bare").mkdir()
    with pytest.raises(InputError):
        data.load(tmp_path / "bare")
