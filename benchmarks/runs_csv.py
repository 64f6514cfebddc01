"""A benchmark script's table of runs in one CSV file: written row by row, resumed, never overwritten.

A script imports it as ``runs_csv`` with ``benchmarks/`` on ``sys.path`` (benchmarks and experiments are
scripts, not a package).

Benchmarks that are scripts, not campaigns (``experiments/certify_variants.py``,
``experiments/certify_anatomy.py``), keep every run as a row of ``runs.csv``, flushed as it
finishes, so a stopped script loses at most the run in progress.  :func:`earlier_runs`
refuses to start over an existing file unless asked to resume (nothing is overwritten), and
reads it back with a one-line error naming the file, the line and the problem when it is not
the script's own; :class:`RunsFile` rewrites the rows kept and appends new ones.  Which rows
a resumed script keeps is its own rule (both scripts above run an instance cut off part-way
again whole, so that its runs stay side by side in time).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Callable, Iterable

TIMES = ("wall_s", "cpu_s")


def earlier_runs(path: Path, fields: list[str], script: str, resume: bool,
                 check: Callable[[dict], str | None] | None = None) -> list[dict]:
    """The rows of ``path`` when resuming (``[]`` when it does not exist yet); ``SystemExit`` with one line
    when it exists and ``resume`` is off, or when its header, a row's number of fields, a time
    (``wall_s``/``cpu_s``: a number or empty) or ``check(row)`` (a problem, or None) says it is not this
    script's.  The line named is the file's own line (the row's last, for a value that spans lines)."""
    if not path.exists():
        return []
    if not resume:
        raise SystemExit(f"{script}: {path} exists: --resume goes on from it (nothing is overwritten)")
    rows = []
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames != fields:
                raise SystemExit(f"{script}: {path}: line 1: not this script's header ({', '.join(fields)})")
            for row in reader:
                _check_row(row, reader.line_num, path, script, check)
                rows.append(row)
    except (csv.Error, UnicodeDecodeError) as exc:
        raise SystemExit(f"{script}: {path}: not a CSV file this script can read ({exc})") from None
    return rows


def _check_row(row: dict, line: int, path: Path, script: str, check) -> None:
    where = f"{script}: {path}: line {line}"
    if None in row or None in row.values():
        raise SystemExit(f"{where}: {'more' if None in row else 'fewer'} fields than the header")
    try:
        for key in TIMES:
            if key in row:
                row[key] = float(row[key]) if row[key] != "" else ""
    except ValueError:
        raise SystemExit(f"{where}: wall_s/cpu_s are not numbers") from None
    problem = check(row) if check else None
    if problem:
        raise SystemExit(f"{where}: {problem}")


def resumed(rows: list[dict], key: str, wanted: dict[str, set[str]], field: str) -> tuple[list[dict], set[str]]:
    """(the rows a resumed script keeps, the groups it runs again): a group (value of ``key``) in ``wanted``
    that lacks one of the ``field`` values wanted for it runs again whole, so its rows of those values go;
    every other row stays, those of values not wanted this time included."""
    have: dict[str, set[str]] = {}
    for row in rows:
        have.setdefault(row[key], set()).add(row[field])
    again = {g for g, need in wanted.items() if not need <= have.get(g, set())}
    kept = [r for r in rows if not (r[key] in again and r[field] in wanted[r[key]])]
    return kept, again


class RunsFile:
    """``runs.csv`` rewritten with the rows kept, then each new row appended and flushed as it comes."""

    def __init__(self, path: Path, fields: list[str], kept: Iterable[dict]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = path.with_name(path.name + ".new")  # the old file stays whole until the kept rows are written
        with open(fresh, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fields)
            writer.writeheader()
            writer.writerows(kept)
        os.replace(fresh, path)
        self._fh = open(path, "a", newline="")
        self._writer = csv.DictWriter(self._fh, fields)

    def add(self, rows: Iterable[dict]) -> None:
        self._writer.writerows(rows)
        self._fh.flush()

    def __enter__(self) -> "RunsFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


__all__ = ["RunsFile", "earlier_runs", "resumed"]
