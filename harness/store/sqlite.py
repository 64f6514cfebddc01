"""The crash-safe results store of a campaign: ``results.sqlite`` in a results directory.

One row per run in table ``runs`` (the columns of :data:`harness.core.record.COLUMNS`,
``run_id`` the primary key), the campaign's identity in ``campaign_meta`` and its *plan*
in ``planned_runs``: every run the config expands to (:data:`PLAN_COLUMNS`), written by
:meth:`ResultsStore.begin`, so that readers can tell a complete campaign from an
interrupted one without the config or the instance files.  Every
:meth:`ResultsStore.add` is its own committed transaction in WAL mode, so killing the
process (even with SIGKILL) loses no run whose ``add()`` has returned, and readers in
other connections or processes can read while one writer adds.  pandas is imported only
by :meth:`ResultsStore.dataframe`.

Every open checks the store: the write-ahead log (:func:`harness.store.wal.wal_damage`:
SQLite would silently drop committed runs after a damaged frame), then SQLite's
``quick_check``; every read checks each run's values (:func:`harness.core.record.check_values`)
and the plan's digest.  A damaged store (overwritten pages, truncated, empty, a broken
log, impossible values, an edited plan) is a :class:`~harness.errors.StoreDamaged` naming
the file, never a traceback, and is left as it is: a store opened with ``create=False``
is opened read-only, so reading never checkpoints or deletes its log.  Stores of schema version 1 (no ``cpu_s``, no plan) are read as
they are (``cpu_s`` null, plan unknown), stores of version 2 (no ``shots``: the play
task kept a game's shots in ``count``) with each game's shots moved to ``shots``, stores of
version 4 and before (no ``question``: their ``task`` column held the question) with it in
``question`` and ``task`` the name of the task that owns it
(:func:`harness.core.task.task_name_of_label`); all are upgraded in place only when a
campaign writes to them again (the versions, the tables and the upgrades: :mod:`harness.store.schema`).

Besides the shared columns, ``runs`` holds the columns a task declares of its own
(``TaskType.extra_columns``): :meth:`ResultsStore.add_columns` adds them when a campaign of
the task begins (other tasks' rows hold null there); every read returns them after the
shared columns.

A committed store may be kept compressed, as ``results.sqlite.gz`` beside the report: a directory
holding only that file is opened for reading (``create=False``: ``report``, ``check``, ``export``, a
``--baseline``) from a copy decompressed once per process into a private temporary file, removed at
exit; a campaign refuses to write beside it (gunzip it first to resume the campaign).  A directory
holding both is read from ``results.sqlite`` only when the two agree (:mod:`harness.store.twin`;
:attr:`ResultsStore.twin` says so), and refused (StoreConflict) when they do not.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from urllib.parse import quote
from pathlib import Path
from typing import TYPE_CHECKING, Any

import atexit
import gzip
import hashlib
import os
import shutil
import tempfile
import zlib

from harness.core.record import BOOL_COLUMNS, COLUMNS, JSON_COLUMNS, SQL_TYPES, check_record, check_values
from harness.core.status import NOT_MEASURED
from harness.errors import InputError, StoreDamaged, StoreMismatch
from harness.store.schema import (  # noqa: F401  (ADDED_IN_*: the schema's names, importable from here as before)
    ADDED_IN_2, ADDED_IN_3, ADDED_IN_4, ADDED_IN_5, CREATE_META, CREATE_PLAN, PLAN_COLUMNS, SCHEMA_VERSION,
    create_runs, legacy_columns, plan_select, present_columns, upgrade)
from harness.store.twin import compare_twin
from harness.store.wal import wal_damage

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

DB_NAME = "results.sqlite"
GZ_NAME = DB_NAME + ".gz"
"""A compressed store: read (decompressed to a temporary copy), never written."""

_UNZIPPED: dict[tuple[str, int, int], Path] = {}  # (gz path, mtime_ns, size) -> its decompressed copy


def _remove_unzipped() -> None:
    for path in _UNZIPPED.values():
        shutil.rmtree(path.parent, ignore_errors=True)
    _UNZIPPED.clear()


atexit.register(_remove_unzipped)


def _unzipped(gz: Path) -> Path:
    """The decompressed copy of ``gz`` (made once per process and file version)."""
    st = gz.stat()
    key = (str(gz.resolve()), st.st_mtime_ns, st.st_size)
    if key in _UNZIPPED and _UNZIPPED[key].exists():
        return _UNZIPPED[key]
    tmp = Path(tempfile.mkdtemp(prefix="battlebench-store-"))
    target = tmp / DB_NAME
    try:
        with gzip.open(gz, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        shutil.rmtree(tmp, ignore_errors=True)
        raise StoreDamaged(f"{gz}: damaged compressed results store ({exc}); it was left as it is") from None
    os.chmod(target, 0o444)
    _UNZIPPED[key] = target
    return target
_PLANNED = "planned_runs"  # campaign_meta key: how many runs the plan holds (absent: no plan recorded)
_PLAN_HASH = "plan_hash"  # campaign_meta key: a digest of the plan's run ids (an edited plan is damage)
ROOT_KEY = "campaign_root"
"""campaign_meta key: the folder the campaign ran in, which its runs' relative ``instance_path`` are relative to
(absent in stores made before battlebench recorded it; :mod:`harness.report.locate` reads it)."""

BUSY_TIMEOUT_MS = 10_000

_COLUMN_LIST = ", ".join(COLUMNS)


def _insert(names: Sequence[str]) -> str:
    return f"INSERT OR IGNORE INTO runs ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"


def _short(digest: str | None) -> str:
    return (digest or "?")[:12]


def _check_types(record: dict[str, Any], extra: dict[str, str] | None = None) -> None:
    """Raise ValueError unless each value fits its column's SQLite type (``extra``: a task's own columns)."""
    if not isinstance(record["run_id"], str) or not record["run_id"]:
        raise ValueError("run record: run_id must be a non-empty string")
    for name, sql_type in {**COLUMNS, **(extra or {})}.items():
        value = record.get(name)
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
    ``create=False`` opens an existing store only (InputError otherwise) and never
    writes to it.  A damaged file raises :class:`StoreDamaged` (from the constructor or
    from any later read).  Use as a context manager or call :meth:`close`.  Write from
    one thread at a time.
    """

    def __init__(self, directory: str | Path, *, create: bool = True):
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        self._label = str(directory)
        self._conn: sqlite3.Connection | None = None
        self._select = _COLUMN_LIST
        self._plan_select = ", ".join(PLAN_COLUMNS)
        self.extra: dict[str, str] = {}
        """The task's own columns this store's ``runs`` has (name -> SQL type), after the shared ones."""
        self.version = SCHEMA_VERSION
        self.twin = ""
        """When a results.sqlite.gz is beside the results.sqlite read: that they agree (:mod:`harness.store.twin`)."""
        gz = self.directory / GZ_NAME
        if not create and self.path.is_file() and gz.is_file():
            self.twin = compare_twin(self.path, gz, _unzipped(gz))
        if not self.path.exists() and gz.is_file():
            if create:
                raise InputError(f"{self._label}: holds a compressed results store ({GZ_NAME}), which a campaign "
                                 f"does not write to: gunzip it first (gunzip -k {gz})")
            self.path = _unzipped(gz)
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
        elif self.path.stat().st_size == 0:  # a store's first page is written when it is made
            raise self._damaged("the file is empty (0 bytes)")
        if self.path.exists():
            broken = wal_damage(self.path.with_name(DB_NAME + "-wal"))
            if broken:
                raise self._damaged(broken)
        target = self.path if create else f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            self._conn = sqlite3.connect(
                target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False, uri=not create,
            )
        except sqlite3.Error as exc:
            raise InputError(f"{self.path}: cannot open results store: {exc}") from None
        try:
            with self._guard():
                self._open(create)
        except BaseException:
            self.close()
            raise

    def _damaged(self, why: str) -> StoreDamaged:
        why = " ".join(why.split())  # one line
        what = ("not a results store, or a damaged one" if "not a database" in why
                else "damaged results store")
        return StoreDamaged(f"{self.path}: {what} ({why}); it was left as it is: "
                            "restore a copy, or move it away and run the campaign again")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """SQLite errors as harness errors: damage is StoreDamaged, locks and I/O are InputError."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "malformed" in text or "not a database" in text or "corrupt" in text:
                raise self._damaged(text) from None
            raise InputError(f"{self.path}: cannot use results store: {text}") from None
        except sqlite3.DatabaseError as exc:  # "database disk image is malformed", "file is not a database"
            raise self._damaged(str(exc)) from None

    def _open(self, create: bool) -> None:
        conn = self._db
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Reading the schema first fails fast on a file that is not SQLite at all.
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            problems = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                text = " ".join(" ".join(problems).replace("*** in database main ***", "").split())
                raise self._damaged("quick_check: " + text)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise InputError(f"{self.path}: results store has schema version {version}, "
                             f"this battlebench reads versions up to {SCHEMA_VERSION}; upgrade it")
        if "runs" not in tables:
            if not create or tables:
                raise InputError(f"{self.path}: not a results store (no runs table)")
            conn.execute("PRAGMA journal_mode = WAL")
            with self._transaction():
                conn.execute(create_runs())
                conn.execute(CREATE_META)
                conn.execute(CREATE_PLAN)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        else:
            info = {r[1]: r[2].upper() for r in conn.execute("PRAGMA table_info(runs)")}
            have = list(info)
            expected = present_columns(version, COLUMNS)
            own = {c: t for c, t in info.items() if c not in COLUMNS and version >= 5 and t in SQL_TYPES}
            if sorted(have) != sorted(expected + list(own)):
                missing = [c for c in expected if c not in have]
                extra = [c for c in have if c not in expected and c not in own]
                raise InputError(f"{self.path}: results store has other run columns "
                                 f"(missing {missing}, unknown {extra}); "
                                 f"it was written by another battlebench version")
            if "campaign_meta" not in tables:
                raise InputError(f"{self.path}: not a results store (no campaign_meta table)")
            self.version = version
            self.extra = own
            if version < SCHEMA_VERSION and create:
                self._upgrade()
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal" and create:
                conn.execute("PRAGMA journal_mode = WAL")
            have = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
            legacy = legacy_columns(conn, have)
            self._select = ", ".join(f"{legacy[c]} AS {c}" if c in legacy else c if c in have else f"NULL AS {c}"
                                     for c in [*COLUMNS, *self.extra])
            if "planned_runs" in tables and self.version < 5:
                self._plan_select = plan_select(conn)
        conn.execute("PRAGMA synchronous = NORMAL")

    def _upgrade(self) -> None:
        """In place, to :data:`SCHEMA_VERSION` (:func:`harness.store.schema.upgrade`)."""
        with self._transaction():
            upgrade(self._db, self.version)
        self.version = SCHEMA_VERSION

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        conn = self._db
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ValueError(f"{self.path}: results store is closed")
        return self._conn

    # -- campaign ---------------------------------------------------------------------

    def begin(self, campaign: str, config_hash: str, config_text: str, *,
              fresh: bool = False, plan: Sequence[dict[str, Any]] | None = None, root: str | None = None) -> int:
        """Record the campaign (and its plan) in the store; return how many runs it already holds.

        ``plan``: every run the config expands to, each a mapping with the keys of
        :data:`PLAN_COLUMNS`; it replaces any plan recorded before.  ``root``: the folder the runs' relative
        instance paths are relative to (:data:`ROOT_KEY`), replacing any recorded before.  Raises
        :class:`StoreMismatch` if the store holds a campaign with another config hash,
        unless ``fresh``, which first deletes every run and the old campaign.
        """
        conn = self._db
        with self._guard(), self._transaction():
            if fresh:
                conn.execute("DELETE FROM runs")
                conn.execute("DELETE FROM campaign_meta")
                conn.execute("DELETE FROM planned_runs")
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
                [("campaign", campaign), ("config_hash", config_hash), ("config_text", config_text)],
            )
            conn.execute("INSERT OR IGNORE INTO campaign_meta (key, value) VALUES (?, ?)",
                         ("created_at", now))
            if plan is not None:
                self._write_plan(plan)
            if root is not None:
                conn.execute("INSERT OR REPLACE INTO campaign_meta (key, value) VALUES (?, ?)", (ROOT_KEY, root))
            count = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        return count

    def _write_plan(self, plan: Sequence[dict[str, Any]]) -> None:
        conn = self._db
        conn.execute("DELETE FROM planned_runs")
        names = list(PLAN_COLUMNS)
        conn.executemany(
            f"INSERT OR REPLACE INTO planned_runs ({', '.join(names)}) "
            f"VALUES ({', '.join('?' for _ in names)})",
            [[entry.get(c) for c in names] for entry in plan],
        )
        conn.executemany("INSERT OR REPLACE INTO campaign_meta (key, value) VALUES (?, ?)",
                         [(_PLANNED, str(len(plan))), (_PLAN_HASH, _digest(entry["run_id"] for entry in plan))])

    def add_session(self, provenance: dict[str, Any]) -> None:
        """Append one ``battlebench run`` session's provenance (:func:`harness.core.provenance.machine`) to the
        campaign's ``sessions`` (a JSON list in ``campaign_meta``): a resumed campaign keeps every session."""
        conn = self._db
        with self._guard(), self._transaction():
            row = conn.execute("SELECT value FROM campaign_meta WHERE key = 'sessions'").fetchone()
            sessions = json.loads(row[0]) if row else []
            sessions.append(provenance)
            conn.execute("INSERT OR REPLACE INTO campaign_meta (key, value) VALUES ('sessions', ?)",
                         (json.dumps(sessions),))

    def set_meta(self, key: str, value: str) -> None:
        """Record one campaign fact (``merged_from``: what a merged store was made of); not a key :meth:`begin`
        or the plan owns."""
        if key in ("campaign", "config_hash", "config_text", "created_at", "sessions", _PLANNED, _PLAN_HASH):
            raise ValueError(f"{self._label}: campaign fact {key!r} is written by begin(), not set_meta()")
        with self._guard(), self._transaction():
            self._db.execute("INSERT OR REPLACE INTO campaign_meta (key, value) VALUES (?, ?)", (key, value))

    def sessions(self) -> list[dict[str, Any]]:
        """Every session's provenance, oldest first (empty for a store written before they were recorded)."""
        raw = self.meta().get("sessions")
        return json.loads(raw) if raw else []

    def meta(self) -> dict[str, str]:
        """The campaign's name, config_hash, config_text and created_at (ISO 8601, UTC)."""
        with self._guard():
            return dict(self._db.execute("SELECT key, value FROM campaign_meta ORDER BY key"))

    def plan(self) -> list[dict[str, Any]] | None:
        """Every planned run (keys :data:`PLAN_COLUMNS`), or None when no plan was recorded.

        A store written before schema version 2, or by code that never passed a plan to
        :meth:`begin`, has none: its completeness cannot be judged from the store.
        """
        with self._guard():
            meta = self.meta()
            if self.version < 2 or _PLANNED not in meta:
                return None
            names = list(PLAN_COLUMNS)
            rows = self._db.execute(f"SELECT {self._plan_select} FROM planned_runs ORDER BY rowid").fetchall()
        plan = [dict(zip(names, row)) for row in rows]
        recorded = meta.get(_PLAN_HASH)
        if meta[_PLANNED] != str(len(plan)) or (recorded and recorded != _digest(p["run_id"] for p in plan)):
            raise self._damaged(f"its plan holds {len(plan)} runs, not the {meta[_PLANNED]} recorded, or other "
                                "runs than recorded")
        return plan

    # -- runs -------------------------------------------------------------------------

    def add_columns(self, columns: dict[str, str]) -> None:
        """Add a task's own columns (name -> SQL type) to ``runs`` where it lacks them (null in the runs stored).

        Raises ValueError for a shared column's name, a name that is not a lower-case identifier, a type
        that is not TEXT, INTEGER or REAL, or a column the store has with another type.
        """
        new = {}
        for name, sql_type in columns.items():
            if name in COLUMNS or not (name.isidentifier() and name.islower()) or sql_type not in SQL_TYPES:
                raise ValueError(f"{self._label}: cannot add run column {name!r} {sql_type!r}: a task's own column "
                                 f"is a lower-case name that no shared column has, of type {', '.join(SQL_TYPES)}")
            if name in self.extra and self.extra[name] != sql_type:
                raise ValueError(f"{self._label}: run column {name!r} is {self.extra[name]}, not {sql_type}")
            if name not in self.extra:
                new[name] = sql_type
        if not new:
            return
        with self._guard(), self._transaction():
            for name, sql_type in new.items():
                self._db.execute(f"ALTER TABLE runs ADD COLUMN {name} {sql_type}")
        self.extra.update(new)
        self._select = ", ".join([self._select, *new])

    def keep(self, files: dict[str, bytes]) -> None:
        """Write files a run keeps beside the store (``proofs/SHA.cnf.gz``: a path inside the store's folder ->
        its bytes), each whole or not at all (written aside, then renamed); before its record is added, so a
        stored record's files exist."""
        import tempfile

        for name, data in files.items():
            target = (self.directory / name).resolve()
            if self.directory.resolve() not in target.parents:
                raise ValueError(f"a kept file must stay inside {self.directory}: {name!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, aside = tempfile.mkstemp(dir=target.parent, prefix=".keep-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(aside, target)

    def add(self, record: dict[str, Any]) -> bool:
        """Store one run record and commit it; False (nothing written) if its run_id is stored -- unless what is
        stored holds no measurement (:data:`~harness.core.status.NOT_MEASURED`: a lost run) and this record
        does: then it takes that record's place, in one transaction.

        Raises ValueError for a record that lacks a column, has an unknown one (a task's own columns must
        be added first: :meth:`add_columns`), or holds a value that does not fit its column's type (JSON
        columns must parse).
        """
        check_record(record, self.extra)
        _check_types(record, self.extra)
        check_values(record)
        names = [*COLUMNS, *(c for c in self.extra if c in record)]
        values = [record[c] for c in names]
        with self._guard():
            # One autocommit statement: one transaction, durable once it returns.
            if self._db.execute(_insert(names), values).rowcount == 1:
                return True
            if record["status"] in NOT_MEASURED:
                return False
            marks = ", ".join("?" for _ in NOT_MEASURED)  # a lost record stored: this one takes its place
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(f"DELETE FROM runs WHERE run_id = ? AND status IN ({marks})",
                                 [record["run_id"], *NOT_MEASURED])
                added = self._db.execute(_insert(names), values).rowcount == 1
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return added

    def done_ids(self) -> set[str]:
        """The run_ids already stored."""
        with self._guard():
            return {r[0] for r in self._db.execute("SELECT run_id FROM runs")}

    def _rows(self) -> list[tuple]:
        """Every stored run's values, each run checked: a value that no run can hold is damage."""
        with self._guard():
            rows = self._db.execute(f"SELECT {self._select} FROM runs ORDER BY rowid").fetchall()
        names = self.columns
        for row in rows:
            record = dict(zip(names, row))
            try:
                _check_types(record, self.extra)
                check_values(record)
            except ValueError as exc:
                raise self._damaged(f"run {record.get('run_id')!r}: {str(exc).removeprefix('run record: ')}") \
                    from None
        return rows

    def records(self) -> list[dict[str, Any]]:
        """Every stored run as a record (column order, insertion order, JSON as text)."""
        names = self.columns
        return [dict(zip(names, row)) for row in self._rows()]

    @property
    def columns(self) -> list[str]:
        """The run columns this store returns: the shared ones, then the task's own (:attr:`extra`)."""
        return [*COLUMNS, *self.extra]

    def dataframe(self) -> "pd.DataFrame":
        """Every stored run as a typed pandas DataFrame (see :mod:`harness.store.frame`)."""
        from harness.store import frame

        return frame.from_rows(self._rows(), self.extra)

    def __len__(self) -> int:
        with self._guard():
            return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def __contains__(self, run_id: object) -> bool:
        with self._guard():
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


def _digest(run_ids: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(run_ids)).encode()).hexdigest()[:16]


__all__ = ["DB_NAME", "GZ_NAME", "PLAN_COLUMNS", "SCHEMA_VERSION", "ResultsStore"]
