"""The tasks' report sections for a store's runs, found through the task registry: the report imports no task.

Every run's ``task`` column names its task (``solve``, ``count``, ``play``, ``value``, a
plugin's); the registry (:data:`harness.core.task.TASKS`) loads the task of that name and
the task gives its :class:`~harness.core.task.ReportSection`.  Runs of a task this
installation does not know get the plain section (nothing added) and a note saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.core.task import TASKS, ReportSection
from harness.errors import InputError


@dataclass
class Part:
    """One task's runs in a store and its section."""

    task: str  # the task's name ("" when no registered task has the runs' task name)
    section: ReportSection
    mask: pd.Series  # which rows of the frame are this task's
    labels: tuple[str, ...]  # the names in the runs' task column

    def frame(self, df: pd.DataFrame) -> pd.DataFrame:
        return df[self.mask.reindex(df.index, fill_value=False).to_numpy(dtype=bool)]


def parts_of(df: pd.DataFrame) -> list[Part]:
    """One part per task among the runs of ``df``, in order of first appearance."""
    if df.empty or "task" not in df.columns:
        return []
    by_task: dict[str, tuple[ReportSection, list[str]]] = {}
    for label in pd.unique(df["task"].astype(object)):
        label = "" if label is None or label is pd.NA else str(label)
        try:
            cls = TASKS.load(label) if label and ":" not in label else None
        except InputError:
            cls = None
        name = cls.name if cls is not None else ""
        if name not in by_task:
            section = cls.section() if cls is not None else None
            by_task[name] = (section if section is not None else ReportSection(), [])
        by_task[name][1].append(label)
    task = df["task"].astype(object).fillna("").astype(str)
    return [Part(name, section, task.isin(labels), tuple(labels)) for name, (section, labels) in by_task.items()]


def unknown_note(parts: list[Part]) -> list[str]:
    """A note for runs whose task no registered task is (a plugin task not installed here)."""
    return [f"runs of task {', '.join(repr(label) for label in p.labels)}: no installed task owns them; only the "
            "common tables are shown" for p in parts if not p.task]


def prepare(df: pd.DataFrame, parts: list[Part]) -> pd.DataFrame:
    """``df`` with each part's rows as its section reads them (a stored value it corrects, ...)."""
    out = df.copy()
    for part in parts:
        rows = part.frame(out)
        if rows.empty:
            continue
        fixed = part.section.prepare(rows)
        if fixed is not rows:
            out.loc[fixed.index, fixed.columns] = fixed
    return out


def all_problems(df: pd.DataFrame, manifest: dict[str, dict] | None, manifest_path: Any,
                 parts: list[Part] | None = None) -> list:
    """Every problem the runs of ``df`` show, whatever their task: what ``check`` fails on and ``report`` shows."""
    out: list = []
    for part in parts if parts is not None else parts_of(df):
        frame = part.frame(df)
        if not frame.empty:
            out += part.section.problems(frame, manifest, manifest_path)
    return out


__all__ = ["Part", "all_problems", "parts_of", "prepare", "unknown_note"]
