"""export(): CSV and Parquet files that read back equal to the store's DataFrame."""

from __future__ import annotations

import pandas as pd
import pandas.testing as pdt
import pytest

from harness.core.record import COLUMNS, dumps, empty_record
from harness.errors import InputError, UsageError
from harness.store import FORMATS, ResultsStore, export, load


def record(i: int, **fields) -> dict:
    rec = empty_record()
    rec.update(
        run_id=f"run-{i}", campaign="demo", config_hash="c0ffee", instance=f"inst{i}",
        rows=8, cols=9, pair="cpsat[workers=1]/cell", backend="cpsat", formulation="cell",
        options=dumps({"workers": 1}), task="solve", question="count-2", seed=i, repetition=i % 2,
        time_limit_s=2.5, memory_limit_mb=2048, status="sat", answer="sat",
        exhausted=bool(i % 2), termination="completed", verdict="ok", count=2,
        complete=True, build_s=0.1 + 0.2, solve_s=1e-9, wall_s=123456.789, overshoot_s=0.0,
        peak_rss_mb=87.5, variables=2**40, worker_pid=4242, started_at="2026-01-02T03:04:05Z",
        versions=dumps({"python": "3.11"}), boards=dumps([["~S~", "~~~"], ["S~~", "~~~"]]),
        verdicts=dumps(["ok", "ok"]),
    )
    rec.update(fields)
    return rec


@pytest.fixture
def filled(tmp_path):
    """A store with awkward values: nulls, quotes, commas, newlines, unicode, 'NA' text."""
    with ResultsStore(tmp_path) as s:
        s.add(record(0))
        s.add(record(1, error='Traceback:\n  x = "a, b"\nValueError', detail="ünïcode ✓ 'q'",
                      instance="NA", host="None", verdict="null"))
        s.add(record(2, exhausted=None, complete=None, rows=None, wall_s=None,
                      options=None, boards=None, status="timeout"))
        expected = s.dataframe()
    return tmp_path, expected


def test_csv_round_trip(filled):
    directory, expected = filled
    path = export(directory, "csv")
    assert path == directory / "results.csv"
    pdt.assert_frame_equal(load(path), expected)
    assert list(pd.read_csv(path).columns) == list(COLUMNS)


def test_parquet_round_trip_with_plain_pandas(filled):
    directory, expected = filled
    path = export(directory, "parquet")
    assert path == directory / "results.parquet"
    pdt.assert_frame_equal(pd.read_parquet(path), expected)
    pdt.assert_frame_equal(load(path), expected)


def test_values_survive_exactly(filled):
    directory, _ = filled
    back = load(export(directory, "csv"))
    row = back.set_index("run_id").loc["run-1"]
    assert row["error"] == 'Traceback:\n  x = "a, b"\nValueError'
    assert row["instance"] == "NA" and row["host"] == "None" and row["verdict"] == "null"
    assert row["build_s"] == 0.1 + 0.2 and row["solve_s"] == 1e-9
    assert row["variables"] == 2**40
    assert back["exhausted"].tolist() == [False, True, pd.NA]


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_to_out_path_and_empty_store(tmp_path, fmt):
    ResultsStore(tmp_path / "runs").close()
    out = tmp_path / f"elsewhere.{fmt}"
    assert export(tmp_path / "runs", fmt.upper(), out) == out
    back = load(out)
    assert len(back) == 0 and list(back.columns) == list(COLUMNS)
    assert back["complete"].dtype == "boolean" and back["rows"].dtype == "Int64"
    assert not (tmp_path / "runs" / f"results.{fmt}").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_unknown_format_is_usage_error(tmp_path):
    ResultsStore(tmp_path).close()
    with pytest.raises(UsageError) as err:
        export(tmp_path, "xlsx")
    assert "xlsx" in str(err.value) and "csv" in str(err.value) and "parquet" in str(err.value)
    assert all(p.name.startswith("results.sqlite") for p in tmp_path.iterdir())


def test_export_without_store_is_input_error(tmp_path):
    with pytest.raises(InputError, match="no results store here"):
        export(tmp_path / "missing", "csv")


def test_load_rejects_a_csv_without_the_columns(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(InputError) as err:
        load(path)
    assert str(path) in str(err.value) and "run_id" in str(err.value)


def test_csv_reads_empty_text_as_null(tmp_path):
    """The one loss of CSV: an empty string is indistinguishable from a null."""
    with ResultsStore(tmp_path) as s:
        s.add(record(0, detail=""))
    assert pd.isna(load(export(tmp_path, "csv"))["detail"].iloc[0])
    assert load(export(tmp_path, "parquet"))["detail"].iloc[0] == ""


def test_a_tasks_own_columns_are_exported_and_read_back(tmp_path):
    with ResultsStore(tmp_path) as s:
        s.add_columns({"digits": "INTEGER"})
        s.add({**record(0), "digits": 2})
        s.add(record(1))
        expected = s.dataframe()
    back = load(export(tmp_path, "csv"))
    assert list(back.columns) == [*COLUMNS, "digits"]
    assert back["digits"].fillna(-1).astype(int).tolist() == [2, -1]
    pdt.assert_frame_equal(back[list(COLUMNS)], expected[list(COLUMNS)])


def test_an_export_from_before_the_question_column_reads_as_the_store_does(tmp_path):
    with ResultsStore(tmp_path) as s:
        s.add(record(0))
        s.add(record(1, task="count", question="deployments"))
    path = export(tmp_path, "csv")
    old = pd.read_csv(path, keep_default_na=False, na_values=[""])
    old = old.assign(task=old["question"]).drop(columns=["question"])  # as schema 4 exported it
    old.to_csv(path, index=False)
    back = load(path)
    assert back["task"].tolist() == ["solve", "count"] and back["question"].tolist() == ["count-2", "deployments"]
