"""A process seen from /proc: its children and all its descendants, cheaply, and its ``stat`` line (Linux).

Read from ``/proc/PID/task/TID/children`` (the kernel's list: the cost is the tree's size, not the machine's
process count, so a worker can sample its tool's tree every few milliseconds without loading the machine);
where the kernel has no such files, psutil's scan of every process stands in.  A process's own CPU seconds and
its reaped children's, from ``getrusage`` (:func:`rusage_cpu_s`), are here too: the worker's run and the proof
stage inside it read the same clock.
"""

from __future__ import annotations

import os
import resource

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
"""The clock tick of /proc's CPU times (10 ms on most Linux systems)."""


def rusage_cpu_s() -> float:
    """User + system CPU seconds of this process (every thread) and of its reaped children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after ``pid (comm)``: index 0 is the state (field 3), 11-14 the CPU
    times in ticks (fields 14-17), 19 the start time (field 22); None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def age_s(pid: int | str = "self") -> float | None:
    """Seconds since process ``pid`` started (its start time in clock ticks since boot, and the uptime), the
    interpreter's own start-up included; None where there is no /proc."""
    fields = stat_fields(pid)
    try:
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return max(uptime - int(fields[19]) * TICK_S, 0.0) if fields else None
    except (OSError, ValueError, IndexError):
        return None


def children(pid: int) -> list[int]:
    """The pids of the live children of process ``pid`` (empty when it is gone)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    out: list[int] = []
    readable = False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(c) for c in fh.read().split())
            readable = True
        except (OSError, ValueError):
            continue
    if not readable and tasks:  # a kernel without the children files
        return _children_by_scan(pid)
    return out


def descendants(pid: int) -> list[int]:
    """The pids of every live descendant of process ``pid``, parents before their children."""
    out: list[int] = []
    todo = children(pid)
    seen: set[int] = set()
    while todo:
        child = todo.pop(0)
        if child in seen:
            continue
        seen.add(child)
        out.append(child)
        todo.extend(children(child))
    return out


def _children_by_scan(pid: int) -> list[int]:
    import psutil

    try:
        return [p.pid for p in psutil.Process(pid).children()]
    except psutil.Error:
        return []


__all__ = ["TICK_S", "age_s", "children", "descendants", "rusage_cpu_s", "stat_fields"]
