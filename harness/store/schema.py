"""The results store's schema and its versions: the tables it creates, the columns each version added, and
how a store of an older version is read (as it is) and upgraded (in place, when a campaign writes to it again).

:data:`SCHEMA_VERSION` is what this code writes (``PRAGMA user_version``); :mod:`harness.store.sqlite`
reads 1 to it: :func:`legacy_columns` says how an older ``runs`` table's columns are read, :func:`upgrade`
brings it to the current version (the caller holds the transaction).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from harness.core.record import COLUMNS

SCHEMA_VERSION = 6
"""``PRAGMA user_version`` of stores this code writes (it reads 1 to 6)."""

ADDED_IN_2 = ("cpu_s",)
"""Run columns that version-1 stores lack (read as null)."""

ADDED_IN_3 = ("shots",)
"""Run columns that version-2 stores lack: a game's shots, which those kept in ``count``."""

ADDED_IN_4 = ("warmup_s",)
"""Run columns that version-3 stores lack: what the run's worker's warm-up took (read as null)."""

ADDED_IN_5 = ("question",)
"""Run (and plan) columns that version-4 stores lack: their ``task`` column held the question."""

ADDED_IN_6 = ("node_class", "cpus")
"""Run columns that version-5 stores lack: the class of the node a run was measured on and the CPUs its worker
could run on (read as null: not known)."""

_ADDED = {2: ADDED_IN_2, 3: ADDED_IN_3, 4: ADDED_IN_4, 5: ADDED_IN_5, 6: ADDED_IN_6}

_V2_SHOTS = "CASE WHEN task = 'play' THEN count END"  # version <= 2: the play task's shots were its count
_V2_COUNT = "CASE WHEN task = 'play' THEN NULL ELSE count END"

PLAN_COLUMNS: dict[str, str] = {
    "run_id": "TEXT", "instance": "TEXT", "instance_path": "TEXT", "instance_hash": "TEXT",
    "pair": "TEXT", "backend": "TEXT", "formulation": "TEXT", "task": "TEXT", "question": "TEXT", "seed": "INTEGER",
    "repetition": "INTEGER",
}
"""The columns of ``planned_runs``: one row per run the campaign's config expands to."""


def present_columns(version: int, columns: Iterable[str]) -> list[str]:
    """The ``columns`` a store of schema ``version`` has (those added after it left out)."""
    later = {c for v, added in _ADDED.items() if v > version for c in added}
    return [c for c in columns if c not in later]


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _task_of_question(conn: sqlite3.Connection, table: str) -> str:
    """SQL for the task's name of a version-4 (or older) row, whose ``task`` column held the question."""
    from harness.core.task import task_name_of_label

    labels = [r[0] for r in conn.execute(f"SELECT DISTINCT task FROM {table} WHERE task IS NOT NULL")]
    names = {label: task_name_of_label(label) for label in labels}
    whens = " ".join(f"WHEN {_quoted(label)} THEN {_quoted(name)}" for label, name in names.items() if name != label)
    return f"CASE task {whens} ELSE task END" if whens else "task"


def create_runs() -> str:
    cols = [
        f"{name} {sql_type} PRIMARY KEY NOT NULL" if name == "run_id" else f"{name} {sql_type}"
        for name, sql_type in COLUMNS.items()
    ]
    return "CREATE TABLE IF NOT EXISTS runs (\n    " + ",\n    ".join(cols) + "\n)"


CREATE_META = "CREATE TABLE IF NOT EXISTS campaign_meta (key TEXT PRIMARY KEY, value TEXT)"
CREATE_PLAN = ("CREATE TABLE IF NOT EXISTS planned_runs (\n    "
                + ",\n    ".join(f"{c} {t}" + (" PRIMARY KEY NOT NULL" if c == "run_id" else "")
                                  for c, t in PLAN_COLUMNS.items()) + "\n)")


def legacy_columns(conn: sqlite3.Connection, have: list[str]) -> dict[str, str]:
    """How the shared columns of a ``runs`` table with columns ``have`` (an older version's) are read: an SQL
    expression per column read other than as itself (empty when it is current); a missing column is null."""
    legacy = {"shots": _V2_SHOTS, "count": _V2_COUNT} if "shots" not in have else {}
    if "question" not in have:
        legacy.update(task=_task_of_question(conn, "runs"), question="task")
    return legacy


def plan_select(conn: sqlite3.Connection) -> str:
    """The select list that reads a version-4 (or older) ``planned_runs`` table as the current one."""
    old = {"task": _task_of_question(conn, "planned_runs"), "question": "task"}
    return ", ".join(f"{old[c]} AS {c}" if c in old else c for c in PLAN_COLUMNS)


def upgrade(conn: sqlite3.Connection, version: int) -> None:
    """In place, inside the caller's transaction: version 1 -> 2, the ``cpu_s`` column (null for old runs) and
    the plan table; 2 -> 3, the ``shots`` column, each game's shots moved there from ``count``; 3 -> 4, the
    ``warmup_s`` column; 4 -> 5, the ``question`` column of runs and plan, holding what ``task`` held, and
    ``task`` the task's name; 5 -> 6, the ``node_class`` and ``cpus`` columns (null for old runs: not known)."""
    if version < 2:
        for column in ADDED_IN_2:
            conn.execute(f"ALTER TABLE runs ADD COLUMN {column} {COLUMNS[column]}")
        conn.execute(CREATE_PLAN)
    if version < 3:
        for column in ADDED_IN_3:
            conn.execute(f"ALTER TABLE runs ADD COLUMN {column} {COLUMNS[column]}")
        conn.execute(f"UPDATE runs SET shots = {_V2_SHOTS}, count = {_V2_COUNT}")
    if version < 4:
        for column in ADDED_IN_4:
            conn.execute(f"ALTER TABLE runs ADD COLUMN {column} {COLUMNS[column]}")
    if version < 5:
        for table in ("runs", "planned_runs"):  # a plan table made by the upgrade from 1 has them
            if "question" not in [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]:
                task = _task_of_question(conn, table)
                for column in ADDED_IN_5:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {COLUMNS[column]}")
                conn.execute(f"UPDATE {table} SET question = task, task = {task}")
    if version < 6:
        have = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
        for column in ADDED_IN_6:
            if column not in have:
                conn.execute(f"ALTER TABLE runs ADD COLUMN {column} {COLUMNS[column]}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
