"""Running a tool: one fresh process per call, in a process group of its own inside the worker's session (so the
worker's guard still ends it), its time limit kept by killing that group, its CPU time read from ``wait4``.

The worker's limits hold it too: its memory limit is inherited (``RLIMIT_AS``), and a runner that stops the
worker kills the worker's whole session, tool included.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

GRACE_S = 1.0  # between SIGTERM and SIGKILL of a tool past its time limit


@dataclass
class Ran:
    """One call of a tool: exit code (negative: killed by that signal), what it printed, its wall and CPU seconds,
    whether its time limit ended it; ``layer``: what measured it (``process``: ``wait4`` of the tool and the
    children it waited for, its own peak resident memory; ``runexec``: BenchExec's cgroups, the whole tree);
    ``memout``: the layer ended it at the memory limit; ``reason``: the layer's termination reason, if any."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    timed_out: bool
    layer: str = "process"
    memout: bool = False
    peak_mb: float | None = None
    reason: str = ""


def run_tool(argv: list[str], time_limit_s: float | None, workdir: Path) -> Ran:
    """Run ``argv`` in ``workdir`` until it exits or ``time_limit_s`` wall seconds pass (then SIGTERM to its group,
    SIGKILL a second later)."""
    out_path, err_path = workdir / "stdout.txt", workdir / "stderr.txt"
    start = time.perf_counter()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=workdir,
                                    process_group=0)
        except OSError as exc:
            return Ran(127, "", f"cannot start {argv[0]}: {exc.strerror or exc}", 0.0, 0.0, False)
    timed_out = False
    deadline = None if time_limit_s is None else start + max(time_limit_s, 0.0)
    killed_at = None
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        now = time.perf_counter()
        if deadline is not None and now >= deadline and killed_at is None:
            timed_out = True
            _signal_group(proc.pid, signal.SIGTERM)
            killed_at = now
        elif killed_at is not None and now - killed_at > GRACE_S:
            _signal_group(proc.pid, signal.SIGKILL)
        time.sleep(0.005 if now - start < 0.5 else 0.02)
    _signal_group(proc.pid, signal.SIGKILL)  # whatever it left behind in its group
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    return Ran(proc.returncode, _read(out_path), _read(err_path), wall, usage.ru_utime + usage.ru_stime, timed_out,
               peak_mb=usage.ru_maxrss / 1024)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: Path, most: int = 50_000_000) -> str:
    with open(path, "rb") as f:
        return f.read(most).decode("utf-8", "replace")


__all__ = ["GRACE_S", "Ran", "run_tool"]
