"""Process helpers for the tests: whether a process is alive or gone, what it is; waiting for one without a wall-clock
deadline a loaded machine can hit; a pool task that will not stop."""

from __future__ import annotations

import os
import signal
import subprocess
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


STALLED_S = 900.0
"""How long a child may go without its process tree using any CPU before a patient wait gives up on it: a child at
work on a machine at load 24 still gets CPU every second; one that used none for this long is hung (a deadlock, a
wait on input that never comes), whatever the load."""

_TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of process ``pid`` and its live descendants, with the children they reaped (/proc)."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)] = int(fields[1])
        ticks[int(entry)] = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += ticks.get(p, 0)
        todo += [c for c, pp in parent.items() if pp == p]
    return total / _TICK


def communicate(proc: subprocess.Popen, input: str | bytes | None = None,
                stalled_s: float = STALLED_S) -> tuple:
    """``proc.communicate()`` with no wall-clock deadline: it waits as long as the child's tree keeps using CPU, and
    kills it (an AssertionError) only once the tree has used none for ``stalled_s`` seconds -- a load that slows the
    child down never fails the test, a hang still does."""
    last, since = -1.0, time.monotonic()
    while True:
        try:
            return proc.communicate(input, timeout=2.0)
        except subprocess.TimeoutExpired:
            input = None  # handed over already; retrying loses no output
        used = tree_cpu_s(proc.pid)
        if used != last:
            last, since = used, time.monotonic()
        elif time.monotonic() - since > stalled_s:
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"{proc.args!r} used no CPU for {stalled_s:.0f} s: hung (stderr: {err!r:.2000})")


def run(cmd, *, input: str | bytes | None = None, capture_output: bool = False, stalled_s: float = STALLED_S,
        **kw) -> subprocess.CompletedProcess:
    """``subprocess.run`` waiting as :func:`communicate` does (no wall-clock timeout); ``check`` is not taken."""
    if capture_output:
        kw["stdout"] = kw["stderr"] = subprocess.PIPE
    if input is not None:
        kw["stdin"] = subprocess.PIPE
    with subprocess.Popen(cmd, **kw) as proc:
        out, err = communicate(proc, input, stalled_s)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def wait_until(ready, proc: subprocess.Popen, stalled_s: float = STALLED_S, every: float = 0.05) -> bool:
    """Wait until ``ready()`` holds or ``proc`` has ended (its result: whether ``ready()`` held), with no wall-clock
    deadline: only a tree that used no CPU for ``stalled_s`` seconds fails (an AssertionError), as in
    :func:`communicate`."""
    last, since, checked = -1.0, time.monotonic(), time.monotonic()
    while proc.poll() is None:
        if ready():
            return True
        time.sleep(every)
        if time.monotonic() - checked >= 2.0:
            checked, used = time.monotonic(), tree_cpu_s(proc.pid)
            if used != last:
                last, since = used, checked
            elif checked - since > stalled_s:
                raise AssertionError(f"{proc.args!r} used no CPU for {stalled_s:.0f} s before it was ready: hung")
    return bool(ready())


def busy_seed(marker: str) -> str:
    """A pool task as ``generate``'s seeds are in a pool worker: busy (SIGTERM interrupts it) until SIGTERM comes;
    ``marker`` is written once it is in hand."""
    from pathlib import Path

    from harness.generate import batch

    batch._BUSY = True
    Path(marker).write_text(str(os.getpid()))
    try:
        while True:
            time.sleep(0.05)
    except KeyboardInterrupt:
        return "interrupted"
    finally:
        batch._BUSY = False
