"""The statuses per pair: every status and termination counted per pair, a total, in the report's files."""

from __future__ import annotations

import pandas as pd
from handstore import BAD_BOARD, make_store, run

from harness.core.record import STATUS_VALUES, TERMINATION_VALUES
from harness.core.status import WHEN_PRESENT
from harness.report import metrics
from harness.report import summary
from harness.report.data import load
from harness.report.render import write_report

A, B, C = "sat/cell", "cpsat/placement", "highs/cell"


def runs() -> list[dict]:
    return [
        run("i1", A, "sat", 0.5), run("i1", B, "unsat", 1.5),
        run("i2", A, "timeout", 10.2), run("i2", B, "error", 0.1),
        run("i3", A, "sat", 1.0, repetition=1), run("i3", A, "memout", 3.0, repetition=2),
        run("i3", A, "memout", 4.0, repetition=3),  # 1 of 3 solved: the cell is not
        run("i3", B, "timeout", 9.0, termination="solver-limit"),
        run("i4", A, "wrong", 0.3, boards=[BAD_BOARD]),
        run("i4", B, "refused", None, termination="refused", answer="none"),
    ]


def counts(table: pd.DataFrame, pair: str) -> dict[str, int]:
    row = table[table["pair"] == pair].iloc[0]
    return {c: int(row[c]) for c in table.columns if c != "pair" and int(row[c])}


def test_every_status_and_termination_is_counted_per_pair_with_a_total(tmp_path):
    table = summary.status_table(load(make_store(tmp_path / "r", runs())), [B, A])
    assert list(table.columns) == summary.SUMMARY_COLUMNS
    assert [c.split(":")[1] for c in summary.STATUS_COLUMNS] == [s for s in STATUS_VALUES if s not in WHEN_PRESENT]
    assert [c.split(":")[1] for c in summary.TERMINATION_COLUMNS] == [t for t in TERMINATION_VALUES
                                                                      if t not in WHEN_PRESENT]
    assert list(table["pair"]) == [B, A, summary.TOTAL]  # the order given, the total last
    assert isinstance(table.index, pd.RangeIndex) and list(table.index) == [0, 1, 2]
    assert counts(table, A) == {"runs": 6, "instances": 4, "solved": 1, "status:sat": 2, "status:timeout": 1,
                                "status:memout": 2, "status:wrong": 1, "termination:completed": 3,
                                "termination:timeout": 1, "termination:memout": 2}
    assert counts(table, B) == {"runs": 4, "instances": 4, "solved": 1, "status:unsat": 1, "status:error": 1,
                                "status:timeout": 1, "status:refused": 1, "termination:completed": 1,
                                "termination:crash": 1, "termination:solver-limit": 1, "termination:refused": 1}
    total = counts(table, summary.TOTAL)
    assert total["runs"] == 10 and total["instances"] == 4 and total["solved"] == 2
    assert total["status:timeout"] == 2 and total["status:refused"] == 1 and total["termination:completed"] == 4
    for pair in (A, B, summary.TOTAL):  # each group sums to the runs
        row = table[table["pair"] == pair].iloc[0]
        assert row[summary.STATUS_COLUMNS].sum() == row["runs"] == row[summary.TERMINATION_COLUMNS].sum()


def test_a_rare_termination_has_its_column_only_where_a_run_has_it(tmp_path):
    """output-limit (a tool past the run's output cap) came after the reports already written: they stay as they were,
    and a store with such a run counts it in a column of its own."""
    table = summary.status_table(load(make_store(tmp_path / "r", runs() + [
        run("i5", A, "error", 1.0, termination="output-limit", answer="none")])), [B, A])
    assert list(table.columns) == [*summary.SUMMARY_COLUMNS, "termination:output-limit"]
    assert counts(table, A)["termination:output-limit"] == 1 and counts(table, summary.TOTAL)["status:error"] == 2


def test_pairs_not_in_the_order_follow_by_name_and_the_table_is_deterministic(tmp_path):
    df = load(make_store(tmp_path / "r", runs() + [run("i1", C, "sat", 2.0)]))
    table = summary.status_table(df, [A])
    assert list(table["pair"]) == [A, B, C, summary.TOTAL]
    assert list(summary.status_table(df)["pair"]) == [B, C, A, summary.TOTAL]  # no order: by name
    shuffled = df.sample(frac=1.0, random_state=3)
    pd.testing.assert_frame_equal(summary.status_table(shuffled, [A]), table)


def test_no_runs_no_rows(tmp_path):
    df = load(make_store(tmp_path / "r", runs())).iloc[0:0]
    table = summary.status_table(df)
    assert table.empty and list(table.columns) == summary.SUMMARY_COLUMNS


def test_the_report_writes_the_section_and_statuses_csv(tmp_path):
    store = make_store(tmp_path / "r", runs())
    written = write_report(store, tmp_path / "rep")
    csv = pd.read_csv(written["statuses.csv"])
    assert list(csv.columns) == summary.SUMMARY_COLUMNS and csv["pair"].iloc[-1] == summary.TOTAL
    assert int(csv[csv["pair"] == B]["status:refused"].iloc[0]) == 1
    md = written["summary.md"].read_text(encoding="utf-8")
    assert f"## {summary.TITLE}" in md and "status:refused" in md and "termination:solver-limit" in md
    page = written["index.html"].read_text(encoding="utf-8")
    assert f'<h2 id="statuses">{summary.TITLE}</h2>' in page and '<div id="statuses-table">' in page
    assert '<a href="#statuses">statuses</a>' in page  # in the section menu


def test_unknown_has_a_column_only_where_a_run_is_unknown(tmp_path):
    """Finding 10's status joins the tables (statuses, pairs, the page's filters) where a run has it, after
    ``timeout``; a store without one gives the tables it gave before."""
    gave_up = run("i2", C, "unknown", 0.5)
    df = load(make_store(tmp_path / "u", runs() + [gave_up]))
    table = summary.status_table(df, [A])
    shown = [c for c in table.columns if c.startswith("status:")]
    assert shown[:5] == ["status:sat", "status:unsat", "status:timeout", "status:unknown", "status:memout"]
    assert counts(table, C) == {"runs": 1, "instances": 1, "status:unknown": 1, "termination:completed": 1}
    pairs = metrics.all_tables(df)["pairs"]
    assert list(pairs.columns).index("unknown") == list(pairs.columns).index("timeout") + 1
    assert int(pairs[pairs["pair"] == C]["unknown"].iloc[0]) == 1 and int(pairs[pairs["pair"] == C]["solved"].iloc[0]) == 0
    before = metrics.all_tables(load(make_store(tmp_path / "r", runs())))["pairs"]
    assert "unknown" not in before.columns and "status:unknown" not in summary.status_table(
        load(make_store(tmp_path / "r2", runs()))).columns
