"""The crash-safe results store of a campaign: ``results.sqlite`` in a results directory.

One row per run in table ``runs`` (the columns of :data:`harness.core.record.COLUMNS`,
``run_id`` the primary key) and the campaign's identity in ``campaign_meta``.  Every
:meth:`ResultsStore.add` is its own committed transaction in WAL mode, so killing the
process (even with SIGKILL) loses no run whose ``add()`` has returned, and readers in
other connections or processes can read while one writer adds.  pandas is imported only
by :meth:`ResultsStore.dataframe`.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.record import BOOL_COLUMNS, COLUMNS, JSON_COLUMNS, check_record
from harness.errors import InputError, StoreMismatch

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

DB_NAME = "results.sqlite"
SCHEMA_VERSION = 1
"""``PRAGMA user_version`` of stores this code writes and reads."""

BUSY_TIMEOUT_MS = 10_000

_COLUMN_LIST = ", ".join(COLUMNS)
_INSERT = (
    f"INSERT OR IGNORE INTO runs ({_COLUMN_LIST}) "
    f"VALUES ({', '.join('?' for _ in COLUMNS)})"
)


def _create_runs() -> str:
    cols = [
        f"{name} {sql_type} PRIMARY KEY NOT NULL" if name == "run_id" else f"{name} {sql_type}"
        for name, sql_type in COLUMNS.items()
    ]
    return "CREATE TABLE IF NOT EXISTS runs (\n    " + ",\n    ".join(cols) + "\n)"


_CREATE_META = "CREATE TABLE IF NOT EXISTS campaign_meta (key TEXT PRIMARY KEY, value TEXT)"


def _short(digest: str | None) -> str:
    return (digest or "?")[:12]


def _check_types(record: dict[str, Any]) -> None:
    """Raise ValueError unless each value fits its column's SQLite type."""
    if not isinstance(record["run_id"], str) or not record["run_id"]:
        raise ValueError("run record: run_id must be a non-empty string")
    for name, sql_type in COLUMNS.items():
        value = record[name]
        if value is None:
            continue
        if sql_type == "TEXT":
            ok = isinstance(value, str)
        elif sql_type == "INTEGER":
            ok = isinstance(value, int)
            if ok and name in BOOL_COLUMNS:
                ok = value in (0, 1)
        else:  # REAL
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)  # NaN: NULL
        if not ok:
            raise ValueError(f"run record: column {name!r} holds {value!r}, not {sql_type}"
                             + (" 0/1" if name in BOOL_COLUMNS else ""))
        if name in JSON_COLUMNS:
            try:
                json.loads(value)
            except ValueError as exc:
                raise ValueError(f"run record: column {name!r} is not JSON text: {exc}") from None


class ResultsStore:
    """The results of one campaign, in ``DIRECTORY/results.sqlite``.

    ``ResultsStore(directory)`` creates the directory and database if needed;
    ``create=False`` opens an existing store only (InputError otherwise).  Use as a
    context manager or call :meth:`close`.  Write from one thread at a time.
    """

    def __init__(self, directory: str | Path, *, create: bool = True):
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        self._label = str(directory)
        self._conn: sqlite3.Connection | None = None
        if not self.path.exists():
            if not create:
                raise InputError(f"{self._label}: no results store here ({DB_NAME} missing)")
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(f"{self._label}: cannot create results directory: "
                                 f"{exc.strerror or exc}") from None
        elif self.path.is_dir():
            raise InputError(f"{self.path}: not a results store (a directory)")
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise InputError(f"{self.path}: cannot open results store: {exc}") from None
        try:
            self._open(create)
        except sqlite3.OperationalError as exc:  # locked, read-only, I/O
            self.close()
            raise InputError(f"{self.path}: cannot open results store: {exc}") from None
        except sqlite3.DatabaseError as exc:  # "file is not a database"
            self.close()
            raise InputError(f"{self.path}: not a results store ({exc})") from None
        except BaseException:
            self.close()
            raise

    def _open(self, create: bool) -> None:
        conn = self._db
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Reading the schema first fails fast on a file that is not SQLite at all.
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise InputError(f"{self.path}: results store has schema version {version}, "
                             f"this battlebench reads version {SCHEMA_VERSION}; upgrade it")
        if "runs" not in tables:
            if not create or tables:
                raise InputError(f"{self.path}: not a results store (no runs table)")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(_create_runs())
                conn.execute(_CREATE_META)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        else:
            have = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
            if have != list(COLUMNS):
                missing = [c for c in COLUMNS if c not in have]
                extra = [c for c in have if c not in COLUMNS]
                raise InputError(f"{self.path}: results store has other run columns "
                                 f"(missing {missing}, unknown {extra}); "
                                 f"it was written by another battlebench version")
            if "campaign_meta" not in tables:
                raise InputError(f"{self.path}: not a results store (no campaign_meta table)")
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ValueError(f"{self.path}: results store is closed")
        return self._conn

    # -- campaign ---------------------------------------------------------------------

    def begin(self, campaign: str, config_hash: str, config_text: str, *,
              fresh: bool = False) -> int:
        """Record the campaign in the store; return how many runs it already holds.

        Raises :class:`StoreMismatch` if the store holds a campaign with another config
        hash, unless ``fresh``, which first deletes every run and the old campaign.
        """
        conn = self._db
        conn.execute("BEGIN IMMEDIATE")
        try:
            if fresh:
                conn.execute("DELETE FROM runs")
                conn.execute("DELETE FROM campaign_meta")
            old = dict(conn.execute("SELECT key, value FROM campaign_meta").fetchall())
            old_hash = old.get("config_hash")
            if old_hash is not None and old_hash != config_hash:
                raise StoreMismatch(
                    f"{self._label}: results store holds campaign {old.get('campaign')!r} "
                    f"with config {_short(old_hash)}, not {_short(config_hash)}; "
                    f"use --fresh to discard its runs or choose another output directory"
                )
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            conn.executemany(
                "INSERT OR REPLACE INTO campaign_meta (key, value) VALUES (?, ?)",
                [("campaign", campaign), ("config_hash", config_hash),
                 ("config_text", config_text)],
            )
            conn.execute("INSERT OR IGNORE INTO campaign_meta (key, value) VALUES (?, ?)",
                         ("created_at", now))
            count = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return count

    def meta(self) -> dict[str, str]:
        """The campaign's name, config_hash, config_text and created_at (ISO 8601, UTC)."""
        return dict(self._db.execute("SELECT key, value FROM campaign_meta ORDER BY key"))

    # -- runs -------------------------------------------------------------------------

    def add(self, record: dict[str, Any]) -> bool:
        """Store one run record and commit it; False (nothing written) if its run_id is stored.

        Raises ValueError for a record that lacks a column, has an unknown one, or holds
        a value that does not fit its column's type (JSON columns must parse).
        """
        check_record(record)
        _check_types(record)
        # One autocommit statement: one transaction, durable once it returns.
        cur = self._db.execute(_INSERT, [record[c] for c in COLUMNS])
        return cur.rowcount == 1

    def done_ids(self) -> set[str]:
        """The run_ids already stored."""
        return {r[0] for r in self._db.execute("SELECT run_id FROM runs")}

    def records(self) -> list[dict[str, Any]]:
        """Every stored run as a record (column order, insertion order, JSON as text)."""
        rows = self._db.execute(f"SELECT {_COLUMN_LIST} FROM runs ORDER BY rowid").fetchall()
        return [dict(zip(COLUMNS, row)) for row in rows]

    def dataframe(self) -> "pd.DataFrame":
        """Every stored run as a typed pandas DataFrame (see :mod:`harness.store.frame`)."""
        from harness.store import frame

        rows = self._db.execute(f"SELECT {_COLUMN_LIST} FROM runs ORDER BY rowid").fetchall()
        return frame.from_rows(rows)

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def __contains__(self, run_id: object) -> bool:
        row = self._db.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return row is not None

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the database connection (idempotent)."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()

    def __enter__(self) -> "ResultsStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"ResultsStore({self._label!r}, {state})"


__all__ = ["DB_NAME", "SCHEMA_VERSION", "ResultsStore"]
