"""Measuring a tool process with BenchExec's ``runexec``: CPU time and peak memory of its whole process tree from
cgroups, real limits, and BenchExec's ``terminationreason``.

``runexec`` (BenchExec, pinned in ``pyproject.toml``) needs cgroups it may create sub-groups in.  On a machine
with cgroup v1 mounted under ``/sys/fs/cgroup`` and root, the harness creates one group of its own per call in
each controller (``battlebench-PID-N``), starts ``runexec`` inside it, and removes it afterwards (killing whatever
is still in it first); a process's first call first removes the groups of harness processes that are
gone.  Containers are off (``--no-container``: the overlay mount fails on such machines); the
tool's stderr goes to a file of its own, so its output file holds what it printed on stdout.

:func:`unusable` says why this layer cannot be used here (``None`` when it can); :func:`run_measured` runs one
call and returns a :class:`~harness.tools.process.Ran` with ``layer = "runexec"``, ``memout`` set when BenchExec
ended the tool at its memory limit and ``peak_mb`` the tree's peak memory.
"""

from __future__ import annotations

import itertools
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.core.scratch import pid_alive
from harness.tools.process import Ran, _read

CGROUP_ROOT = Path("/sys/fs/cgroup")
STOPPED_BY = ("cputime", "walltime", "cputime-soft", "killed")
"""runexec's termination reasons that mean time was up: its own limits, or a stop -- the harness's at the exact limit,
or the runner's SIGTERM to the worker's process group (runexec is in it) when the run's time is up."""
STOP_WAIT_S = 5.0  # how long runexec may take to stop the tool and report once the harness stopped it
CONTROLLERS = ("cpu", "cpuacct", "cpuset", "memory", "freezer", "pids", "blkio")
_counter = itertools.count()
_swept = False  # this process has removed the groups dead processes left (once: a new worker does it first)


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


def _join(groups: list[Path]) -> None:
    """In the child before exec: move into the groups the harness made; drop the worker's address-space limit
    (the cgroup's memory limit holds the whole tree instead)."""
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
    for g in groups:
        with open(g / "tasks", "w") as f:
            f.write(str(os.getpid()))


def sweep() -> int:
    """Remove the groups of harness processes that are gone (a worker killed in the middle of a call leaves its
    group behind); how many were removed."""
    stale = {}
    for c in CONTROLLERS:
        for g in (CGROUP_ROOT / c).glob("battlebench-*-*"):
            pid = g.name.split("-")[1]
            if pid.isdigit() and not pid_alive(int(pid)):
                stale.setdefault(g.name, []).append(g)
    for groups in stale.values():
        _remove_groups(groups)
    return len(stale)


def _make_groups() -> list[Path]:
    global _swept
    if not _swept:
        sweep()
        _swept = True
    name = f"battlebench-{os.getpid()}-{next(_counter)}"
    groups = []
    for c in CONTROLLERS:
        g = CGROUP_ROOT / c / name
        g.mkdir(exist_ok=True)
        groups.append(g)
        if c == "cpuset":  # a new cpuset group has no CPUs and no memory nodes until given its parent's
            for key in ("cpuset.cpus", "cpuset.mems"):
                (g / key).write_text((g.parent / key).read_text())
    return groups


def _pids(group: Path) -> set[int]:
    out = set()
    for procs in group.rglob("cgroup.procs"):
        try:
            out.update(int(p) for p in procs.read_text().split())
        except OSError:
            pass
    return out


def _remove_groups(groups: list[Path]) -> None:
    """Kill whatever is left in the groups, then remove them (sub-groups first; a group empties only once its
    last process is reaped, so removal is retried for a few seconds)."""
    for _ in range(250):
        alive = set().union(*(_pids(g) for g in groups))
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
    for _ in range(100):
        left = []
        for g in groups:
            for sub in sorted((p for p in g.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)) + [g]:
                try:
                    sub.rmdir()
                except FileNotFoundError:
                    pass
                except OSError:
                    left.append(sub)
        if not left:
            return
        time.sleep(0.05)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _seconds(value: str) -> float:
    return float(value.rstrip("s"))


def run_measured(argv: list[str], time_limit_s: float | None, memory_mb: int | None, workdir: Path,
                 output_bytes: int | None = None) -> Ran:
    """``argv`` under runexec: CPU- and wall-time limit ``time_limit_s``, memory limit ``memory_mb`` for the whole
    process tree.  runexec takes whole seconds, so it gets the limit rounded up and the harness stops it itself at
    the exact limit (SIGTERM: runexec kills the tool's cgroup and still writes its measurements).  The harness
    watches the tool's output and stderr files too: past ``output_bytes`` it stops runexec the same way and the
    call says how many bytes it had seen (:attr:`Ran.output_over`)."""
    out_path, err_path = workdir / "runexec-output.txt", workdir / "stderr.txt"
    command = [sys.executable, "-m", "benchexec.runexecutor", "--no-container", "--output", str(out_path),
               "--dir", str(workdir)]
    if time_limit_s is not None:
        limit = str(max(1, math.ceil(time_limit_s)))
        command += ["--timelimit", limit, "--walltimelimit", limit]
    if memory_mb is not None:
        command += ["--memlimit", str(memory_mb * 1024 * 1024)]
    # the tool's stderr to a file of its own: runexec's output file would mix it into what the parser reads
    command += ["--", "sh", "-c", 'exec 2>"$0"; exec "$@"', str(err_path), *argv]
    groups = _make_groups()
    start = time.perf_counter()
    stopped = False  # the harness stopped runexec at the exact limit
    output_over = None  # ... or at the output cap: the bytes it had seen
    said_path, moaned_path = workdir / "runexec-said.txt", workdir / "runexec-log.txt"
    try:
        with open(said_path, "wb") as said_file, open(moaned_path, "wb") as moaned_file:
            proc = subprocess.Popen(command, stdout=said_file, stderr=moaned_file, cwd=workdir,
                                    stdin=subprocess.DEVNULL, preexec_fn=lambda: _join(groups))
        deadline = None if time_limit_s is None else start + max(time_limit_s, 0.01)
        while proc.poll() is None:
            if deadline is not None and time.perf_counter() >= deadline:
                stopped = True
            elif output_bytes is not None and (written := _size(out_path) + _size(err_path)) > output_bytes:
                output_over = written
            if stopped or output_over is not None:
                proc.send_signal(signal.SIGTERM)  # runexec's own stop: kill the tool's cgroup, report what it used
                try:
                    proc.wait(STOP_WAIT_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                break
            time.sleep(0.01 if time.perf_counter() - start < 0.5 else 0.02)
    finally:
        _remove_groups(groups)
    got = subprocess.CompletedProcess(command, proc.returncode, _read(said_path), _read(moaned_path))
    wall = time.perf_counter() - start
    values = dict(line.split("=", 1) for line in got.stdout.splitlines() if "=" in line)
    if output_over is not None:
        return Ran(-signal.SIGTERM, "", "", wall, _seconds(values.get("cputime", "0s")), False, layer="runexec",
                   reason="output", output_over=output_over)
    if (stopped or got.returncode < 0) and "terminationreason" not in values:
        # stopped before the tool began (by the harness at the exact limit, or by the runner's SIGTERM to the worker's
        # process group reaching runexec before its own handler was installed): the run's time ran out
        return Ran(-signal.SIGTERM, "", "", wall, 0.0, True, layer="runexec", reason="killed")
    if "terminationreason" not in values and "returnvalue" not in values and "exitcode" not in values:
        said = (got.stderr.strip().splitlines() or ["no output"])[-1]
        return Ran(127, "", f"runexec failed (exit code {got.returncode}): {said[:200]}", wall, 0.0, False,
                   layer="runexec")
    reason = values.get("terminationreason", "")
    code = int(values.get("returnvalue", values.get("exitcode", "0")) or 0)
    if "exitsignal" in values:
        code = -int(values["exitsignal"])
    text = _read(out_path) if out_path.exists() else ""
    stdout = text.split("-" * 80 + "\n", 1)[1].lstrip("\n") if "-" * 80 + "\n" in text else text
    stderr = _read(err_path) if err_path.exists() else ""
    memory = values.get("memory", "")
    return Ran(code, stdout, stderr, _seconds(values.get("walltime", f"{wall}s")),
               _seconds(values.get("cputime", "0s")), stopped or reason in STOPPED_BY,
               layer="runexec", memout=reason == "memory",
               peak_mb=int(memory.rstrip("B")) / 1e6 if memory.rstrip("B").isdigit() else None,
               reason=reason)


__all__ = ["CONTROLLERS", "benchexec_version", "run_measured", "sweep", "unusable"]
