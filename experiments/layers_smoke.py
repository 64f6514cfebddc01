"""What a modelling layer costs: native backends against CPMpy (and Pyomo's two MIP engines), side by side.

    python experiments/layers_smoke.py [--time-limit 120] [--formulation placement] [--only cpmpy] [--json FILE]

One run per pair and task, each in the backend's warm worker (``IsolatedSolver``), after
one untimed run of every pair on ``instances/smoke/tiny_4x4.toml`` (the cpmpy worker
imports each solver library on first use), the same formulation throughout.  Tasks:
count all boards of ``sb_12_12_5_0`` (51), count 2 on ``sb_14_14_6_0`` and
``sb_15_15_6_0``.  Pairs, like for like:

* ``cpsat`` (default callback enumeration, and ``enumeration=blocking``) against
  ``cpmpy solver=ortools`` (blocking, CP-SAT through CPMpy);
* ``sat`` (default cadical195, and ``solver=glucose4``) against ``cpmpy solver=pysat``
  (CPMpy's default subsolver is glucose4);
* ``mip engine=highs`` against ``engine=scip`` (Pyomo), and ``cpmpy solver=highs`` /
  ``solver=scip`` (the same engines through CPMpy);
* ``cpmpy`` with choco, exact, z3, pumpkin and pindakaas.

Prints one table (wall and CPU seconds of the worker, build and solve seconds as the
harness times them, the solver's own reported seconds); ``--json`` also writes the rows.
Timings on a shared, loaded machine are noisy: compare within a row group, not to 1%.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from harness.core.status import Question
from harness.puzzle.formats import read_instance
from harness.tasks.isolated import IsolatedSolver

ROOT = Path(__file__).resolve().parents[1]
TASKS = (("sb_12_12_5_0", 0), ("sb_14_14_6_0", 2), ("sb_15_15_6_0", 2))
PAIRS: tuple[tuple[str, dict, str], ...] = (
    ("cpsat", {}, "cpsat (callback)"),
    ("cpsat", {"enumeration": "blocking"}, "cpsat blocking"),
    ("cpmpy", {"solver": "ortools"}, "cpmpy ortools"),
    ("sat", {}, "sat cadical195"),
    ("sat", {"solver": "glucose4"}, "sat glucose4"),
    ("cpmpy", {"solver": "pysat"}, "cpmpy pysat (glucose4)"),
    ("mip", {"engine": "highs"}, "mip highs"),
    ("mip", {"engine": "scip"}, "mip scip"),
    ("cpmpy", {"solver": "highs"}, "cpmpy highs"),
    ("cpmpy", {"solver": "scip"}, "cpmpy scip"),
    ("cpmpy", {"solver": "choco"}, "cpmpy choco"),
    ("cpmpy", {"solver": "exact"}, "cpmpy exact"),
    ("cpmpy", {"solver": "z3"}, "cpmpy z3"),
    ("cpmpy", {"solver": "pumpkin"}, "cpmpy pumpkin"),
    ("cpmpy", {"solver": "pindakaas"}, "cpmpy pindakaas"),
)


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per run (default 120)")
    ap.add_argument("--formulation", default="placement", choices=("placement", "cell"))
    ap.add_argument("--only", action="append", default=None, help="keep pairs whose label contains this")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    args = ap.parse_args(argv)
    pairs = [p for p in PAIRS if not args.only or any(s in p[2] for s in args.only)]
    rows = []
    header = ("| task | pair | status | boards | complete | build s | solve s | wall s | cpu s | solver s |\n"
              "|---|---|---|---:|---|---:|---:|---:|---:|---:|")
    print(header, flush=True)
    started = time.perf_counter()
    with IsolatedSolver(grace_s=5.0) as iso:
        warm = read_instance(ROOT / "instances" / "smoke" / "tiny_4x4.toml")
        for backend, opts, _label in pairs:  # each solver library imported before any clock runs
            iso.solve(warm, backend, args.formulation, Question.count(0), opts, 60)
        for name, k in TASKS:
            inst = read_instance(ROOT / "instances" / "solbat" / f"{name}.toml")
            task = f"{name} count {k or 'all'}"
            for backend, opts, label in pairs:
                res = iso.solve(inst, backend, args.formulation, Question.count(k), opts, args.time_limit)
                t = res.times
                row = {"task": task, "pair": label, "backend": backend, "options": opts,
                       "status": str(res.status), "boards": res.count, "complete": res.complete,
                       "build_s": t.get("build_s"), "solve_s": t.get("solve_s"), "wall_s": t.get("wall_s"),
                       "cpu_s": t.get("cpu_s"), "solver_s": res.solver_reported_s, "detail": res.detail,
                       "error": res.error}
                rows.append(row)
                print(f"| {task} | {label} | {row['status']} | {res.count} | {res.complete} | "
                      f"{_fmt(row['build_s'])} | {_fmt(row['solve_s'])} | {_fmt(row['wall_s'])} | "
                      f"{_fmt(row['cpu_s'])} | {_fmt(row['solver_s'])} |", flush=True)
    print(f"\n{len(rows)} runs, {time.perf_counter() - started:.0f} s, formulation {args.formulation}, "
          f"limit {args.time_limit:g} s per run")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
