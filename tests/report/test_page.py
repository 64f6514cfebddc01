"""What the report's page and summary tell a reader: a loaded machine, every section in the menu, columns in words."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
import pytest

from handstore import make_store, run
from harness.report import metrics
from harness.report.render import write_report
from harness.report.tables import column_label, html_table, markdown_table
from harness.store import ResultsStore

PAIRS = ["cpsat/placement", "sat[encoding=totalizer,solver=cadical195]/cell"]


def _runs(sizes: dict[str, tuple[int, int]], repeat: bool = False) -> list[dict]:
    runs = []
    for i, (inst, (rows, cols)) in enumerate(sizes.items()):
        for factor, pair in zip((1.0, 0.5), PAIRS):
            runs.append(run(inst, pair, "sat", 0.1 * (i + 1) * factor, rows=rows, cols=cols))
    if repeat:
        runs.append(run(next(iter(sizes)), PAIRS[0], "sat", 0.3, repetition=2))
    return runs


def _session(load: float, cores: int, started: str = "2026-01-01T00:00:00+00:00") -> dict:
    return {"started_at": started, "host": "testhost", "cpu": "test CPU", "cores": cores, "memory_gib": 8.0,
            "kernel": "6.1", "os": "Linux", "python": "3.11", "load_avg": [load, load, load],
            "battlebench": "0", "commit": "abc"}


def _report(tmp_path: Path, sessions: list[dict], runs: list[dict] | None = None) -> tuple[str, str]:
    store = make_store(tmp_path / "results", runs or _runs({"a": (6, 6), "b": (8, 8)}))
    with ResultsStore(store) as s:
        for session in sessions:
            s.add_session(session)
    out = tmp_path / "report"
    write_report(store, out)
    return (out / "index.html").read_text(encoding="utf-8"), (out / "summary.md").read_text(encoding="utf-8")


# -- a. wall times from a loaded machine ---------------------------------------------------------------------


def test_a_loaded_machine_is_named_in_the_summary_and_the_page(tmp_path):
    page, summary = _report(tmp_path, [_session(3.5, 4)])  # 3.5 > 4 / 2
    warning = re.search(r"> \*\*(Loaded machine:.*?)\*\*", summary)
    assert warning, summary[:2000]
    text = warning.group(1)
    assert "load 3.5 on 4 cores" in text and "CPU" in text and "half" not in text
    assert "0.5 × its cores" in text  # the rule is said
    assert summary.index("Loaded machine") < summary.index("**Headline.**")  # before the headline: seen first
    assert 'id="loaded"' in page and html.escape("load 3.5 on 4 cores") in page
    assert page.index('id="loaded"') < page.index('id="headline"')


def test_a_quiet_machine_or_no_record_gives_no_warning(tmp_path):
    page, summary = _report(tmp_path / "quiet", [_session(2.0, 4)])  # exactly half: not above it
    assert "Loaded machine" not in summary and 'id="loaded"' not in page
    page, summary = _report(tmp_path / "old", [])  # a store from before sessions were recorded
    assert "Loaded machine" not in summary and 'id="loaded"' not in page


def test_only_the_loaded_sessions_are_named(tmp_path):
    _, summary = _report(tmp_path, [_session(0.2, 2, "2026-01-01T00:00:00+00:00"),
                                    _session(1.5, 2, "2026-01-02T00:00:00+00:00")])
    text = re.search(r"> \*\*(Loaded machine:.*?)\*\*", summary).group(1)
    assert "in 1 of 2 sessions" in text and "2026-01-02" in text and "2026-01-01" not in text


# -- b. the section menu lists every section ---------------------------------------------------------------


def _menu_and_sections(page: str) -> tuple[list[str], list[str]]:
    nav = re.search(r"<nav[^>]*>(.*?)</nav>", page, re.S).group(1)
    return re.findall(r'href="#([^"]+)"', nav), re.findall(r'<h2 id="([^"]+)"', page)


@pytest.mark.parametrize("runs, present, absent", [
    (_runs({"a": (6, 6), "b": (8, 8)}, repeat=True), {"sizes", "repetitions"}, set()),
    (_runs({"a": (6, 6), "b": (6, 6)}), set(), {"sizes", "repetitions"}),
])
def test_the_menu_links_every_section_in_page_order(tmp_path, runs, present, absent):
    page, _ = _report(tmp_path, [], runs)
    menu, sections = _menu_and_sections(page)
    assert menu == sections  # every section, none twice, none that is not there, in page order
    assert {"pairs", "matrix-section", "failures", "disagreements", "pivots", "best-of", "virtual-best",
            "figures", "campaign", "files"} | present <= set(menu)
    assert not absent & set(menu)
    assert page.index("<nav") < page.index('<h2 id="pairs"')  # the menu is at the top


# -- c. column names are words -------------------------------------------------------------------------------


@pytest.mark.parametrize("name, label", [
    ("sgm_s", "shifted geo. mean (s)"), ("n_solved", "n solved"), ("solved", "solved"),
    ("cpu_median_s", "median CPU (s)"), ("median_peak_rss_mb", "median peak memory (MB)"),
    ("sgm_s@10x10", "shifted geo. mean (s), 10x10"), ("solved@4x4", "solved, 4x4"), ("gap_pct", "gap (%)"),
    ("some_new_s", "some new (s)"),
    # pairs, backends and strategies are names, never spelt out
    ("cpsat[branching=long-first,lazy_lp=false]/placement", "cpsat[branching=long-first,lazy_lp=false]/placement"),
    ("dp/deployments", "dp/deployments"), ("hunt-target", "hunt-target"),
])
def test_column_label(name, label):
    assert column_label(name) == label


def _headers(page: str) -> list[str]:
    return [html.unescape(h.replace("<wbr>", "")) for h in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", page, re.S)]


def test_the_reports_tables_show_words_and_its_csv_files_identifiers(tmp_path):
    page, summary = _report(tmp_path, [])
    headers = set(_headers(page))
    identifier = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)+(@\S+)?")
    assert not [h for h in headers if identifier.fullmatch(h)], headers
    for words in ("shifted geo. mean (s) [95% CI]", "PAR-2 (s)", "median CPU (s)", "unique solves",
                  "total CPU (s)", "best formulation", "runner-up", "shifted geo. mean (s)"):
        assert words in headers, words
    md_headers = {cell.strip() for line in summary.splitlines() if line.startswith("| ")
                  for cell in line.strip("|").split(" | ")}
    assert "PAR-2 (s)" in md_headers and "unique solves" in md_headers
    assert "par2_s" not in md_headers and "unique_solves" not in md_headers and "sgm_s" not in md_headers
    pairs = pd.read_csv(tmp_path / "report" / "pairs.csv")  # the CSV files keep the identifiers
    assert list(pairs.columns) == metrics.PAIR_COLUMNS and "par2_s" in pairs.columns


def test_the_table_functions_relabel_headers_but_format_by_identifier():
    df = pd.DataFrame({"pair": ["a"], "par2_s": [0.012345]})
    assert markdown_table(df, {"par2_s": ".2e"}).splitlines()[0] == "| pair | PAR-2 (s) |"
    assert "1.23e-02" in markdown_table(df, {"par2_s": ".2e"})
    assert _headers(html_table(df)) == ["pair", "PAR-2 (s)"]
