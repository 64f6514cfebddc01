"""``battlebench count``: count deployment instances with one counter, in a limited worker; marginals drawn.

Every instance is counted in the counter's own worker process under the time and
memory limits (as in campaigns), judged here against the instance's known count.  Exit
0 when every count is complete and agrees with what is known; 1 when one is wrong or
incomplete; 2 on bad input (the other instances are still counted).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from harness.core.status import Status
from harness.counting.counters import BY, get_counter
from harness.counting.task import CountRequest, execute_count, judge_count
from harness.errors import InputError, UsageError


def _error(msg: str) -> None:
    print(f"battlebench: error: {msg}", file=sys.stderr)


def _check(args: Any) -> None:
    if args.by not in BY:
        raise UsageError(f"--by must be one of {', '.join(BY)}, not {args.by!r}")
    cls = get_counter(args.backend)
    if args.by not in cls.by:
        raise UsageError(f"the {args.backend} counter counts by {' or '.join(cls.by)}, not by {args.by}")
    if args.time_limit is not None and not (0 < args.time_limit < 1e7):
        raise UsageError("--time-limit must be a number of seconds > 0")
    if args.memory_mb is not None and args.memory_mb < 64:
        raise UsageError("--memory-mb must be at least 64 (a Python worker needs that much)")
    missing = cls.available()
    if missing:
        raise UsageError(f"counter {args.backend!r} is not available here: {missing}")


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


def cmd_count(args: Any) -> int:
    from harness.counting.format import read_deployment
    from harness.runner.process import DEFAULT_GRACE_S, WorkerPool

    _check(args)
    exit_code = 0
    with WorkerPool(grace_s=DEFAULT_GRACE_S) as pool:
        for path in args.paths:
            try:
                dep = read_deployment(path)
            except InputError as exc:
                _error(str(exc))
                exit_code = 2
                continue
            request = CountRequest(dep, args.backend, args.by, args.time_limit, args.memory_mb)
            if args.in_process:
                t0 = time.perf_counter()
                outcome = execute_count(dep, args.backend, args.by, args.time_limit)
                res = judge_count(request, "ok", outcome, wall_s=time.perf_counter() - t0, cpu_s=None)
            else:
                ex = pool.execute_count(request)
                res = judge_count(request, ex.kind, ex.outcome, ex.error, ex.wall_s, ex.cpu_s)
            out: dict[str, Any] = res.to_json()
            out["path"] = str(path)
            if args.marginals:
                out["marginals"] = _marginals(dep, args, quiet=args.json)
            if args.json:
                print(json.dumps(out), flush=True)
            else:
                print(render(res), flush=True)
            if res.status in (Status.WRONG, Status.TIMEOUT, Status.MEMOUT, Status.ERROR) and exit_code == 0:
                exit_code = 1
    return exit_code


def _marginals(dep: Any, args: Any, quiet: bool) -> dict[str, Any]:
    from harness.counting.marginals import heat_map, marginals, write_png

    t0 = time.perf_counter()
    m = marginals(dep)
    took = time.perf_counter() - t0
    png = Path(args.png_dir) / f"{dep.name}-marginals.png"
    try:
        png.parent.mkdir(parents=True, exist_ok=True)
        write_png(dep, m, png)
    except OSError as exc:
        raise InputError(f"{png}: cannot write the picture: {exc.strerror or exc}") from None
    if not quiet:
        print(f"{dep.name}: P(ship) per cell in % over {m.total:,} deployments (x hit, o miss, ## certain); "
              f"{took:.3f} s; picture {png}")
        print(heat_map(dep, m))
    cells = sorted(m.occupied)
    return {"total": m.total, "seconds": took, "png": str(png),
            "cells": [[list(c), m.occupied[c]] for c in cells],
            "by_piece": {name: [[list(c), v] for c, v in sorted(d.items())] for name, d in m.by_piece.items()}}


__all__ = ["cmd_count", "render"]
