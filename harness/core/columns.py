"""What each task's records hold: the tasks' column declarations gathered into the records page.

The shared schema is :data:`harness.core.record.SCHEMA`; each task declares what a shared
column holds for it (``TaskType.columns``) and the columns it adds (``TaskType.extra_columns``).
:func:`records_markdown` is the table of ``docs/reference/records.md``: one row per shared
column, then one per task's own column, and one column per task -- every registered task, a
plugin task included.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.record import SCHEMA
from harness.core.task import TASK_BUILTINS, TASKS, TaskType, task_classes

SAME = "same"
"""The cell of a column that means the same for every task (after the first)."""

NULL = "null"
"""The cell of another task's own column: that task's rows hold null there."""


def builtin_tasks() -> list[type[TaskType]]:
    """The built-in tasks, in registry order (the records page the docs show)."""
    return [TASKS.load(name) for name in TASK_BUILTINS]


def records_markdown(tasks: Sequence[type[TaskType]] | None = None) -> str:
    """The records page's table: each column's type, what it means and -- where the tasks differ -- what it holds
    for each of ``tasks`` (default: every registered task that loads)."""
    tasks = list(task_classes() if tasks is None else tasks)
    lines = ["| column | type | " + " | ".join(cls.name for cls in tasks) + " |",
             "|---|---|" + "---|" * len(tasks)]
    for name, (kind, meaning) in SCHEMA.items():
        if name == "task":  # what it holds is the task's name
            cells = [cls.name for cls in tasks]
        elif any(name in cls.columns for cls in tasks):
            cells = [cls.columns.get(name, meaning) for cls in tasks]
        else:
            cells = [meaning] + [SAME] * (len(tasks) - 1)
        lines.append(_row(name, kind, cells))
    for owner in tasks:
        for name, (kind, meaning) in owner.extra_columns.items():
            cells = [meaning if cls is owner else cls.extra_columns.get(name, (None, NULL))[1] for cls in tasks]
            if name not in [n for cls in tasks[:tasks.index(owner)] for n in cls.extra_columns]:
                lines.append(_row(name, kind, cells))
    return "\n".join(lines)


def _row(name: str, kind: str, cells: list[str]) -> str:
    return f"| `{name}` | {kind} | " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


__all__ = ["NULL", "SAME", "builtin_tasks", "records_markdown"]
