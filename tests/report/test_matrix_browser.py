"""The report's matrix script in a real (headless) browser: filters and sorting from the page's own link."""

from __future__ import annotations

import re

import pytest

from browser import dump_dom, needs_chromium
from handstore import BAD_BOARD, make_store, run

from harness.report.render import write_report

pytestmark = needs_chromium
A, B = "sat/cell", "cpsat/placement"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    runs = [run("alpha", A, "sat", 0.5), run("alpha", B, "sat", 2.0),
            run("beta", A, "sat", 3.0), run("beta", B, "timeout", 10.5),
            run("gamma", A, "sat", 1.0), run("gamma", B, "wrong", 0.1, boards=[BAD_BOARD]),
            run("delta", A, "sat", 0.2), run("delta", B, "sat", 0.4)]
    write_report(make_store(tmp / "r", runs), tmp / "rep")
    return tmp / "rep" / "index.html"


def shown(page, fragment: str, tmp_path) -> list[str]:
    """The matrix's visible instance names, in order, after the page's script ran with ``#fragment``."""
    dom, stderr = dump_dom(page, fragment, tmp_path / "profile")
    body = re.search(r'<table class="matrix" id="matrix">.*?<tbody>(.*?)</tbody>', dom, re.S)
    assert body, stderr[-2000:]
    rows = re.findall(r'<tr([^>]*)><td[^>]*>([^<]*)</td>', body.group(1))
    return [name for attributes, name in rows if "display: none" not in attributes]


def test_the_script_filters_by_name_and_by_kind_of_row(page, tmp_path):
    assert shown(page, "", tmp_path) == ["alpha", "beta", "delta", "gamma"]
    assert shown(page, "#q=^(al|de)", tmp_path) == ["alpha", "delta"]  # a regular expression
    assert shown(page, "#k=fail", tmp_path) == ["beta"]
    assert shown(page, "#k=wrong", tmp_path) == ["gamma"]
    assert shown(page, "#k=differ", tmp_path) == ["beta", "gamma"]  # one pair solved, one did not


def test_the_script_sorts_a_pair_column_by_time_unsolved_last(page, tmp_path):
    # columns: instance, then the pairs best first (sat/cell wins: 4/4 solved)
    assert shown(page, "#sort=1", tmp_path) == ["delta", "alpha", "gamma", "beta"]  # 0.2, 0.5, 1.0, 3.0 s
    # cpsat/placement: delta 0.4 s, alpha 2.0 s, then the unsolved (wrong 0.1 s, timeout 10.5 s) last
    assert shown(page, "#sort=2", tmp_path) == ["delta", "alpha", "gamma", "beta"]
    assert shown(page, "#sort=2&dir=desc", tmp_path) == ["beta", "gamma", "alpha", "delta"]
    assert shown(page, "#sort=0&dir=desc", tmp_path) == ["gamma", "delta", "beta", "alpha"]
