"""Failures of runs grouped by message: what the runner's closing summary and the report list.  Pure.

A *failure* is a run that ended in ``error``, ``memout`` or ``timeout``.  Runs are
grouped by status and the first line of their message (``error``, or ``detail`` when
the error is empty), so that a campaign of 300 runs that all died the same way shows one
line: the message, how many runs, and one instance × pair as an example.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

def failure_of(exc: BaseException) -> tuple[str, str]:
    """(one line, traceback) of a crash caught where a run executes; a MemoryError is just ``MemoryError``
    (the caller's memout), with no traceback."""
    if isinstance(exc, MemoryError):
        return "MemoryError", ""
    import traceback

    return f"{type(exc).__name__}: {exc}", traceback.format_exc()


FAILED = ("error", "memout", "timeout")
"""The statuses of a failed run, worst first."""

NO_MESSAGE = "(no message)"


def first_line(record: Mapping[str, Any]) -> str:
    """The first non-empty line of a run's ``error``, else of its ``detail``, else :data:`NO_MESSAGE`."""
    for key in ("error", "detail"):
        text = record.get(key)
        if isinstance(text, str):
            for line in text.splitlines():
                if line.strip():
                    return line.strip()
    return NO_MESSAGE


@dataclass
class FailureGroup:
    """Runs of one status that failed with the same first line."""

    status: str
    message: str
    count: int = 0
    example_instance: str = ""
    example_pair: str = ""
    pairs: set[str] = field(default_factory=set)
    terminations: set[str] = field(default_factory=set)

    @property
    def example(self) -> str:
        return f"{self.example_instance} × {self.example_pair}"


def _status(record: Mapping[str, Any]) -> str:
    value = record.get("status")
    return str(getattr(value, "value", value))


def group_failures(records: Iterable[Mapping[str, Any]],
                   statuses: tuple[str, ...] = FAILED) -> list[FailureGroup]:
    """One group per (status, first line), worst status first, then most runs first.

    The example of a group is its first run in ``records`` order.
    """
    groups: dict[tuple[str, str], FailureGroup] = {}
    for record in records:
        status = _status(record)
        if status not in statuses:
            continue
        message = first_line(record)
        group = groups.get((status, message))
        if group is None:
            group = groups[(status, message)] = FailureGroup(
                status, message, example_instance=str(record.get("instance") or record.get("instance_path") or "?"),
                example_pair=str(record.get("pair") or "?"))
        group.count += 1
        group.pairs.add(str(record.get("pair") or "?"))
        if record.get("termination"):
            group.terminations.add(str(record.get("termination")))
    return sorted(groups.values(), key=lambda g: (statuses.index(g.status), -g.count, g.message))


def render_failures(groups: list[FailureGroup], width: int | None = None) -> str:
    """Plain text, one line per group: ``status  N runs  message  (e.g. instance × pair)``.

    The message is whole unless ``width`` is given (then cut to that many characters).
    """
    lines = []
    for g in groups:
        runs = f"{g.count} run" + ("" if g.count == 1 else "s")
        message = g.message if width is None or len(g.message) <= width else g.message[: width - 1] + "…"
        lines.append(f"  {g.status:<7}  {runs:>8}  {message}  (e.g. {g.example})")
    return "\n".join(lines)


__all__ = ["FAILED", "NO_MESSAGE", "FailureGroup", "failure_of", "first_line", "group_failures", "render_failures"]
