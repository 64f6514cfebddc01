"""``battlebench check``: the gate over a results store -- complete, no errors, everything agrees, no regression."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.common import BAD_INPUT, check_jobs, command
from harness.core.thresholds import floor_option, ratio_option

NAME = "check"


def add_parser(sub: Any) -> None:
    ck = command(sub, NAME, "agreement (and regression) checks over stored results; exit 1 on a problem",
                 "Judge a results store as a CI gate: every planned run stored, none in error, every board "
                 "verified again from its subject file (looked up relative to the campaign's folder, which the store "
                 "records, not the caller's), all pairs agree (boards, statuses, exact counts, replayed games, the "
                 "manifest), every run as the plan recorded it, "
                 "and with --baseline no slowdown beyond --ratio. --ratio and --floor take PAIR=VALUE too, for "
                 "the pairs PAIR matches (a label or a pattern: * any text, ? one character), over the config's "
                 "[check] table; a pair's own value beats the one for every pair.",
                 ["battlebench check results/smoke",
                  "battlebench check results/smoke --baseline reports/smoke-baseline --ratio 2",
                  "battlebench check results/smoke --baseline reports/smoke-baseline --ratio 2 "
                  "--ratio sat/cell=3 --ratio 'mip/*=4' --floor 'mip/*=0.5'"],
                 {0: "the check passed", 1: "the check failed: each reason on its own lines",
                  2: BAD_INPUT + " (no store, a damaged one, a results.sqlite and results.sqlite.gz that disagree, "
                                 "a --node-class that matches no class or several)"})
    ck.add_argument("results", metavar="RESULTS", help="results directory (holds results.sqlite)")
    ck.add_argument("--baseline", default=None, metavar="OLD", help="an older results directory to compare with")
    ck.add_argument("--ratio", type=ratio_option, action="append", default=[], metavar="[PAIR=]R",
                    help="slowdown ratio counted as a regression, > 1: R for every pair, PAIR=R for the pairs "
                         "PAIR matches (repeatable; default: the config's [check] ratio, else 2)")
    ck.add_argument("--floor", type=floor_option, action="append", default=[], metavar="[PAIR=]S",
                    help="noise floor: runs under S seconds in both campaigns are never slowdowns; PAIR=S for "
                         "the pairs PAIR matches (repeatable; default: the config's [check] floor_s, else 0.1)")
    ck.add_argument("--manifest", default=None, metavar="FILE",
                    help="instance manifest with expected statuses/counts (default: the nearest "
                         "instances/MANIFEST.toml)")
    ck.add_argument("--time", choices=("cpu", "wall"), default="cpu",
                    help="the time slowdowns against --baseline are judged on")
    ck.add_argument("--allow-incomplete", action="store_true",
                    help="do not fail when planned runs are missing (a deliberate partial check)")
    ck.add_argument("--allow-errors", action="store_true", help="do not fail on runs that ended in error")
    ck.add_argument("--allow-unverified", action="store_true",
                    help="do not fail on runs that could not be judged again because their subject file is "
                         "nowhere to be found (they are counted and said; a changed file still fails, and so "
                         "does a check that judged nothing again)")
    ck.add_argument("--proofs", action="store_true",
                    help="check every stored proof again (RESULTS/proofs/: the proof and the exact CNF it proves, "
                         "each under its sha256) by the fastest checker of every lineage here; a contradiction fails, and so does a store "
                         "that keeps no proof")
    ck.add_argument("--proof-limit", type=float, default=600.0, metavar="SECONDS",
                    help="each checker's time limit on each stored proof with --proofs (default: 600)")
    from harness.proofs.checkers import CHECKERS

    ck.add_argument("--checker", action="append", choices=list(CHECKERS), metavar="NAME",
                    help="with --proofs, check again with this checker only (repeatable; default: the fastest "
                         f"of every lineage installed; one of {', '.join(CHECKERS)})")
    ck.add_argument("--node-class", default=None, metavar="TEXT",
                    help="check only the runs measured on the node class whose name contains TEXT (with "
                         "--baseline, regressions are judged only between stores of one and the same class)")
    ck.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="with --proofs, check N stored proofs at a time (default: 1)")


def run(args: argparse.Namespace) -> int:
    from harness.report.gate import CheckOptions, run_check

    check_jobs(args.jobs)
    if not args.proof_limit > 0:  # NaN too
        from harness.errors import UsageError

        raise UsageError(f"--proof-limit must be a number of seconds > 0, not {args.proof_limit:g}")

    def every(given: list[tuple[str | None, float]]) -> float | None:
        return next((v for p, v in reversed(given) if p is None), None)  # given twice: the last

    def per_pair(given: list[tuple[str | None, float]]) -> tuple[tuple[str, float], ...]:
        return tuple((p, v) for p, v in given if p is not None)

    opts = CheckOptions(baseline=args.baseline, ratio=every(args.ratio), floor_s=every(args.floor),
                        ratio_by_pair=per_pair(args.ratio), floor_by_pair=per_pair(args.floor), time=args.time,
                        manifest=args.manifest, allow_incomplete=args.allow_incomplete,
                        allow_errors=args.allow_errors, allow_unverified=args.allow_unverified,
                        proofs=args.proofs, proof_limit_s=args.proof_limit,
                        checkers=tuple(args.checker) if args.checker else None, proof_jobs=args.jobs,
                        node_class=args.node_class)
    return run_check(args.results, opts, sys.stdout)


__all__ = ["NAME", "add_parser", "run"]
