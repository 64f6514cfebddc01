"""``battlebench count``: deployment instances counted exactly by one counter, in limited workers; marginals drawn.

Each file is one run of the count task through the campaigns' own path
(:meth:`harness.tasks.count.CountTask.execute`): the counter's warm worker, limits from
outside, the count judged here against the instance's known count.  ``--marginals`` are
computed in the same worker, within the same limits.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import (BAD_INPUT, add_limits, add_options, check_limits, command, error, limits_of,
                                plugin_help)
from harness.errors import InputError, UsageError

NAME = "count"


def add_parser(sub: Any) -> None:
    ct = command(sub, NAME, "count deployments (or boards) of deployment instances exactly",
                 "Count every deployment (or distinct board) of each deployment instance exactly with one "
                 "counter, each in the counter's warm worker under the limits; each count is judged against "
                 "the instance's known count.",
                 ["battlebench count instances/deployments/standard_10x10.toml",
                  "battlebench count instances/deployments/hex_blue.toml --counter sharpsat --json",
                  "battlebench count instances/large/large_30x20_minimal_s502.toml -o split=2 -t 120",
                  "battlebench count instances/deployments/tiny/t6x6_position.toml --marginals --png-dir /tmp"],
                 {0: "every count is complete and agrees with the known count",
                  1: "a count is wrong, incomplete (timeout, memout), refused or failed",
                  2: BAD_INPUT + "; the other files go on"})
    ct.add_argument("paths", nargs="+", metavar="PATH", help="deployment files (.toml), or puzzle files")
    ct.add_argument("--by", default="deployments", help="what is counted: deployments | boards")
    from harness.counting.counters import FAMILY

    ct.add_argument("--counter", "--backend", "-b", dest="counter", default=FAMILY.default,
                    help=plugin_help("counter", FAMILY))
    add_options(ct, "counter", "split=2")
    ct.add_argument("--marginals", action="store_true",
                    help="also the exact probability of a ship in each cell (the dp's): a text heat map and a PNG")
    ct.add_argument("--png-dir", default=None, metavar="DIR",
                    help="where --marginals writes NAME-marginals.png (default: TMP/battlebench, the system's temporary "
                    "folder: never the current directory; the path is printed)")
    add_limits(ct, "instance")
    ct.add_argument("--json", action="store_true", help="one JSON object per instance per line")
    ct.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)


def _check(args: argparse.Namespace) -> None:
    from harness.counting.counters import BY, get_counter

    if args.by not in BY:
        raise UsageError(f"--by must be one of {', '.join(BY)}, not {args.by!r}")
    cls = get_counter(args.counter)
    if args.by not in cls.by:
        raise UsageError(f"the {args.counter} counter counts by {' or '.join(cls.by)}, not by {args.by}")
    args.options = cls.resolve_options(dict(args.option))  # unknown names, bad values: exit 2 before any count
    check_limits(args)
    missing = cls.available()
    if missing:
        raise UsageError(f"counter {args.counter!r} is not available here: {missing}")


def render(res: Any) -> str:
    """One line per instance: the count with thousands separators, the counter, the time, the verdict."""
    if res.count is None:
        what = f"no count ({res.status}: {res.error or res.termination})"
    else:
        what = f"{res.count:,} {res.by}" + ("" if res.complete else " so far (incomplete)")
    wall = res.times.get("wall_s")
    took = f", {wall:.3f} s" if wall is not None else ""
    if res.verdict == "ok":
        judged = " - the known count"
    elif res.verdict != "none":
        judged = f" - WRONG: {res.verdict}"
    else:
        judged = ""
    return f"{res.instance}: {what} ({res.backend}{took}){judged}"


def run(args: argparse.Namespace) -> int:
    from harness.core.status import Status
    from harness.core.task import PairSpec, Subject, TaskSpec, make_spec
    from harness.counting.format import read_deployment
    from harness.runner.process import WorkerPool
    from harness.tasks.count import CountTask, count_in_process

    _check(args)
    exit_code = 0
    limits = limits_of(args)
    task = CountTask()
    spec_of_task = TaskSpec("count", args.by)
    pair = PairSpec(args.counter, args.by, tuple(sorted((k, args.options[k]) for k in dict(args.option))))
    with WorkerPool() as pool:
        for path in args.paths:
            try:
                dep = read_deployment(path)
            except InputError as exc:
                error(str(exc))
                exit_code = 2
                continue
            if args.in_process:
                res = count_in_process(dep, args.counter, args.by, pair.option_dict, args.time_limit, args.marginals)
            else:
                subject = Subject(str(path), dep, dep.name, dep.content_hash())
                res = task.execute(pool, make_spec(subject, pair, spec_of_task, None, 1, limits),
                                   marginals=args.marginals).result
            out: dict[str, Any] = res.to_json()
            out["path"] = str(path)
            if args.marginals:
                if res.marginals is not None:
                    out["marginals"] = _marginals(dep, res, args, quiet=args.json)
                    if out["marginals"]["png"] is None:
                        exit_code = 2  # the count stands and is printed; the picture could not be written
                else:
                    out["marginals"] = None
                    error(f"{path}: no marginals: {res.marginals_error or f'the run ended first ({res.status})'}")
            if args.json:
                print(json.dumps(out), flush=True)
            else:
                print(render(res), flush=True)
            if res.status not in (Status.SAT, Status.UNSAT) and exit_code == 0:
                exit_code = 1
    return exit_code


def default_png_dir() -> Path:
    """Where ``--marginals`` draws without ``--png-dir``: a ``battlebench`` folder in the system's temporary folder
    (``$TMPDIR``), so that nothing is written into the current directory unasked."""
    import tempfile

    return Path(tempfile.gettempdir()) / "battlebench"


def _marginals(dep: Any, res: Any, args: argparse.Namespace, quiet: bool) -> dict[str, Any]:
    """Draw the marginals the worker computed (a heat map on stdout, a PNG) and give them as JSON data."""
    from harness.core.paths import path_part
    from harness.counting.marginals import heat_map, write_png

    m = res.marginals
    took = res.times.get("marginals_s")
    png: Path | None = Path(args.png_dir or default_png_dir()) / f"{path_part(dep.name)}-marginals.png"
    try:
        png.parent.mkdir(parents=True, exist_ok=True)
        write_png(dep, m, png)
    except OSError as exc:
        error(f"{png}: cannot write the picture: {exc.strerror or exc}")
        png = None
    if not quiet:
        print(f"{dep.name}: P(ship) per cell in % over {m.total:,} deployments (x hit, o miss, ## certain); "
              f"{took or 0:.3f} s; picture {png or 'not written'}")
        print(heat_map(dep, m))
        sys.stdout.flush()
    cells = sorted(m.occupied)
    return {"total": m.total, "seconds": took, "png": str(png) if png else None,
            "cells": [[list(c), m.occupied[c]] for c in cells],
            "by_piece": {name: [[list(c), v] for c, v in sorted(d.items())] for name, d in m.by_piece.items()}}


__all__ = ["NAME", "add_parser", "default_png_dir", "render", "run"]
