"""A campaign: a config expanded into runs by its task, and one run executed into one run record.

This module knows no task.  The config names one (:mod:`harness.core.task`); the task
reads each subject file here, in the runner, once -- a file that does not parse still
gives its runs, each recorded as ``error`` with the parse message, and the campaign goes
on -- expands the runs, and executes each in the pool's worker, judges it in this process
and builds its record.  Run ids are deterministic (file and content, pair, question, seed,
repetition, limits), so running the same config again finds the finished runs and skips
them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness.core.request import KEPT_FILES
from harness.core.status import Status
from harness.core.task import RunSpec, error_record, now_iso, task_of
from harness.runner.config import Config


def display(path: Path) -> str:
    """A path as records show it: relative to the working directory where it can be."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def campaign_root() -> str:
    """The folder :func:`display` makes paths relative to, as the store records it (``check`` looks there)."""
    return os.getcwd()


def expand(config: Config) -> list[RunSpec]:
    """Every run of the campaign, in the order its task gives (repetition, subject, pair, seed by default)."""
    task = task_of(config.task)
    subjects = [task.load(path, display(path)) for path in config.instance_paths]
    return task.expand(config, subjects)


def execute_spec(pool: Any, spec: RunSpec) -> dict[str, Any]:
    """Execute one run in the pool's worker for its key; judge it here; one record (with the files it keeps
    beside the store under :data:`~harness.core.request.KEPT_FILES`)."""
    executed = task_of(spec.task)().execute(pool, spec)
    if executed.files:
        return {**executed.record, KEPT_FILES: executed.files}
    return executed.record


def lost_record(spec: RunSpec, why: str, started: str | None = None) -> dict[str, Any]:
    """A run whose worker or node was lost on every attempt the campaign's ``retries`` allow: stored as ``lost``
    (no measurement: the next resume executes it again, and its record then replaces this one)."""
    rec = error_record(spec, f"lost: {why}", status=Status.LOST)
    rec.update(host=None, node_class=None)  # made by the runner, not where the run was lost: no node to name
    if started:
        rec["started_at"] = started
    return rec


def failed_record(spec: RunSpec, exc: BaseException, started: str | None = None) -> dict[str, Any]:
    """A run the harness itself failed to execute: recorded as an error, the campaign goes on."""
    import traceback

    rec = error_record(spec, f"harness failure: {type(exc).__name__}: {exc}", traceback.format_exc(limit=5))
    if started:
        rec["started_at"] = started
    return rec


__all__ = ["RunSpec", "campaign_root", "display", "execute_spec", "expand", "failed_record", "lost_record",
           "now_iso"]
