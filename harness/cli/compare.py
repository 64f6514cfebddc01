"""``battlebench compare``: two campaigns side by side -- per pair and per instance, what changed from a baseline."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.common import BAD_INPUT, command
from harness.core.thresholds import DEFAULT_FLOOR_S, DEFAULT_RATIO
from harness.errors import UsageError

NAME = "compare"


def add_parser(sub: Any) -> None:
    cp = command(sub, NAME, "two results stores side by side: what changed per pair and instance",
                 "Compare new results with a baseline, match by match (instance, pair, question, seed, as `check "
                 "--baseline` matches them): the status change, the CPU and wall ratio (new / old, medians over "
                 "repetitions), and a class each: became wrong, status changed, slower, faster, fixed, same, "
                 "appeared, disappeared; per pair the shifted-geometric-mean ratios with their intervals. Prints "
                 "the Markdown summary; with --out writes compare.html, compare.md and compare.csv. Differences "
                 "are not failures (exit 0): gate with `battlebench check --baseline`.",
                 ["battlebench compare results/smoke reports/smoke-baseline",
                  "battlebench compare results/ci reports/ci-baseline --out /tmp/ci-compare --ratio 3 --floor 0.2"],
                 {0: "the comparison was printed or written", 2: BAD_INPUT + " (no store, a damaged one, a place "
                                                                            "it cannot write)"})
    cp.add_argument("new", metavar="NEW", help="the new results directory (holds results.sqlite)")
    cp.add_argument("old", metavar="OLD", help="the baseline results directory to compare with")
    cp.add_argument("--out", default=None, metavar="DIR",
                    help="write compare.html, compare.md and compare.csv into DIR (default: print the Markdown)")
    cp.add_argument("--time", choices=("cpu", "wall"), default="cpu", help="the time slower / faster are judged on")
    cp.add_argument("--ratio", type=float, default=DEFAULT_RATIO, metavar="R",  # check's defaults
                    help="slower / faster: new times beyond R × the old ones (or below 1/R)")
    cp.add_argument("--floor", type=float, default=DEFAULT_FLOOR_S, metavar="S",
                    help="noise floor: runs under S seconds in both campaigns are never slower or faster")


def run(args: argparse.Namespace) -> int:
    from harness.report.compare import CompareOptions, comparison, markdown, write_comparison
    from harness.report.data import load

    if args.ratio <= 1:
        raise UsageError("--ratio must be > 1")
    if args.floor < 0:
        raise UsageError("--floor must be >= 0")
    new_df, old_df = load(args.new), load(args.old)  # both read before anything is written
    c = comparison(old_df, new_df, CompareOptions(time=args.time, ratio=args.ratio, floor_s=args.floor),
                   new=args.new, old=args.old)
    if args.out is None:
        sys.stdout.write(markdown(c))
        return 0
    written = write_comparison(c, args.out)
    print(f"wrote {args.out}/ ({', '.join(sorted(written))})", file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
