"""What running a solver binary on a file costs against the same solver in process, side by side in one run.

    python benchmarks/tool_roundtrip.py --out reports/tool-roundtrip

On the solbat instances (count 2: up to three solver calls each), each pair runs in its own warm worker, the
pairs interleaved per instance and repetition so load falls on both alike:

* ``sat[solver=minisat22]`` (MiniSat 2.2 in python-sat) against ``tool[tool=minisat]`` (the Debian MiniSat 2.2
  binary), the same solver both ways;
* ``sat[solver=cadical195]`` (CaDiCaL 1.9.5 in python-sat) against ``tool[tool=cadical]`` (the Debian CaDiCaL,
  which calls itself ``sc2021``: not the same release, said in the report);
* ``mip[engine=highs]`` (HiGHS through highspy, in process) against ``tool[tool=highs]`` (the highsbox HiGHS
  binary on the MPS file; its release is in the report).

Each binary runs twice: measured by the process path (``measure=process``: the cost of the file round trip
itself) and by BenchExec's runexec (``measure=runexec``: what the measuring layer adds: the cgroups
BenchExec's RunExecutor, kept in the worker, makes and reads per call), where runexec can run here.

Per run: the run's solve seconds (the enumeration: for a tool, writing the file each call, starting the
process, the tool's own work, reading its answer), its CPU seconds (the worker's and the tools' it waited for),
and for tools the parts the backend measures (files written, the tool's wall and CPU time).  Writes
``runs.csv`` and ``summary.md`` (medians per pair and the binary / in-process ratios of the medians).
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
import time
from pathlib import Path

from harness.core.status import Question
from harness.puzzle.formats import read_instance
from harness.tasks.isolated import IsolatedSolver

ROOT = Path(__file__).resolve().parents[1]
PAIRS = [("sat", {"solver": "minisat22"}, "tool", {"tool": "minisat"}, "MiniSat 2.2"),
         ("sat", {"solver": "cadical195"}, "tool", {"tool": "cadical"}, "CaDiCaL (1.9.5 in process, sc2021 binary)"),
         ("mip", {"engine": "highs"}, "tool", {"tool": "highs"}, "HiGHS (highspy in process, highsbox binary)")]
HOWS = ("in process", "binary", "binary, runexec")
PARTS = re.compile(r"files written in ([0-9.]+) s, the tool ran ([0-9.]+) s wall, ([0-9.]+) s CPU")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--formulation", default="placement")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    instances = [read_instance(p) for p in sorted((ROOT / "instances" / "solbat").glob("*.toml"))]
    rows = []
    started = time.perf_counter()
    from harness.tools import unusable

    hows = HOWS if unusable() is None else HOWS[:2]
    with IsolatedSolver() as iso:
        for rep in range(args.repeat):
            for inst in instances:
                for native, nopts, tool, topts, solver in PAIRS:
                    legs = [(native, nopts, "in process"), (tool, {**topts, "measure": "process"}, "binary"),
                            (tool, {**topts, "measure": "runexec"}, "binary, runexec")]
                    for backend, opts, how in (leg for leg in legs if leg[2] in hows):
                        res = iso.solve(inst, backend, args.formulation, Question.count(2), opts, 120)
                        parts = PARTS.search(res.detail or "")
                        rows.append({"solver": solver, "how": how, "pair": f"{backend}[{','.join(map(str, opts.values()))}]",
                                     "instance": inst.name, "repetition": rep, "status": res.status.value,
                                     "count": res.count, "solve_s": res.times.get("solve_s"),
                                     "cpu_s": res.times.get("cpu_s"), "wall_s": res.times.get("wall_s"),
                                     "write_s": float(parts.group(1)) if parts else None,
                                     "tool_wall_s": float(parts.group(2)) if parts else None,
                                     "tool_cpu_s": float(parts.group(3)) if parts else None})
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["# What a solver binary on a file costs against the same solver in process", "",
             f"`python benchmarks/tool_roundtrip.py --out {args.out}`: {len(instances)} solbat instances, count 2, "
             f"formulation {args.formulation}, {args.repeat} repetitions, pairs interleaved; "
             f"{time.perf_counter() - started:.0f} s in all. Medians over runs (seconds).", "",
             "| solver | how | runs | statuses | solve_s | cpu_s | files written | tool wall | tool CPU |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|"]
    med = {}
    for _, _, _, _, solver in PAIRS:
        for how in hows:
            got = [r for r in rows if r["solver"] == solver and r["how"] == how]
            statuses = ", ".join(f"{s} {sum(r['status'] == s for r in got)}" for s in sorted({r["status"] for r in got}))

            def m(key: str, runs: list = got) -> float | None:
                vals = [r[key] for r in runs if r[key] is not None]
                return statistics.median(vals) if vals else None

            med[(solver, how)] = (m("solve_s"), m("cpu_s"))
            cells = [m(k) for k in ("solve_s", "cpu_s", "write_s", "tool_wall_s", "tool_cpu_s")]
            lines.append(f"| {solver} | {how} | {len(got)} | {statuses} | "
                         + " | ".join("–" if v is None else f"{v:.4f}" for v in cells) + " |")
    lines += ["", "| solver | how | solve_s / in process | cpu_s / in process |", "|---|---|---:|---:|"]
    for _, _, _, _, solver in PAIRS:
        ws, cs = med[(solver, "in process")]
        for how in hows[1:]:
            wb, cb = med[(solver, how)]
            lines.append(f"| {solver} | {how} | {wb / ws:.1f} | {cb / cs:.1f} |")
    from harness.backends.registry import get_backend

    versions = {**get_backend("tool").versions(), **get_backend("mip").versions()}
    lines += ["", "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())) + "."]
    lines += ["", "The counts of every pair agree on every instance: "
              + ("yes." if _agree(rows) else "**no** (see runs.csv)."), ""]
    (args.out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if _agree(rows) else 1


def _agree(rows: list[dict]) -> bool:
    by: dict = {}
    for r in rows:
        by.setdefault(r["instance"], set()).add((r["status"], r["count"]))
    return all(len(v) == 1 for v in by.values())


if __name__ == "__main__":
    sys.exit(main())
