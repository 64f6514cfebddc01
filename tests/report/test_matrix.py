"""The instance × pair matrix and the failures and disputed boards of the report."""

from __future__ import annotations

import re

from handstore import BAD_BOARD, make_store, run

from harness.report import evidence, matrix
from harness.report.agreement import check_agreement
from harness.report.data import load

A, B = "sat/cell", "cpsat/placement"


def runs():
    return [
        run("i1", A, "sat", 0.5, cpu_s=0.45), run("i1", B, "sat", 1.5),
        run("i2", A, "timeout", 10.2, detail="killed at the wall-clock limit (10 s; grace 1 s)"),
        run("i2", B, "error", 0.1, error="worker process died (killed by SIGSEGV)\nFatal Python error"),
        run("i3", A, "sat", 1.0, repetition=1), run("i3", A, "memout", 3.0, repetition=2, error="MemoryError"),
        run("i3", A, "memout", 4.0, repetition=3, error="MemoryError"),
        run("i4", A, "wrong", 0.3, boards=[BAD_BOARD]),
    ]


def test_matrix_table_collapses_repetitions_and_keeps_messages(tmp_path):
    table = matrix.matrix_table(load(make_store(tmp_path / "r", runs())))
    assert list(table.columns) == matrix.MATRIX_COLUMNS
    cell = table[(table["instance"] == "i3")].iloc[0]
    assert (cell["status"], cell["statuses"], cell["runs"], cell["wall_s"]) == ("memout", "memout×2, sat×1", 3, 3.0)
    assert cell["message"] == "MemoryError"
    err = table[(table["instance"] == "i2") & (table["pair"] == B)].iloc[0]
    assert err["message"] == "worker process died (killed by SIGSEGV)" and err["termination"] == "crash"
    ok = table[(table["instance"] == "i1") & (table["pair"] == A)].iloc[0]
    assert ok["message"] == "" and ok["cpu_s"] == 0.45


def test_matrix_html_colours_every_cell_and_marks_missing_ones(tmp_path):
    page = matrix.matrix_html(load(make_store(tmp_path / "r", runs())), [B, A])
    head = re.search(r"<thead>(.*?)</thead>", page, re.S).group(1)
    names = [h.replace("<wbr>", "") for h in re.findall(r"<th>(.*?)</th>", head)]
    assert names == ["instance", B, A]  # the order given: best pair first
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.S).group(1)
    assert body.count("<tr ") == 4
    classes = re.findall(r'<td class="(st-[a-z]+)"', body)
    assert sorted(set(classes)) == ["st-error", "st-memout", "st-none", "st-sat", "st-timeout", "st-wrong"]
    assert classes.count("st-none") == 2  # i3 and i4 have no run of cpsat/placement
    assert "worker process died (killed by SIGSEGV)" in page  # in the cell's title
    assert '<input id="mx-q"' in page and "<script>" in page and "src=" not in page


def test_failures_list_every_failed_run_grouped_and_one_by_one(tmp_path):
    df = load(make_store(tmp_path / "r", runs()))
    table = evidence.failure_table(df)
    assert list(table["status"]) == ["error", "memout", "memout", "timeout"]
    assert table.iloc[0]["message"] == "worker process died (killed by SIGSEGV)"
    assert table.iloc[0]["detail"] == ""
    groups = evidence.failure_groups(df)
    assert list(zip(groups["status"], groups["runs"])) == [("error", 1), ("memout", 2), ("timeout", 1)]
    page = evidence.failures_html(df, lambda frame: f"<table rows={len(frame)}>")
    assert "<table rows=3>" in page and "<table rows=4>" in page


def test_disputed_boards_are_drawn(tmp_path):
    df = load(make_store(tmp_path / "r", runs()))
    problems = check_agreement(df)
    page = evidence.problems_html(problems)
    assert "wrong-board" in page and page.count('<table class="board">') >= 1
    assert page.count('<td class="ship">') >= 2 and "row-clue" in page
    assert "None: every board" in evidence.problems_html([])


def test_a_disputed_board_is_drawn_with_its_clues_and_the_broken_one_marked():
    from harness.puzzle.instance import Instance

    inst = Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, None), name="x")
    page = evidence.board_html(BAD_BOARD, inst)  # rows 1, 1, 0 ship cells: rows 1 and 2 break their clues
    assert page.count('class="clue bad"') == 2 and 'title="the clue says 0, the board has 1"' in page
    assert '<td class="clue">1</td>' in page  # the unknown column clue shows the board's count
    assert "clue" not in evidence.board_html(BAD_BOARD)  # no instance: the board alone


def test_an_unknown_run_is_coloured_as_undecided_and_its_legend_entry_only_where_one_is(tmp_path):
    legend = re.compile(r'<p class="sub legend">(.*?)<span class="st-none">', re.S)
    before = matrix.matrix_html(load(make_store(tmp_path / "r", runs())), [B, A])
    assert "unknown" not in legend.search(before).group(1)
    page = matrix.matrix_html(load(make_store(tmp_path / "u", runs() + [run("i4", B, "unknown", 0.5)])), [B, A])
    assert '<span class="st-timeout st-unknown">unknown</span>' in legend.search(page).group(1)
    assert 'class="st-timeout st-unknown" data-v=' in page and 'data-s="unknown"' in page
