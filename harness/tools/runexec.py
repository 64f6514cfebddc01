"""Measuring a tool process with BenchExec's ``RunExecutor``: CPU time and peak memory of its whole process tree
from cgroups, real limits, and BenchExec's ``terminationreason``.

BenchExec (pinned in ``pyproject.toml``) runs in the process that calls the tool (the worker): one
``benchexec.runexecutor.RunExecutor`` per process, made on its first call (:func:`executor`) and kept, and one
``execute_run`` per call -- no ``runexec`` command-line process per call.  BenchExec needs cgroups it may create
sub-groups in: on a machine with cgroup v1 mounted under ``/sys/fs/cgroup`` and root, the process's first call
first removes the groups of harness processes that are gone, then creates one group of its own in each controller
(``battlebench-PID-0``) and moves into it (:mod:`harness.core.cgroups` keeps them: who removes them when); BenchExec
creates each call's groups inside it and removes them after the call.  At exit the process moves back out and
removes its groups.  Containers are off (the overlay mount fails on such machines); the tool's stdout
and stderr go to files of their own.

:func:`unusable` says why this layer cannot be used here (``None`` when it can); :func:`run_measured` runs one
call and returns a :class:`~harness.tools.process.Ran` with ``layer = "runexec"``, ``memout`` set when BenchExec
ended the tool at its memory limit and ``peak_mb`` the tree's peak memory.
"""

from __future__ import annotations

import atexit
import math
import os
import resource
import signal
import sys
import threading
import time
from pathlib import Path

from harness.core.cgroups import CGROUP_ROOT, CONTROLLERS, make_groups, remove_groups, sweep
from harness.tools.process import Ran, _read

STOPPED_BY = ("cputime", "walltime", "cputime-soft", "killed")
"""runexec's termination reasons that mean time was up: its own limits, or a stop -- the harness's at the exact limit,
or the runner's SIGTERM to the worker when the run's time is up."""
POLL_S = (0.01, 0.02)  # how often the watcher looks at the clock and the output files: a call's first 0.5 s, later
_executor = None  # (pid, RunExecutor): this process's, made on first use (:func:`executor`)
_lock = threading.Lock()  # one call at a time: a RunExecutor runs one run at a time


def benchexec_version() -> str | None:
    try:
        import benchexec
    except ImportError:
        return None
    return getattr(benchexec, "__version__", None)


def unusable() -> str | None:
    """None when runexec can measure here, else one line saying why not."""
    if os.environ.get("BATTLEBENCH_NO_RUNEXEC"):
        return "switched off by BATTLEBENCH_NO_RUNEXEC"
    if benchexec_version() is None:
        return "BenchExec is not installed (pip install benchexec==3.35)"
    if not sys.platform.startswith("linux"):
        return "runexec needs Linux cgroups"
    if os.geteuid() != 0:
        return "the harness creates cgroups for runexec only as root"
    missing = [c for c in CONTROLLERS if not (CGROUP_ROOT / c / "tasks").exists()]
    if missing:
        return f"no cgroup v1 hierarchy for {', '.join(missing)} under {CGROUP_ROOT}"
    return None


def _move(groups: list[Path]) -> None:
    """Move this whole process (all its threads) into ``groups``."""
    for g in groups:
        (g / "cgroup.procs").write_text(str(os.getpid()))


def executor():
    """This process's ``RunExecutor``, made on first use: the groups dead harness processes left are removed, this
    process moves into groups of its own (BenchExec makes each call's groups inside the groups of the process that
    runs it), and leaves and removes them when it exits (:func:`_leave`)."""
    global _executor
    if _executor is not None and _executor[0] == os.getpid():
        return _executor[1]
    sweep()
    groups = make_groups()
    _move(groups)
    atexit.register(_leave, os.getpid(), groups)
    from benchexec.runexecutor import RunExecutor

    made = RunExecutor(use_namespaces=False)  # containers off: the overlay mount fails on such machines
    _executor = (os.getpid(), made)
    return made


def _leave(owner: int, groups: list[Path]) -> None:
    """At exit: back into the parent groups, then remove this process's own (a fork's child leaves them be)."""
    if os.getpid() != owner:
        return
    try:
        _move([g.parent for g in groups])
    except OSError:
        return  # still inside: removing them would kill this process
    remove_groups(groups)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def run_measured(argv: list[str], time_limit_s: float | None, memory_mb: int | None, workdir: Path,
                 output_bytes: int | None = None) -> Ran:
    """``argv`` under this process's ``RunExecutor``: CPU- and wall-time limit ``time_limit_s``, memory limit
    ``memory_mb`` for the whole process tree.  runexec's limits are given rounded up to whole seconds (as its command
    line took them), and the harness stops the run itself at the exact limit (``RunExecutor.stop()`` from a watcher
    thread: BenchExec kills the tool's cgroup and still reports its measurements).  The watcher looks at the tool's
    output and stderr files too: past ``output_bytes`` it stops the run the same way and the call says how many
    bytes it had seen (:attr:`Ran.output_over`).  A SIGTERM to this process during the call (the runner's "time is
    up" to the worker's process group, which the tool, in a group of its own, does not get) stops the run too, and
    reaches the handler that was there before."""
    import logging  # BenchExec's own: loaded with it, not with the harness

    out_path, err_path, log_path = workdir / "runexec-output.txt", workdir / "stderr.txt", workdir / "runexec-log.txt"
    limit = None if time_limit_s is None else max(1, math.ceil(time_limit_s))
    start = time.perf_counter()
    # what BenchExec says goes to the work folder, not the worker's log; and with a handler on the root logger,
    # BenchExec's module-level logging calls do not configure logging for the whole worker
    log = logging.FileHandler(log_path, mode="w")
    log.setLevel(logging.WARNING)
    with _lock:
        logging.getLogger().addHandler(log)
        try:
            return _call(argv, limit, time_limit_s, memory_mb, workdir, output_bytes, start,
                         (out_path, err_path, log_path))
        finally:
            logging.getLogger().removeHandler(log)
            log.close()


def _call(argv: list[str], limit: int | None, time_limit_s: float | None, memory_mb: int | None, workdir: Path,
          output_bytes: int | None, start: float, paths: tuple[Path, Path, Path]) -> Ran:
    """One ``execute_run`` with its watcher, under the lock: see :func:`run_measured`."""
    out_path, err_path, log_path = paths
    try:
        runner = executor()
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - BenchExec says what it misses by sys.exit too
        return Ran(127, "", f"runexec failed: BenchExec's RunExecutor could not start: {exc}"[:300],
                   time.perf_counter() - start, 0.0, False, layer="runexec")
    done, asked = threading.Event(), threading.Event()
    why: dict[str, int | bool] = {}

    def watch() -> None:
        deadline = None if time_limit_s is None else start + max(time_limit_s, 0.01)
        while not done.wait(POLL_S[0] if time.perf_counter() - start < 0.5 else POLL_S[1]):
            if asked.is_set() or (deadline is not None and time.perf_counter() >= deadline):
                why["stopped"] = True
            elif output_bytes is not None and (written := _size(out_path) + _size(err_path)) > output_bytes:
                why.setdefault("output_over", written)
            if why:  # again at every look until the call returns: a stop before the tool began finds no tool
                runner.stop()

    previous = signal.getsignal(signal.SIGTERM)
    on_term = threading.current_thread() is threading.main_thread() and callable(previous)
    if on_term:
        def stop_on_term(signum: int, frame: object) -> None:
            asked.set()  # the watcher stops the run: stop() takes a lock this thread may hold
            previous(signum, frame)

        signal.signal(signal.SIGTERM, stop_on_term)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    watcher = threading.Thread(target=watch, name="runexec-watch", daemon=True)
    try:
        _unlimited_address_space(hard)
        watcher.start()
        values = runner.execute_run(argv, str(out_path), error_filename=str(err_path), write_header=False,
                                    hardtimelimit=limit, walltimelimit=limit,
                                    memlimit=None if memory_mb is None else memory_mb * 1024 * 1024,
                                    workingDir=str(workdir))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - BenchExec refuses a call by sys.exit
        values = {"terminationreason": "failed", "said": f"{type(exc).__name__}: {exc}"}
    finally:
        done.set()
        watcher.join()
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        if on_term:
            signal.signal(signal.SIGTERM, previous)
    return _ran(values, time.perf_counter() - start, bool(why.get("stopped")), why.get("output_over"),
                out_path, err_path, log_path)


def _unlimited_address_space(hard: int) -> None:
    """For the call: no address-space limit of the worker's for the tool to inherit (the cgroup's memory limit
    holds the whole tree); as root the hard limit goes too, else the soft one rises to it."""
    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _ran(values: dict, wall: float, stopped: bool, output_over: int | None, out_path: Path, err_path: Path,
         log_path: Path) -> Ran:
    """The call's record from what ``execute_run`` returned."""
    cpu = float(values.get("cputime", 0.0))
    if output_over is not None:
        return Ran(-signal.SIGTERM, "", "", wall, cpu, False, layer="runexec", reason="output",
                   output_over=output_over)
    reason = values.get("terminationreason", "")
    if reason == "failed":
        said = values.get("said") or (_read(log_path).strip().splitlines() or ["no output"])[-1]
        return Ran(127, "", f"runexec failed: {said[:200]}", wall, 0.0, False, layer="runexec")
    exit_code = values.get("exitcode")
    code = 0
    if exit_code is not None:
        code = -exit_code.signal if exit_code.signal is not None else exit_code.value or 0
    memory = values.get("memory")
    return Ran(code, _read(out_path) if out_path.exists() else "", _read(err_path) if err_path.exists() else "",
               float(values.get("walltime", wall)), cpu, stopped or reason in STOPPED_BY, layer="runexec",
               memout=reason == "memory", peak_mb=None if memory is None else int(memory) / 1e6, reason=reason)


__all__ = ["benchexec_version", "executor", "run_measured", "unusable"]
