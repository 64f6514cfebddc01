"""``battlebench prepare``: every numba kernel of the harness compiled into the cache ahead of time, once per machine.

The counting programmes (``count``'s dp: cluster, rows, profile, frontier, and their
marginals) and optimal play's search (``play --optimal``) are compiled by numba the first
time a command needs them (~10-20 s of CPU each), and kept in the cache folder
(:mod:`harness.core.jitcache`): every later command, from any install path of this version,
loads them.  ``prepare`` pays that now -- after an install, in a container's build -- for
the modules not compiled yet (none on a second call), and says where and how long it took.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, Callable

from harness.cli.common import command, error

NAME = "prepare"


def add_parser(sub: Any) -> None:
    c = command(sub, NAME, "compile the harness's numba kernels into the cache folder ahead of time (once per machine)",
                "Compile every counting programme (count's dp: cluster, rows, profile, frontier, and their marginals) "
                "and optimal play's search (play --optimal) into the cache folder (BATTLEBENCH_CACHE_DIR, else "
                "NUMBA_CACHE_DIR, $XDG_CACHE_HOME/battlebench/numba, ~/.cache/battlebench/numba), so that no later "
                "command compiles them. Only what is not compiled yet is compiled: a second call does nothing.",
                ["battlebench prepare",
                 "BATTLEBENCH_CACHE_DIR=/opt/battlebench-cache battlebench prepare --json"],
                {0: "every kernel is compiled in the cache folder",
                 1: "no cache folder is writable, numba is not installed, or a kernel could not be compiled",
                 2: "an unknown option: one line on stderr"})
    c.add_argument("--json", action="store_true", help="one JSON object: the folder, what was compiled, CPU seconds")


def steps() -> dict[str, Callable[[], None]]:
    """How each kernel module of :data:`harness.core.jitcache.KERNELS` is compiled: tiny real calls."""
    from functools import partial

    from harness.counting.counters.dp import KERNELS
    from harness.tasks.count import compile_engine
    from harness.tasks.value import compile_kernels

    out: dict[str, Callable[[], None]] = {module: partial(compile_engine, engine)
                                          for engine, module in KERNELS.items()}
    out["harness.play._optimal_nb"] = compile_kernels
    return out


def run(args: argparse.Namespace) -> int:
    from harness.core import jitcache

    root = jitcache.cache_dir()
    if jitcache.numba_version() is None:
        error("numba is not installed: nothing to compile (pip install numba)")
        return 1
    if root is None:
        tried = ", ".join(map(str, jitcache.tried())) or "none"
        error(f"no cache folder is writable ({tried}): set {jitcache.CACHE_ENV} to a writable folder; "
              "nothing compiled (every run compiles)")
        return 1
    todo = [m for m in jitcache.KERNELS if jitcache.missing(m, root)]
    t0, c0 = time.monotonic(), os.times()
    for module in todo:
        steps()[module]()
    c1 = os.times()
    cpu = (c1.user + c1.system) - (c0.user + c0.system)
    wall = time.monotonic() - t0
    left = {m: jitcache.missing(m, root) for m in jitcache.KERNELS}
    left = {m: names for m, names in left.items() if names}
    if args.json:
        print(json.dumps({"cache_dir": str(root), "compiled": todo,
                          "warm": [m for m in jitcache.KERNELS if m not in todo], "not_compiled": left,
                          "cpu_s": round(cpu, 3), "wall_s": round(wall, 3)}))
    elif todo:
        what = ", ".join(jitcache.KERNELS[m][0] for m in todo)
        print(f"compiled {what} into {root} in {cpu:.1f} s of CPU ({wall:.1f} s wall); later commands load them")
    else:
        print(f"warm: every kernel is compiled already in {root}; nothing compiled ({cpu:.2f} s of CPU)")
    for module, names in left.items():
        error(f"{module}: not compiled into {root}: {', '.join(names)}")
    return 1 if left else 0


__all__ = ["NAME", "add_parser", "run", "steps"]
