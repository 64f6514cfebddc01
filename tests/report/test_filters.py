"""The run data the page's filters recompute from: each run's fields, each pair's measure, the blob's escaping."""

from __future__ import annotations

import json
import re

import pytest
from handstore import make_store, run

from harness.report import filters, summary
from harness.report.data import family, load, size

A, B = "sat/cell", "cpsat/placement"


def frame(tmp_path, runs=None):
    return load(make_store(tmp_path / "r", runs or [
        run("e1", A, "sat", 0.5, instance_path="instances/easy/e1.toml", rows=4, cols=6),
        run("e1", B, "timeout", 10.4, instance_path="instances/easy/e1.toml", rows=4, cols=6),
        run("h1", A, "memout", 2.0, instance_path="h1.toml", rows=15, cols=15),
        run("h1", B, "sat", 3.0, instance_path="h1.toml", rows=15, cols=15),
    ]))


def test_an_instances_family_is_its_directory_and_its_size_rows_x_cols(tmp_path):
    df = frame(tmp_path).sort_values(["instance", "pair"])
    assert list(family(df)) == ["easy", "easy", "", ""]  # a file with no directory: no family
    assert list(size(df)) == ["4x6", "4x6", "15x15", "15x15"]
    assert (family(df).index == df.index).all()


def test_the_blob_holds_every_run_and_each_pairs_measure(tmp_path):
    df = frame(tmp_path)
    table = summary.status_table(df, [A, B])
    data = filters.run_data(df, frozenset({"instances/easy/e1.toml"}), pairs=[A, B],
                            tables={"speed-table": ["pair", "par2_s"]}, summary=table, measures={A: "cpu"},
                            shift_s=0.5)
    assert data["measures"] == {A: "cpu", B: "wall"}  # wall where none is declared
    assert data["shift_s"] == 0.5 and data["pairs"] == [A, B] and data["tables"] == {"speed-table": ["pair", "par2_s"]}
    assert data["summary"]["pairs"] == [A, B, summary.TOTAL] and data["summary"]["total"] == summary.TOTAL
    assert data["summary"]["columns"] == summary.SUMMARY_COLUMNS
    assert len(data["runs"]) == 4 and all(tuple(r) == filters.RUN_FIELDS for r in data["runs"])
    timeout = next(r for r in data["runs"] if r["status"] == "timeout")
    assert timeout == {"pair": B, "instance": "instances/easy/e1.toml", "name": "e1", "family": "easy", "rows": 4,
                       "cols": 6, "status": "timeout", "termination": "timeout", "wall_s": 10.4,
                       "cpu_s": pytest.approx(10.4), "time_limit_s": 10, "ranked": True}
    assert not next(r for r in data["runs"] if r["name"] == "h1")["ranked"]


def test_a_measure_is_cpu_or_wall(tmp_path):
    assert filters.measures_of([A, B]) == {A: "wall", B: "wall"}
    with pytest.raises(ValueError, match="cpu or wall"):
        filters.measures_of([A], {A: "shots"})


def test_the_blob_cannot_end_its_script_and_has_no_nan(tmp_path):
    df = frame(tmp_path, [run("x</script><b>", A, "error", None)])  # a name that would close the script
    table = summary.status_table(df)
    data = filters.run_data(df, frozenset(), pairs=[A], tables={}, summary=table)
    page = filters.blob_html(data)
    blob = re.search(r'<script type="application/json" id="bb-runs">(.*?)</script>', page, re.S).group(1)
    assert "<" not in blob
    back = json.loads(blob)  # strict JSON: no NaN for the missing times
    assert back["runs"][0]["name"] == "x</script><b>" and back["runs"][0]["wall_s"] is None
