"""Generation at scale: the seeds of one ``battlebench generate``, here, in worker processes or on Dask.

One seed is one task (:class:`SeedTask` -> :func:`make_seed` -> :class:`SeedResult`):
plant, choose hints (a minimal-hint search journaled in ``OUT/.partial``), certify, write
the file, drop the journal.  Seeds are independent, so :func:`make_all` runs them on the
campaign executors' terms:

* ``local``, ``jobs = 1``: in this process, one after another, sharing one warm certifier;
* ``local``, ``jobs = N``: a pool of N spawned worker processes, a certifier each;
* ``dask``: one Dask task per seed on a dask.distributed cluster (``scheduler`` is its
  address, or ``local`` for a LocalCluster of ``jobs`` single-threaded workers, as
  :mod:`harness.runner.dask` does for campaigns).  Workers write the files and the
  journals themselves, so ``OUT`` must be the same path on every worker (one machine, or
  a shared file system);
* ``slurm``: one SLURM job per seed (submitit, as :mod:`harness.runner.slurm` submits a
  campaign's shards; its files in ``OUT/.slurm``), one core and :data:`SLURM_MEMORY_MB`
  each, :data:`SLURM_BACKSTOP_MIN` of walltime as a backstop (a seed's own limits are
  its questions'); ``OUT`` on a file system the nodes share.  A job that ends without a
  result (cancelled, its node lost, killed at the backstop) is that seed's failure, said
  with the job; its journal keeps every answer it had, so the same command resumes it.

A seed's puzzle depends only on its settings and seed, never on where or alongside what
it ran: ``--jobs 2`` writes byte-identical files to ``--jobs 1`` (tested).  Results come
back as seeds finish and a progress line like ``run``'s counts them (made puzzles count
as solved, failed seeds as errors).  Ctrl-C or SIGTERM stops every seed in flight with its
journal kept (a pool worker gets SIGTERM, which it turns into KeyboardInterrupt; an idle
one ignores it) and starts no other (a worker that got SIGTERM starts none of the seeds the
pool had already queued to it), so the same command resumes where each seed stopped; exit 130.
After an interrupt the pool is not waited on without end: a worker still alive
:data:`STOP_GRACE_S` later is killed (its journal holds every answer it had), so a pool
whose manager thread died cannot keep ``generate`` from exiting.  No future is cancelled:
the seeds queued behind those in flight run as "not started" in a worker that got SIGTERM
(milliseconds each).  Cancelling them -- ``future.cancel()``, ``shutdown(cancel_futures=True)``
-- made CPython 3.11's pool keep two tables of pending work, and a worker that then died
had its manager thread fail in ``terminate_broken`` with ``InvalidStateError`` (a traceback
on stderr, the thread gone: python/cpython#107219, #94440).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

from harness.generate.generator import GenerationError, Settings, generate, journal_path
from harness.generate.journal import PARTIAL_DIR, Journal, answers_on_disk

EXECUTORS = ("local", "dask", "slurm")
SLURM_MEMORY_MB = 4096 + 1024
"""Memory a seed's SLURM job asks for: a certifier's and the harness's."""
SLURM_BACKSTOP_MIN = 24 * 60
"""Walltime a seed's SLURM job asks for, as a backstop only (its questions have their own limits)."""
STOP_OUTCOMES = ("interrupted", "not started")  # outcomes of a seed the command's stop ended or kept from starting


@dataclass(frozen=True)
class SeedTask:
    """One seed to make (picklable: it travels to pool workers and Dask)."""

    settings: Settings
    seed: int
    out: str
    question_limit_s: float
    keep_existing: bool = False

    @property
    def name(self) -> str:
        return self.settings.name(self.seed)

    @property
    def path(self) -> Path:
        return Path(self.out) / f"{self.name}.toml"


@dataclass(frozen=True)
class SeedResult:
    """How one seed went: ``outcome`` is wrote, kept, failed, interrupted or not started (queued to a
    pool worker when the command was stopped); ``message`` its line."""

    seed: int
    name: str
    outcome: str
    message: str
    status: str = ""  # the puzzle's expected status (sat / unsat) when written
    seconds: float = 0.0

    @property
    def record(self) -> dict[str, Any]:
        """What the progress line counts: a made puzzle as solved, a failed seed as an error."""
        return {"status": self.status if self.outcome in ("wrote", "kept") else "error",
                "instance": self.name, "pair": "generate", "wall_s": self.seconds}


def made_by(path: Path, command: str) -> bool:
    """True when ``path`` is a native instance whose meta records ``command``."""
    from harness.errors import InputError
    from harness.puzzle.formats import read_instance

    if not path.exists():
        return False
    try:
        return read_instance(path, "native").meta.get("command") == command
    except InputError:  # a broken file is made again
        return False


def phase(task: SeedTask) -> str:
    """What the progress line says a seed in hand is doing: "generate", or with a minimal-hint
    search under way, how many oracle answers its journal holds ("generate, 81 answers")."""
    answers = answers_on_disk(journal_path(task.settings, task.seed, Path(task.out) / PARTIAL_DIR))
    return f"generate, {answers} answers" if answers else "generate"


# --------------------------------------------------------------------------- one seed
_CERTIFIERS: dict[tuple[str, float], Any] = {}  # per process: (pair, limit) -> Certifier
_BUSY = False  # a pool worker is making a seed (SIGTERM interrupts it) or idle (SIGTERM ends it)
_STOPPED = False  # this process was stopped: seeds queued to a pool worker are not started, errors mean "interrupted"


def _certifier(pair: str, limit_s: float) -> Any:
    """This process's certifier for ``pair`` (warm workers kept across seeds; closed at exit)."""
    from multiprocessing import util

    from harness.generate.certify import Certifier

    certifier = _CERTIFIERS.get((pair, limit_s))
    if certifier is None:
        certifier = _CERTIFIERS[(pair, limit_s)] = Certifier(pair, limit_s=limit_s)
        util.Finalize(None, certifier.close, exitpriority=10)  # runs at a pool worker's exit, atexit does not
    return certifier


def close_certifiers() -> None:
    for certifier in _CERTIFIERS.values():
        certifier.close()
    _CERTIFIERS.clear()


def make_seed(task: SeedTask, certifier: Any = None, log: TextIO | None = None) -> SeedResult:
    """Make one seed's puzzle and write it (module docstring); never raises for a seed that fails."""
    global _BUSY
    settings, seed, path = task.settings, task.seed, task.path
    log = log if log is not None else sys.stderr
    partial = Path(task.out) / PARTIAL_DIR  # journals of minimal-hint searches not finished yet
    journal = journal_path(settings, seed, partial)
    kept = _kept(journal)
    t0 = time.perf_counter()
    if _STOPPED:
        return SeedResult(seed, task.name, "not started", f"seed {seed}: not started (interrupted)")
    if task.keep_existing and made_by(path, settings.command(seed)):
        journal.unlink(missing_ok=True)  # left by a stop just after the file was written
        return SeedResult(seed, task.name, "kept", f"kept {path} (made by the same command)")

    def resuming(j: Journal) -> None:
        if j.set_aside:
            print(f"{j.path} held another search's answers (other settings or version): moved to {j.set_aside}",
                  file=log, flush=True)
        if j.cut:
            print(f"{j.path} had lines that could not be read: the answers before them are kept, the whole file "
                  f"was copied to {j.cut}", file=log, flush=True)
        if j.resumable:
            print(f"resuming from {j.path} ({j.resumable} oracle answers recorded)", file=log, flush=True)

    _BUSY = True
    try:
        certifier = certifier if certifier is not None else _certifier(settings.certify, settings.certify_limit_s)
        made = generate(settings, seed, certifier, journal_dir=partial, on_resume=resuming,
                        question_limit_s=task.question_limit_s)
        from harness.puzzle.formats import write_instance

        path.parent.mkdir(parents=True, exist_ok=True)
        write_instance(made.instance, path, "native")
        if made.journal is not None:
            made.journal.finish()
    except GenerationError as exc:  # reported; the other seeds go on
        return SeedResult(seed, task.name, "failed", str(exc) + (kept if journal.exists() else ""),
                          seconds=time.perf_counter() - t0)
    except OSError as exc:  # a full disk, a journal or puzzle that cannot be written: this seed fails, in a line
        where = exc.filename or path
        return SeedResult(seed, task.name, "failed", f"seed {seed}: cannot write {where}: {exc.strerror or exc}"
                          + (kept if journal.exists() else ""), seconds=time.perf_counter() - t0)
    except KeyboardInterrupt:
        return _interrupted(task, journal, t0)
    except Exception:
        if _STOPPED:  # the stop landed in an extension's code, which turned it into its own error (CI: an
            return _interrupted(task, journal, t0)  # import of CP-SAT's helper -> "initialization failed")
        raise
    finally:
        _BUSY = False
    meta = made.instance.meta
    wall = time.perf_counter() - t0
    message = (f"wrote {path}  {len(made.instance.hints)} hints  {meta['expected_status']} "
               f"(count {meta['expected_count']}, certified by {made.certificate.get('pair', settings.certify)} "
               f"in {made.certificate['wall_s']:.2f} s)  {wall:.2f} s")
    return SeedResult(seed, task.name, "wrote", message, str(meta["expected_status"]), wall)


def _kept(journal: Path) -> str:
    return f"; the oracle's answers so far are kept in {journal}"


def _resumes(journal: Path) -> str:
    """What a stopped seed's line says of its journal: where it is and that the same command resumes from it."""
    return _kept(journal) + ": the same command resumes from them" if journal.exists() else ""


def _interrupted(task: SeedTask, journal: Path, t0: float) -> SeedResult:
    gc.collect()  # the solvers the traceback held are freed here, not during interpreter shutdown
    tail = _resumes(journal)
    return SeedResult(task.seed, task.name, "interrupted", f"seed {task.seed}: interrupted{tail}",
                      seconds=time.perf_counter() - t0)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGTERM (a batch system's time limit, ``kill``) and Ctrl-C stop ``generate``: KeyboardInterrupt, with the
    seed in hand's journal kept (exit 130).  The handlers before are put back after (off the main thread, where
    handlers cannot be set, nothing changes)."""
    global _STOPPED
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        global _STOPPED
        _STOPPED = True  # an error the interrupt causes inside an extension still means "interrupted"
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _STOPPED = False  # the next command in this process starts afresh


# --------------------------------------------------------------------------- executors
def _pool_worker_init(parent: int | None = None) -> None:
    """A pool worker: SIGTERM interrupts the seed in hand (journal kept) and is ignored by an idle
    worker; Ctrl-C is left to the parent, which forwards it as SIGTERM; it dies with the parent (a
    ``kill -9`` of ``generate`` leaves no worker writing journals; its certifier's workers follow it)."""
    from harness.generate.oracle import preload
    from harness.runner.worker import die_with_parent

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    preload()  # before the handler below: an interrupt must not land inside an extension module's initialisation

    def stop(signum: int, frame: Any) -> None:
        global _STOPPED
        _STOPPED = True  # the task the pool queued to this worker beyond the one in hand must not start
        if _BUSY:  # idle: nothing to stop (the pool's shutdown ends the worker)
            raise KeyboardInterrupt("SIGTERM")

    signal.signal(signal.SIGTERM, stop)


def _in_process(tasks: list[SeedTask], log: TextIO) -> Iterator[SeedResult | None]:
    from harness.generate.certify import Certifier

    by_pair: dict[tuple[str, float], Any] = {}
    try:
        for task in tasks:
            key = (task.settings.certify, task.settings.certify_limit_s)
            if key not in by_pair:
                by_pair[key] = Certifier(*key[:1], limit_s=key[1])
            result = make_seed(task, by_pair[key], log)
            yield result
            if result.outcome == "interrupted":
                return
    finally:
        for certifier in by_pair.values():
            certifier.close()


STOP_GRACE_S = 30.0
"""After an interrupt, how long the pool's workers have to end before they are killed."""


class _Pool:
    """``jobs`` spawned worker processes (concurrent.futures), one seed per task."""

    def __init__(self, jobs: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_pool_worker_init, initargs=(os.getpid(),))
        self.jobs = jobs
        self.futures: dict[Any, SeedTask] = {}
        self.started: dict[Any, float] = {}
        self.interrupted = False

    def submit(self, task: SeedTask) -> Any:
        future = self.pool.submit(make_seed, task)
        self.futures[future] = task
        return future

    def wait(self, pending: set, timeout: float) -> tuple[set, set]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)

    def running(self) -> list[tuple[str, str, float]]:
        now = time.monotonic()
        # The pool hands one task more than it has workers to its call queue, where it counts as
        # running; seeds start in the order submitted, so that one is the last of these.
        busy = [(future, task) for future, task in list(self.futures.items()) if future.running()][:self.jobs]
        return [(task.name, phase(task), now - self.started.setdefault(future, now)) for future, task in busy]

    def interrupt(self) -> None:
        """SIGTERM every worker: a seed in hand ends with its journal kept (idle workers ignore it), and the seeds
        queued behind it end "not started"; no future is cancelled (the module docstring says why)."""
        self.interrupted = True
        for process in list(getattr(self.pool, "_processes", {}).values()):
            try:
                process.terminate()
            except (OSError, ValueError):
                pass

    def close(self, grace_s: float | None = None) -> None:
        """Shut the pool down; after an interrupt, without waiting on it: workers still alive ``grace_s``
        (:data:`STOP_GRACE_S`) later are killed (see the module docstring)."""
        if not self.interrupted:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        processes = list(getattr(self.pool, "_processes", {}).values())
        self.pool.shutdown(wait=False)  # the queued seeds drain as "not started": nothing cancelled
        end = time.monotonic() + (STOP_GRACE_S if grace_s is None else grace_s)
        for process in processes:
            process.join(max(0.0, end - time.monotonic()))
        for process in processes:
            if process.is_alive():
                process.kill()
                process.join(5)


class _Dask:
    """One Dask task per seed (:func:`harness.runner.dask.connect` gives the client)."""

    def __init__(self, scheduler: str | None, jobs: int):
        from harness.runner.dask import connect

        self.client, self.cluster = connect(scheduler, jobs)
        self.futures: dict[Any, SeedTask] = {}

    def submit(self, task: SeedTask) -> Any:
        future = self.client.submit(make_seed, task, key=f"battlebench-seed-{task.name}", pure=False)
        self.futures[future] = task
        return future

    def wait(self, pending: set, timeout: float) -> tuple[set, set]:
        import distributed

        try:
            return distributed.wait(pending, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set(), pending

    def running(self) -> list[tuple[str, str, float]]:
        return []

    def interrupt(self) -> None:
        self.client.cancel(list(self.futures), force=True)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


class _SlurmSeed:
    """A seed's SLURM job, as the futures the other runners give (``result``, ``cancelled``)."""

    def __init__(self, job: Any, task: SeedTask, runner: "_Slurm"):
        self.job, self.task, self.runner = job, task, runner
        self.ended: bool | None = None  # None: not yet; True: with a result; False: without one (set by wait)

    def cancelled(self) -> bool:
        return False

    def result(self, timeout: float | None = None) -> SeedResult:
        if self.ended is None and timeout is not None:  # _drain: wait so long for it to end
            self.runner.wait({self}, timeout)
            if self.ended is None:
                raise TimeoutError(f"its SLURM job {self.job.job_id} is still going")
        if not self.ended:
            raise RuntimeError(f"its SLURM job {self.job.job_id} left the queue without a result (cancelled, its "
                               "node lost, or killed at its walltime)")
        return self.job.result()


class _Slurm:
    """One SLURM job per seed (module docstring)."""

    def __init__(self, jobs: int, out: Path):
        from harness.runner.slurm import Watch, executor_for

        self.executor = executor_for(out / ".slurm", memory_mb=SLURM_MEMORY_MB, timeout_min=SLURM_BACKSTOP_MIN,
                                     name="battlebench-generate", parallelism=jobs)
        self.watch = Watch()
        self.futures: dict[Any, SeedTask] = {}

    def submit(self, task: SeedTask) -> Any:
        seed = _SlurmSeed(self.executor.submit(make_seed, task), task, self)
        self.futures[seed] = task
        return seed

    def wait(self, pending: set, timeout: float) -> tuple[set, set]:
        end = time.monotonic() + timeout
        while True:
            over = self.watch.ended([seed.job for seed in pending])
            done = set()
            for seed in pending:
                if seed.job.job_id in over:
                    seed.ended = over[seed.job.job_id]
                    done.add(seed)
            if done or time.monotonic() >= end:
                return done, pending - done
            time.sleep(min(0.5, max(0.0, end - time.monotonic())))

    def running(self) -> list[tuple[str, str, float]]:
        return []

    def interrupt(self) -> None:
        """``scancel`` every seed's job still queued or running (SLURM sends SIGTERM: its journal stays)."""
        import subprocess

        ids = [seed.job.job_id for seed in self.futures]
        if ids:
            subprocess.run(["scancel", *ids], capture_output=True)

    def close(self) -> None:
        pass


@contextmanager
def _stop_between_waits() -> Iterator[threading.Event]:
    """While the parent waits on its workers, Ctrl-C and SIGTERM set an event that :func:`_spread` turns into
    KeyboardInterrupt between two waits: raised from the handler, it could land inside the lock a wait holds
    (``Condition.wait``'s ``_acquire_restore`` then failed with "release unlocked lock", exit 1 not 130).
    The handlers in place before are put back after (off the main thread, none can be set: nothing changes)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {signum: signal.signal(signum, lambda *_: stop.set()) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _spread(tasks: list[SeedTask], runner: Any, stop: threading.Event | None = None) -> Iterator[SeedResult | None]:
    """Submit every task; yield results as they finish (None: a heartbeat); KeyboardInterrupt once ``stop`` is set."""
    from harness.runner.local import HEARTBEAT_S

    pending = set()
    for task in tasks:
        pending.add(runner.submit(task))
    while pending:
        done, pending = runner.wait(pending, HEARTBEAT_S)
        if stop is not None and stop.is_set():
            raise KeyboardInterrupt("SIGTERM")
        if not done:
            yield None
        for future in done:
            task = runner.futures.pop(future)  # shown once: the drain after a stop reports only those left
            try:
                yield future.result()
            except Exception as exc:  # noqa: BLE001 - the worker process itself died
                yield SeedResult(task.seed, task.name, "failed",
                                 f"seed {task.seed}: the worker making it died ({type(exc).__name__}: {exc}); "
                                 "the same command resumes from its journal")


def make_all(tasks: list[SeedTask], *, executor: str = "local", jobs: int = 1, scheduler: str | None = None,
             emit: Callable[[str], None] = print, stream: TextIO | None = None, live: bool | None = None,
             interval_s: float = 10.0) -> int:
    """Make every seed (module docstring); print each result's line with ``emit`` and a progress line on
    ``stream``.  Exit code: 0, 1 if a seed failed, 130 if interrupted."""
    from harness.runner.progress import Progress

    stream = stream if stream is not None else sys.stderr
    if len(tasks) == 1:  # one seed: its own lines say it all
        import io

        stream, live = io.StringIO(), False
    kept = [t for t in tasks if t.keep_existing and made_by(t.path, t.settings.command(t.seed))]
    todo = [t for t in tasks if t not in kept]
    runner: Any = None
    if todo and not (executor == "local" and jobs == 1):  # connect first: a bad scheduler fails before any output
        runner = (_Pool(jobs) if executor == "local" else _Dask(scheduler, jobs) if executor == "dask"
                  else _Slurm(jobs, Path(todo[0].out)))
    progress = Progress(len(tasks), stream=stream, live=live, interval_s=interval_s, title="generate",
                        unit="seed", resumed="already made")
    progress.start(len(kept), [{"status": "sat"}] * len(kept))
    progress.running = getattr(runner, "running", None)
    for task in kept:
        journal_path(task.settings, task.seed, Path(task.out) / PARTIAL_DIR).unlink(missing_ok=True)
        emit(f"kept {task.path} (made by the same command)")
    with ExitStack() as scope:
        stop = None if runner is None else scope.enter_context(_stop_between_waits())
        results = _in_process(todo, sys.stderr) if runner is None else _spread(todo, runner, stop)
        failed, interrupted = _collect(results, runner, emit, progress)
    return 130 if interrupted else 1 if failed else 0


def _collect(results: Iterator[SeedResult | None], runner: Any, emit: Callable[[str], None],
             progress: Any) -> tuple[bool, bool]:
    """Show every result as it comes; on an interrupt stop the runner and report the seeds in flight.
    Returns (a seed failed, interrupted)."""
    failed = interrupted = False
    try:
        try:
            for result in results:
                if result is None:
                    progress.tick()
                    continue
                _show(result, emit, progress)
                failed |= result.outcome == "failed"
                interrupted |= result.outcome in STOP_OUTCOMES
        except KeyboardInterrupt:
            interrupted = True
            if runner is not None:
                runner.interrupt()
                _drain(runner, emit, progress)
    finally:
        if runner is not None:
            runner.close()
        progress.close(interrupted=interrupted)
    return failed, interrupted


def _drain(runner: Any, emit: Callable[[str], None], progress: Any, timeout_s: float = 30.0) -> None:
    """After an interrupt: report the seeds in flight as they stop (their journals kept).  A seed whose worker
    ended without an answer (a pool worker that died as it was stopped takes every pending future of the pool
    with it: BrokenProcessPool, seen in CI under load) or is still going ``timeout_s`` later (it is killed) is
    reported as interrupted all the same, with its journal if it has one: the same command resumes from it."""
    end = time.monotonic() + timeout_s
    for future, task in list(runner.futures.items()):
        if future.cancelled():
            continue
        try:
            result = future.result(timeout=max(0.1, end - time.monotonic()))
        except (FutureTimeout, TimeoutError):  # the same class from Python 3.11; Dask's is TimeoutError
            result = _stopped_without_answer(task, f"still running {timeout_s:g} s after the stop: its worker is "
                                                   "killed")
        except Exception as exc:  # noqa: BLE001 - its worker died: the journal on disk is all there is
            result = _stopped_without_answer(task, f"its worker ended as it was stopped ({type(exc).__name__})")
        if result.outcome not in ("kept", "not started"):
            _show(result, emit, progress)


def _stopped_without_answer(task: SeedTask, why: str) -> SeedResult:
    """A seed in flight at a stop whose worker gave no answer: interrupted, with its journal if it has one."""
    tail = _resumes(journal_path(task.settings, task.seed, Path(task.out) / PARTIAL_DIR))
    return SeedResult(task.seed, task.name, "interrupted", f"seed {task.seed}: interrupted{tail} ({why})")


def _show(result: SeedResult, emit: Callable[[str], None], progress: Any) -> None:
    if result.outcome in ("wrote", "kept"):
        if progress.live:
            progress.note(result.message)  # above the live line, not through it
        else:
            emit(result.message)
    elif progress.live:
        progress.note(f"battlebench: error: {result.message}")
    else:
        print(f"battlebench: error: {result.message}", file=sys.stderr, flush=True)
    if result.outcome not in STOP_OUTCOMES:
        progress.update(result.record)


__all__ = ["EXECUTORS", "SeedResult", "SeedTask", "close_certifiers", "made_by", "make_all", "make_seed",
           "stop_on_signals"]
