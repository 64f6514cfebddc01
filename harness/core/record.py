"""The run record: one tidy row per run, its columns, units and types.  Pure, no I/O.

The runner fills one record per run and the results store writes it as one row; the
reports read the same columns back.  Units are in the column names (``wall_s``,
``peak_rss_mb``).  Structured values (options, boards, versions) are JSON text so that
every column is a plain SQLite / CSV / Parquet scalar.

The three facts stay apart (see :mod:`harness.core.status`): ``answer`` is what the
solver said, ``termination`` why the run ended, ``verdict`` what the independent
verifier said of the boards; ``status`` is ``classify()`` of the three.

This module holds the shared schema only.  A column means one thing for every task; what
it holds for each task (the solve task's backend is a backend, the count task's a counter,
the play task's a strategy), and the columns a task adds of its own, each task declares
(:attr:`harness.core.task.TaskType.columns`, ``extra_columns``); :mod:`harness.core.columns`
gathers the declarations into the table ``docs/reference/records.md`` shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from harness.core.status import Status

# name -> (SQLite type, what it means for every task).  The order is the column order of the store and exports.
SCHEMA: dict[str, tuple[str, str]] = {
    # identity
    "run_id": ("TEXT", "deterministic: the same file and content, pair, question, seed, repetition and limits"),
    "campaign": ("TEXT", "the config's name"),
    "config_hash": ("TEXT", "what in the config decides results (not jobs, executor, output)"),
    "instance": ("TEXT", "the instance's name"),
    "instance_path": ("TEXT", "the file, as the config resolved it"),
    "instance_hash": ("TEXT", "the instance's content hash (of the file's bytes if it does not parse)"),
    "rows": ("INTEGER", "board rows (square boards)"),
    "cols": ("INTEGER", "board columns (square boards)"),
    "pair": ("TEXT", "the pair's deterministic label, e.g. sat[encoding=totalizer,solver=cadical195]/placement"),
    "backend": ("TEXT", "the task's plugin"),
    "formulation": ("TEXT", "the pair's variant"),
    "options": ("TEXT", "JSON: the plugin's options"),
    "task": ("TEXT", "the registered task's name: solve, count, play, value or a plugin task's"),
    "question": ("TEXT", "what the run's task is asked: the config's task value (its label)"),
    "seed": ("INTEGER", "the run's seed"),
    "repetition": ("INTEGER", "which repetition"),
    "time_limit_s": ("REAL", "the wall-clock limit"),
    "memory_limit_mb": ("INTEGER", "the memory limit"),
    # outcome
    "status": ("TEXT",
               "classified from answer, termination and verdict: sat unsat timeout unknown memout error wrong "
               "refused; lost: no measurement, its worker or node was lost on every attempt (a resume runs it again)"),
    "answer": ("TEXT", "what the plugin said: sat | unsat | unknown | none (no answer came back)"),
    "exhausted": ("INTEGER", "0/1"),
    "termination": ("TEXT", "why the run ended: completed solver-limit timeout memout crash refused output-limit"),
    "verdict": ("TEXT", "what the independent check says of the answer"),
    "count": ("INTEGER", "how many were found"),
    "complete": ("INTEGER", "0/1"),
    "shots": ("INTEGER", "shots fired"),
    # measurements
    "build_s": ("REAL", "seconds before the search, in the worker"),
    "solve_s": ("REAL", "seconds of the search, in the worker"),
    "wall_s": ("REAL", "measured by the runner, from dispatch to answer or to the worker's end"),
    "cpu_s": ("REAL", "user + system CPU of the worker's process tree during the run"),
    "solver_reported_s": ("REAL", "what the solver says it used"),
    "overshoot_s": ("REAL", "wall_s beyond time_limit_s (0 when within)"),
    "peak_rss_mb": ("REAL", "peak resident memory of the worker during the run"),
    "warmup_s": ("REAL", "seconds the run's new worker spent warming up just before it (imports, compilation, a "
                         "first tiny run: not in wall_s, under the memory limit); null when the worker was warm"),
    "variables": ("INTEGER", "variables of the native model"),
    "constraints": ("INTEGER", "constraints of the native model"),
    "placements": ("INTEGER", "placements"),
    # provenance
    "solver_version": ("TEXT", "NAME VERSION of what answered, as its plugin names it"),
    "versions": ("TEXT", "JSON: battlebench, python and every library version the plugin reports"),
    "host": ("TEXT", "the machine's name (where the run executed; null for a lost run)"),
    "node_class": ("TEXT", "the class of the machine the run was measured on: CPU model, cores, memory (whole "
                           "GiB), kernel; runs of two classes are never ranked together (null: not known)"),
    "worker_pid": ("INTEGER", "the worker process that executed the run"),
    "cpus": ("TEXT", "the logical CPUs the run's worker could run on, read from the kernel as the run was sent "
                     "(kernel list notation, e.g. 0 or 0-1): one physical core's when the campaign pins runs"),
    "started_at": ("TEXT", "ISO 8601, UTC"),
    "ended_at": ("TEXT", "ISO 8601, UTC"),
    # evidence
    "boards": ("TEXT", "JSON list of boards (each a list of row strings)"),
    "verdicts": ("TEXT", "JSON list, one verdict per board"),
    "error": ("TEXT", "why the run failed, one line first"),
    "detail": ("TEXT", "more: the solver's words, a traceback, the task's facts"),
}
COLUMNS: dict[str, str] = {name: kind for name, (kind, _) in SCHEMA.items()}
"""name -> SQLite type, in column order."""

JSON_COLUMNS = ("options", "versions", "boards", "verdicts")
SQL_TYPES = ("TEXT", "INTEGER", "REAL")
"""The types a column may have (a task's own columns too)."""

BOOL_COLUMNS = ("exhausted", "complete")


def empty_record(extra: Iterable[str] = ()) -> dict[str, Any]:
    """A record with every column present and null (and the task's ``extra`` columns, after them)."""
    return dict.fromkeys([*COLUMNS, *extra])


def check_record(record: dict[str, Any], extra: Iterable[str] = ()) -> None:
    """Raise ValueError unless ``record`` has exactly the columns (and no others than ``extra``, a task's own
    columns, which it may leave out), with scalar values."""
    allowed = set(extra)
    missing = [c for c in COLUMNS if c not in record]
    extra = [c for c in record if c not in COLUMNS and c not in allowed]
    if missing or extra:
        raise ValueError(f"run record: missing {missing}, unknown {extra}")
    for key, value in record.items():
        if value is not None and not isinstance(value, (str, int, float)):
            raise ValueError(f"run record: column {key!r} holds {type(value).__name__}, not a scalar")


STATUS_VALUES = tuple(str(s) for s in Status)
ANSWER_VALUES = ("sat", "unsat", "unknown", "none")
TERMINATION_VALUES = ("completed", "solver-limit", "timeout", "memout", "crash", "refused", "output-limit")
_NON_NEGATIVE = ("build_s", "solve_s", "wall_s", "cpu_s", "solver_reported_s", "overshoot_s", "peak_rss_mb",
                 "warmup_s", "count", "shots", "variables", "constraints", "placements", "repetition", "seed")


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


__all__ = ["ANSWER_VALUES", "BOOL_COLUMNS", "COLUMNS", "JSON_COLUMNS", "SCHEMA", "SQL_TYPES", "STATUS_VALUES",
           "TERMINATION_VALUES", "check_record", "check_values", "dumps", "empty_record"]
