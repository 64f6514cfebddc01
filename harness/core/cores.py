"""Physical cores: which logical CPUs make up each core this process may use, and runs pinned to whole cores.

A campaign with ``pin = true`` gives each run the physical cores it asks for (one, or a parallel pair's
``threads``/``split``/race legs: :func:`cores_of`) for as long as it executes, and no other
run has them: the run's worker, each of its threads and every process it starts are pinned to those cores'
logical CPUs (``sched_setaffinity``; hyper-thread siblings go together, so two runs never share a core).  The
cores are those of this process's own affinity (what a SLURM allocation, a cgroup cpuset or ``taskset`` left
it), grouped by ``/sys/devices/system/cpu/cpuN/topology`` (package and core id); without that topology each
logical CPU counts as a core.
"""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

SYS_CPU = Path("/sys/devices/system/cpu")


def usable_cpus() -> frozenset[int]:
    """The logical CPUs this process may run on."""
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return frozenset(range(os.cpu_count() or 1))


def physical_cores(cpus: frozenset[int] | None = None, sys_cpu: Path = SYS_CPU) -> list[frozenset[int]]:
    """The physical cores among ``cpus`` (default: :func:`usable_cpus`), each the set of its logical CPUs (its
    hyper-threads), ordered by their lowest CPU."""
    cpus = usable_cpus() if cpus is None else cpus
    groups: dict[tuple[str, str], set[int]] = {}
    for cpu in sorted(cpus):
        topology = sys_cpu / f"cpu{cpu}" / "topology"
        try:
            key = ((topology / "physical_package_id").read_text().strip(), (topology / "core_id").read_text().strip())
        except OSError:
            key = ("cpu", str(cpu))  # no topology: the logical CPU is its own core
        groups.setdefault(key, set()).add(cpu)
    return sorted((frozenset(g) for g in groups.values()), key=min)


def cpu_list(cpus: frozenset[int] | set[int]) -> str:
    """``0,2-3``: the CPUs in the kernel's list notation (as ``Cpus_allowed_list`` and ``taskset -c``)."""
    out, run = [], []
    for cpu in sorted(cpus):
        if run and cpu == run[-1] + 1:
            run.append(cpu)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [cpu]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)


def affinity(pid: int) -> frozenset[int] | None:
    """The CPUs process ``pid``'s main thread may run on (None when it is gone)."""
    try:
        return frozenset(os.sched_getaffinity(pid))
    except OSError:
        return None


def pin(pid: int, cpus: frozenset[int]) -> None:
    """Pin process ``pid`` -- every thread it has now, and so every thread and process it starts later -- to
    ``cpus``.  A thread or process that ends meanwhile is skipped; OSError when ``pid`` itself cannot be pinned."""
    os.sched_setaffinity(pid, cpus)
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            os.sched_setaffinity(int(tid), cpus)
        except (OSError, ValueError):
            continue


def _positive(value: object) -> int:
    if isinstance(value, bool):
        return 1
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1
    return int(number) if math.isfinite(number) and number >= 1 else 1


def cores_of(options: object) -> int:
    """The cores a run's stored ``options`` (JSON text or a mapping) ask for: the largest of its ``threads``
    and ``split`` (searches at once), and for a race the number of its legs; 1 when none is set."""
    if isinstance(options, str):
        try:
            options = json.loads(options)
        except ValueError:
            return 1
    if not isinstance(options, dict):
        return 1
    if isinstance(options.get("race"), list):
        return max(len(options["race"]), 1)
    return max(_positive(options.get("threads", 1)), _positive(options.get("split", 1)))


class Cores:
    """The physical cores shared by a campaign's runs on this machine: :meth:`take` waits until ``n`` cores are
    free and hands them all at once (so two runs that each wait for part never block each other), :meth:`give`
    returns them."""

    def __init__(self, cores: list[frozenset[int]] | None = None):
        self.cores = physical_cores() if cores is None else list(cores)
        self._free = list(self.cores)
        self._changed = threading.Condition()

    def __len__(self) -> int:
        return len(self.cores)

    def take(self, n: int, stop: threading.Event | None = None) -> frozenset[int] | None:
        """``n`` free cores' logical CPUs, waiting for them (None when ``stop`` is set meanwhile); ValueError if
        the machine has fewer than ``n``."""
        if n > len(self.cores):
            raise ValueError(f"a run asks for {n} physical cores and this machine has {len(self.cores)}")
        with self._changed:
            while len(self._free) < n:
                if stop is not None and stop.is_set():
                    return None
                self._changed.wait(0.2)
            taken, self._free = self._free[:n], self._free[n:]
        return frozenset().union(*taken)

    def give(self, cpus: frozenset[int]) -> None:
        with self._changed:
            self._free.extend(core for core in self.cores if core <= cpus)
            self._free.sort(key=min)
            self._changed.notify_all()


__all__ = ["Cores", "affinity", "cores_of", "cpu_list", "physical_cores", "pin", "usable_cpus"]
