"""Running a tool on the process path: one fresh process per call and everything it starts, contained, measured and
limited by the worker that runs it -- time, the tree's memory, its output -- and killed to the last descendant.

* **the tree**: the tool starts in a process group of its own inside the worker's session, and the worker is a
  child subreaper (``PR_SET_CHILD_SUBREAPER``, Linux), so a descendant that leaves the group and the session
  (``setsid()``) and outlives its parent is re-parented to the worker, not to init.  The tool's tree is every
  descendant of the worker that was not one before the call (:func:`tree`).  When the call ends -- the tool
  exited (also at once, leaving a daemon), or a limit ended it -- every process of the tree is SIGKILLed and
  reaped: SIGTERM ignored or not, none survives the call.  A runner that kills the worker kills its
  descendants too (``harness.runner.process``).  No cgroup is made on this path (runexec's path is the one with
  cgroups): where the worker itself is SIGKILLed in the middle of a call by something other than the runner
  (its guard, after a ``kill -9`` of the runner, kills the worker's session only), a daemon of the tool's that
  left the session is re-parented to init and may survive;
* **time**: at ``time_limit_s`` the tool's group gets SIGTERM, SIGKILL a second later (:data:`GRACE_S`), and the
  whole tree is killed; CPU time is read from ``wait4`` (the tool and the children it waited for);
* **memory**: the tree's resident memory (the sum of every process's RSS) is sampled every :data:`SAMPLE_S`;
  over ``memory_mb`` the tree is killed and the call is a memout whose peak is the largest sample.  The
  worker's address-space limit is raised for the tool to :data:`BACKSTOP` times the limit (it is per process;
  the samples hold the sum); a tool that fails to allocate at that backstop, saying so, is a memout too;
* **output**: what the tool's tree writes on stdout and stderr (files in the work folder) is watched; past
  ``output_bytes`` the tree is killed and the call says how many bytes it had seen (:attr:`Ran.output_over`).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from harness.core.limits import MEMOUT_HINTS
from harness.core.proctree import descendants, stat_fields

GRACE_S = 1.0  # between SIGTERM and SIGKILL of a tool past its time limit
SAMPLE_S = 0.02  # how often the tree's memory and output are sampled
BACKSTOP = 2  # the tool's address-space limit: this many times the memory limit (the samples hold the limit)
_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


@dataclass
class Ran:
    """One call of a tool: exit code (negative: killed by that signal), what it printed, its wall and CPU seconds,
    whether its time limit ended it; ``layer``: what measured it (``process``: ``wait4`` of the tool and the
    children it waited for, the tree's resident memory sampled; ``runexec``: BenchExec's cgroups, the whole tree);
    ``memout``: the layer ended it at the memory limit (or it failed to allocate at the backstop); ``peak_mb``:
    the tree's peak memory; ``output_over``: the bytes of stdout and stderr seen when the output cap ended it
    (None: it did not); ``reason``: the layer's termination reason, if any."""

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
    output_over: int | None = None


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (once; Linux).  False where it cannot be."""
    global _subreaper
    if not _subreaper and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            pass
    return _subreaper


def tree(before: set[int]) -> list[int]:
    """The pids of the live descendants of this process that are not in ``before``."""
    return [pid for pid in descendants(os.getpid()) if pid not in before]


def _rss_mb(pids: list[int]) -> float:
    """The summed resident memory of ``pids`` in MB (psutil; a process gone meanwhile counts nothing)."""
    import psutil

    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_info().rss
        except psutil.Error:
            pass
    return total / 1e6


def kill_tree(before: set[int], rounds: int = 100, waited: int | None = None) -> None:
    """SIGKILL every descendant not in ``before`` and reap those that become this process's children (not
    ``waited``: the caller's to wait for); again until none is left (a process forking as it is killed), at most
    ``rounds`` times."""
    for _ in range(rounds):
        left = [pid for pid in tree(before) if _state(pid) not in ("Z", None)]
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(before if waited is None else before | {waited})
        if not left:
            return
        time.sleep(0.01)


def _reap(before: set[int]) -> None:
    """Reap this process's children that are dead and not in ``before`` (re-parented orphans among them)."""
    for pid in tree(before):
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not (yet) ours: its parent reaps it, or it is re-parented to us
            pass


def _state(pid: int) -> str | None:
    fields = stat_fields(pid)
    return fields[0] if fields else None


def _backstop(memory_mb: int | None) -> None:
    """In the child before exec: the address-space limit of the tool, :data:`BACKSTOP` times the memory limit."""
    if memory_mb is None:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = BACKSTOP * memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    except (ValueError, OSError):
        pass


def run_tool(argv: list[str], time_limit_s: float | None, workdir: Path, memory_mb: int | None = None,
             output_bytes: int | None = None) -> Ran:
    """Run ``argv`` in ``workdir`` until it exits, ``time_limit_s`` wall seconds pass (then SIGTERM to its group,
    SIGKILL a second later), its tree's resident memory passes ``memory_mb`` or its output ``output_bytes``;
    then kill what is left of its tree (module doc)."""
    become_subreaper()
    before = set(tree(set()))
    out_path, err_path = workdir / "stdout.txt", workdir / "stderr.txt"
    start = time.perf_counter()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=workdir,
                                    process_group=0, preexec_fn=lambda: _backstop(memory_mb))
        except OSError as exc:
            return Ran(127, "", f"cannot start {argv[0]}: {exc.strerror or exc}", 0.0, 0.0, False)
        timed_out, memout, output_over = False, False, None
        deadline = None if time_limit_s is None else start + max(time_limit_s, 0.0)
        killed_at = None
        peak_mb, sampled = 0.0, 0.0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            now = time.perf_counter()
            if now - sampled >= SAMPLE_S and killed_at is None:
                sampled = now
                peak_mb = max(peak_mb, _rss_mb(tree(before)))
                written = os.fstat(out.fileno()).st_size + os.fstat(err.fileno()).st_size
                if memory_mb is not None and peak_mb > memory_mb:
                    memout = True
                elif output_bytes is not None and written > output_bytes:
                    output_over = written
                if memout or output_over is not None:
                    kill_tree(before, rounds=1, waited=proc.pid)
                    killed_at = now
            if deadline is not None and now >= deadline and killed_at is None:
                timed_out = True
                _signal_group(proc.pid, signal.SIGTERM)
                killed_at = now
            elif killed_at is not None and now - killed_at > GRACE_S:
                _signal_group(proc.pid, signal.SIGKILL)
            time.sleep(0.005 if now - start < 0.5 else SAMPLE_S)
        _signal_group(proc.pid, signal.SIGKILL)  # whatever it left behind in its group
        kill_tree(before)  # ... and outside it: a daemon that called setsid() and outlived the tool
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    stderr = _read(err_path)
    if not (memout or timed_out or output_over) and proc.returncode != 0 and any(h in stderr for h in MEMOUT_HINTS):
        memout = memory_mb is not None  # it failed to allocate at the backstop
    return Ran(proc.returncode, _read(out_path), stderr, wall, usage.ru_utime + usage.ru_stime, timed_out,
               memout=memout, peak_mb=max(peak_mb, usage.ru_maxrss * 1024 / 1e6),
               reason="memory" if memout else ("output" if output_over else ""), output_over=output_over)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: Path, most: int = 50_000_000) -> str:
    with open(path, "rb") as f:
        return f.read(most).decode("utf-8", "replace")


__all__ = ["BACKSTOP", "GRACE_S", "Ran", "become_subreaper", "kill_tree", "run_tool", "tree"]
