"""``battlebench conform``: qualify a backend, a counter or a strategy with its family's conformance suite."""

from __future__ import annotations

import argparse
import json
from typing import Any

from harness.cli.common import BAD_INPUT, add_grace, add_options, command, grace_of
from harness.errors import UsageError

NAME = "conform"


def add_parser(sub: Any) -> None:
    cf = command(sub, NAME, "qualify a backend, counter or strategy: its conformance suite, in workers",
                 "Run a plugin's conformance suite in worker processes, as campaigns do. A backend: every "
                 "formulation on brute-forced tiny puzzles (count all, count 2, solve, unsat proven), every board "
                 "verified, its own time limit honoured. A counter (--counter): exact counts against brute force "
                 "on tiny deployment instances, its refusals as declared, a limit check. A strategy (--strategy): "
                 "legal shots only, every fleet sunk, the same shots for the same seed, rules it cannot play "
                 "refused.",
                 ["battlebench conform cpsat", "battlebench conform sat -o solver=glucose4 --check count-all",
                  "battlebench conform --counter dp", "battlebench conform --strategy thompson -o block=500",
                  "battlebench conform mypackage.solver:MyBackend"],
                 {0: "every check passed", 1: "a check failed (the table names the case)", 2: BAD_INPUT})
    cf.add_argument("backend", metavar="BACKEND", nargs="?", default=None,
                    help="a backend name, an entry point's name, or module:Class (default: none; or --counter, "
                         "--strategy)")
    cf.add_argument("--counter", default=None, metavar="C", help="qualify this counter instead (a name or "
                    "module:Class) (default: none)")
    cf.add_argument("--strategy", default=None, metavar="S", help="qualify this strategy instead (a name or "
                    "module:Class) (default: none)")
    cf.add_argument("--formulation", "-f", action="append", default=None,
                    help="a backend's formulation to check (repeatable) (default: every formulation it declares)")
    add_options(cf, "backend or strategy", "solver=choco")
    cf.add_argument("--check", action="append", default=None, metavar="CHECK",
                    help="run only this check (repeatable): a backend's count-all, count-2, solve, unsat, verified, "
                         "limit; a counter's count, refuses, limit; a strategy's legal, sinks, repeatable, rules "
                         "(default: every check)")
    add_grace(cf)
    cf.add_argument("--json", action="store_true", help="one JSON object with every check")


def run(args: argparse.Namespace) -> int:
    """Run the conformance suite; 0 when every check passes, 1 on any failure, 2 on bad input."""
    chosen = [(kind, name) for kind, name in (("backend", args.backend), ("counter", args.counter),
                                              ("strategy", args.strategy)) if name]
    if len(chosen) != 1:
        raise UsageError("name one plugin: a BACKEND, or --counter C, or --strategy S")
    kind, name = chosen[0]
    options: dict[str, Any] = dict(args.option)
    if kind != "backend" and args.formulation:
        raise UsageError("--formulation is a backend's")
    if args.grace is not None and not 0 <= args.grace < 1e5:
        raise UsageError(f"--grace must be a number of seconds >= 0, not {args.grace:g}")
    if kind == "backend":
        from harness.backends.registry import check_pair, get_backend
        from harness.conform.suite import CHECKS

        cls = get_backend(name)
        formulations = args.formulation or list(cls.formulations)
        for f in formulations:
            check_pair(name, f)  # unknown formulation, unavailable backend: exit 2 before any run
        cls.resolve_options(options)
    elif kind == "counter":
        from harness.conform.counters import CHECKS
        from harness.counting.counters import get_counter

        cls = get_counter(name)
        cls.resolve_options(options)
        missing = cls.available()
        if missing:
            raise UsageError(f"counter {name!r} is not available here: {missing}")
        formulations = ["-"]
    else:
        from harness.conform.strategies import CHECKS
        from harness.play.strategies import get_strategy

        get_strategy(name).resolve_options(options)
        formulations = ["-"]
    checks = tuple(args.check or CHECKS)
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise UsageError(f"unknown check {unknown[0]!r} for a {kind} (choose from {', '.join(CHECKS)})")

    def show(row: Any) -> None:
        if not args.json:
            mark = "pass" if row.passed else "FAIL"
            print(f"{row.formulation:<12} {row.check:<10} {mark:<5} {row.cases:>6} {row.seconds:>8.2f}  {row.detail}",
                  flush=True)

    if not args.json:
        label = name + "".join(f" {k}={v}" for k, v in options.items())
        what = f"{len(formulations)} formulation(s) x {len(checks)} checks" if kind == "backend" else \
            f"{len(checks)} checks"
        print(f"conformance of {kind} {label}: {what}")
        print(f"{'formulation':<12} {'check':<10} {'result':<5} {'cases':>6} {'seconds':>8}  detail")
    results = _conform(kind, name, formulations, options, checks, grace_of(args), show)
    failed = [r for r in results if not r.passed]
    if args.json:
        print(json.dumps({kind: name, "family": kind, "options": options, "passed": not failed,
                          "checks": [r.to_json() for r in results]}, indent=2, default=str))
    else:
        print(f"{len(results) - len(failed)} of {len(results)} checks passed" + (
            "" if not failed else f"; failed: {', '.join(_where(r) for r in failed)}"))
    return 1 if failed else 0


def _where(row: Any) -> str:
    return row.check if row.formulation == "-" else f"{row.formulation}/{row.check}"


def _conform(kind: str, name: str, formulations: list[str], options: dict[str, Any], checks: tuple[str, ...],
             grace: float, show: Any) -> list:
    from harness.runner.process import WorkerPool

    if kind == "backend":
        from harness.conform.suite import conform
        from harness.tasks.isolated import IsolatedSolver

        with IsolatedSolver(grace_s=grace) as solver:
            return conform(solver, name, formulations, options, checks, progress=show)
    with WorkerPool() as pool:  # each run's grace comes with its limits
        if kind == "counter":
            from harness.conform.counters import conform_counter

            return conform_counter(pool, name, checks, grace, progress=show, options=options)
        from harness.conform.strategies import conform_strategy

        return conform_strategy(pool, name, options, checks, grace, progress=show)


__all__ = ["NAME", "add_parser", "run"]
