"""write_report: HTML, Markdown, CSV and figure files (PNG, SVG, PDF) from a hand-built store; no solver needed."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from handstore import make_store, run
from harness.report import metrics, plots
from harness.report.data import load
from harness.report.headline import headline
from harness.report.render import write_report
from harness.report.tables import format_number, markdown_table
import procs

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ["cpsat/placement", "sat[encoding=totalizer,solver=cadical195]/cell", "mip/ship-pairs"]
SIZES = {"a6": (6, 6), "b8": (8, 8), "c10": (10, 12), "d12": (12, 12), "e15": (15, 15)}
# the store's runs cover several board sizes, so the per-size tables are written too
TABLE_FILES = ([f"{name}.csv" for name in metrics.TABLES] + ["size_winners.csv", "size_growth.csv"]
               + ["matrix.csv", "failures.csv", "completeness.csv", "statuses.csv"])
PNG_FILES = [f"{key}.png" for key in plots.FIGURES]
FIGURE_FILES = [f"{key}.{fmt}" for key in plots.FIGURES for fmt in ("png", "svg", "pdf")]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def three_pair_runs() -> list[dict]:
    runs = []
    for i, (inst, (rows, cols)) in enumerate(SIZES.items()):
        base = 0.05 * (i + 1) ** 2
        unsat = inst == "c10"
        for factor, pair in zip((1.0, 0.4, 6.0), PAIRS):
            status = "unsat" if unsat else "sat"
            wall = base * factor
            if pair == "mip/ship-pairs" and inst == "e15":
                status, wall = "timeout", 10.3
            runs.append(run(inst, pair, status, wall, rows=rows, cols=cols))
    # repetitions of one pair on one instance
    runs.append(run("b8", PAIRS[0], "sat", 0.3, repetition=2, rows=8, cols=8))
    runs.append(run("b8", PAIRS[0], "memout", 2.0, repetition=3, rows=8, cols=8))
    return runs


@pytest.fixture
def store(tmp_path) -> Path:
    return make_store(tmp_path / "results", three_pair_runs(), campaign="handcamp")


def test_report_writes_every_file(store, tmp_path):
    out = tmp_path / "report"
    written = write_report(store, out)
    assert list(written) == ["index.html", "summary.md", *TABLE_FILES, *FIGURE_FILES]
    for name, path in written.items():
        assert path == out / name and path.is_file() and path.stat().st_size > 0, name
    for name in PNG_FILES:
        assert (out / name).read_bytes().startswith(PNG_MAGIC)


def test_every_figure_is_written_as_svg_and_pdf_too_and_linked(store, tmp_path):
    """Issue 47 (Benchopt #767): vector files beside each PNG, valid, linked from the page and the Markdown."""
    import xml.etree.ElementTree as ET

    out = tmp_path / "report"
    write_report(store, out)
    page, summary = (out / "index.html").read_text(encoding="utf-8"), (out / "summary.md").read_text(encoding="utf-8")
    for key in plots.FIGURES:
        assert (out / f"{key}.pdf").read_bytes().startswith(b"%PDF-")
        root = ET.parse(out / f"{key}.svg").getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and len(root) > 0
        for name in (f"{key}.svg", f"{key}.pdf"):
            assert f'<a href="{name}">{name}</a>' in page and f"[{name}]({name})" in summary
    assert page.count("data:image/png;base64,") == len(plots.FIGURES)  # the PNG is still the one inlined


def test_reporting_the_same_store_again_gives_the_same_figure_files(store, tmp_path):
    """No creation date in the SVG and PDF, no random SVG ids: a report rebuilt from its store changes nothing."""
    first, second = write_report(store, tmp_path / "one"), write_report(store, tmp_path / "two")
    names = [n for n in first if n.rsplit(".", 1)[-1] in ("png", "svg", "pdf")]
    assert len(names) == 3 * len(plots.FIGURES)
    assert [first[n].read_bytes() for n in names] == [second[n].read_bytes() for n in names]


def test_index_html_is_self_contained_and_complete(store, tmp_path):
    out = tmp_path / "report"
    write_report(store, out)
    page = (out / "index.html").read_text(encoding="utf-8")
    text = headline(load(store))
    assert html.escape(text) in page
    assert page.index(html.escape(text)) < page.index("<table")  # the headline comes first
    for pair in PAIRS:
        assert html.escape(pair) in page, pair
    images = re.findall(r'<img [^>]*src="([^"]*)"', page)
    assert len(images) == len(plots.FIGURES)
    assert all(src.startswith("data:image/png;base64,") for src in images)
    for key in plots.FIGURES:
        assert f'id="fig-{key}"' in page
    assert page.count("data:image/png;base64,") == len(plots.FIGURES)
    assert not re.search(r'(src|href)\s*=\s*"?(https?:)?//', page, re.I)
    assert "<link" not in page.lower()
    # the matrix's sorting and filtering and the filters' recomputing are inline script and one inline JSON
    # blob of the runs: no external source, no fetch
    assert re.findall(r"<script[^>]*>", page, re.I) == [
        '<script type="application/json" id="bb-runs">', "<script>", "<script>"]
    assert "fetch(" not in page and "XMLHttpRequest" not in page
    for word in ("handcamp", "hand0001", "testhost", "PAR-2", "PAR-10", "SGM", "VBS", "report generated"):
        assert word in page, word
    assert str(len(three_pair_runs())) + " runs" in page
    assert "Repetitions" in page  # b8 ran three times for one pair
    # section order: headline, pairs, matrix, failures, disagreements, pivots, best-of, virtual best,
    # repetitions, figures
    order = [page.index(s) for s in ('id="headline"', 'id="pairs"', 'id="matrix-section"', 'id="failures"',
                                     'id="disagreements"', 'id="pivots"', 'id="best-of"',
                                     'id="virtual-best"', 'id="repetitions"', 'id="figures"')]
    assert order == sorted(order)


def test_summary_md_has_markdown_tables_with_every_pair(store, tmp_path):
    out = tmp_path / "report"
    write_report(store, out)
    text = (out / "summary.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert headline(load(store)) in text
    header = lines.index(next(line for line in lines if line.startswith("| pair | runs |")))
    assert re.fullmatch(r"\|(---:?\|)+", lines[header + 1])
    rows = lines[header + 2: header + 2 + len(PAIRS)]
    assert [r.split(" | ")[0].removeprefix("| ") for r in rows] == list(
        metrics.pair_table(load(store))["pair"])
    assert all(r.count("|") == lines[header].count("|") for r in rows)
    assert "| formulation | cpsat | mip | sat |" in text  # the pivots
    for name in PNG_FILES:
        assert f"]({name})" in text
    assert "0.30000000000000004" not in text  # rounded


def test_csv_tables_read_back(store, tmp_path):
    out = tmp_path / "report"
    write_report(store, out)
    pairs = pd.read_csv(out / "pairs.csv")
    assert sorted(pairs["pair"]) == sorted(PAIRS)
    assert list(pairs.columns) == metrics.PAIR_COLUMNS
    expected = metrics.pair_table(load(store))
    assert list(pairs["pair"]) == list(expected["pair"])
    np.testing.assert_allclose(pairs["sgm_s"], expected["sgm_s"].astype(float))
    assert int(pairs.loc[pairs["pair"] == "mip/ship-pairs", "timeout"].iloc[0]) == 1
    vbs = pd.read_csv(out / "virtual_best.csv")
    assert sorted(vbs["instance"]) == sorted(SIZES)
    reps = pd.read_csv(out / "repetitions.csv")
    assert list(reps["pair"]) == [PAIRS[0]] and list(reps["repetitions"]) == [3]


def test_single_pair_store(tmp_path):
    runs = [run(inst, "cpsat/placement", "sat", 0.1 * (i + 1), rows=r, cols=c)
            for i, (inst, (r, c)) in enumerate(SIZES.items())]
    store = make_store(tmp_path / "one", runs)
    out = tmp_path / "report"
    # an earlier report in the same directory had every figure
    write_report(make_store(tmp_path / "three", three_pair_runs()), out)
    written = write_report(store, out)
    assert "cactus.png" in written and "size.png" in written
    assert "profile.png" not in written and "scatter.png" not in written
    assert not (out / "scatter.png").exists() and not (out / "profile.png").exists()  # stale ones gone
    assert {f"{key}.{fmt}" for key in ("scatter", "profile") for fmt in ("svg", "pdf")}.isdisjoint(
        p.name for p in out.iterdir())  # their vector files too
    assert (out / "cactus.svg").is_file() and (out / "size.pdf").is_file()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 2
    assert "not drawn" in page and "not drawn" in (out / "summary.md").read_text(encoding="utf-8")
    assert "cpsat/placement" in page
    assert list(pd.read_csv(out / "pairs.csv")["pair"]) == ["cpsat/placement"]


def test_empty_store(tmp_path):
    store = make_store(tmp_path / "empty", [])
    written = write_report(store, tmp_path / "report")
    assert not [n for n in written if n.endswith((".png", ".svg", ".pdf"))]
    page = written["index.html"].read_text(encoding="utf-8")
    assert "No runs in these results." in page and "not drawn" in page
    assert "data:image/png" not in page
    assert pd.read_csv(written["pairs.csv"]).empty


def test_all_timeouts_store_skips_profile(tmp_path):
    runs = [run(inst, pair, "timeout", 10.2, rows=r, cols=c)
            for inst, (r, c) in SIZES.items() for pair in PAIRS[:2]]
    written = write_report(make_store(tmp_path / "slow", runs), tmp_path / "report")
    assert "profile.png" not in written and "cactus.png" not in written
    assert "scatter.png" in written and "size.png" in written


def test_markdown_table():
    df = pd.DataFrame({
        "pair": ["a|b", "c"],
        "runs": pd.array([3, None], dtype="Int64"),
        "t_s": [0.012345, float("nan")],
        "big": [12345.6, 2.5],
    })
    text = markdown_table(df)
    assert text.splitlines() == [
        "| pair | runs | t (s) | big |",
        "|---|---:|---:|---:|",
        "| a\\|b | 3 | 0.0123 | 12,346 |",
        "| c | – | – | 2.50 |",
    ]
    assert markdown_table(df, ".1f").splitlines()[2] == "| a\\|b | 3 | 0.0 | 12345.6 |"
    assert markdown_table(df, {"t_s": ".2e"}).splitlines()[2] == "| a\\|b | 3 | 1.23e-02 | 12,346 |"
    assert markdown_table(pd.DataFrame()) == ""
    assert markdown_table(df.iloc[:0]).count("\n") == 1  # header and rule only


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (0.5, "0.500"), (0.012345, "0.0123"), (1.0, "1.00"), (3.14159, "3.14"),
    (42.42, "42.4"), (420.4, "420"), (4200.4, "4,200"), (60.0, "60"), (7, "7"),
    (float("nan"), "–"), (None, "–"), (pd.NA, "–"), (float("inf"), "∞"),
])
def test_format_number(value, text):
    assert format_number(value) == text


BLOCKER = r"""
import sys
BLOCKED = ("ortools", "highspy", "pyomo", "pysat", "harness.backends", "harness.runner")

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"blocked by the test: {name}")
        return None

sys.meta_path.insert(0, Blocker())
for name in BLOCKED:
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        raise SystemExit(f"the blocker let {name} through")

from harness.report.render import write_report
written = write_report(sys.argv[1], sys.argv[2])
loaded = [m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED)]
assert not loaded, loaded
print(len(written))
"""


def test_report_needs_no_solver_nor_runner(store, tmp_path):
    out = tmp_path / "report"
    proc = procs.run([sys.executable, "-W", "error", "-c", BLOCKER, str(store), str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(2 + len(TABLE_FILES) + len(FIGURE_FILES))
    assert (out / "index.html").is_file() and (out / "cactus.png").is_file()


def test_scatter_axes_fit_the_data_and_mark_the_limit_only_when_reached(tmp_path):
    fast = [run(f"i{k}", p, "sat", t * k, time_limit_s=60.0) for k in (1, 2, 3) for p, t in
            (("a/cell", 0.01), ("b/cell", 0.03))]
    fig = plots.scatter_vs_best(load(make_store(tmp_path / "fast", fast)), "a/cell")
    ax = fig.axes[0]
    assert ax.get_ylim()[1] < 1.0 and ax.get_xlim()[1] < 1.0  # not stretched to the 60 s limit
    assert not [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    slow = fast + [run("i4", "a/cell", "sat", 0.05, time_limit_s=60.0),
                   run("i4", "b/cell", "timeout", 61.0, time_limit_s=60.0)]
    fig = plots.scatter_vs_best(load(make_store(tmp_path / "slow", slow)), "a/cell")
    ax = fig.axes[0]
    assert ax.get_ylim()[1] >= 60.0  # an unsolved run sits on the limit: it is shown, and marked
    assert [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]


def test_cactus_axis_ends_near_the_data_unless_a_run_reached_the_limit(tmp_path):
    fast = [run(f"i{k}", p, "sat", t * k, time_limit_s=60.0) for k in (1, 2, 3) for p, t in
            (("a/cell", 0.01), ("b/cell", 0.03))]
    ax = plots.cactus(load(make_store(tmp_path / "fast", fast))).axes[0]
    assert ax.get_xlim()[1] < 1.0
    slow = fast + [run("i4", "a/cell", "sat", 0.05, time_limit_s=60.0),
                   run("i4", "b/cell", "timeout", 61.0, time_limit_s=60.0)]
    ax = plots.cactus(load(make_store(tmp_path / "slow", slow))).axes[0]
    assert ax.get_xlim()[1] >= 60.0


def test_the_old_public_names_of_render_still_import_from_it():
    """render was split by concept; a user's section or script importing its public names still works, and gets
    the one definition of each (not a copy)."""
    from harness.report import facts, render, tables, wording

    homes = {"COLUMN_LABELS": tables, "NA": tables, "column_label": tables, "display_pairs": tables,
             "format_number": tables, "html_table": tables, "markdown_table": tables,
             "LOADED_LOAD_PER_CORE": facts, "load_warning": facts, "ranking_sentence": wording}
    assert set(homes) | {"EXTRA_TABLES", "write_report"} == set(render.__all__)
    for name, home in homes.items():
        assert getattr(render, name) is getattr(home, name), name
