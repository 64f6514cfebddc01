"""Executing a campaign: config -> runs -> executor -> results store, with progress and resume.

``run_campaign`` opens (or creates) the results store in the output directory, records
the campaign's *plan* there (every run the config expands to, so that ``check`` and
``report`` can tell a complete campaign from an interrupted one), skips every run
already stored (same run id), executes the rest with the configured executor and stores
each record the moment it arrives, one transaction per run, so ``kill -9`` loses at most
the runs in flight.  Ctrl-C stops the executor (every worker's process group is
killed), keeps what was stored and reports how to resume.  The closing summary lists
the runs that ended in ``error`` or ``memout``, grouped by message.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from harness.core import scratch
from harness.core.failures import group_failures, render_failures
from harness.core.provenance import machine
from harness.core.request import KEPT_FILES
from harness.core.task import task_of
from harness.core.status import NOT_MEASURED
from harness.errors import UsageError
from harness.runner.campaign import RunSpec, campaign_root, expand
from harness.runner.config import Config
from harness.runner.progress import Progress, summary_table
from harness.store import ResultsStore

EXIT_OK, EXIT_WRONG, EXIT_BAD_INPUT, EXIT_ERRORS, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
"""``battlebench run`` exit codes: a wrong board (1) outranks error runs or missing runs (3)."""


@dataclass
class CampaignOutcome:
    """What ``run_campaign`` did."""

    output: Path
    total: int
    resumed: int
    executed: int
    interrupted: bool = False
    statuses: dict[str, int] = field(default_factory=dict)
    stored: int = 0  # runs of the plan now in the store

    @property
    def wrong(self) -> int:
        return self.statuses.get("wrong", 0)

    @property
    def errors(self) -> int:
        return self.statuses.get("error", 0)

    @property
    def lost(self) -> int:
        """Runs stored as lost (:data:`~harness.core.status.NOT_MEASURED`): the next resume executes them again."""
        return sum(self.statuses.get(s, 0) for s in NOT_MEASURED)

    @property
    def missing(self) -> int:
        return self.total - self.stored

    @property
    def exit_code(self) -> int:
        """130 interrupted; 1 some board was wrong; 3 some run ended in error, was lost or is missing; else 0."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.wrong:
            return EXIT_WRONG
        if self.errors or self.lost or self.missing:
            return EXIT_ERRORS
        return EXIT_OK


def plan_of(specs: list[RunSpec]) -> list[dict[str, Any]]:
    """The store's plan rows (:data:`harness.store.sqlite.PLAN_COLUMNS`) of a campaign's runs."""
    names = {task: task_of(task).name for task in {s.task for s in specs}}
    return [{"run_id": s.run_id, "instance": s.instance_name, "instance_path": s.instance_path,
             "instance_hash": s.instance_hash, "pair": s.pair.label, "backend": s.pair.plugin,
             "formulation": s.pair.variant, "task": names[s.task], "question": s.task.label, "seed": s.seed,
             "repetition": s.repetition} for s in specs]


def shard_runs(specs: list[RunSpec], i: int, n: int) -> list[RunSpec]:
    """Shard ``i`` of ``n`` (1-based) of a campaign's runs: the instances dealt round-robin in plan order, every run
    of an instance in one shard.  So every pair meets each instance on one machine (a paired comparison never
    spans two) and each pair's runs are spread over every machine (no pair is confounded with one)."""
    order: dict[str, int] = {}
    for s in specs:
        order.setdefault(s.instance_path, len(order))
    return [s for s in specs if order[s.instance_path] % n == i - 1]


def begin_store(store: ResultsStore, config: Config, every: list[RunSpec], fresh: bool = False) -> None:
    """Record the campaign, its whole plan (``every`` run) and its task's own columns in ``store``."""
    store.begin(config.name, config.hash, config.text, fresh=fresh, plan=plan_of(every), root=campaign_root())
    store.add_columns({name: kind for name, (kind, _) in config.task_type.extra_columns.items()})


def make_executor(config: Config) -> Any:
    warm = config.workers == "warm"
    if config.executor == "dask":
        from harness.runner.dask import DaskExecutor

        if config.pin:
            raise UsageError(f"{config.path}: pin: a Dask worker's runs are not pinned (use --executor local or "
                             "slurm, or pin the Dask workers themselves: taskset -c N dask worker ...)")
        return DaskExecutor(config.scheduler, config.jobs, warm, retries=config.retries)
    from harness.runner.local import LocalExecutor

    return LocalExecutor(config.jobs, warm, pin=config.pin)


def run_campaign(
    config: Config,
    *,
    fresh: bool = False,
    stream: TextIO | None = None,
    live: bool | None = None,
    interval_s: float = 10.0,
    executor: Any = None,
    summary: bool = True,
    shard: tuple[int, int] | None = None,
) -> CampaignOutcome:
    """Execute every run of ``config`` not yet in its results store; with ``shard`` = (I, N), only shard I of N
    (:func:`shard_runs`; the store keeps the whole plan, and its session says which shard ran)."""
    stream = stream if stream is not None else sys.stderr
    every = expand(config)
    specs = every if shard is None else shard_runs(every, *shard)
    output = Path(config.output)
    scratch.sweep()  # a start or resume after a kill -9: the work folders of the workers it left go
    store = ResultsStore(output)
    try:
        begin_store(store, config, every, fresh=fresh)
        store.add_session(machine() if shard is None else dict(machine(), shard=f"{shard[0]}/{shard[1]}"))
        if config.text:
            (output / "config.toml").write_text(config.text, encoding="utf-8")
        wanted = {s.run_id for s in specs}
        stored = [r for r in store.records() if r["run_id"] in wanted and r["status"] not in NOT_MEASURED]
        done = {r["run_id"] for r in stored}  # a lost run is executed again: its new record replaces it
        todo = [s for s in specs if s.run_id not in done]
        outcome = CampaignOutcome(output, len(specs), len(specs) - len(todo), 0)
        progress = Progress(len(specs), stream=stream, live=live, interval_s=interval_s, jobs=config.jobs)
        progress.start(outcome.resumed, stored, [(s.pair.label, s.limits.time_s) for s in todo])
        if not todo:
            progress.close()
        else:
            executor = executor if executor is not None else make_executor(config)
            progress.running = getattr(executor, "running", None)
            try:
                for record in executor.run(todo):
                    if record is None:
                        progress.tick()
                        continue
                    kept = record.pop(KEPT_FILES, None)
                    if kept:
                        store.keep(kept)
                    if store.add(record):
                        outcome.executed += 1
                    progress.update(record)
            except KeyboardInterrupt:
                outcome.interrupted = True
                executor.stop()
            finally:
                executor.close()
                progress.close(interrupted=outcome.interrupted)
        records = [r for r in store.records() if r["run_id"] in wanted]
        outcome.stored = len(records)
        for r in records:
            outcome.statuses[r["status"]] = outcome.statuses.get(r["status"], 0) + 1
        if summary and records:
            print(summary_table(records), file=stream)
            failures = group_failures(records, ("error", "memout"))
            if failures:
                n = sum(g.count for g in failures)
                print(f"{n} run{'s' if n != 1 else ''} ended in error or memout, by message "
                      f"(every message: battlebench report {output}):", file=stream)
                print(render_failures(failures), file=stream)
        if outcome.interrupted:
            print(f"interrupted: {len(records)} of {len(specs)} runs are stored in {output}; "
                  "run the same command again to resume", file=stream)
        elif outcome.missing or outcome.lost:
            gaps = [f"{outcome.missing} missing"] * bool(outcome.missing) + [
                f"{outcome.lost} lost with their worker or node"] * bool(outcome.lost)
            print(f"incomplete: {len(records) - outcome.lost} of {len(specs)} runs are measured in {output} "
                  f"({', '.join(gaps)}); run the same command again to execute them", file=stream)
        return outcome
    finally:
        store.close()


def with_overrides(config: Config, **changes: Any) -> Config:
    """The config with command-line overrides (jobs, executor, scheduler, output) applied."""
    return replace(config, **{k: v for k, v in changes.items() if v is not None})


__all__ = ["CampaignOutcome", "begin_store", "make_executor", "run_campaign", "shard_runs", "with_overrides"]
