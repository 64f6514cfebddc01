"""The harness's own cgroups (v1, under ``/sys/fs/cgroup``): one group per process in each controller it uses,
``battlebench-PID-0``, made by the process that measures tool calls with BenchExec (:mod:`harness.tools.runexec`), and
removed -- with whatever is still in them -- whatever ends that process:

* the process removes its own groups when it exits normally (the runexec layer's ``atexit``);
* the runner removes a worker's groups as soon as it has killed or closed that worker (:func:`remove_of`);
* the first measured call of any process, and every start of a worker pool, removes the groups of owners that are
  gone (:func:`sweep`): what a ``kill -9`` of the runner itself left.

Nothing here imports BenchExec; on a machine without these hierarchies every function finds nothing to do.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from harness.core.scratch import pid_alive

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("cpu", "cpuacct", "cpuset", "memory", "freezer", "pids", "blkio")


def own_name(pid: int | None = None) -> str:
    """The name of a process's groups (this process's by default)."""
    return f"battlebench-{os.getpid() if pid is None else pid}-0"


def make_groups() -> list[Path]:
    """Make this process's own groups (``battlebench-PID-0`` in each controller; those there already are kept)."""
    name = own_name()
    groups = []
    for c in CONTROLLERS:
        g = CGROUP_ROOT / c / name
        g.mkdir(exist_ok=True)
        groups.append(g)
        if c == "cpuset":  # a new cpuset group has no CPUs and no memory nodes until given its parent's
            for key in ("cpuset.cpus", "cpuset.mems"):
                (g / key).write_text((g.parent / key).read_text())
    return groups


def remove_of(pid: int) -> None:
    """Remove the groups of process ``pid`` (gone: the runner killed or closed it), killing what is left in them."""
    name = own_name(pid)
    groups = [g for c in CONTROLLERS if (g := CGROUP_ROOT / c / name).is_dir()]
    if groups:
        remove_groups(groups)


def sweep() -> int:
    """Remove the groups of harness processes that are gone (a worker killed in the middle of a call leaves its
    groups behind); how many owners' groups were removed.  Sweepers may race (each job's pool sweeps as it
    starts; other harness processes too): a group another one removed first is simply gone."""
    with _SWEEPING:
        return _sweep()


_SWEEPING = threading.Lock()


def _sweep() -> int:
    stale: dict[str, list[Path]] = {}
    for c in CONTROLLERS:
        for g in (CGROUP_ROOT / c).glob("battlebench-*-*"):
            pid = g.name.split("-")[1]
            if pid.isdigit() and not pid_alive(int(pid)):
                stale.setdefault(g.name, []).append(g)
    for groups in stale.values():
        remove_groups(groups)
    return len(stale)


def _pids(group: Path) -> set[int]:
    out = set()
    try:
        for procs in group.rglob("cgroup.procs"):
            try:
                out.update(int(p) for p in procs.read_text().split())
            except OSError:
                pass
    except FileNotFoundError:  # removed meanwhile (another sweeper: a second job's pool, another process)
        pass
    return out


def _deepest_first(group: Path) -> list[Path]:
    """The group and its sub-groups, deepest first; [] once the group is gone (removed by another sweeper)."""
    try:
        return sorted((p for p in group.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)) + [group]
    except FileNotFoundError:
        return []


def remove_groups(groups: list[Path]) -> None:
    """Kill whatever is left in the groups, then remove them (sub-groups first; a group empties only once its
    last process is reaped, so removal is retried for a few seconds)."""
    for _ in range(250):
        alive = set().union(*(_pids(g) for g in groups)) - {os.getpid()}  # never this process itself
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
            for sub in _deepest_first(g):
                try:
                    sub.rmdir()
                except FileNotFoundError:
                    pass
                except OSError:
                    left.append(sub)
        if not left:
            return
        time.sleep(0.05)


__all__ = ["CGROUP_ROOT", "CONTROLLERS", "make_groups", "own_name", "remove_groups", "remove_of", "sweep"]
