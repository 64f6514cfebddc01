"""The store's plan, its integrity check on every open, and reading and upgrading stores of older schemas (1: no
cpu_s nor plan; 4: no question, the question in task)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from damage import DAMAGES, as_version_1
from harness.core.record import dumps, empty_record
from harness.errors import InputError, StoreDamaged
from harness.store import SCHEMA_VERSION, ResultsStore
from harness.store.sqlite import PLAN_COLUMNS


def record(i: int, **fields) -> dict:
    rec = empty_record()
    rec.update(run_id=f"run-{i:04d}", campaign="demo", config_hash="h", instance=f"inst{i}",
               instance_path=f"inst/inst{i}.toml", pair="sat/cell", backend="sat", formulation="cell",
               task="solve", question="count-2", status="sat", wall_s=0.5, cpu_s=0.4, detail="x" * 600,
               boards=dumps([["O.", ".."]]), verdicts=dumps(["ok"]))
    rec.update(fields)
    return rec


def plan(n: int) -> list[dict]:
    return [{c: record(i).get(c) for c in PLAN_COLUMNS} for i in range(n)]


def filled(tmp_path, n: int = 60):
    with ResultsStore(tmp_path) as store:
        store.begin("demo", "h", "", plan=plan(n))
        for i in range(n):
            store.add(record(i))
    return tmp_path / "results.sqlite"


def test_the_plan_is_recorded_replaced_and_read_back(tmp_path):
    with ResultsStore(tmp_path) as store:
        assert store.plan() is None  # a new store: no plan until a campaign records one
        store.begin("demo", "h", "", plan=plan(3))
        assert [p["run_id"] for p in store.plan()] == ["run-0000", "run-0001", "run-0002"]
        assert set(store.plan()[0]) == set(PLAN_COLUMNS)
        store.begin("demo", "h", "", plan=plan(2))  # the same campaign, re-planned
        assert len(store.plan()) == 2
        store.begin("demo", "h", "")  # no plan given: the recorded one stays
        assert len(store.plan()) == 2
        store.begin("demo", "h", "", fresh=True)
        assert store.plan() is None


def test_a_sound_store_passes_the_check(tmp_path):
    filled(tmp_path)
    with ResultsStore(tmp_path, create=False) as store:
        assert len(store) == 60 and len(store.plan()) == 60


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("create", [False, True])
def test_a_damaged_store_is_refused_with_one_line_and_left_as_it_is(tmp_path, damage, create):
    db = filled(tmp_path)
    DAMAGES[damage](db)
    before = db.read_bytes()
    with pytest.raises(StoreDamaged) as err:
        ResultsStore(tmp_path, create=create)
    text = str(err.value)
    assert str(db) in text and "\n" not in text and "damaged" in text
    assert isinstance(err.value, InputError)  # exit 2 in the CLI
    assert db.read_bytes() == before


def test_damage_found_only_when_reading_is_still_one_line(tmp_path, monkeypatch):
    filled(tmp_path)
    store = ResultsStore(tmp_path, create=False)

    class Broken:
        def execute(self, *a, **k):
            raise sqlite3.DatabaseError("database disk image is malformed")

        def close(self):
            pass

    store._conn = Broken()
    with pytest.raises(StoreDamaged, match="results.sqlite: damaged results store"):
        store.dataframe()
    with pytest.raises(StoreDamaged):
        store.plan()
    store._conn = None


def make_v1(tmp_path, n: int = 3):
    """A store as battlebench wrote it before schema 2: no cpu_s column, no plan table."""
    db = filled(tmp_path, n)
    as_version_1(db)
    return db


def test_a_version_1_store_is_read_as_it_is(tmp_path):
    db = make_v1(tmp_path)
    before = db.read_bytes()
    with ResultsStore(tmp_path, create=False) as store:
        assert store.version == 1 and store.plan() is None
        df = store.dataframe()
        assert len(df) == 3 and df["cpu_s"].isna().all() and (df["wall_s"] == 0.5).all()
        assert store.records()[0]["cpu_s"] is None
    assert db.read_bytes() == before  # reading never upgrades


def test_a_version_1_store_is_upgraded_when_a_campaign_writes_to_it(tmp_path):
    make_v1(tmp_path)
    with ResultsStore(tmp_path) as store:
        assert store.version == SCHEMA_VERSION
        store.begin("demo", "h", "", plan=plan(4))
        store.add(record(3))
        df = store.dataframe()
        assert len(df) == 4 and df["cpu_s"].isna().sum() == 3 and df["cpu_s"].iloc[-1] == 0.4
        assert len(store.plan()) == 4
    conn = sqlite3.connect(tmp_path / "results.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


# -- the write-ahead log, read-only opening, values, the plan's digest ---------------------------

from damage import damage_log, left_with_a_log  # noqa: E402


def test_reading_never_changes_a_store_or_its_log(tmp_path):
    db = left_with_a_log(tmp_path / "r", runs=3)
    wal = db.with_name(db.name + "-wal")
    before = (db.read_bytes(), wal.read_bytes())
    assert wal.stat().st_size > 0
    with ResultsStore(tmp_path / "r", create=False) as store:
        assert len(store.dataframe()) == 3 and len(store.plan()) == 3
    assert (db.read_bytes(), wal.read_bytes()) == before  # no checkpoint, no deletion
    with ResultsStore(tmp_path / "r") as store:  # a writer (run) folds the log in as SQLite does
        assert len(store) == 3


@pytest.mark.parametrize("create", [False, True])
def test_a_damaged_log_is_damage_not_silently_lost_runs(tmp_path, create):
    db = left_with_a_log(tmp_path / "r", runs=4)
    damage_log(db)
    with pytest.raises(StoreDamaged, match="write-ahead log fails its checksum, and a committed transaction"):
        ResultsStore(tmp_path / "r", create=create)


def test_an_empty_main_file_is_damage_even_with_a_log(tmp_path):
    db = left_with_a_log(tmp_path / "r")
    db.write_bytes(b"")
    for create in (False, True):
        with pytest.raises(StoreDamaged, match="empty"):
            ResultsStore(tmp_path / "r", create=create)


def edited(tmp_path, sql: str):
    """A store of 3 runs changed behind battlebench's back by one SQL statement."""
    db = filled(tmp_path, 3)
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()
    return db


@pytest.mark.parametrize("sql,needle", [
    ("UPDATE runs SET wall_s = 'abc' WHERE rowid = 2", "column 'wall_s' holds 'abc', not REAL"),
    ("UPDATE runs SET count = 'x' WHERE rowid = 2", "column 'count' holds 'x', not INTEGER"),
    ("UPDATE runs SET status = 'banana' WHERE rowid = 2", "column 'status' holds 'banana'"),
    ("UPDATE runs SET status = NULL WHERE rowid = 2", "column 'status' holds None"),
    ("UPDATE runs SET boards = '{not json' WHERE rowid = 2", "column 'boards' is not JSON text"),
    ("UPDATE runs SET solve_s = -1.85e-06 WHERE rowid = 2", "column 'solve_s' holds -1.85e-06, a negative"),
    ("UPDATE runs SET verdicts = '[]' WHERE rowid = 2", "0 verdicts for 1 boards"),
])
def test_values_no_run_can_hold_are_damage_naming_run_and_column(tmp_path, sql, needle):
    db = edited(tmp_path, sql)
    with ResultsStore(tmp_path, create=False) as store:
        with pytest.raises(StoreDamaged) as err:
            store.dataframe()
    assert needle in str(err.value) and "run 'run-0001'" in str(err.value) and str(db) in str(err.value)


@pytest.mark.parametrize("sql", ["DELETE FROM planned_runs WHERE rowid = 1", "DELETE FROM planned_runs",
                                 "UPDATE planned_runs SET run_id = 'other' WHERE rowid = 1"])
def test_an_edited_plan_is_damage(tmp_path, sql):
    edited(tmp_path, sql)
    with ResultsStore(tmp_path, create=False) as store:
        with pytest.raises(StoreDamaged, match="its plan holds"):
            store.plan()


# -- stores before the question column (schema 4 and older: `task` held the question) -------------

from damage import as_version_4  # noqa: E402
from handstore import make_store, run as hand_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

OLD_RUNS = [hand_run("a", "sat/placement", "sat", 0.1), hand_run("b", "dp/deployments", "sat", 0.1,
                                                                    question="deployments"),
            hand_run("c", "random/ship", "sat", 0.1, question="play"),
            hand_run("d", "mul/square", "sat", 0.1, question="cube")]  # a plugin task not installed here
"""(question, task) of each: count-2/solve, deployments/count, play/play, cube/cube (unknown: the label)."""


def _old_store(tmp_path) -> Path:
    make_store(tmp_path, OLD_RUNS)
    db = tmp_path / "results.sqlite"
    as_version_4(db)
    with sqlite3.connect(db) as conn:  # as a version-4 store holds them: the question in task, nothing else
        assert sorted(r[0] for r in conn.execute("SELECT task FROM runs")) == ["count-2", "cube", "deployments",
                                                                             "play"]
    return db


WANTED = [("a", "solve", "count-2"), ("b", "count", "deployments"), ("c", "play", "play"), ("d", "cube", "cube")]


def test_a_version_4_store_is_read_with_its_task_label_as_question(tmp_path):
    db = _old_store(tmp_path)
    before = db.read_bytes()
    with ResultsStore(tmp_path, create=False) as store:
        assert store.version == 4
        assert sorted((r["instance"], r["task"], r["question"]) for r in store.records()) == WANTED
        df = store.dataframe()
        assert sorted(zip(df["instance"], df["task"], df["question"])) == WANTED
        assert sorted((p["instance"], p["task"], p["question"]) for p in store.plan()) == WANTED
    assert db.read_bytes() == before  # reading never upgrades


def test_a_version_4_store_is_upgraded_when_a_campaign_writes_to_it(tmp_path):
    db = _old_store(tmp_path)
    with ResultsStore(tmp_path) as store:
        assert store.version == SCHEMA_VERSION
        store.add(hand_run("e", "sat/placement", "sat", 0.1, question="solve"))
        assert sorted((r["instance"], r["task"], r["question"]) for r in store.records()) == [
            *WANTED, ("e", "solve", "solve")]
        assert len(store.plan()) == 4
    with sqlite3.connect(db) as conn:  # in place: the columns as a new store has them
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert sorted(conn.execute("SELECT instance, task, question FROM runs")) == [*WANTED, ("e", "solve",
                                                                                                "solve")]
        assert sorted(conn.execute("SELECT instance, task, question FROM planned_runs")) == WANTED
    with ResultsStore(tmp_path, create=False) as store:
        assert len(store.records()) == 5


def test_a_committed_store_reads_with_its_questions_and_the_tasks_names(tmp_path):
    """reports/smoke-baseline: a compressed schema-2 store of count-2 runs, read as it is."""
    with ResultsStore(ROOT / "reports" / "smoke-baseline", create=False) as store:
        assert store.version < 5
        records = store.records()
        plan = store.plan()
    assert len(records) == 28 and {(r["task"], r["question"]) for r in records} == {("solve", "count-2")}
    assert plan is not None and {(p["task"], p["question"]) for p in plan} == {("solve", "count-2")}
