"""A results directory holding both ``results.sqlite`` and ``results.sqlite.gz``: are they the same store?

A reader opens ``results.sqlite`` when it is there (:class:`harness.store.ResultsStore`), so
a compressed copy beside it that says something else would go unread and unsaid.  Before
reading such a pair, :func:`compare_twin` compares them: the same bytes, or else the same
runs (every column), the same plan and the same campaign facts.  When they agree the reader
says so in one line; when they disagree it refuses the ambiguity
(:class:`~harness.errors.StoreConflict`, one line naming both files and what differs):
nothing is read from a folder whose two stores disagree.
"""

from __future__ import annotations

import filecmp
import hashlib
import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

from harness.errors import StoreConflict

_TABLES = {"runs": "run_id", "planned_runs": "run_id", "campaign_meta": "key"}


def _content(db: Path) -> dict[str, dict[str, str]]:
    """table -> key -> digest of the row (by column name), for the tables a store's meaning lives in."""
    conn = sqlite3.connect(f"file:{quote(str(db.resolve()))}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        out: dict[str, dict[str, str]] = {}
        for table, key in _TABLES.items():
            rows: dict[str, str] = {}
            if table in tables:
                cur = conn.execute(f"SELECT * FROM {table}")
                names = [d[0] for d in cur.description]
                for row in cur:
                    rec = dict(zip(names, row))
                    text = json.dumps(rec, sort_keys=True, default=str)
                    rows[str(rec.get(key))] = hashlib.sha256(text.encode()).hexdigest()
            out[table] = rows
        return out
    except sqlite3.DatabaseError as exc:
        raise StoreConflict(f"{db}: cannot be compared with its compressed twin: {exc}") from None
    finally:
        conn.close()


def _differences(a: dict[str, dict[str, str]], b: dict[str, dict[str, str]]) -> list[str]:
    said = []
    for table, what in (("runs", "runs"), ("planned_runs", "planned runs"), ("campaign_meta", "campaign facts")):
        x, y = a[table], b[table]
        changed = sum(1 for k in x.keys() & y.keys() if x[k] != y[k])
        only_a, only_b = len(x.keys() - y.keys()), len(y.keys() - x.keys())
        parts = [f"{n} {label}" for n, label in ((changed, "differ"), (only_a, "only in the sqlite"),
                                                 (only_b, "only in the gz")) if n]
        if parts:
            said.append(f"{what}: " + ", ".join(parts))
    return said


def compare_twin(db: Path, gz: Path, unzipped: Path) -> str:
    """The sentence that ``db`` and the compressed ``gz`` beside it (decompressed at ``unzipped``) agree;
    StoreConflict when they do not."""
    log = db.with_name(db.name + "-wal")
    settled = not log.exists() or log.stat().st_size == 0  # else the log may hold runs the file does not
    if settled and filecmp.cmp(db, unzipped, shallow=False):
        return f"{db.name} and {gz.name} are both here, the same bytes: read {db.name}"
    ours, theirs = _content(db), _content(unzipped)
    differ = _differences(ours, theirs)
    if differ:
        raise StoreConflict(f"{db.parent}: holds {db.name} and {gz.name} that disagree ({'; '.join(differ)}); "
                            f"nothing was read: remove or rename the one that is wrong")
    return (f"{db.name} and {gz.name} are both here and agree ({len(ours['runs'])} runs, the plan and the "
            f"campaign the same): read {db.name}")


__all__ = ["compare_twin"]
