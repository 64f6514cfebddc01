"""Worker processes seen from the runner: start, send a run, enforce the limits, kill, replace.

This layer measures and limits; it knows nothing about what runs (a request, of the
contract :class:`harness.core.task.Request`, names its worker, carries its
:class:`~harness.core.limits.Limits` and does its own work in the worker) nor about
reports.  :meth:`WorkerPool.execute_many` runs several requests at once and kills those
still going once the caller says one is decided (a race: its policy is the task's).  Each worker is
``python -m harness.runner.worker`` in its own session, so the whole process group can
be signalled.  The wall-clock limit is enforced from outside: at the limit the group
gets SIGTERM, after the grace SIGKILL; an answer that arrives after the limit is kept
as a late answer (detail), never as the answer.  The memory limit is a soft
``RLIMIT_AS`` set by the worker for the run; a run that goes over it is a memout.  A
backend whose ``memory_limit_by`` is ``"rss"`` runs without ``RLIMIT_AS`` and is killed as
a memout when a sample of its resident memory exceeds the limit.
Killing a worker kills its session and every descendant it has (a tool's child that left the session is one: the
process path makes the worker its subreaper) and removes the worker's scratch folders
(:mod:`harness.core.scratch`) and cgroups (:mod:`harness.core.cgroups`: runexec's); a new pool removes those of
workers that are gone (a runner killed with -9).
A pool keeps one warm worker per key (a backend with its options, a counter, a
strategy: imports cost about half a second) and replaces any worker that was killed or
died.
"""

from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from harness.core import cgroups, cores, proctree, scratch
from harness.core.limits import DEFAULT_GRACE_S, MEMOUT_HINTS, NO_LIMITS, WARM_S, Limits
from harness.core.status import Termination
from harness.core.request import Request, WorkerOutcome, budget_of, limits_of, termination_of
from harness.runner.worker import TICK_S, read_frame, session_members, status_kb, tree_cpu_s, write_frame

SAMPLE_S = 0.05  # how often the runner samples a busy worker's memory


@dataclass
class Execution:
    """How one run went, as measured from outside the worker.

    ``kind``: ``ok`` (an answer within the limit), ``timeout`` (killed at the wall
    limit; ``outcome`` holds a late answer if one came during the grace), ``memout``,
    ``crash`` (the worker died or failed outside the run).  ``cpu_s`` is the user +
    system CPU time of the worker's process tree during the run: the worker's own
    ``getrusage`` when it answered (unless the runner's reading of /proc saw clearly
    more: children still alive), else the runner's last reading of /proc before the
    worker was killed or died (clock ticks, 10 ms).
    """

    kind: str
    outcome: Any = None
    wall_s: float = 0.0
    peak_rss_mb: float | None = None
    pid: int | None = None
    error: str = ""
    detail: str = ""
    cpu_s: float | None = None
    warmup_s: float | None = None  # the worker's warm-up just before this run (not in wall_s); None: warm already
    warmup_cpu_s: float | None = None  # ... and the CPU seconds of the worker's tree during it
    cpus: str | None = None  # the logical CPUs the worker could run on, read from the kernel as the run was sent

    @property
    def termination(self) -> Termination:
        """Why the run ended as the runner saw it (``ok``: the worker answered, completed)."""
        return termination_of(self.kind)


DEFAULT_HONOUR_S = 1.0
"""How long after the runner's SIGTERM a worker keeps a late answer before it ends the run itself."""


class WorkerProcess:
    """One worker process and its pipes; ``call`` sends one request under limits."""

    def __init__(self, honour_s: float = DEFAULT_HONOUR_S) -> None:
        self.log = tempfile.TemporaryFile()
        self.honour_s = honour_s
        # the guard pipe: only this process holds its write end; when this process ends, however it ends, the
        # worker's guard (a child in the worker's process group) reads EOF and kills the group (worker.py)
        guard_read, self._guard = os.pipe()
        os.set_inheritable(self._guard, False)
        env = dict(os.environ, MALLOC_ARENA_MAX="2", PYTHONFAULTHANDLER="1", BATTLEBENCH_GUARD_FD=str(guard_read),
                   BATTLEBENCH_PARENT_PID=str(os.getpid()),
                   BATTLEBENCH_HONOUR_S=f"{honour_s:g}")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "harness.runner.worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                start_new_session=True, env=env, close_fds=True, pass_fds=(guard_read,),
            )
        finally:
            os.close(guard_read)
        self.pid = self.proc.pid
        self._cpu0: float | None = None  # the process tree's CPU seconds when the request was sent
        self._cpu_last: float | None = None  # ... and when last read

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def call(self, kind: str, args: tuple, limits: Limits = NO_LIMITS) -> Execution:
        """Send one request; wait for the reply, the worker's death or the time limit (``limits.time_s``; then
        SIGTERM, SIGKILL after ``limits.grace_s``); ``limits.memory_mb`` is held by the worker, here by RSS
        samples for a request limited by them."""
        time_s, memory_mb = limits.time_s, limits.memory_mb
        self._cpu0 = self._cpu_last = tree_cpu_s(self.pid)
        start = time.perf_counter()
        peak_kb = 0
        vm_kb = 0
        try:
            write_frame(self.proc.stdin, (kind, args))
        except (BrokenPipeError, OSError, ValueError):
            return self._died(start, peak_kb, vm_kb, memory_mb)
        fd = self.proc.stdout.fileno()
        deadline = None if time_s is None else start + time_s
        while True:
            now = time.perf_counter()
            wait = SAMPLE_S if deadline is None else min(SAMPLE_S, max(deadline - now, 0.0))
            ready, _, _ = select.select([fd], [], [], wait)
            if ready:
                return self._reply(start, peak_kb, vm_kb, memory_mb)
            peak_kb = max(peak_kb, status_kb(self.pid, "VmRSS") or 0)
            vm_kb = max(vm_kb, status_kb(self.pid, "VmSize") or 0)
            self._sample_cpu()
            if memory_mb is not None and peak_kb > memory_mb * 1024:  # a backend limited by RSS, not RLIMIT_AS
                return self._over_memory(start, memory_mb, peak_kb)
            if deadline is not None and time.perf_counter() >= deadline:
                return self._time_is_up(start, time_s, limits.grace_s, peak_kb)

    def _sample_cpu(self) -> None:
        now = tree_cpu_s(self.pid)
        if now is not None:
            self._cpu_last = now

    def _cpu_used(self) -> float | None:
        """CPU seconds of the process tree since the request was sent, as last read from /proc."""
        if self._cpu0 is None or self._cpu_last is None:
            return None
        return max(self._cpu_last - self._cpu0, 0.0)

    def _reply(self, start: float, peak_kb: int, vm_kb: int, memory_mb: int | None) -> Execution:
        try:
            kind, payload = read_frame(self.proc.stdout)
        except (EOFError, OSError, ValueError):
            return self._died(start, peak_kb, vm_kb, memory_mb)
        wall = time.perf_counter() - start
        self._sample_cpu()  # the worker is idle again: its tree's CPU since the request
        cpu = self._cpu_used()
        if kind == "ok":
            outcome = payload
            peak = getattr(outcome, "peak_rss_mb", None)
            own = getattr(outcome, "cpu_s", None)
            # the worker's getrusage is finer than /proc's clock ticks, but misses children still
            # alive when the run ended: /proc wins when it saw clearly more
            if own is not None and (cpu is None or cpu <= own + 2 * TICK_S):
                cpu = own
            if getattr(outcome, "failure", "") in ("memout", "MemoryError"):
                return Execution("memout", outcome, wall, peak or _mb(peak_kb), self.pid, cpu_s=cpu)
            return Execution("ok", outcome, wall, peak if peak is not None else _mb(peak_kb), self.pid,
                             cpu_s=cpu)
        if kind == "memout":
            return Execution("memout", None, wall, _mb(peak_kb), self.pid, error=str(payload), cpu_s=cpu)
        return Execution("crash", None, wall, _mb(peak_kb), self.pid, error=str(payload), cpu_s=cpu)

    def _died(self, start: float, peak_kb: int, vm_kb: int, memory_mb: int | None) -> Execution:
        self._sample_cpu()  # a dead worker is a zombie until reaped: its times are still readable
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        wall = time.perf_counter() - start
        self.kill()
        tail = self.log_tail()
        if code is not None and code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit code {code}"
        near_limit = memory_mb is not None and vm_kb >= 0.9 * memory_mb * 1024
        cpu = self._cpu_used()
        if memory_mb is not None and (near_limit or any(h in tail for h in MEMOUT_HINTS)):
            return Execution("memout", None, wall, _mb(peak_kb), self.pid,
                             error=f"worker process died ({how}) at its memory limit", detail=tail, cpu_s=cpu)
        return Execution("crash", None, wall, _mb(peak_kb), self.pid,
                         error=f"worker process died ({how})", detail=tail, cpu_s=cpu)

    def _over_memory(self, start: float, memory_mb: int, peak_kb: int) -> Execution:
        self._sample_cpu()
        self.kill()
        return Execution("memout", None, time.perf_counter() - start, _mb(peak_kb), self.pid,
                         error=f"worker killed: resident memory {peak_kb / 1024:.0f} MB over its limit ({memory_mb} MB)",
                         cpu_s=self._cpu_used())

    def _time_is_up(self, start: float, time_s: float, grace_s: float, peak_kb: int) -> Execution:
        self._sample_cpu()
        self.signal(signal.SIGTERM)
        late = None
        ended = False  # the worker ended the run itself (its reply stream closed)
        end = time.perf_counter() + grace_s
        fd = self.proc.stdout.fileno()
        while time.perf_counter() < end and self.alive:
            ready, _, _ = select.select([fd], [], [], min(SAMPLE_S, max(end - time.perf_counter(), 0.0)))
            if ready:
                try:
                    kind, payload = read_frame(self.proc.stdout)
                except (EOFError, OSError, ValueError):
                    ended = True
                    break
                if kind == "ok":
                    late = payload
                break
            self._sample_cpu()
        self._sample_cpu()
        ended_itself = late is None and (ended or not self.alive)  # the worker ended the run after SIGTERM
        self.kill()
        wall = time.perf_counter() - start
        detail = f"killed at the wall-clock limit ({time_s:g} s; grace {grace_s:g} s)"
        if ended_itself:
            detail = (f"stopped at the wall-clock limit ({time_s:g} s): no answer within {self._honour_words()} of "
                      "SIGTERM, the worker ended the run")
        if late is not None:
            failure = getattr(late, "failure", "")
            if failure:  # the run failed as it was stopped (a solver process the SIGTERM ended): say so
                said = f"it failed as it was stopped: {getattr(late, 'error', '') or failure}".splitlines()[0]
            else:
                said = late.summary() if isinstance(late, WorkerOutcome) else type(late).__name__
            detail += f"; a late answer came after {wall:.2f} s: {said}"
        return Execution("timeout", late, wall, _mb(peak_kb), self.pid, detail=detail, cpu_s=self._cpu_used())

    def _honour_words(self) -> str:
        return "a second" if self.honour_s == 1.0 else f"{self.honour_s:g} s"

    def signal(self, sig: int) -> None:
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        """SIGKILL the worker's whole session (the worker, its guard, its solver processes, also those a
        driver put in a group of their own, as MiniZinc does fzn-gecode) and every descendant of the worker
        (a tool's child that left the session: the worker is their subreaper, so they are its descendants),
        reap the worker and remove its scratch folders (:mod:`harness.core.scratch`)."""
        descendants = proctree.descendants(self.pid)  # before the worker dies: then they would go to init
        self.signal(signal.SIGKILL)
        for pid in session_members(self.pid) + descendants:  # the worker leads its session: sid == its pid
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        scratch.remove_root(self.pid)
        cgroups.remove_of(self.pid)  # the groups its runexec calls ran in, with anything left in them
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if self._guard is not None:
            try:
                os.close(self._guard)
            except OSError:
                pass
            self._guard = None

    def close(self) -> None:
        """Ask the worker to exit; kill it if it does not."""
        if self.alive:
            try:
                write_frame(self.proc.stdin, None)
                self.proc.wait(2)
            except (BrokenPipeError, OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.log.close()

    def log_tail(self, limit: int = 2000) -> str:
        try:
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(size - limit, 0))
            return self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""


def _announce(request: Request) -> None:
    """Say on stderr, once, that a new worker for ``request`` is about to compile kernels not cached yet."""
    kernels = getattr(request, "kernels", None)  # a plugin task's request may predate Request.kernels
    if kernels is not None:
        from harness.core.jitcache import announce

        announce(kernels())


def _mb(kb: int | None) -> float | None:
    return None if not kb else kb / 1024


@dataclass
class Concurrent:
    """What :meth:`WorkerPool.execute_many` measured: every request's execution, in order; which of them were
    stopped because another decided first (their executions are as the kill left them); the first that decided
    (None: none did) and the wall time from the start to its end (or to the last end, when none decided)."""

    executions: list[Execution]
    stopped: list[bool] = field(default_factory=list)
    first: int | None = None
    wall_s: float = 0.0


class WorkerPool:
    """Warm workers, one per key (a backend and its options, a counter, a strategy), for one thread of execution.

    Every run's limits come with its request (:func:`harness.core.task.limits_of`).
    ``warm=False`` starts a fresh worker for every run (cold: the run pays for the
    interpreter and the solver imports; the overhead benchmark compares both).
    ``grace_s`` is kept for older callers: the grace of the pool's own ``call`` (a run's is its limits').
    """

    def __init__(self, grace_s: float | None = None, warm: bool = True, honour_s: float = DEFAULT_HONOUR_S,
                 max_warm: int | None = None):
        self.grace_s = grace_s
        self.warm = warm
        self.max_warm = max_warm  # at most this many workers kept warm (None: one per key, as campaigns do)
        self._out: set[str] = set()  # keys of workers busy in execute_many: never closed to make room
        self.honour_s = honour_s  # keep it below grace_s: the worker's own end should come before the SIGKILL
        self._workers: dict[str, WorkerProcess] = {}
        self._warmed: dict[str, tuple] = {}  # key -> (wall, CPU) seconds its new worker's warm-up took, until a run
        # takes it
        self._lock = threading.Lock()  # close() may come from another thread (Ctrl-C)
        self._closed = False
        self.cpus: frozenset[int] | None = None  # set by the executor: the cores the next runs are pinned to
        scratch.sweep()  # the scratch folders of workers a killed runner left (their owners are gone)
        cgroups.sweep()  # ... and their cgroups

    def execute(self, request: Request) -> Execution:
        """One run in the worker of its key (``request.key()``), under the request's limits."""
        key = request.key()
        worker = self._worker(key, request)
        cpus = self._pin(worker)
        ex = worker.call("run", (request,), budget_of(request))
        ex.warmup_s, ex.warmup_cpu_s = self._warmed.pop(key, (None, None))
        ex.cpus = cpus
        if ex.kind != "ok" or not self.warm:  # killed, died or possibly damaged: replace it
            self._workers.pop(key, None)
            worker.close()
        return ex

    def execute_many(self, requests: Sequence[Request], decided: Callable[[int, Execution], bool]) -> Concurrent:
        """Every request at once, each in its own worker (warmed first; no warm-up is recorded), each under its
        limits.  As each ends, ``decided(i, execution)`` is asked in this thread; once it says True, every run
        still going is killed (and not asked).  A worker whose run ended ``ok`` stays warm, any other is
        replaced; two requests of one key run in two workers (the second a fresh one, closed after)."""
        if not requests:
            raise ValueError("execute_many needs at least one request")
        workers: list[tuple[str | None, WorkerProcess]] = []
        for request in requests:
            key = request.key()
            if key in self._out:  # another request of this batch has the pool's worker of this key
                workers.append((None, self._fresh(request)))
                continue
            self._out.add(key)
            workers.append((key, self._worker(key, request)))
            self._warmed.pop(key, None)
        ended: queue.Queue[tuple[int, Execution]] = queue.Queue()

        pinned = [self._pin(worker) for _, worker in workers]

        def run(i: int) -> None:
            try:
                ex = workers[i][1].call("run", (requests[i],), budget_of(requests[i]))
                ex.cpus = pinned[i]
            except Exception as exc:  # noqa: BLE001 - reported as that run's crash, the others go on
                ex = Execution("crash", error=f"harness failure: {type(exc).__name__}: {exc}")
            ended.put((i, ex))

        threads = [threading.Thread(target=run, args=(i,), name=f"battlebench-many-{i}", daemon=True)
                   for i in range(len(requests))]
        out = Concurrent([Execution("crash")] * len(requests), [False] * len(requests))
        asked = [False] * len(requests)
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        try:
            for _ in requests:
                i, ex = ended.get()
                out.executions[i] = ex
                if out.first is not None:  # ended as it was killed, or just before: not asked
                    out.stopped[i] = True
                    continue
                asked[i] = True
                if decided(i, ex):
                    out.first = i
                    for j, (_, worker) in enumerate(workers):
                        if not asked[j]:
                            worker.signal(signal.SIGKILL)  # its call sees the pipe close and returns
                out.wall_s = time.perf_counter() - t0
        finally:
            for (_, worker), t in zip(workers, threads):
                if t.is_alive() and out.first is None:  # ``decided`` raised: stop the rest
                    worker.signal(signal.SIGKILL)
            for t in threads:
                t.join()
            for (key, worker), ex, stopped in zip(workers, out.executions, out.stopped):
                self._give_back(key, worker, ok=not stopped and ex.kind == "ok")
        return out

    def _fresh(self, request: Request) -> WorkerProcess:
        """A worker of no key (warmed for ``request``), for the caller alone."""
        worker = WorkerProcess(self.honour_s)
        _announce(request)
        if self.warm:
            ex = worker.call("warm", (request,), self._warm_limits(request))
            if ex.kind != "ok":
                worker.close()
                worker = WorkerProcess(self.honour_s)
        return worker

    def _give_back(self, key: str | None, worker: WorkerProcess, ok: bool) -> None:
        """A worker of :meth:`execute_many` back: kept warm when its run ended ``ok``, else replaced."""
        if key is None:
            worker.close()
            return
        self._out.discard(key)
        if not ok or not self.warm:
            if self._workers.get(key) is worker:
                self._workers.pop(key, None)
            worker.close()

    def call(self, key: str, kind: str, args: tuple, timeout_s: float | None = None) -> Execution:
        """Any other request (``pid``) in the worker of ``key``."""
        worker = self._worker(key)
        grace = DEFAULT_GRACE_S if self.grace_s is None else self.grace_s
        ex = worker.call(kind, args, Limits(timeout_s, None, grace))
        if ex.kind != "ok":
            self._workers.pop(key, None)
            worker.close()
        return ex

    def _pin(self, worker: WorkerProcess) -> str | None:
        """Pin ``worker`` (its threads, and what it starts) to :attr:`cpus` when set; the CPUs it may run on, read
        back from the kernel (None when it is gone)."""
        if self.cpus is not None:
            try:
                cores.pin(worker.pid, self.cpus)
            except OSError:  # the worker died: its run reports it
                pass
        got = cores.affinity(worker.pid)
        return cores.cpu_list(got) if got is not None else None

    @staticmethod
    def _warm_limits(request: Request) -> Limits:
        """A warm-up's limits: the run's memory and grace, :attr:`Limits.warm_s` of time."""
        limits = limits_of(request)
        return Limits(limits.warm_s, limits.memory_mb, limits.grace_s)

    def _worker(self, key: str, request: Request | None = None) -> WorkerProcess:
        worker = self._workers.get(key)
        if worker is not None and worker.alive:
            with self._lock:  # the most recently used last: the first is the one to close when too many are warm
                self._workers[key] = self._workers.pop(key, worker)
            return worker
        idle: list[WorkerProcess] = []
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is closed")
            worker = self._workers[key] = WorkerProcess(self.honour_s)
            self._pin(worker)  # its warm-up on its run's cores too
            spare = [k for k in self._workers if k != key and k not in self._out]  # least recently used first
            while self.max_warm is not None and len(self._workers) > self.max_warm and spare:
                idle.append(self._workers.pop(spare.pop(0)))
        for old in idle:  # the least recently used warm workers; none is running (a race's legs are checked out)
            old.close()
        if request is not None:
            _announce(request)
        if self.warm and request is not None:
            ex = worker.call("warm", (request,), self._warm_limits(request))
            self._warmed[key] = (ex.wall_s, ex.cpu_s)
            if ex.kind != "ok":  # the run itself will meet and report the problem
                worker.close()
                with self._lock:
                    if self._closed:
                        raise RuntimeError("the worker pool is closed")
                    worker = self._workers[key] = WorkerProcess(self.honour_s)
        return worker

    def close(self) -> None:
        """Kill every worker; safe to call from another thread while a run is in flight."""
        with self._lock:
            self._closed = True
            workers = list(self._workers.values())
            self._workers.clear()
        for worker in workers:
            worker.close()

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Concurrent", "DEFAULT_GRACE_S", "Execution", "WARM_S", "WorkerPool", "WorkerProcess"]
