"""Pure vocabulary shared by every layer: statuses, terminations, classify(), the record, the task contract, plugins."""

from harness.core.status import Question, Status, Termination, classify

__all__ = ["Question", "Status", "Termination", "classify"]
