"""The page's filters in a real (headless) browser: family, size and status recompute the statuses and speed tables.

The expected numbers are computed here in Python from the hand-made runs, with the
report's own functions on the filtered runs (a pair measured in CPU time: its ``cpu_s``
taken as its time), and compared with what the page's script wrote into the tables.
"""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest
from browser import dump_dom, needs_chromium
from handstore import make_store, run

from harness.report import metrics, summary
from harness.report.data import load
from harness.report.filters import FILTERED, FORMAT
from harness.report.render import write_report
from harness.report.tables import OUTCOME_COLUMNS, SPEED_COLUMNS, format_number

pytestmark = needs_chromium
A, B = "sat/cell", "cpsat[threads=2]/placement"  # one core: ranked by CPU time; two threads: by wall time
C = "sat/placement"  # A's rival in the CPU group: a ratio to its group's winner that is not 1
MEASURES = {A: "cpu", B: "wall", C: "cpu"}
TWO = {"threads": 2}


def at(name: str, family: str, size: int) -> dict:
    return {"instance_path": f"inst/{family}/{name}.toml", "rows": size, "cols": size}


RUNS = [
    run("e1", A, "sat", 0.5, **at("e1", "easy", 10)), run("e1", B, "sat", 2.0, options=TWO, **at("e1", "easy", 10)),
    *[run("e2", A, status, w, repetition=i, **at("e2", "easy", 15))  # 1 of 3 solved: the cell is not
      for i, (status, w) in enumerate([("sat", 1.0), ("timeout", 10.3), ("memout", 4.0)], 1)],
    run("e2", B, "timeout", 10.5, options=TWO, **at("e2", "easy", 15)),
    run("h1", A, "timeout", 10.4, **at("h1", "hard", 10)), run("h1", B, "sat", 3.0, cpu_s=5.5, options=TWO,
        **at("h1", "hard", 10)),
    *[run(i, C, "sat", w, **at(i, f, n)) for i, w, f, n in
      (("e1", 1.0, "easy", 10), ("e2", 2.0, "easy", 15), ("h1", 5.0, "hard", 10), ("h2", 2.5, "hard", 15))],
    run("h2", A, "sat", 4.0, cpu_s=1.25, **at("h2", "hard", 15)), run("h2", B, "memout", 5.0, options=TWO, **at("h2", "hard", 15)),
]
INSTANCES = {"easy": {"e1", "e2"}, "hard": {"h1", "h2"}, "10x10": {"e1", "h1"}, "15x15": {"e2", "h2"},
             "timeout": {"e2", "h1"}, "memout": {"e2", "h2"}}  # e2's A cell: memout (sat, timeout, memout tie)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("filters")
    store = make_store(tmp / "r", RUNS)
    written = write_report(store, tmp / "rep")  # auto: MEASURES
    return written["index.html"], load(store), pd.read_csv(written["pairs.csv"])


def cells(text: str, name: str) -> list[list[str]]:
    """The cells of the table in ``<div id="name">``, row by row."""
    body = re.search(rf'<div id="{name}">.*?<tbody>(.*?)</tbody>', text, re.S)
    assert body, name
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)]


def tables(page, fragment: str, tmp_path) -> dict[str, object]:
    """The statuses and speed tables' cells, the note and the matrix's visible rows, after the page's script ran."""
    dom, stderr = dump_dom(page, fragment, tmp_path / "profile")
    assert '<div id="speed-table">' in dom, stderr[-2000:]
    out: dict[str, object] = {name: cells(dom, name) for name in ("statuses-table", "outcome-table", "speed-table")}
    notes = re.findall(r'<p class="note filtered-note"( hidden="")?>([^<]*)</p>', dom)
    assert len(notes) == 2
    out["note"] = None if notes[0][0] else html.unescape(notes[0][1])
    matrix = re.search(r'<table class="matrix" id="matrix">.*?<tbody>(.*?)</tbody>', dom, re.S).group(1)
    out["shown"] = {name for attributes, name in re.findall(r'<tr([^>]*)><td[^>]*>([^<]*)</td>', matrix)
                    if "display: none" not in attributes}
    return out


def statuses(df: pd.DataFrame, order: list[str]) -> list[list[str]]:
    table = summary.status_table(df, order)
    return [[str(v) for v in row] for row in table.itertuples(index=False)]


def pairs_tables(df: pd.DataFrame, order: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    """The outcome and speed tables as the script must write them over the runs of ``df``: each pair scored on
    its own measure, unique solves over all pairs."""
    scores = {}
    for pair in order:
        runs = df[df["pair"] == pair]
        if MEASURES[pair] == "cpu":
            runs = runs.assign(wall_s=runs["cpu_s"])  # the pair's time is its CPU time
        scores[pair] = metrics.pair_table(runs).iloc[0]
    solved = metrics.instance_times(df).groupby("instance_key")["solved"].sum()  # pairs that solved each instance
    def best(pair: str) -> str:  # the winner of the pair's measure group
        return min((p for p in order if MEASURES[p] == MEASURES[pair]),
                   key=lambda p: (-scores[p]["solved"], scores[p]["sgm_s"], p))

    outcome, rows = [], []
    for pair in order:
        s = scores[pair]
        mine = metrics.instance_times(df[df["pair"] == pair])
        unique = int((mine["solved"] & (mine["instance_key"].map(solved) == 1)).sum())
        outcome.append([pair, *(str(int(s[c])) for c in OUTCOME_COLUMNS[1:-1] if c in s.index), str(unique)])
        cell = {"pair": pair, "measure": MEASURES[pair], "sgm_s [95% CI]": f"{format_number(s['sgm_s'])} [{FILTERED}]",
                "× winner [95% CI]": f"{format_number(s['sgm_s'] / scores[best(pair)]['sgm_s'])} [{FILTERED}]",
                "par2_s": format_number(s["par2_s"]), "par10_s": format_number(s["par10_s"])}
        rows.append([cell.get(c, FILTERED) for c in SPEED_COLUMNS])
    return outcome, rows


def test_unfiltered_the_tables_are_the_reports_own(report, tmp_path):
    page, df, pairs = report
    order = list(pairs["pair"])
    got = tables(page, "", tmp_path)
    assert got["statuses-table"] == statuses(df, order) and got["note"] is None
    assert got["shown"] == {"e1", "e2", "h1", "h2"}
    written = page.read_text(encoding="utf-8")
    full = cells(written, "speed-table")  # the page as written: bootstrap intervals
    assert got["speed-table"] == full and len(full) == 3 and "[" in full[0][2] and FILTERED not in str(full)
    assert got["outcome-table"] == cells(written, "outcome-table") == pairs_tables(df, order)[0]


@pytest.mark.parametrize("fragment, kept", [
    ("#f=hard", "hard"), ("#size=15x15", "15x15"), ("#s=timeout", "timeout"), ("#s=memout", "memout"),
])
def test_a_filter_recomputes_statuses_and_speed_over_the_instances_shown(report, tmp_path, fragment, kept):
    page, df, pairs = report
    order = list(pairs["pair"])
    names = INSTANCES[kept]
    visible = df[df["instance"].isin(names)]
    got = tables(page, fragment, tmp_path)
    assert got["shown"] == names
    assert got["statuses-table"] == statuses(visible, order)
    assert (got["outcome-table"], got["speed-table"]) == pairs_tables(visible, order)
    assert got["note"].startswith(f"Recomputed over {len(names)} of 4 instances")


def test_the_filters_combine_and_each_pair_keeps_its_measure(report, tmp_path):
    page, df, pairs = report
    got = tables(page, "#f=hard&size=15x15", tmp_path)  # h2 only: A solved it in 4.0 s wall, 1.25 s CPU
    assert got["shown"] == {"h2"}
    rows = {row[0]: row for row in got["speed-table"]}
    column = SPEED_COLUMNS.index("par2_s")
    assert rows[A][column] == "1.25"  # A is measured in CPU time
    assert rows[B][column] == "20"  # B's memout: 2 × the 10 s limit
    ratio = SPEED_COLUMNS.index("× winner [95% CI]")  # C against A (its CPU group's winner), B alone by wall
    assert rows[A][ratio] == f"1.00 [{FILTERED}]" and rows[C][ratio] == f"2.00 [{FILTERED}]"  # 2.5 / 1.25
    assert rows[B][ratio] == f"1.00 [{FILTERED}]" and rows[B][SPEED_COLUMNS.index("measure")] == "wall"
    assert rows[A][SPEED_COLUMNS.index("tie")] == FILTERED
    total = got["statuses-table"][-1]
    assert total[0] == summary.TOTAL and total[1:4] == ["3", "1", "2"]  # runs, instances, solved (A and C)


def test_an_incomplete_campaign_ranks_the_filtered_speed_on_complete_instances_only(tmp_path):
    stored = [r for r in RUNS if not (r["instance"] == "h2" and r["pair"] == B)]  # B's h2 run is missing
    store = make_store(tmp_path / "r", stored, plan=RUNS)
    written = write_report(store, tmp_path / "rep")
    df, order = load(store), list(pd.read_csv(written["pairs.csv"])["pair"])
    got = tables(written["index.html"], "#f=hard", tmp_path)
    assert got["shown"] == {"h1", "h2"}
    assert got["statuses-table"] == statuses(df[df["instance"].isin({"h1", "h2"})], order)  # every stored run
    assert (got["outcome-table"], got["speed-table"]) == pairs_tables(df[df["instance"] == "h1"], order)  # ranked
    assert "over the 1 of them every pair has results on" in got["note"]


def test_the_script_rounds_numbers_as_the_report_does(tmp_path):
    values = [0.0, 5e-05, 0.000123, 0.0123, 0.5, 0.5625, 0.999, 0.99951171875, 1.0, 1.005, 1.125, 2.675, 9.99, 10.0,
              10.25, 10.75, 99.95, 122.5, 123.5, 999.4, 1234.5, 1235.5, 12345.0, 1e6]  # ties go to even in Python
    page = tmp_path / "fmt.html"
    page.write_text(f'<html><body><pre id="out"></pre><script>{FORMAT}\ndocument.getElementById("out")'
                    f".textContent=JSON.stringify({json.dumps(values)}.map(fmt));</script></body></html>",
                    encoding="utf-8")
    dom, stderr = dump_dom(page, "", tmp_path / "profile")
    out = re.search(r'<pre id="out">(.*?)</pre>', dom)
    assert out, stderr[-2000:]
    assert json.loads(html.unescape(out.group(1))) == [format_number(v) for v in values]
