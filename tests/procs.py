"""Process helpers for the tests: whether a process is still there, what it is; a pool task that will not stop."""

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


def described(pid: int) -> str:
    """What process ``pid`` is, for an assertion's message: its state, parent, session and command line."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return f"{pid}: gone"
    state, ppid, _pgrp, sid = stat[stat.rfind(")") + 2:].split()[:4]
    return f"{pid} (state {state}, parent {ppid}, session {sid}): {argv[:160]}"


def stubborn() -> None:
    """A pool task that ignores SIGTERM and never ends (a worker an interrupt cannot stop)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(0.1)
