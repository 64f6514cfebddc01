"""A campaign on a SLURM cluster: its shards as one submitit job array, their stores merged into the campaign's.

``battlebench run CONFIG --executor slurm`` (or ``executor = "slurm"``) submits one array task per shard
(``jobs`` shards, at most the number of instances): each task runs ``run --shard I/N`` on its node, into
``OUTPUT/shards/I`` -- a campaign store of its own, with the local executor, so every limit is enforced on the
node by the worker as in any run (SLURM's walltime is only a backstop above the shard's limits plus grace:
SLURM rounds it to minutes and a job it kills has no CPU time).  When the array has ended the shards are merged
(:mod:`harness.store.merge`) into ``OUTPUT/results.sqlite``, written anew after every pass: the shards' stores
are what the campaign holds.

A task that did not end well (cancelled with ``scancel``, its node lost, killed at the backstop) is submitted
again, up to the campaign's ``retries`` times; it resumes its shard's store, so a run stored before the loss is
not run again and none is stored twice.  A shard still short after its retries has each run it did not store
stored as ``lost``, with the reason (``check`` and the exit code say so); running the same command again resumes
every shard, and a lost run's new record takes its place.

Each task asks for one core and the campaign's memory limit plus :data:`MEMORY_MARGIN_MB` (the runner and a
worker beside the run); submitit's own files (the pickled call, the task's stdout and stderr) are kept in
``OUTPUT/slurm/``.
"""

from __future__ import annotations

import math
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

MEMORY_MARGIN_MB = 1024
"""Memory a task asks for beyond the campaign's limit: the shard's runner and its worker's interpreter."""

BACKSTOP_MARGIN_S = 120.0
"""Seconds a task's walltime allows beyond its shard's runs at their limits plus grace (start, merge, imports)."""

SHARDS_DIR = "shards"
SLURM_DIR = "slurm"


@dataclass
class ShardResult:
    """What one array task reported: its shard, the runs it stored, its exit code, and the CPU seconds the task's
    process and the processes it waited for used on the node (its runner, the workers, their solvers)."""

    shard: int
    stored: int
    exit_code: int
    cpu_s: float = 0.0


@dataclass
class SlurmOutcome:
    """What the passes over the array did, and the campaign's outcome once merged."""

    shards: int
    campaign: Any = None  # harness.runner.run.CampaignOutcome of the merged store
    submitted: int = 0  # tasks submitted, first passes and retries
    lost: list[str] = field(default_factory=list)  # "shard I: why", one per task that did not end well
    cpu_s: float = 0.0  # CPU seconds the tasks that ended well used on their nodes (ShardResult.cpu_s)


def run_shard(config_path: str, output: str, shard: int, shards: int) -> ShardResult:
    """On the node: shard ``shard`` of ``shards`` of the campaign in ``config_path``, into ``output``."""
    from harness.runner.config import load_config
    from harness.runner.run import run_campaign, with_overrides

    config = with_overrides(load_config(config_path), executor="local", jobs=1, output=Path(output))
    outcome = run_campaign(config, live=False, shard=(shard, shards), summary=False)
    from harness.core.proctree import rusage_cpu_s

    return ShardResult(shard, outcome.stored, outcome.exit_code, rusage_cpu_s())


def backstop_minutes(config: Any, runs: int) -> int:
    """The walltime a shard of ``runs`` runs asks for, in whole minutes: every run at its limit plus grace, plus
    :data:`BACKSTOP_MARGIN_S`."""
    limits = config.limits
    per_run = (limits.time_s or 3600.0) + (limits.grace_s or 0.0) + 5.0
    return max(1, math.ceil((runs * per_run + BACKSTOP_MARGIN_S) / 60.0))


def submit_shards(config: Any, shards: list[int], n: int, *, folder: Path, runs_per_shard: dict[int, int],
                  partition: str | None = None) -> list[Any]:
    """One submitit job array: a task per shard in ``shards`` (of ``n``)."""
    executor = executor_for(folder, memory_mb=(config.limits.memory_mb or 4096) + MEMORY_MARGIN_MB,
                            timeout_min=max(backstop_minutes(config, runs_per_shard[s]) for s in shards),
                            name=f"battlebench-{config.name}", parallelism=len(shards), partition=partition)
    out = Path(config.output)
    with executor.batch():
        jobs = [executor.submit(run_shard, str(Path(config.path).resolve()), str(out / SHARDS_DIR / str(s)), s, n)
                for s in shards]
    return jobs


def _queued() -> set[str] | None:
    """The ids of the jobs (array tasks one by one) SLURM still holds pending or running; None if squeue failed."""
    import subprocess

    out = subprocess.run(["squeue", "-h", "-r", "-o", "%i"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return {line.strip() for line in out.stdout.splitlines() if line.strip()}


class Watch:
    """Which submitted jobs have ended, polled: a job is over when its result file exists or ``squeue`` no longer
    lists it (its result then gets ``settle_s`` to appear on a shared file system).

    submitit's own wait asks ``sacct``, which a cluster without job accounting (this one-node cluster among them)
    cannot answer, so a job cancelled before it wrote its result would be waited for forever."""

    def __init__(self, settle_s: float = 10.0):
        self.settle_s = settle_s
        self._left: dict[str, float] = {}  # job id -> when squeue first no longer listed it

    def ended(self, jobs: list[Any]) -> dict[str, bool]:
        """Of ``jobs``, those over now: job id -> whether it left a result."""
        import time

        queued, now, over = _queued(), time.monotonic(), {}
        for job in jobs:
            if job.paths.result_pickle.exists():
                over[job.job_id] = True
            elif queued is not None and job.job_id not in queued:
                if now - self._left.setdefault(job.job_id, now) >= self.settle_s:
                    over[job.job_id] = False
        return over


def wait_for(jobs: list[Any], poll_s: float = 1.0, settle_s: float = 10.0) -> dict[str, bool]:
    """Wait until every job has left SLURM's queue (:class:`Watch`); job id -> whether it left a result."""
    import time

    watch, ended = Watch(settle_s), {}
    while True:
        ended.update(watch.ended([job for job in jobs if job.job_id not in ended]))
        if len(ended) == len(jobs):
            return ended
        time.sleep(poll_s)


def executor_for(folder: Path, *, memory_mb: int, timeout_min: int, name: str, parallelism: int,
                 partition: str | None = None) -> Any:
    """A submitit executor of SLURM jobs of one core and ``memory_mb``, ``timeout_min`` as a backstop."""
    import submitit

    executor = submitit.AutoExecutor(folder=str(folder), cluster="slurm")
    params: dict[str, Any] = {"slurm_array_parallelism": parallelism, "cpus_per_task": 1, "tasks_per_node": 1,
                              "slurm_mem": f"{memory_mb}M", "timeout_min": timeout_min, "name": name}
    if partition:
        params["slurm_partition"] = partition
    executor.update_parameters(**params)
    return executor


def run_on_slurm(config: Any, *, fresh: bool = False, retries: int | None = None, stream: TextIO | None = None,
                 partition: str | None = None) -> SlurmOutcome:
    """The campaign on SLURM (see the module docstring); the merged store is written to ``config.output``.
    ``retries``: the config's unless given."""
    from harness.runner.run import shard_runs
    from harness.runner.campaign import expand

    stream = stream if stream is not None else sys.stderr
    out = Path(config.output)
    specs = expand(config)
    n = max(1, min(config.jobs, len({s.instance_path for s in specs})))
    if fresh:
        shutil.rmtree(out / SHARDS_DIR, ignore_errors=True)
    runs_per_shard = {i: len(shard_runs(specs, i, n)) for i in range(1, n + 1)}
    retries = config.retries if retries is None else retries
    outcome = SlurmOutcome(n)
    before = len(_stored(out, n))
    todo = list(range(1, n + 1))
    why: dict[int, str] = {}  # shard -> why its last task did not end well
    for attempt in range(retries + 1):
        if not todo:
            break
        print(f"slurm: submitting {len(todo)} shard{'s' if len(todo) != 1 else ''} of {n} "
              f"(pass {attempt + 1} of at most {retries + 1})", file=stream)
        jobs = submit_shards(config, todo, n, folder=out / SLURM_DIR, runs_per_shard=runs_per_shard,
                             partition=partition)
        outcome.submitted += len(jobs)
        again = []
        ended = wait_for(jobs)
        for shard, job in zip(todo, jobs):
            if not ended[job.job_id]:
                why[shard] = (f"its SLURM job {job.job_id} left the queue without a result (cancelled, its node "
                              "lost, or killed at its walltime)")
            else:
                try:
                    result = job.result()
                except Exception as exc:  # submitit's FailedJobError: the shard's call raised on the node
                    why[shard] = f"its SLURM job {job.job_id} failed: {' '.join(str(exc).split())[:300]}"
                else:
                    outcome.cpu_s += result.cpu_s
                    if result.stored < runs_per_shard[shard] and result.exit_code == 130:
                        why[shard] = f"its SLURM job {job.job_id} was stopped (SIGTERM) before the shard was done"
                    else:
                        continue
            outcome.lost.append(f"shard {shard}: {why[shard]}")
            again.append(shard)
        todo = again
    for shard in todo:  # short after every pass: what it did not store is lost, with the reason
        _store_lost(config, specs, shard, n, f"{why[shard]}, on each of the {retries + 1} passes "
                                             f"(retries = {retries})")
    merge_shards(config, n)
    from harness.runner.run import CampaignOutcome

    wanted = {s.run_id for s in specs}
    records = [r for r in _records(out) if r["run_id"] in wanted]
    done = CampaignOutcome(out, len(specs), before, len(records) - before, stored=len(records))
    for r in records:
        done.statuses[r["status"]] = done.statuses.get(r["status"], 0) + 1
    outcome.campaign = done
    return outcome


def _store_lost(config: Any, specs: list[Any], shard: int, n: int, why: str) -> None:
    """Store each run of shard ``shard`` its store does not hold as lost (its store made if it has none)."""
    from harness.runner.campaign import lost_record
    from harness.runner.run import begin_store, shard_runs
    from harness.store.sqlite import ResultsStore

    with ResultsStore(Path(config.output) / SHARDS_DIR / str(shard)) as store:
        begin_store(store, config, specs)
        held = {r["run_id"] for r in store.records()}
        for spec in shard_runs(specs, shard, n):
            if spec.run_id not in held:
                store.add(lost_record(spec, why))


def _records(out: Path) -> list[dict[str, Any]]:
    from harness.store.sqlite import DB_NAME, ResultsStore

    if not (out / DB_NAME).exists():
        return []
    with ResultsStore(out, create=False) as store:
        return store.records()


def _stored(out: Path, n: int) -> set[str]:
    """The run ids the shards' stores hold now."""
    ids: set[str] = set()
    for i in range(1, n + 1):
        ids |= {r["run_id"] for r in _records(out / SHARDS_DIR / str(i))}
    return ids


def merge_shards(config: Any, n: int) -> None:
    """The shards' stores merged into ``config.output`` (written aside, then moved in place of the last merge)."""
    from harness.store.merge import copy_store, merge
    from harness.store.sqlite import DB_NAME

    out = Path(config.output)
    present = [out / SHARDS_DIR / str(i) for i in range(1, n + 1) if (out / SHARDS_DIR / str(i) / DB_NAME).exists()]
    aside = out / ".merging"
    shutil.rmtree(aside, ignore_errors=True)
    if len(present) == 1:
        copy_store(present[0], aside)
    elif present:
        merge(present, aside)
    else:
        return
    for name in (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm"):
        (out / name).unlink(missing_ok=True)
    for path in aside.iterdir():
        target = out / path.name
        if path.is_dir():
            shutil.rmtree(target, ignore_errors=True)
        shutil.move(str(path), str(target))
    aside.rmdir()


__all__ = ["BACKSTOP_MARGIN_S", "MEMORY_MARGIN_MB", "ShardResult", "SlurmOutcome", "backstop_minutes",
           "merge_shards", "run_on_slurm", "run_shard", "submit_shards", "wait_for"]
