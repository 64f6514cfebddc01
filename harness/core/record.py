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


STATUS_VALUES = ("sat", "unsat", "timeout", "memout", "error", "wrong")
ANSWER_VALUES = ("sat", "unsat", "unknown", "none")
TERMINATION_VALUES = ("completed", "solver-limit", "timeout", "memout", "crash")
_NON_NEGATIVE = ("build_s", "solve_s", "wall_s", "cpu_s", "solver_reported_s", "overshoot_s", "peak_rss_mb",
                 "count", "variables", "constraints", "placements", "repetition", "seed")


def check_values(record: dict[str, Any]) -> None:
    """Raise ValueError unless the record's values make sense (types are :func:`check_record`'s job).

    The rules a stored run must keep: a status, answer and termination from their
    vocabularies; times, counts and sizes not negative; ``boards`` a JSON list of boards
    (each a list of row strings) and ``verdicts`` a JSON list of as many strings (either
    may be null).
    """
    for name, allowed in (("status", STATUS_VALUES), ("answer", ANSWER_VALUES),
                          ("termination", TERMINATION_VALUES)):
        value = record.get(name)
        if name == "status" or value is not None:
            if value not in allowed:
                raise ValueError(f"column {name!r} holds {value!r}, not one of {', '.join(allowed)}")
    for name in _NON_NEGATIVE:
        value = record.get(name)
        if isinstance(value, (int, float)) and value < 0:
            raise ValueError(f"column {name!r} holds {value!r}, a negative number")
    boards = _json(record, "boards", None)
    verdicts = _json(record, "verdicts", None)
    if boards is not None and (not isinstance(boards, list) or not all(
            isinstance(b, list) and all(isinstance(r, str) for r in b) for b in boards)):
        raise ValueError("column 'boards' is not a list of boards (lists of row strings)")
    if verdicts is not None and (not isinstance(verdicts, list) or not all(isinstance(v, str) for v in verdicts)):
        raise ValueError("column 'verdicts' is not a list of strings")
    if boards is not None and verdicts is not None and len(verdicts) != len(boards):
        raise ValueError(f"column 'verdicts' holds {len(verdicts)} verdicts for {len(boards)} boards")


def _json(record: dict[str, Any], name: str, default: Any) -> Any:
    text = record.get(name)
    if text is None:
        return default
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        raise ValueError(f"column {name!r} is not JSON text") from None


def dumps(value: Any) -> str:
    """JSON text for a structured column (sorted keys: the same value gives the same text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


__all__ = ["ANSWER_VALUES", "BOOL_COLUMNS", "COLUMNS", "JSON_COLUMNS", "STATUS_VALUES", "TERMINATION_VALUES",
           "check_record", "check_values", "dumps", "empty_record"]
