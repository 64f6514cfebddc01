"""The machine a run executes on: its name and its node class, read once in each process that makes records.

A *node class* is what makes two machines' times comparable or not: the CPU model, the cores, the memory
(whole GiB) and the kernel, as one line (:func:`node_class`).  Every record names the class of the node it was
measured on (its ``node_class`` column, set where the run executes: this machine for the local executor, a
Dask worker's or a SLURM task's node otherwise), and a report or check never ranks runs of two classes
together (:mod:`harness.report.nodes`).
"""

from __future__ import annotations

import os
import platform
from functools import cache

HOST = os.uname().nodename  # socket.gethostname(), without importing socket


def cpu_model() -> str | None:
    """The CPU's model name as /proc/cpuinfo gives it (``platform.processor()`` elsewhere; None if neither)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def memory_gib() -> float | None:
    """The machine's memory (MemTotal) in GiB, to 0.1."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / (1 << 20), 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


@cache
def node_class() -> str:
    """``CPU model, N cores, M GiB, kernel K`` of this machine: memory rounded to whole GiB, as two machines of
    one class differ by the few MiB their kernels keep."""
    memory = memory_gib()
    return (f"{cpu_model() or 'CPU ?'}, {os.cpu_count() or '?'} cores, "
            f"{round(memory) if memory is not None else '?'} GiB, kernel {platform.release() or '?'}")


__all__ = ["HOST", "cpu_model", "memory_gib", "node_class"]
