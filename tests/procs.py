"""Process helpers for the tests: whether a process is alive or gone, what it is; a pool task that will not stop."""

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


SETTLE_S = 60.0
"""How long a process that was killed gets to be gone: it is gone within milliseconds; the wait, which ends as
soon as it is, is long only so that a loaded machine cannot fail a test."""


def gone(*pids: int, within: float = SETTLE_S) -> bool:
    """Whether every process of ``pids`` is gone (or a zombie) within ``within`` seconds."""
    end = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


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
