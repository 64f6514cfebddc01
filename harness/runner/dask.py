"""The Dask executor: the same runs on a dask.distributed cluster, results back to this store.

Each run is one Dask task.  On the Dask worker the task drives the same
:class:`~harness.runner.process.WorkerPool` as the local executor, so every run still
executes in its own limited, killable process group on that machine, and a warm
worker per backend is kept per Dask worker thread.  Only the record travels back;
the runner stores it.  ``scheduler`` is a scheduler address (``tcp://host:8786``) or
``"local"``, which starts a ``LocalCluster`` of ``jobs`` single-threaded workers here.

Runs are submitted as the cluster has threads to run them (no more in flight than its workers' threads, counted
again as they finish, so workers that join are used), so a run is never queued on a worker behind another: a
worker lost takes only the runs it was executing.  A run whose Dask worker dies under it (killed, its machine
lost: Dask's ``KilledWorker``) is submitted again, up to the campaign's ``retries`` times, and then stored as
``lost`` with the reason; it is stored once whatever happened (each attempt has a key of its own, and the store
keeps one record per run).  The LocalCluster this executor starts lets each task fail on no more than one worker
(``allowed_failures=0``), so each attempt is one worker lost; a scheduler started apart retries a task on its own
``distributed.scheduler.allowed-failures`` workers within each attempt (set it to 0 there for the same
accounting).

A scheduler lost (killed, its machine gone) takes every run in flight with it, and its workers close themselves
when they lose it.  The client cancels those runs' futures and tries to reconnect to the same address; the runs are
attempts lost like those of a dead worker (submitted again within ``retries``, then ``lost``).  When no scheduler
answers at that address within :data:`RECONNECT_S` of the loss, every run not yet stored is stored as ``lost``
with the reason, so the campaign ends (exit 3, "incomplete") and the same command, with a cluster back, executes
exactly those runs.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import deque
from typing import Any, Iterator

from harness.errors import UsageError
from harness.runner.campaign import RunSpec, execute_spec, failed_record, lost_record, now_iso
from harness.runner.config import DEFAULT_RETRIES
from harness.runner.local import HEARTBEAT_S
from harness.runner.process import WorkerPool

_POOLS = threading.local()
RECONNECT_S = 60.0
"""How long a lost scheduler may take to answer again at its address; ``BATTLEBENCH_DASK_RECONNECT_S`` sets it."""


def reconnect_s() -> float:
    """:data:`RECONNECT_S`, or the seconds ``BATTLEBENCH_DASK_RECONNECT_S`` says (a UsageError if not a number)."""
    text = os.environ.get("BATTLEBENCH_DASK_RECONNECT_S")
    if text is None:
        return RECONNECT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise UsageError(f"BATTLEBENCH_DASK_RECONNECT_S: {text!r} is not a number of seconds >= 0")
    return value


def execute_on_worker(spec: RunSpec, warm: bool) -> dict[str, Any]:
    """Runs on a Dask worker: one run (under its spec's limits) in this thread's pool of limited worker
    processes."""
    key = warm
    pools = getattr(_POOLS, "pools", None)
    if pools is None:
        pools = _POOLS.pools = {}
    pool = pools.get(key)
    if pool is None:
        pool = pools[key] = WorkerPool(warm=warm)
    started = now_iso()
    try:
        return execute_spec(pool, spec)
    except Exception as exc:
        return failed_record(spec, exc, started)


QUIET = {
    "distributed.worker.profile.enabled": False,  # a sampling profiler every 10 ms in every worker
    "distributed.admin.tick.interval": "1s",  # the event loop's health check, every 20 ms in every process
    "distributed.admin.system-monitor.interval": "2s",  # each process's CPU and memory sampled, every 500 ms
    "distributed.admin.system-monitor.gil.enabled": False,  # GIL contention polled every 1 ms (with gilknocker)
}
"""Dask settings for a cluster that shares its machine with measured runs: the diagnostics that wake every
process many times a second, slowed or off (the dashboard's profiles are not needed to run campaigns).  A
LocalCluster of this executor is started with them; for a scheduler and workers started apart, set them in their
environment (``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``, ``DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=1s``,
...)."""


def local_cluster(jobs: int, allowed_failures: int | None = None) -> Any:
    """A ``LocalCluster`` of ``jobs`` single-threaded worker processes on this machine, without a dashboard and
    with its scheduler's HTTP server on a free port of localhost: ``dashboard_address=None`` alone leaves that
    server on port 8787 of every interface, so a second cluster at the same time (another campaign, a parallel
    test) meets "Port 8787 is already in use".  ``allowed_failures``: the workers a task may see die before it
    fails with KilledWorker, less one (None: Dask's setting).  Its diagnostics are quieted (:data:`QUIET`)."""
    import dask
    import distributed

    scheduler: dict[str, Any] = {"dashboard_address": "127.0.0.1:0"}
    if allowed_failures is not None:
        scheduler["allowed_failures"] = allowed_failures
    with dask.config.set(QUIET):  # the nannies hand the config to their workers as they start them
        return distributed.LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                        dashboard_address=None, scheduler_kwargs=scheduler)


def connect(scheduler: str | None, jobs: int = 1, allowed_failures: int | None = None) -> tuple[Any, Any]:
    """(client, cluster or None): a client of the scheduler at ``scheduler``, or of a new LocalCluster of
    ``jobs`` single-threaded worker processes for ``None``/``"local"`` (shared by campaigns and generate)."""
    try:
        import distributed
    except ImportError:
        raise UsageError("executor 'dask' needs dask.distributed: pip install 'battlebench[dask]'") from None
    if scheduler in (None, "", "local"):
        cluster = local_cluster(jobs, allowed_failures)
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(scheduler, timeout="20s"), None
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None


class DaskExecutor:
    """Submit every run to a dask.distributed cluster and yield records as they finish."""

    def __init__(self, scheduler: str | None, jobs: int = 1, warm: bool = True, client: Any = None,
                 retries: int = DEFAULT_RETRIES):
        self.warm = warm
        self.retries = retries
        self._cluster = None
        self._own_client = client is None
        self._address = scheduler if scheduler not in (None, "", "local") else None
        self._reconnect_s = reconnect_s()  # read before any run: a bad value fails first
        if client is not None:
            self.client = client
        else:
            self.client, self._cluster = connect(scheduler, jobs, allowed_failures=0)
        self._futures: list[Any] = []
        self._by_key: dict[str, RunSpec] = {}
        self._first_seen: dict[str, float] = {}  # task key -> monotonic time it was first seen processing
        self._polled: tuple[float, list[tuple[str, str, float]]] = (0.0, [])

    def running(self) -> list[tuple[str, str, float]]:
        """(instance, pair, seconds so far) of the runs the scheduler says are processing.

        Asked of the scheduler at most every 2 s (the first task of each worker thread);
        the time counts from when a run was first seen processing (a lower bound).
        """
        now = time.monotonic()
        last, cached = self._polled
        if now - last < 2.0:
            return cached
        try:
            processing = self.client.processing()
            threads = self.client.nthreads()
        except Exception:  # noqa: BLE001 - the display must not end the campaign
            return cached
        # a worker's list holds the tasks assigned to it; the first ones, one per thread, execute
        keys = {str(k) for worker, tasks in processing.items() for k in list(tasks)[: threads.get(worker, 1)]}
        out = []
        for key in keys:
            spec = self._by_key.get(key)
            if spec is None:
                continue
            t0 = self._first_seen.setdefault(key, now)
            out.append((spec.instance_name, spec.pair.label, now - t0))
        for key in list(self._first_seen):
            if key not in keys:
                del self._first_seen[key]
        self._polled = (now, out)
        return out

    def run(self, specs: list[RunSpec]) -> Iterator[dict[str, Any] | None]:
        import distributed
        from distributed.utils import CancelledError  # what a future the client cancelled raises

        cancelled = (CancelledError, asyncio.CancelledError)

        by_key = self._by_key
        attempt: dict[str, int] = {}  # task key -> which attempt of its run it is (0: the first)
        self._futures = []

        def submit(spec: RunSpec, n: int) -> Any:
            key = f"battlebench-run-{spec.run_id}" + (f"-retry{n}" if n else "")
            future = self.client.submit(execute_on_worker, spec, self.warm, key=key, pure=False)
            by_key[future.key], attempt[future.key] = spec, n
            self._futures.append(future)
            return future

        def again_or_lost(spec: RunSpec, n: int, why: str, last: str = "") -> dict[str, Any] | None:
            """Its attempt was lost with its worker or the scheduler: again, or the lost record."""
            if n < self.retries:
                queue.appendleft((spec, n + 1))
                return None
            return lost_record(spec, f"{why} on each of its {n + 1} attempt{'s' if n else ''} "
                                     f"(retries = {self.retries})" + (f"; the last was {last}" if last else ""),
                               now_iso())

        queue: deque[tuple[RunSpec, int]] = deque((spec, 0) for spec in specs)
        pending: set[Any] = set()
        while queue or pending:
            if not self._scheduler_answers():  # lost and not back: every run not stored is lost (the docstring)
                why = (f"the Dask scheduler at {self._address} was lost and did not answer again within "
                       f"{self._reconnect_s:g} s")
                for spec in [spec for spec, _ in queue] + [by_key[future.key] for future in pending]:
                    yield lost_record(spec, why, now_iso())
                return
            room = self._threads()
            while queue and len(pending) < room:  # no more in flight than threads to run them (the docstring)
                pending.add(submit(*queue.popleft()))
            try:
                done, pending = distributed.wait(pending, timeout=HEARTBEAT_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                yield None
                continue
            except cancelled:  # the client lost its scheduler: it cancelled every future in flight
                done, pending = set(pending), set()
            for future in done:
                spec, n = by_key[future.key], attempt[future.key]
                try:
                    yield future.result()
                except distributed.KilledWorker as exc:  # its worker died under it: again, or lost
                    where = getattr(getattr(exc, "last_worker", None), "address", "")
                    record = again_or_lost(spec, n, "its Dask worker died", where)
                    if record is not None:
                        yield record
                except cancelled:  # cancelled by the client on losing its scheduler
                    record = again_or_lost(spec, n, f"the Dask scheduler at {self._address} was lost")
                    if record is not None:
                        yield record
                except Exception as exc:  # the task failed (not its worker)
                    yield failed_record(spec, exc, now_iso())

    def _scheduler_answers(self) -> bool:
        """True while the client is connected; after a loss, once a scheduler answers again at the address
        (the client's own reconnection, then new clients), False after :func:`reconnect_s` of silence."""
        import distributed

        if self.client.status == "running":
            return True
        if self._address is None:  # our own LocalCluster: it is not lost while this process lives
            return False
        deadline = time.monotonic() + self._reconnect_s
        while time.monotonic() < deadline:
            if self.client.status == "running":
                return True
            if self.client.status in ("closing", "closed"):  # the client gave up: a new one, if one answers
                try:
                    client = distributed.Client(self._address, timeout=f"{max(1.0, deadline - time.monotonic()):.0f}s")
                except (OSError, TimeoutError):
                    continue
                if self._own_client:
                    self.client, self._futures = client, []  # the old client's futures went with it
                    return True
                client.close()  # the caller's client is theirs to replace
                return False
            time.sleep(0.2)
        return False

    def _threads(self) -> int:
        """The cluster's worker threads now (at least 1: a run waits in the scheduler for a worker to come)."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception:  # noqa: BLE001 - the scheduler busy or away: one in flight, the wait says the rest
            return 1

    def stop(self) -> None:
        if self._futures and self.client.status == "running":
            self.client.cancel(self._futures, force=True)

    def close(self) -> None:
        self.stop()
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()


__all__ = ["DaskExecutor", "connect", "execute_on_worker"]
