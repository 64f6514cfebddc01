"""The run record: one tidy row per run, its columns, units and types.  Pure, no I/O.

The runner fills one record per run and the results store writes it as one row; the
reports read the same columns back.  Units are in the column names (``wall_s``,
``peak_rss_mb``).  Structured values (options, boards, versions) are JSON text so that
every column is a plain SQLite / CSV / Parquet scalar.

The three facts stay apart (see :mod:`harness.core.status`): ``answer`` is what the
solver said, ``termination`` why the run ended, ``verdict`` what the independent
verifier said of the boards; ``status`` is ``classify()`` of the three.
"""

from __future__ import annotations

import json
from typing import Any

# name -> SQLite type.  The order is the column order of the store and of exports.
COLUMNS: dict[str, str] = {
    # identity
    "run_id": "TEXT",  # deterministic: same instance content, pair, task, seed, repetition, limits
    "campaign": "TEXT",
    "config_hash": "TEXT",
    "instance": "TEXT",  # the instance's name
    "instance_path": "TEXT",  # the file, as the config resolved it
    "instance_hash": "TEXT",  # Instance.content_hash (of the file's bytes if it does not parse)
    "rows": "INTEGER",
    "cols": "INTEGER",
    "pair": "TEXT",  # deterministic label, e.g. sat[encoding=totalizer,solver=cadical195]/placement
    "backend": "TEXT",
    "formulation": "TEXT",
    "options": "TEXT",  # JSON: every option of the backend, defaults filled in
    "task": "TEXT",  # solve | count-K
    "seed": "INTEGER",
    "repetition": "INTEGER",
    "time_limit_s": "REAL",
    "memory_limit_mb": "INTEGER",
    # outcome
    "status": "TEXT",  # sat unsat timeout memout error wrong
    "answer": "TEXT",  # what the solver said: sat | unsat | unknown | none (no answer came back)
    "exhausted": "INTEGER",  # the solver says no further board exists (0/1)
    "termination": "TEXT",  # completed solver-limit timeout memout crash
    "verdict": "TEXT",  # ok | the first failing verdict | none (no boards)
    "count": "INTEGER",  # distinct boards returned
    "complete": "INTEGER",  # the count is proven exact (0/1)
    # measurements
    "build_s": "REAL",  # abstract model + native model, in the worker
    "solve_s": "REAL",  # enumeration, in the worker
    "wall_s": "REAL",  # measured by the runner, from dispatch to answer or to the worker's end
    "cpu_s": "REAL",  # user + system CPU of the worker's process tree during the run
    "solver_reported_s": "REAL",  # what the solver says it used
    "overshoot_s": "REAL",  # wall_s beyond time_limit_s (0 when within)
    "peak_rss_mb": "REAL",  # peak resident memory of the worker during the run
    "variables": "INTEGER",
    "constraints": "INTEGER",
    "placements": "INTEGER",
    # provenance
    "solver_version": "TEXT",  # e.g. "ortools 9.15.6755"
    "versions": "TEXT",  # JSON: battlebench, python and solver library versions
    "host": "TEXT",
    "worker_pid": "INTEGER",
    "started_at": "TEXT",  # ISO 8601, UTC
    "ended_at": "TEXT",
    # evidence
    "boards": "TEXT",  # JSON list of boards (each a list of row strings), verified or not
    "verdicts": "TEXT",  # JSON list, one verdict per board
    "error": "TEXT",
    "detail": "TEXT",
}

JSON_COLUMNS = ("options", "versions", "boards", "verdicts")
BOOL_COLUMNS = ("exhausted", "complete")


def empty_record() -> dict[str, Any]:
    """A record with every column present and null."""
    return dict.fromkeys(COLUMNS)


def check_record(record: dict[str, Any]) -> None:
    """Raise ValueError unless ``record`` has exactly the columns, with scalar values."""
    missing = [c for c in COLUMNS if c not in record]
    extra = [c for c in record if c not in COLUMNS]
    if missing or extra:
        raise ValueError(f"run record: missing {missing}, unknown {extra}")
    for key, value in record.items():
        if value is not None and not isinstance(value, (str, int, float)):
            raise ValueError(f"run record: column {key!r} holds {type(value).__name__}, not a scalar")


def dumps(value: Any) -> str:
    """JSON text for a structured column (sorted keys: the same value gives the same text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


__all__ = ["COLUMNS", "JSON_COLUMNS", "BOOL_COLUMNS", "empty_record", "check_record", "dumps"]
