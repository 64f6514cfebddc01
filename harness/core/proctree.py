"""A process's tree seen from /proc: its children and all its descendants, cheaply (Linux).

Read from ``/proc/PID/task/TID/children`` (the kernel's list: the cost is the tree's size, not the machine's
process count, so a worker can sample its tool's tree every few milliseconds without loading the machine);
where the kernel has no such files, psutil's scan of every process stands in.
"""

from __future__ import annotations

import os


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


__all__ = ["children", "descendants"]
