"""``battlebench run``: a campaign config executed into its results store, resumable, with progress."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import BAD_INPUT, check_jobs, command
from harness.errors import UsageError

NAME = "run"


def add_parser(sub: Any) -> None:
    r = command(sub, NAME, "execute a campaign config (every pair on every instance) into a results store",
                "Execute every run of a campaign config not yet in its results store, each in an isolated worker "
                "under the config's limits; records are stored as they come, so a stopped campaign resumes where "
                "it stopped when the same command runs again.",
                ["battlebench run configs/smoke.toml", "battlebench run configs/solbat.toml --jobs 2",
                 "battlebench run configs/smoke.toml --executor dask --scheduler tcp://host:8786"],
                {0: "every planned run is stored, none wrong or in error", 1: "some run's answer is wrong",
                 2: BAD_INPUT + " (every config problem is found before any run)",
                 3: "some run ended in error, or planned runs are missing", 130: "interrupted (resume by running "
                 "the same command again)"})
    r.add_argument("config", metavar="CONFIG", help="campaign config (TOML), e.g. configs/smoke.toml")
    r.add_argument("--fresh", action="store_true", help="discard the stored results and start over")
    r.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="runs in parallel (default: the config's, 1)")
    r.add_argument("--executor", choices=("local", "dask", "slurm"), default=None,
                   help="local, dask, or slurm: shards as a SLURM job array, merged (default: the config's, local)")
    r.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:8786), or 'local' for a LocalCluster (default: none)")
    r.add_argument("--out", "--output", "-O", dest="out", default=None, metavar="DIR",
                   help="results directory (default: the config's output, else results/NAME)")
    r.add_argument("--shard", default=None, metavar="I/N",
                   help="run only shard I of N: every N-th planned run from the I-th, so that N machines share a "
                        "campaign (merge their stores with battlebench merge; default: every run)")
    r.add_argument("--progress", choices=("auto", "live", "plain"), default="auto",
                   help="live line on a terminal, plain periodic lines otherwise")
    r.add_argument("--interval", type=float, default=10.0, metavar="S", help="seconds between plain progress lines")


def run(args: argparse.Namespace) -> int:
    from harness.runner.config import load_config
    from harness.runner.run import run_campaign, with_overrides

    check_jobs(args.jobs)
    if args.interval <= 0:
        raise UsageError(f"--interval must be > 0, not {args.interval:g}")
    shard = shard_of(args.shard) if args.shard else None
    config = load_config(args.config)  # every problem is reported before any run starts
    if args.scheduler and not args.executor:
        args.executor = "dask"  # a scheduler address means the Dask executor
    config = with_overrides(config, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                            output=Path(args.out) if args.out else None)
    live = {"auto": None, "live": True, "plain": False}[args.progress]
    if config.executor == "slurm":
        if shard:
            raise UsageError("--shard runs one shard here; --executor slurm submits every shard: give one")
        from harness.runner.slurm import run_on_slurm

        done = run_on_slurm(config, fresh=args.fresh)
        for line in done.lost:
            print(f"slurm: lost {line}", file=sys.stderr)
        print(f"slurm: the tasks that ended used {done.cpu_s:.2f} CPU s on their nodes (runner, workers, solvers)",
              file=sys.stderr)
        outcome = done.campaign
    else:
        outcome = run_campaign(config, fresh=args.fresh, live=live, interval_s=args.interval, shard=shard)
    what = f"planned runs of shard {shard[0]}/{shard[1]}" if shard else "planned runs"
    print(f"results: {outcome.output} ({outcome.stored} of {outcome.total} {what} stored; "
          f"{outcome.executed} executed now, {outcome.resumed} were already stored)")
    return outcome.exit_code


def shard_of(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N), 1 <= I <= N (UsageError otherwise)."""
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard must be I/N (e.g. 1/4), not {text!r}") from None
    if not 1 <= i <= n:
        raise UsageError(f"--shard {text}: I must be between 1 and N")
    return i, n


__all__ = ["NAME", "add_parser", "run", "shard_of"]
