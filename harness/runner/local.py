"""The local executor: ``jobs`` threads, each driving its own warm worker processes.

Each thread takes the next run, executes it in its :class:`WorkerPool` (one warm
worker per backend) and hands the record back; the caller stores records as they
come.  ``run`` yields ``None`` now and then as a heartbeat so the caller can refresh
its progress display.  ``stop`` kills every worker's process group at once; runs in
flight are then discarded, not recorded.  With ``pin``, a thread takes its run's physical
cores before it executes it and gives them back after (:class:`~harness.core.cores.Cores`).
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Any, Iterator

from harness.core.cores import Cores, cores_of
from harness.errors import UsageError
from harness.runner.campaign import RunSpec, execute_spec, failed_record, now_iso
from harness.runner.process import WorkerPool

HEARTBEAT_S = 0.5
_DONE = object()


class LocalExecutor:
    """Execute runs on this machine, ``jobs`` at a time (each run under its spec's limits); with ``pin``, each
    run on physical cores no other run has, its worker pinned to them (:mod:`harness.core.cores`)."""

    def __init__(self, jobs: int = 1, warm: bool = True, pin: bool = False):
        self.jobs = jobs
        self.warm = warm
        self.cores: Cores | None = None
        if pin:
            self.cores = Cores()
            if jobs > len(self.cores):
                raise UsageError(f"pin = true gives each run physical cores of its own: jobs = {jobs}, and this "
                                 f"machine lets this process use {len(self.cores)} physical "
                                 f"core{'s' if len(self.cores) != 1 else ''}")
        self._stopping = threading.Event()
        self._pools: list[WorkerPool] = []
        self._threads: list[threading.Thread] = []
        self._in_flight: dict[str, tuple[RunSpec, float]] = {}  # thread name -> (run, monotonic start)

    def running(self) -> list[tuple[str, str, float]]:
        """(instance, pair, seconds so far) of every run executing now."""
        now = time.monotonic()
        return [(spec.instance_name, spec.pair.label, now - t0)
                for spec, t0 in list(self._in_flight.values())]

    def run(self, specs: list[RunSpec]) -> Iterator[dict[str, Any] | None]:
        if self.cores is not None:  # before any run: a run asking for more cores than there are never starts
            wanted = max((cores_of(spec.pair.option_dict) for spec in specs), default=1)
            if wanted > len(self.cores):
                raise UsageError(f"pin = true: a pair asks for {wanted} physical cores (its threads, split or race "
                                 f"legs) and this machine lets this process use {len(self.cores)}")
        todo: queue.Queue[RunSpec] = queue.Queue()
        for spec in specs:
            todo.put(spec)
        done: queue.Queue[Any] = queue.Queue()
        self._stopping.clear()

        def work() -> None:
            pool = None
            try:  # whatever ends this job -- a pool that cannot start included -- says so, or run() waits forever
                try:
                    pool = WorkerPool(warm=self.warm)
                except Exception as exc:  # noqa: BLE001 - the other jobs take its runs; none left: they are missing
                    print(f"battlebench: {threading.current_thread().name} could not start its workers: "
                          f"{type(exc).__name__}: {exc}", file=sys.stderr)
                    return
                self._pools.append(pool)
                while not self._stopping.is_set():
                    try:
                        spec = todo.get_nowait()
                    except queue.Empty:
                        break
                    if self.cores is not None:  # its cores, all at once, for as long as it runs
                        pool.cpus = self.cores.take(cores_of(spec.pair.option_dict), self._stopping)
                        if pool.cpus is None:
                            break
                    started = now_iso()
                    me = threading.current_thread().name
                    self._in_flight[me] = (spec, time.monotonic())
                    try:
                        record = execute_spec(pool, spec)
                    except Exception as exc:  # a harness bug must not end the campaign
                        record = failed_record(spec, exc, started)
                    finally:
                        self._in_flight.pop(me, None)
                        if self.cores is not None and pool.cpus is not None:
                            self.cores.give(pool.cpus)
                            pool.cpus = None
                    if self._stopping.is_set():
                        break  # interrupted: this run's end was our doing, do not record it
                    done.put(record)
            finally:
                try:
                    if pool is not None:
                        pool.close()
                finally:
                    done.put(_DONE)

        n = max(1, min(self.jobs, len(specs)))
        self._threads = [threading.Thread(target=work, name=f"battlebench-job-{i}", daemon=True) for i in range(n)]
        for t in self._threads:
            t.start()
        finished = 0
        while finished < n:
            try:
                item = done.get(timeout=HEARTBEAT_S)
            except queue.Empty:
                yield None
                continue
            if item is _DONE:
                finished += 1
            else:
                yield item

    def stop(self) -> None:
        """Kill every worker now (Ctrl-C); in-flight runs are discarded."""
        self._stopping.set()
        for pool in list(self._pools):
            pool.close()

    def close(self) -> None:
        self.stop()
        for t in self._threads:
            t.join(10)
        self._pools.clear()


__all__ = ["LocalExecutor", "failed_record"]
