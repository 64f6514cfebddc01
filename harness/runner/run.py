"""Executing a campaign: config -> runs -> executor -> results store, with progress and resume.

``run_campaign`` opens (or creates) the results store in the output directory, skips
every run already stored (same run id), executes the rest with the configured executor
and stores each record the moment it arrives, one transaction per run, so ``kill -9``
loses at most the runs in flight.  Ctrl-C stops the executor (every worker's process
group is killed), keeps what was stored and reports how to resume.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from harness.runner.campaign import expand
from harness.runner.config import Config
from harness.runner.progress import Progress, summary_table
from harness.store import ResultsStore


@dataclass
class CampaignOutcome:
    """What ``run_campaign`` did."""

    output: Path
    total: int
    resumed: int
    executed: int
    interrupted: bool = False
    statuses: dict[str, int] = field(default_factory=dict)

    @property
    def wrong(self) -> int:
        return self.statuses.get("wrong", 0)


def make_executor(config: Config) -> Any:
    warm = config.workers == "warm"
    if config.executor == "dask":
        from harness.runner.dask import DaskExecutor

        return DaskExecutor(config.scheduler, config.jobs, config.limits.grace_s, warm)
    from harness.runner.local import LocalExecutor

    return LocalExecutor(config.jobs, config.limits.grace_s, warm)


def run_campaign(
    config: Config,
    *,
    fresh: bool = False,
    stream: TextIO | None = None,
    live: bool | None = None,
    interval_s: float = 10.0,
    executor: Any = None,
    summary: bool = True,
) -> CampaignOutcome:
    """Execute every run of ``config`` not yet in its results store."""
    stream = stream if stream is not None else sys.stderr
    specs = expand(config)
    output = Path(config.output)
    store = ResultsStore(output)
    try:
        store.begin(config.name, config.hash, config.text, fresh=fresh)
        if config.text:
            (output / "config.toml").write_text(config.text, encoding="utf-8")
        done = store.done_ids()
        todo = [s for s in specs if s.run_id not in done]
        outcome = CampaignOutcome(output, len(specs), len(specs) - len(todo), 0)
        progress = Progress(len(specs), stream=stream, live=live, interval_s=interval_s)
        progress.start(outcome.resumed)
        if not todo:
            progress.close()
        else:
            executor = executor if executor is not None else make_executor(config)
            try:
                for record in executor.run(todo):
                    if record is None:
                        progress.tick()
                        continue
                    if store.add(record):
                        outcome.executed += 1
                    progress.update(record)
            except KeyboardInterrupt:
                outcome.interrupted = True
                executor.stop()
            finally:
                executor.close()
                progress.close(interrupted=outcome.interrupted)
        wanted = {s.run_id for s in specs}
        records = [r for r in store.records() if r["run_id"] in wanted]
        for r in records:
            outcome.statuses[r["status"]] = outcome.statuses.get(r["status"], 0) + 1
        if summary and records:
            print(summary_table(records), file=stream)
        if outcome.interrupted:
            print(f"interrupted: {len(records)} of {len(specs)} runs are stored in {output}; "
                  "run the same command again to resume", file=stream)
        return outcome
    finally:
        store.close()


def with_overrides(config: Config, **changes: Any) -> Config:
    """The config with command-line overrides (jobs, executor, scheduler, output) applied."""
    return replace(config, **{k: v for k, v in changes.items() if v is not None})


__all__ = ["CampaignOutcome", "run_campaign", "make_executor", "with_overrides"]
