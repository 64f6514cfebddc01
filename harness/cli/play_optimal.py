"""``battlebench play --optimal BOARD``: optimal play's exact expected shots on a small board, and how far each strategy is from it.

Each value is one run of the value task (:mod:`harness.tasks.value`) in a worker under
``--time-limit`` and ``--memory-mb``: the optimum by search over belief states (stopped
:data:`~harness.tasks.value.OWN_MARGIN_S` before the limit with the lower bound it proved),
each ``--strategy`` by walking its decision tree over every deployment (exact), sampled
where it cannot be walked.  An answer that comes after the limit is a timeout that keeps what
it proved: its bound (``lower``; an exact value as the pair ``lower == upper``), marked
``late``.  The limit is per value; what the command spends outside the values is stated:
each value's ``phases`` (the worker's warm-up -- start, imports, compiling the search --, the
run, the judging; wall and CPU seconds) and the command's ``startup`` and ``elapsed_s`` so
far (from the process's start), in every ``--json`` line and in the text's last line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction
from typing import Any


def _bound(res: dict[str, Any]) -> str:
    """What a run without a value proved, in words: the bound pair of a late exact value, or the lower bound."""
    late = res.get("late") or {}
    text = ""
    if late:
        text = f"; it answered after {late['after_s']:.2f} s, past the {late['limit_s']:g} s limit"
    if res.get("upper") and res.get("upper") == res.get("lower"):
        value = Fraction(res["upper"])
        return text + f": exactly {float(value):.4f} shots ({value}), kept as a bound"
    if late.get("mean") is not None:
        text += f": {late['mean']:.4f} ± {late['half_width'] or 0:.4f} sampled, not kept"
    if res.get("lower"):
        text += f"; proved at least {float(Fraction(res['lower'])):.4f} shots"
    return text


def _line(name: str, res: dict[str, Any], optimum: Fraction | None) -> str:
    if res.get("mean") is None:
        why = res.get("stopped") or res.get("error") or res.get("status")
        return f"{name:12s} no value ({res['status']}: {str(why).splitlines()[0] if why else ''}){_bound(res)}"
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


def _seconds(phase: dict[str, Any] | None, key: str) -> float:
    return float((phase or {}).get(key) or 0.0)


def _command_times(startup: dict[str, float], values: list[dict[str, Any]]) -> dict[str, Any]:
    """The command's times so far: its start-up, the seconds since the process started, and its CPU seconds (its
    own and its workers': their warm-ups and runs, which its own clock does not see while they are alive)."""
    from harness.core.proctree import age_s

    t = os.times()
    workers = sum(_seconds(ph.get(p), "cpu_s") for ph in values for p in ("warmup", "run"))
    return {"startup": startup, "elapsed_s": age_s(), "cpu_s": t.user + t.system + workers}


def _time_line(command: dict[str, Any], values: list[dict[str, Any]], limit_s: float | None) -> str:
    """The text's last line: where the command's time went, phase by phase (wall, and CPU)."""
    def total(phase: str, key: str) -> float:
        return sum(_seconds(ph.get(phase), key) for ph in values)

    up = command["startup"]
    seen = "?" if up["wall_s"] is None else f"{up['wall_s']:.2f}"
    parts = [f"start-up {seen} s (CPU {up['cpu_s']:.2f} s)"]
    for phase, words in (("warmup", "warm-up (worker start, imports, compiling)"), ("run", "values"),
                         ("judge", "judging")):
        parts.append(f"{words} {total(phase, 'wall_s'):.2f} s (CPU {total(phase, 'cpu_s'):.2f} s)")
    whole = "" if command["elapsed_s"] is None else f"; {command['elapsed_s']:.2f} s in all"
    limit = "no time limit" if limit_s is None else f"the limit, {limit_s:g} s, is per value"
    return f"time: {'; '.join(parts)}{whole}, CPU {command['cpu_s']:.2f} s ({limit})"


def run_optimal(args: argparse.Namespace, names: list[str], made: dict, board: Any) -> int:
    """Optimal play, then each strategy named with ``--strategy``, on ``board`` (a checked Subject)."""
    from harness.core.proctree import age_s

    t = os.times()
    startup = {"wall_s": age_s(), "cpu_s": t.user + t.system}  # the interpreter, the imports, the checks
    from harness.cli.common import limits_of
    from harness.core.task import PairSpec, TaskSpec, make_spec
    from harness.runner.process import WorkerPool
    from harness.tasks.value import OPTIMAL, ValueTask

    limits = limits_of(args)
    task, spec_of_task = ValueTask(), TaskSpec("value", "value")
    params = {"costly": True, "budget": 200_000, "rounds": 4}
    bad = 0
    optimum = None
    phases: list[dict[str, Any]] = []
    with WorkerPool() as pool:
        for name in [OPTIMAL, *names]:
            options = tuple(sorted(made[name][1].items())) if name in made else ()
            pair = PairSpec(name, args.rule, options)
            try:
                res = task.execute(pool, make_spec(board, pair, spec_of_task, None, 1, limits), params).result
            except KeyboardInterrupt:
                print(f"battlebench: interrupted during {name}", file=sys.stderr)
                return 130
            phases.append(res["phases"])
            if name == OPTIMAL and (res.get("expected") or res.get("upper")):
                optimum = Fraction(res.get("expected") or res["upper"])  # a late exact optimum: still exact
            if res.get("mean") is None or res["status"] != "sat":
                bad += 1
            if args.json:
                print(json.dumps({"strategy": name, "rule": args.rule, "board": str(board.path), **res,
                                  "command": _command_times(startup, phases)}, default=str), flush=True)
            else:
                print(_line(name, res, optimum), flush=True)
    if not args.json:
        print(_time_line(_command_times(startup, phases), phases, limits.time_s), flush=True)
    return 1 if bad else 0


__all__ = ["run_optimal"]
