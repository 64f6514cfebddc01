"""harness.report.sizes: the winner per board size and the best pairs' growth, arithmetic written out."""

from __future__ import annotations

import math

import pytest
from handstore import make_store, run

from harness.report import data, render, sizes

SP, SC, CP = "sat/placement", "sat/cell", "cpsat/placement"


def sgm(*ts: float) -> float:
    return math.exp(sum(math.log(t + 1) for t in ts) / len(ts)) - 1


def runs():
    small = dict(rows=10, cols=10)
    big = dict(rows=30, cols=20)
    return [
        # 10x10: sat/placement fastest, cpsat/placement next, sat/cell slowest
        run("s1", SP, "sat", 0.1, **small), run("s2", SP, "sat", 0.3, **small),
        run("s1", CP, "sat", 0.2, **small), run("s2", CP, "sat", 0.4, **small),
        run("s1", SC, "sat", 1.0, **small), run("s2", SC, "sat", 1.0, **small),
        # 30x20: cpsat/placement wins; sat/placement times out once (counts at the limit 10)
        run("b1", SP, "sat", 4.0, **big), run("b2", SP, "timeout", 10.2, **big),
        run("b1", CP, "sat", 2.0, **big), run("b2", CP, "sat", 3.0, **big),
        run("b1", SC, "sat", 5.0, **big), run("b2", SC, "sat", 6.0, **big),
    ]


@pytest.fixture
def df(tmp_path):
    return data.load(make_store(tmp_path / "sizes", runs()))


def test_winner_per_size_smallest_first(df):
    w = sizes.size_winners(df)
    assert list(w["size"]) == ["10x10", "30x20"] and list(w["cells"]) == [100, 600]
    small, big = w.iloc[0], w.iloc[1]
    assert small["best_pair"] == SP and small["runner_up"] == CP
    assert small["sgm_s"] == pytest.approx(sgm(0.1, 0.3))
    assert small["ratio"] == pytest.approx(sgm(0.2, 0.4) / sgm(0.1, 0.3))
    # most solved first: sat/cell (2/2, slower) beats sat/placement (1/2) for second place
    assert big["best_pair"] == CP and big["solved"] == 2
    assert big["runner_up"] == SC and big["runner_up_solved"] == 2
    assert big["ratio"] == pytest.approx(sgm(5.0, 6.0) / sgm(2.0, 3.0))


def test_growth_of_each_backends_best_pair(df):
    g = sizes.size_growth(df).set_index("backend")
    # over the whole campaign: cpsat/placement solves 4/4, the best sat pair is sat/cell (4/4)
    assert list(g.index) == ["cpsat", "sat"]
    assert g.at["sat", "pair"] == SC
    assert g.at["cpsat", "sgm_s@10x10"] == pytest.approx(sgm(0.2, 0.4))
    assert g.at["cpsat", "solved@30x20"] == "2/2"
    assert g.at["cpsat", "growth"] == pytest.approx(sgm(2.0, 3.0) / sgm(0.2, 0.4))


def test_the_report_shows_sizes_only_for_several_sizes(df, tmp_path):
    store = make_store(tmp_path / "mixed", runs())
    written = render.write_report(store, tmp_path / "out")
    assert "size_winners.csv" in written and "size_growth.csv" in written
    assert "## By board size" in written["summary.md"].read_text()
    one = make_store(tmp_path / "one", [r for r in runs() if r["rows"] == 10])
    written = render.write_report(one, tmp_path / "out1")
    assert "size_winners.csv" not in written and "By board size" not in written["summary.md"].read_text()
