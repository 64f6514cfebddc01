"""Ways a results store gets damaged on disk (overwritten pages, truncation, zero bytes), or old (schema 1)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

PAGE = 4096


def pages(db: Path) -> int:
    return db.stat().st_size // PAGE


def checkpoint(db: Path) -> None:
    """Fold the WAL into the main file, so that damage to the file is damage to the data."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def overwrite_pages(db: Path, which: list[int], seed: int = 0) -> None:
    """Overwrite most of each listed page (0-based; page 0 holds the header) with random bytes."""
    checkpoint(db)
    rng = random.Random(seed)
    with open(db, "r+b") as fh:
        for page in which:
            fh.seek(page * PAGE + 100)
            fh.write(bytes(rng.randrange(256) for _ in range(PAGE - 200)))


def truncate(db: Path, keep_pages: int) -> None:
    checkpoint(db)
    with open(db, "r+b") as fh:
        fh.truncate(keep_pages * PAGE)


def zero_bytes(db: Path) -> None:
    checkpoint(db)
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    db.write_bytes(b"")


DAMAGES = {
    "overwritten pages": lambda db: overwrite_pages(db, list(range(2, pages(db), 2))),
    "truncated": lambda db: truncate(db, max(2, pages(db) // 2)),
    "zero bytes": zero_bytes,
}
"""Each damage, applied to a store's ``results.sqlite`` with enough pages to lose some."""


def as_version_5(db: Path) -> None:
    """Make a store look as schema 5 left it: no node_class, no cpus column."""
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE runs DROP COLUMN node_class")
    conn.execute("ALTER TABLE runs DROP COLUMN cpus")
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()


def as_version_4(db: Path) -> None:
    """Make a store look as schema 4 left it: no question column; the question (the label) in task; no task's
    own columns (a task's extra columns came with schema 5: the solve task's claim, certificate, ...)."""
    from harness.core.record import COLUMNS
    from harness.store.schema import ADDED_IN_6

    as_version_5(db)
    conn = sqlite3.connect(db)
    for (column,) in conn.execute("SELECT name FROM pragma_table_info('runs')").fetchall():
        if column not in COLUMNS or column in ADDED_IN_6:
            conn.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    for table in ("runs", "planned_runs"):
        conn.execute(f"UPDATE {table} SET task = question")
        conn.execute(f"ALTER TABLE {table} DROP COLUMN question")
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()


def as_version_3(db: Path) -> None:
    """Make a store look as schema 3 left it: no warmup_s column (nor question)."""
    as_version_4(db)
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE runs DROP COLUMN warmup_s")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()


def as_version_2(db: Path) -> None:
    """Make a store look as schema 2 left it: no shots column; a game's shots in its count."""
    as_version_3(db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE runs SET count = shots WHERE task = 'play'")
    conn.execute("ALTER TABLE runs DROP COLUMN shots")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()


def as_version_1(db: Path) -> None:
    """Make a store look as battlebench 0.1 left it: schema 1, no cpu_s or shots column, no plan."""
    as_version_2(db)
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE runs DROP COLUMN cpu_s")
    conn.execute("DROP TABLE planned_runs")
    conn.execute("DELETE FROM campaign_meta WHERE key = 'planned_runs'")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def left_with_a_log(directory: Path, runs: int = 3) -> Path:
    """A store whose writer died (like ``kill -9``) after ``runs`` runs: its runs are in its -wal file."""
    import os
    import subprocess
    import sys

    code = ("import os, sys\nsys.path.insert(0, sys.argv[3])\nfrom harness.store import ResultsStore\n"
            "from handstore import plan_rows, run\n"
            "runs = [run(f'i{k}', 'sat/cell', 'sat', 0.5) for k in range(int(sys.argv[2]))]\n"
            "s = ResultsStore(sys.argv[1])\ns.begin('hand', 'hand0001', '', plan=plan_rows(runs))\n"
            "for r in runs:\n    s.add(r)\nos._exit(0)\n")
    tests = Path(__file__).resolve().parent
    subprocess.run([sys.executable, "-c", code, str(directory), str(runs), str(tests)], check=True,
                   env=dict(os.environ, PYTHONPATH=str(tests.parent)))
    return directory / "results.sqlite"


def damage_log(db: Path, frame: int = 2) -> None:
    """Overwrite bytes inside one frame of the store's write-ahead log (not its last)."""
    with open(db.with_name(db.name + "-wal"), "r+b") as fh:
        fh.seek(32 + frame * (24 + PAGE) + 500)
        fh.write(b"\xff" * 64)
