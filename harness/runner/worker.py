"""The worker process (child side): executes the requests the runner sends, under the limits it is given.

It knows no task: a request (:class:`harness.core.task.Request`, unpickled here, which
imports its task's module) does its own work (``execute()``) and its worker's warm-up
(``warm()``); the worker adds limits and measurements around it.

Started by :class:`harness.runner.process.WorkerProcess` as ``python -m
harness.runner.worker`` in its own session (process group).  It reads length-prefixed
pickled requests on stdin and writes replies on its original stdout; the solver
libraries' own prints go to stderr (the worker's log).  Per run it sets a soft
``RLIMIT_AS`` (the memory limit), resets the peak-RSS counter and reports the peak
afterwards, and reports the CPU time the run used (``getrusage`` of itself and its
reaped children; the runner measures the same from /proc, :func:`tree_cpu_s`, for a
run it kills).  SIGTERM (the runner's "time is up") does not interrupt the run at once:
an answer the worker sends within :data:`HONOUR_S` (a second; a pool may set another,
``BATTLEBENCH_HONOUR_S``: the test suite's allows for a loaded machine) is recorded as a late
answer -- a solver that stops on its own limit a few milliseconds after the runner's keeps its
answer as detail -- and a run still going then ends the worker: a watcher
thread, woken by the signal itself (``signal.set_wakeup_fd``, written in C even while
the run is in C code), arms :func:`faulthandler.dump_traceback_later`, whose C thread
writes every thread's traceback to the log and exits.  Code that holds the GIL that
whole window (a C extension that never releases it) is SIGKILLed by the runner when
its grace is over.  The worker dies with its parent (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import signal
import struct
import sys
import threading
from typing import Any, BinaryIO

from harness.core.proctree import TICK_S, children, rusage_cpu_s, stat_fields

_HEADER = struct.Struct("<Q")


def write_frame(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: BinaryIO) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("stream closed")
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("stream closed mid-message")
    return pickle.loads(data)


def status_kb(pid: int | str, field: str) -> int | None:
    """A ``Vm*`` field of /proc/PID/status in kB (None if the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def die_with_parent(parent: int | None = None) -> None:
    """PR_SET_PDEATHSIG: SIGKILL this process when its parent ends (Linux; elsewhere nothing).

    ``parent`` is the pid of the process that started this one (the worker reads it from
    ``BATTLEBENCH_PARENT_PID``): if this process already has another parent, the parent died before the death
    signal was set, and this process ends now.  An orphan's new parent is not always pid 1 (a container's
    init, a subreaper), so pid 1 alone is the test only where the parent is not known."""
    import ctypes  # here: the runner imports this module for its frames, and needs no ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the closed stdin still ends the worker
        pass
    if parent is None:
        known = os.environ.pop("BATTLEBENCH_PARENT_PID", "")
        parent = int(known) if known.isdigit() else None
    if os.getppid() == 1 or (parent is not None and os.getppid() != parent):
        os._exit(1)


def _guard() -> None:
    """Start the guard: a shell in this process group that waits on the runner's guard pipe and, at its end
    (the runner ended, however: kill -9 too), kills the worker's whole session -- this worker and every solver
    process it started (MiniZinc, fzn-gecode, a plugin's children), which the parent-death signal alone would
    leave -- and then removes the worker's scratch root (:mod:`harness.core.scratch`: a MiniZinc call's model
    and data), which the runner that would have removed it is no longer there to do.  When the runner itself
    ends the worker (:meth:`harness.runner.process.WorkerProcess.kill`) the guard is killed with the session
    before the pipe closes, so it never fires then (the runner removes the root)."""
    fd = os.environ.pop("BATTLEBENCH_GUARD_FD", None)
    if fd is None:
        return
    import shlex
    import subprocess

    from harness.core import scratch

    # The session, not only the group: a solver driver may put its own solver in a group of its own (MiniZinc
    # starts fzn-gecode so), but not outside the worker's session.  The killing is done from a session of its
    # own (setsid -f), so that the shell that removes the root is not among what it kills; without setsid,
    # pkill replaces the shell (the root then stays until the next runner start sweeps it); without pkill the
    # group alone.
    sid, pgid = os.getsid(0), os.getpgrp()
    after = f"pkill -KILL -s {sid}; kill -9 -{pgid} 2>/dev/null; sleep 0.1; rm -rf {shlex.quote(str(scratch.root()))}"
    script = ("read _ignored; command -v pkill >/dev/null 2>&1 || exec kill -9 -" + str(pgid) + "; "
              f"command -v setsid >/dev/null 2>&1 && exec setsid -f sh -c {shlex.quote(after)}; "
              f"exec pkill -KILL -s {sid}")
    try:
        subprocess.Popen(["sh", "-c", script], stdin=int(fd),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
    except OSError:  # no shell: the parent-death signal still ends this worker
        pass
    finally:
        os.close(int(fd))


TERMINATED = False
HONOUR_S = float(os.environ.get("BATTLEBENCH_HONOUR_S", "1.0"))
"""How long after SIGTERM a run may still answer before the worker ends itself (the pool's ``honour_s``; kept below
the runner's grace, so the worker's own exit, with its tracebacks, comes before the runner's SIGKILL)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    global TERMINATED
    TERMINATED = True  # the answer in progress is late; the worker ends within HONOUR_S


def _watch(fd: int) -> None:
    """The watcher thread: at SIGTERM (a byte on the wakeup pipe), the worker has HONOUR_S to answer."""
    global TERMINATED
    while True:
        try:
            data = os.read(fd, 64)
        except OSError:
            return
        if not data:
            return
        if signal.SIGTERM in data:
            TERMINATED = True
            faulthandler.dump_traceback_later(HONOUR_S, exit=True)
            return


def _honour_sigterm() -> None:
    """Wake the watcher at every SIGTERM, whatever the main thread is doing (the C signal handler writes)."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read_end,), name="battlebench-sigterm", daemon=True).start()


def tree_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid``, its reaped children and its live descendants.

    Read from /proc (clock ticks, usually 10 ms) by the runner, from outside, so that a
    run it had to kill still has a CPU time.  None when the process is gone.
    """
    own = _stat_ticks(pid, with_children=True)
    if own is None:
        return None
    total = own
    for child in children(pid):
        total += tree_cpu_s(child) or 0.0
    return total


def session_members(sid: int) -> list[int]:
    """The pids of every live process in session ``sid`` (from /proc; empty where there is no /proc)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                text = fh.read()
            if int(text[text.rfind(")") + 2:].split()[3]) == sid:  # state ppid pgrp session
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _stat_ticks(pid: int, with_children: bool) -> float | None:
    fields = stat_fields(pid)
    try:
        utime, stime, cutime, cstime = (int(fields[i]) for i in (11, 12, 13, 14))
    except (TypeError, IndexError, ValueError):
        return None
    return (utime + stime + (cutime + cstime if with_children else 0)) * TICK_S


def _limit_by(request: Any) -> str:
    """How the memory limit holds for this request: ``RLIMIT_AS``, or the runner's RSS samples alone."""
    try:
        return request.memory_limit_by()
    except Exception:  # noqa: BLE001 - the run itself reports a bad plugin
        return "address-space"


def _measured(request: Any, run: Any) -> Any:
    """``run()`` under the request's memory limit, with its CPU time and peak memory put on the outcome."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    from harness.core.limits import running
    from harness.core.request import limits_of  # loaded with the request's class already

    memory_mb = limits_of(request).memory_mb
    if memory_mb and _limit_by(request) == "address-space":
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # reset VmHWM: the peak of this run, not of the worker's life
    except OSError:
        pass
    cpu0 = rusage_cpu_s()
    try:
        with running(limits_of(request)):  # what a backend that holds a limit itself reads (the output cap)
            outcome = run()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    outcome.cpu_s = rusage_cpu_s() - cpu0
    hwm = status_kb("self", "VmHWM")
    outcome.peak_rss_mb = None if hwm is None else hwm / 1024
    return outcome


def _run(request: Any) -> Any:
    return _measured(request, request.execute)


def _warm(request: Any) -> Any:
    """A new worker's first call: the request's warm-up (imports, a first tiny run), under its memory limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    from harness.core.request import limits_of  # loaded with the request's class already

    memory_mb = limits_of(request).memory_mb
    if memory_mb and _limit_by(request) == "address-space":
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    try:
        return request.warm()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


HANDLERS = {"run": _run, "warm": _warm, "pid": lambda: os.getpid()}


def main() -> None:
    die_with_parent()
    _guard()
    signal.signal(signal.SIGTERM, _on_sigterm)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    _honour_sigterm()
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # solver prints go to the log, never into the reply stream
    while True:
        try:
            message = read_frame(requests)
        except EOFError:
            return
        if message is None:
            return
        kind, args = message
        try:
            reply = ("ok", HANDLERS[kind](*args))
        except MemoryError:
            reply = ("memout", "MemoryError outside the run")
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the runner
            reply = ("err", f"{type(exc).__name__}: {exc}")
        if TERMINATED:
            faulthandler.cancel_dump_traceback_later()  # it answered in time: the answer goes out
        try:
            write_frame(replies, reply)
        except BrokenPipeError:
            return
        if TERMINATED:
            return


if __name__ == "__main__":
    main()
