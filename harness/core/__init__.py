"""Pure vocabulary shared by every layer: tasks, terminations, statuses, classify()."""

from harness.core.status import Status, Task, Termination, classify

__all__ = ["Status", "Task", "Termination", "classify"]
