"""``battlebench backends`` (what can run here, from where) and ``battlebench conform`` (qualify a backend)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _first_line(obj: Any) -> str:
    doc = sys.modules[obj.__module__].__doc__ if getattr(obj, "__module__", None) in sys.modules else ""
    return (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""


def _versions(cls: Any) -> dict[str, str] | str:
    try:
        return dict(cls.versions())
    except Exception as exc:  # a plugin's versions() may fail in any way: show it, go on
        return f"versions() failed: {type(exc).__name__}: {exc}"


def backend_rows(with_versions: bool = True) -> list[dict[str, Any]]:
    """One row per backend that can be named without a reference; a broken one says why."""
    from harness.backends.registry import get_backend, origins
    from harness.errors import UsageError

    rows = []
    for name, origin in origins().items():
        row: dict[str, Any] = {"backend": name, "source": origin.source, "target": origin.target}
        try:
            cls = get_backend(name)
        except UsageError as exc:
            rows.append({**row, "available": False, "missing": str(exc), "formulations": [], "options": {}})
            continue
        missing = cls.available()
        row.update({
            "formulations": list(cls.formulations),
            "options": {k: {"default": o.default, "choices": list(o.choices) if o.choices else None, "help": o.help}
                        for k, o in cls.declared_options().items()},
            "available": missing is None, "missing": missing, "about": _first_line(cls),
        })
        if with_versions and missing is None:
            row["versions"] = _versions(cls)
        rows.append(row)
    return rows


def cmd_backends(args: argparse.Namespace) -> int:
    from harness.counting.counters import COUNTERS, get_counter
    from harness.play.strategies import STRATEGIES, get_strategy

    rows = backend_rows(with_versions=not args.no_versions)
    counters = []
    for name in COUNTERS:
        cls = get_counter(name)
        counters.append({"counter": name, "by": list(cls.by), "library": cls.library, "available": cls.available()
                         is None, "missing": cls.available(), "about": _first_line(cls)})
    strategies = []
    for name in STRATEGIES:
        cls = get_strategy(name)
        strategies.append({"strategy": name, "rules": list(cls.rules), "options": dict(cls.options),
                           "about": _first_line(cls)})
    if args.json:
        print(json.dumps(rows + counters + strategies, indent=2, default=str))
        return 0
    print("backends (battlebench solve --backend B; a config's backend = \"B\"; or any class as module:Class):")
    for row in rows:
        state = "available" if row["available"] else f"UNAVAILABLE: {row['missing']}"
        print(f"  {row['backend']}  [{row['source']}]  {state}")
        if row.get("about"):
            print(f"      {row['about']}")
        if row["formulations"]:
            print(f"      formulations: {', '.join(row['formulations'])}")
        versions = row.get("versions")
        if versions:
            text = versions if isinstance(versions, str) else ", ".join(f"{k} {v}" for k, v in versions.items())
            print(f"      versions: {text}")
        for k, o in row["options"].items():
            choices = f" (choices: {', '.join(map(str, o['choices']))})" if o["choices"] else ""
            print(f"      {k} = {o['default']}{choices}  {o['help']}")
    print("counters (task = \"deployments\" or \"boards\"; battlebench count --backend C):")
    for c in counters:
        state = "" if c["available"] else f"  [unavailable: {c['missing']}]"
        print(f"  {c['counter']}: by {', '.join(c['by'])}{state}  {c['about']}")
    print("strategies (task = \"play\"; battlebench play --strategy S):")
    for st in strategies:
        opts = "".join(f" {k}={v}" for k, v in st["options"].items())
        print(f"  {st['strategy']}: rules {', '.join(st['rules'])}{opts}  {st['about']}")
    return 0


def cmd_conform(args: argparse.Namespace) -> int:
    """Run the conformance suite; 0 when every check passes, 1 on any failure, 2 on bad input."""
    from harness.backends.registry import check_pair, get_backend
    from harness.conform.suite import CHECKS, conform
    from harness.errors import UsageError
    from harness.runner.isolated import IsolatedSolver

    cls = get_backend(args.backend)
    formulations = args.formulation or list(cls.formulations)
    options: dict[str, Any] = dict(args.option)
    for f in formulations:
        check_pair(args.backend, f)  # unknown formulation, unavailable backend: exit 2 before any run
    cls.resolve_options(options)
    checks = tuple(args.check or CHECKS)
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise UsageError(f"unknown check {unknown[0]!r} (choose from {', '.join(CHECKS)})")

    def show(row: Any) -> None:
        if not args.json:
            mark = "pass" if row.passed else "FAIL"
            print(f"{row.formulation:<12} {row.check:<10} {mark:<5} {row.cases:>6} {row.seconds:>8.2f}  {row.detail}",
                  flush=True)

    if not args.json:
        label = args.backend + "".join(f" {k}={v}" for k, v in options.items())
        print(f"conformance of {label}: {len(formulations)} formulation(s) x {len(checks)} checks")
        print(f"{'formulation':<12} {'check':<10} {'result':<5} {'cases':>6} {'seconds':>8}  detail")
    with IsolatedSolver(grace_s=args.grace) as solver:
        results = conform(solver, args.backend, formulations, options, checks, progress=show)
    failed = [r for r in results if not r.passed]
    if args.json:
        print(json.dumps({"backend": args.backend, "options": options, "passed": not failed,
                          "checks": [r.to_json() for r in results]}, indent=2, default=str))
    else:
        print(f"{len(results) - len(failed)} of {len(results)} checks passed" + (
            "" if not failed else f"; failed: {', '.join(f'{r.formulation}/{r.check}' for r in failed)}"))
    return 1 if failed else 0


def add_parsers(sub: Any, option_type: Any) -> None:
    b = sub.add_parser("backends", help="list backends (built-in, entry points), formulations, options, versions")
    b.add_argument("--json", action="store_true")
    b.add_argument("--no-versions", action="store_true", help="do not import solvers to read their versions")
    cf = sub.add_parser("conform", help="qualify a backend: the conformance suite on brute-forced tiny instances")
    cf.add_argument("backend", metavar="BACKEND", help="a backend name, an entry point's name, or module:Class")
    cf.add_argument("--formulation", "-f", action="append", default=None,
                    help="a formulation to check (repeatable; default: every formulation the backend declares)")
    cf.add_argument("--option", "-o", action="append", type=option_type, default=[], metavar="KEY=VALUE",
                    help="backend option, e.g. -o solver=choco")
    cf.add_argument("--check", action="append", default=None, metavar="CHECK",
                    help="run only this check (repeatable): count-all, count-2, solve, unsat, verified, limit")
    cf.add_argument("--grace", type=float, default=3.0, metavar="S",
                    help="after SIGTERM at a time limit, seconds until SIGKILL (default 3)")
    cf.add_argument("--json", action="store_true", help="one JSON object with every check")
