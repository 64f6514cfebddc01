"""Process helpers for the tests: whether a process is still there; a pool task that will not stop."""

from __future__ import annotations

import signal
import time


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (its /proc state)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def stubborn() -> None:
    """A pool task that ignores SIGTERM and never ends (a worker an interrupt cannot stop)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(0.1)
