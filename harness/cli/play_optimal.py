"""``battlebench play --optimal BOARD``: optimal play's exact expected shots on a small board, and how far each strategy is from it.

Each value is one run of the value task (:mod:`harness.tasks.value`) in a worker under
``--time-limit`` and ``--memory-mb``: the optimum by search over belief states (stopped a
second before the limit with the lower bound it proved), each ``--strategy`` by walking
its decision tree over every deployment (exact), sampled where it cannot be walked.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any


def _line(name: str, res: dict[str, Any], optimum: Fraction | None) -> str:
    if res.get("mean") is None:
        why = res.get("stopped") or res.get("error") or res.get("status")
        bound = f"; proved at least {float(Fraction(res['lower'])):.4f} shots" if res.get("lower") else ""
        return f"{name:12s} no value ({res['status']}: {str(why).splitlines()[0] if why else ''}){bound}"
    if res.get("expected"):
        value = Fraction(res["expected"])
        text = f"{name:12s} {float(value):.4f} expected shots (exact: {value})"
    else:
        text = f"{name:12s} {res['mean']:.4f} ± {res['half_width']:.4f} expected shots (sampled: {res.get('note')})"
    if optimum is not None and name != "optimal":
        gap = (Fraction(res["expected"]) if res.get("expected") else Fraction(res["mean"])) - optimum
        text += f"  gap {float(gap):+.4f}"
        if res.get("costly") is not None:
            text += f", {100 * float(Fraction(res['costly'])):.1f}% of games meet a costly shot"
    if name == "optimal":
        rate = res["work"] / res["compute_s"] if res.get("compute_s") else 0
        text += (f"  first shot {res.get('first_shot')}; {res['work']:,} belief states in {res['compute_s']:.2f} s "
                 f"({rate:,.0f}/s)")
    else:
        text += f"  {res['work']:,} {'games' if res.get('method') == 'sample' else 'nodes'}"
    if res.get("peak_rss_mb"):
        text += f", peak {res['peak_rss_mb']:.0f} MB"
    return text + (f"  [{res['deployments']:,} deployments]" if res.get("deployments") else "")


def run_optimal(args: argparse.Namespace, names: list[str], made: dict, board: Any) -> int:
    """Optimal play, then each strategy named with ``--strategy``, on ``board`` (a checked Subject)."""
    from harness.cli.common import limits_of
    from harness.core.task import PairSpec, TaskSpec, make_spec
    from harness.runner.process import WorkerPool
    from harness.tasks.value import OPTIMAL, ValueTask

    limits = limits_of(args)
    task, spec_of_task = ValueTask(), TaskSpec("value", "value")
    params = {"costly": True, "budget": 200_000, "rounds": 4}
    bad = 0
    optimum = None
    with WorkerPool() as pool:
        for name in [OPTIMAL, *names]:
            options = tuple(sorted(made[name][1].items())) if name in made else ()
            pair = PairSpec(name, args.rule, options)
            try:
                res = task.execute(pool, make_spec(board, pair, spec_of_task, None, 1, limits), params).result
            except KeyboardInterrupt:
                print(f"battlebench: interrupted during {name}", file=sys.stderr)
                return 130
            if name == OPTIMAL and res.get("expected"):
                optimum = Fraction(res["expected"])
            if res.get("mean") is None or res["status"] != "sat":
                bad += 1
            if args.json:
                print(json.dumps({"strategy": name, "rule": args.rule, "board": str(board.path), **res},
                                 default=str), flush=True)
            else:
                print(_line(name, res, optimum), flush=True)
    return 1 if bad else 0


__all__ = ["run_optimal"]
