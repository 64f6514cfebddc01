"""``battlebench check``: the gate over a results store -- complete, no errors, everything agrees, no regression."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.common import BAD_INPUT, command
from harness.errors import UsageError

NAME = "check"


def add_parser(sub: Any) -> None:
    ck = command(sub, NAME, "agreement (and regression) checks over stored results; exit 1 on a problem",
                 "Judge a results store as a CI gate: every planned run stored, none in error, every board "
                 "verified again, all pairs agree (boards, statuses, exact counts, replayed games, the manifest), "
                 "and with --baseline no slowdown beyond --ratio.",
                 ["battlebench check results/smoke",
                  "battlebench check results/smoke --baseline reports/smoke-baseline --ratio 2"],
                 {0: "the check passed", 1: "the check failed: each reason on its own lines",
                  2: BAD_INPUT + " (no store, a damaged one)"})
    ck.add_argument("results", metavar="RESULTS", help="results directory (holds results.sqlite)")
    ck.add_argument("--baseline", default=None, metavar="OLD", help="an older results directory to compare with")
    ck.add_argument("--ratio", type=float, default=2.0, help="slowdown ratio counted as a regression")
    ck.add_argument("--floor", type=float, default=0.1, metavar="S",
                    help="noise floor: runs under S seconds in both campaigns are never slowdowns")
    ck.add_argument("--manifest", default=None, metavar="FILE",
                    help="instance manifest with expected statuses/counts (default: the nearest "
                         "instances/MANIFEST.toml)")
    ck.add_argument("--time", choices=("cpu", "wall"), default="cpu",
                    help="the time slowdowns against --baseline are judged on")
    ck.add_argument("--allow-incomplete", action="store_true",
                    help="do not fail when planned runs are missing (a deliberate partial check)")
    ck.add_argument("--allow-errors", action="store_true", help="do not fail on runs that ended in error")


def run(args: argparse.Namespace) -> int:
    from harness.report.gate import CheckOptions, run_check

    if args.ratio <= 1:
        raise UsageError(f"--ratio must be > 1, not {args.ratio:g}")
    if args.floor < 0:
        raise UsageError(f"--floor must be >= 0, not {args.floor:g}")
    opts = CheckOptions(baseline=args.baseline, ratio=args.ratio, floor_s=args.floor, time=args.time,
                        manifest=args.manifest, allow_incomplete=args.allow_incomplete,
                        allow_errors=args.allow_errors)
    return run_check(args.results, opts, sys.stdout)


__all__ = ["NAME", "add_parser", "run"]
