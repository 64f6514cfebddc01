"""ResultsStore: schema, add without duplicates, resume, config mismatch, crash safety."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from harness.core.record import BOOL_COLUMNS, COLUMNS, dumps, empty_record
from harness.errors import InputError, StoreMismatch
from harness.store import SCHEMA_VERSION, ResultsStore

ROOT = Path(__file__).resolve().parents[2]
HASH_A = "a" * 40
HASH_B = "b" * 40


def record(i: int, **fields) -> dict:
    rec = empty_record()
    rec.update(
        run_id=f"run-{i:04d}", campaign="demo", config_hash=HASH_A, instance=f"inst{i}",
        rows=10, cols=10, pair="sat[solver=cadical195]/placement", backend="sat",
        formulation="placement", options=dumps({"solver": "cadical195"}), task="solve", question="solve",
        seed=i, repetition=0, time_limit_s=5.0, status="sat", answer="sat", exhausted=False,
        termination="completed", verdict="ok", count=1, complete=True, wall_s=0.25 + i,
        boards=dumps([["~S~", "~~~"]]), verdicts=dumps(["ok"]),
    )
    rec.update(fields)
    return rec


@pytest.fixture
def store(tmp_path):
    with ResultsStore(tmp_path / "out") as s:
        yield s


def test_creates_directory_and_schema(tmp_path):
    out = tmp_path / "a" / "b"
    ResultsStore(out).close()
    db = sqlite3.connect(out / "results.sqlite")
    info = db.execute("PRAGMA table_info(runs)").fetchall()
    assert [(r[1], r[2]) for r in info] == list(COLUMNS.items())
    assert [r[1] for r in info if r[5]] == ["run_id"]  # the only primary-key column
    meta = [r[1] for r in db.execute("PRAGMA table_info(campaign_meta)")]
    assert meta == ["key", "value"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_add_refuses_duplicates(store):
    assert store.add(record(1)) is True
    assert store.add(record(2)) is True
    assert store.add(record(1, status="timeout")) is False  # same run_id: not written
    assert len(store) == 2
    assert store.done_ids() == {"run-0001", "run-0002"}
    assert "run-0001" in store and "run-0003" not in store
    assert store.records()[0]["status"] == "sat"  # the first one stays


def test_a_lost_record_is_replaced_by_the_runs_measurement_and_never_replaces_one(store):
    lost = dict(status="lost", answer="none", verdict="none", count=0, boards=dumps([]), verdicts=dumps([]),
                termination="crash", error="lost: its Dask worker died on each of its 3 attempts (retries = 2)")
    assert store.add(record(1, **lost)) is True
    assert store.add(record(1, **lost)) is False  # lost again: nothing written
    assert store.add(record(1)) is True  # measured: in the lost one's place
    assert [r["status"] for r in store.records()] == ["sat"] and len(store) == 1
    assert store.add(record(1, **lost)) is False  # a measurement is never given up for a loss
    assert store.add(record(1, status="timeout")) is False
    assert [r["status"] for r in store.records()] == ["sat"]


def test_records_keep_column_order_insertion_order_and_json_text(store):
    for i in (3, 1, 2):
        store.add(record(i))
    recs = store.records()
    assert [r["run_id"] for r in recs] == ["run-0003", "run-0001", "run-0002"]
    assert list(recs[0]) == list(COLUMNS)
    assert recs[0]["options"] == '{"solver":"cadical195"}'
    assert recs[0]["exhausted"] == 0 and recs[0]["complete"] == 1
    assert recs[0]["detail"] is None


def test_record_missing_a_column_is_rejected(store):
    rec = record(1)
    del rec["host"]
    with pytest.raises(ValueError, match="host"):
        store.add(rec)
    with pytest.raises(ValueError, match="unknown"):
        store.add({**record(2), "colour": "red"})
    assert len(store) == 0


@pytest.mark.parametrize("field,value", [
    ("rows", "10"),  # text in an INTEGER column
    ("wall_s", "fast"),
    ("status", 3),
    ("exhausted", 2),  # booleans are 0/1
    ("options", "{not json"),
    ("run_id", None),
    ("boards", [["~"]]),  # not a scalar: must be dumps()ed
])
def test_value_of_the_wrong_type_is_rejected(store, field, value):
    with pytest.raises(ValueError):
        store.add(record(1, **{field: value}))
    assert len(store) == 0


def test_begin_records_meta_and_counts_for_resume(tmp_path):
    with ResultsStore(tmp_path) as s:
        assert s.begin("demo", HASH_A, "[campaign]\nname='demo'\n") == 0
        s.add(record(1))
        s.add(record(2))
        created = s.meta()["created_at"]
    with ResultsStore(tmp_path) as s:  # resuming writes: create=False is read-only
        assert s.begin("demo", HASH_A, "[campaign]\nname='demo'\n") == 2
        meta = s.meta()
        assert meta["campaign"] == "demo"
        assert meta["config_hash"] == HASH_A
        assert meta["config_text"] == "[campaign]\nname='demo'\n"
        assert meta["created_at"] == created  # resuming keeps the creation time
        assert s.done_ids() == {"run-0001", "run-0002"}


def test_begin_with_another_config_is_refused(tmp_path):
    out = tmp_path / "out"
    with ResultsStore(out) as s:
        s.begin("demo", HASH_A, "a")
        s.add(record(1))
        with pytest.raises(StoreMismatch) as err:
            s.begin("demo", HASH_B, "b")
        assert isinstance(err.value, InputError)
        msg = str(err.value)
        assert "\n" not in msg
        assert str(out) in msg
        assert "aaaaaaaa" in msg and "bbbbbbbb" in msg
        assert HASH_A not in msg  # hashes are shortened
        assert "--fresh" in msg and "another output directory" in msg
        # nothing changed
        assert s.meta()["config_hash"] == HASH_A
        assert len(s) == 1


def test_fresh_wipes_runs_and_meta(tmp_path):
    with ResultsStore(tmp_path) as s:
        s.begin("demo", HASH_A, "a")
        s.add(record(1))
        old_created = s.meta()["created_at"]
    with ResultsStore(tmp_path) as s:
        assert s.begin("other", HASH_B, "b", fresh=True) == 0
        assert len(s) == 0 and s.done_ids() == set()
        assert s.meta()["campaign"] == "other"
        assert s.meta()["config_hash"] == HASH_B
        assert s.meta()["created_at"] >= old_created
        assert s.add(record(1)) is True  # the old run_id can be run again


def test_open_missing_store_without_create(tmp_path):
    with pytest.raises(InputError) as err:
        ResultsStore(tmp_path / "nowhere", create=False)
    assert str(err.value) == f"{tmp_path / 'nowhere'}: no results store here (results.sqlite missing)"
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("create", [True, False])
def test_non_sqlite_file_is_input_error_naming_it(tmp_path, create):
    db = tmp_path / "results.sqlite"
    db.write_text("run_id,status\nx,sat\n" * 100)
    with pytest.raises(InputError) as err:
        ResultsStore(tmp_path, create=create)
    assert str(db) in str(err.value)
    assert "not a results store" in str(err.value)


@pytest.mark.parametrize("create", [True, False])
def test_sqlite_without_runs_table_is_input_error(tmp_path, create):
    db = tmp_path / "results.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE other (x)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="no runs table") as err:
        ResultsStore(tmp_path, create=create)
    assert str(db) in str(err.value)


def test_store_from_a_newer_schema_is_refused(tmp_path):
    ResultsStore(tmp_path).close()
    con = sqlite3.connect(tmp_path / "results.sqlite")
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(InputError, match="schema version"):
        ResultsStore(tmp_path, create=False)


def test_dataframe_dtypes_and_values(store):
    store.add(record(1))
    store.add(record(2, exhausted=None, rows=None, wall_s=None, options=None))
    df = store.dataframe()
    assert list(df.columns) == list(COLUMNS)
    for col in BOOL_COLUMNS:
        assert df[col].dtype == "boolean"
    assert df["rows"].dtype == "Int64" and df["seed"].dtype == "Int64"
    assert df["wall_s"].dtype == "float64"
    assert pd.api.types.is_string_dtype(df["options"])
    assert df["exhausted"].tolist() == [False, pd.NA]
    assert df["rows"].tolist() == [10, pd.NA]
    assert df["wall_s"].iloc[0] == 1.25 and pd.isna(df["wall_s"].iloc[1])
    assert df["options"].iloc[0] == '{"solver":"cadical195"}' and pd.isna(df["options"].iloc[1])


def test_empty_dataframe_has_typed_columns(store):
    df = store.dataframe()
    assert len(df) == 0 and list(df.columns) == list(COLUMNS)
    assert df["complete"].dtype == "boolean" and df["count"].dtype == "Int64"


def test_closed_store_refuses_use(tmp_path):
    s = ResultsStore(tmp_path)
    s.close()
    s.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        s.add(record(1))


CHILD = """
import sys
from harness.core.record import dumps, empty_record
from harness.store import ResultsStore

store = ResultsStore(sys.argv[1])
store.begin("demo", "h", "text")
for i in range(100000):
    rec = empty_record()
    rec.update(run_id=f"run-{i}", status="sat", boards=dumps([["~S"]]), wall_s=i / 7)
    store.add(rec)
    print(rec["run_id"], flush=True)
"""


def test_runs_survive_sigkill_right_after_add(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    printed = []
    try:
        for line in child.stdout:
            printed.append(line.strip())
            if len(printed) == 25:
                os.kill(child.pid, signal.SIGKILL)  # the writer never closes the store
                break
    finally:
        child.kill()
        child.wait(timeout=10)
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL, child.returncode
    assert len(printed) == 25
    with ResultsStore(tmp_path) as s:
        ids = s.done_ids()
        assert set(printed) <= ids
        # the child may have added a few more before the kill landed: a prefix, no holes
        assert ids == {f"run-{i}" for i in range(len(ids))}
        assert s.meta()["config_hash"] == "h"
        assert s.begin("demo", "h", "text") == len(ids)


def test_reader_sees_writes_while_writer_adds(tmp_path):
    n = 150
    writer = ResultsStore(tmp_path)
    reader = ResultsStore(tmp_path, create=False)  # another connection, opened first
    seen: list[int] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def read():
        try:
            while not done.is_set():
                recs = reader.records()
                assert all(len(r) == len(COLUMNS) and r["status"] == "sat" for r in recs)
                seen.append(len(recs))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for i in range(n):
            assert writer.add(record(i))
    finally:
        done.set()
        thread.join(timeout=10)
    assert not errors, errors
    assert seen == sorted(seen)  # never goes back
    assert len(reader) == n and reader.done_ids() == writer.done_ids()
    reader.close()
    writer.close()


def test_other_connection_sees_each_commit_at_once(tmp_path):
    with ResultsStore(tmp_path) as writer, ResultsStore(tmp_path, create=False) as reader:
        assert len(reader) == 0
        for i in range(5):
            writer.add(record(i))
            assert len(reader) == i + 1
            assert reader.records()[-1]["run_id"] == f"run-{i:04d}"


# -- a task's own columns ---------------------------------------------------------------------------

def test_a_tasks_own_columns_are_added_stored_and_read_back(tmp_path):
    with ResultsStore(tmp_path / "out") as s:
        s.add(record(0))  # a run from before the column: null there
        s.add_columns({"digits": "INTEGER", "note": "TEXT"})
        s.add_columns({"digits": "INTEGER"})  # again: nothing to do
        assert s.extra == {"digits": "INTEGER", "note": "TEXT"}
        s.add({**record(1), "digits": 3, "note": "three"})
        s.add(record(2))  # a record that leaves them out holds null
        with pytest.raises(ValueError, match="column 'digits' holds 'x', not INTEGER"):
            s.add({**record(3), "digits": "x"})
        with pytest.raises(ValueError, match=r"unknown \['colour'\]"):
            s.add({**record(3), "colour": "red"})  # never added
    with ResultsStore(tmp_path / "out", create=False) as s:  # a store with them is read with them
        assert s.columns == [*COLUMNS, "digits", "note"]
        assert [(r["run_id"], r["digits"], r["note"]) for r in s.records()] == [
            ("run-0000", None, None), ("run-0001", 3, "three"), ("run-0002", None, None)]
        df = s.dataframe()
        assert list(df.columns) == [*COLUMNS, "digits", "note"] and str(df["digits"].dtype) == "Int64"
        assert df["digits"].isna().tolist() == [True, False, True]


@pytest.mark.parametrize("columns, message", [
    ({"status": "TEXT"}, "'status'"), ({"Big": "TEXT"}, "'Big'"), ({"x y": "TEXT"}, "'x y'"),
    ({"blob": "BLOB"}, "'blob' 'BLOB'")])
def test_a_tasks_own_column_must_be_a_new_lower_case_name_of_a_column_type(store, columns, message):
    with pytest.raises(ValueError, match=f"cannot add run column {message}"):
        store.add_columns(columns)
    assert store.extra == {}


def test_a_tasks_own_column_keeps_its_type(store):
    store.add_columns({"digits": "INTEGER"})
    with pytest.raises(ValueError, match="run column 'digits' is INTEGER, not TEXT"):
        store.add_columns({"digits": "TEXT"})
