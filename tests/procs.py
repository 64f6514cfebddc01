"""Process helpers for the tests: whether a process is still there."""

from __future__ import annotations


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (its /proc state)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False
