"""Sweep backend x formulation pairs over instance files; time them and check agreement.

Interim benchmark driver for issue 2 (the campaign runner replaces it): every run goes
through the same isolated workers and verifier as ``battlebench solve``.  Writes
``runs.csv`` (one row per run) and ``summary.md`` to ``--out`` and exits 1 when two
pairs disagree on an instance both decided (status, or count up to K).

    python benchmarks/solve_sweep.py instances/solbat/*.toml --count 2 --time-limit 60 \
        --out reports/solve-solbat-count2
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

from harness.backends.registry import all_pairs
from harness.core.status import Task
from harness.puzzle.formats import read_instance
from harness.runner.isolated import IsolatedSolver

BASELINE = "cpsat/placement"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--pairs", default="all", help="comma list like cpsat/placement,sat/cell or 'all'")
    ap.add_argument("--count", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    pairs = all_pairs() if args.pairs == "all" else [tuple(p.split("/")) for p in args.pairs.split(",")]
    instances = [read_instance(p) for p in args.paths]
    task = Task.count(args.count)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    started = time.perf_counter()
    with IsolatedSolver(grace_s=5.0) as iso:
        for backend, formulation in pairs:  # warm each worker once (imports are not timed)
            iso.solve(instances[0], backend, formulation, Task(), time_limit_s=args.time_limit)
        for inst in instances:
            for backend, formulation in pairs:
                t0 = time.perf_counter()
                res = iso.solve(inst, backend, formulation, task, time_limit_s=args.time_limit)
                wall = time.perf_counter() - t0
                rows.append({
                    "instance": inst.name, "pair": f"{backend}/{formulation}", "backend": backend,
                    "formulation": formulation, "task": task.label, "status": str(res.status),
                    "count": res.count, "complete": res.complete,
                    "build_s": round(res.times.get("build_s", float("nan")), 4),
                    "solve_s": round(res.times.get("solve_s", float("nan")), 4),
                    "total_s": round(res.times.get("total_s", wall), 4), "wall_s": round(wall, 4),
                    "variables": res.model.get("variables"), "constraints": res.model.get("constraints"),
                    "error": res.error,
                })
                r = rows[-1]
                print(f"{r['instance']:<22} {r['pair']:<20} {r['status']:<8} {r['count']:>3} "
                      f"{'exact' if r['complete'] else '':<6} {r['wall_s']:8.3f} s", flush=True)
    with open(out / "runs.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    disagreements = _disagreements(rows, args.count)
    (out / "summary.md").write_text(_summary(rows, pairs, args, disagreements, time.perf_counter() - started))
    print((out / "summary.md").read_text())
    return 1 if disagreements else 0


def _disagreements(rows: list[dict], k: int) -> list[str]:
    by_inst: dict[str, list[dict]] = {}
    for r in rows:
        if r["status"] in ("sat", "unsat", "wrong"):
            by_inst.setdefault(r["instance"], []).append(r)
    problems = []
    for inst, rs in sorted(by_inst.items()):
        for r in rs:
            if r["status"] == "wrong":
                problems.append(f"{inst}: {r['pair']} returned a board that failed the verifier")
        seen = {(r["status"], min(r["count"], k or 10**9)) for r in rs if r["status"] != "wrong"}
        if len(seen) > 1:
            detail = ", ".join(f"{r['pair']}={r['status']}/{r['count']}" for r in rs)
            problems.append(f"{inst}: pairs disagree: {detail}")
    return problems


def _paths_label(paths: list[str]) -> str:
    """``dir/*.toml`` when the paths are one folder's files of one kind, else the list."""
    parents, suffixes = {str(Path(p).parent) for p in paths}, {Path(p).suffix for p in paths}
    if len(paths) > 2 and len(parents) == 1 and len(suffixes) == 1:
        return f"{parents.pop()}/*{suffixes.pop()}"
    return " ".join(paths)


def _summary(rows, pairs, args, disagreements, elapsed) -> str:
    n_inst = len({r["instance"] for r in rows})
    stats = {}
    for backend, formulation in pairs:
        label = f"{backend}/{formulation}"
        rs = [r for r in rows if r["pair"] == label]
        decided = [r for r in rs if r["status"] in ("sat", "unsat")]
        times = [r["total_s"] for r in decided]
        stats[label] = {
            "decided": len(decided), "total": sum(r["total_s"] for r in rs), "max": max(times, default=0.0),
            "median": statistics.median(times) if times else 0.0,
            "build_med": statistics.median([r["build_s"] for r in rs]),
        }
    complete = {p: s for p, s in stats.items() if s["decided"] == n_inst}
    fastest = min(complete or stats, key=lambda p: (-stats[p]["decided"], stats[p]["total"]))
    lines = [
        f"# Sweep: {len(pairs)} pairs x {n_inst} instances, task count-{args.count}, limit {args.time_limit:g} s",
        "",
        f"Command: `python benchmarks/solve_sweep.py {_paths_label(args.paths)} "
        f"--count {args.count} --time-limit {args.time_limit:g} --out {args.out}`  ",
        f"Elapsed: {elapsed:.1f} s, one run at a time, each pair in its own warm worker process. "
        "Times are in-worker build + solve (`total_s`), verification excluded.",
        "",
        "| pair | decided | total s | median s | max s | median build s | total vs fastest |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, s in sorted(stats.items(), key=lambda kv: (-kv[1]["decided"], kv[1]["total"])):
        ratio = s["total"] / stats[fastest]["total"] if stats[fastest]["total"] else float("nan")
        lines.append(f"| {label} | {s['decided']}/{n_inst} | {s['total']:.2f} | {s['median']:.3f} | "
                     f"{s['max']:.2f} | {s['build_med']:.3f} | {ratio:.2f}x |")
    lines.append("")
    lines.append(f"Fastest pair: **{fastest}**.")
    if BASELINE in stats and stats[BASELINE]["total"]:
        lines.append(f"Fastest / {BASELINE} (default options), total time ratio: "
                     f"{stats[fastest]['total'] / stats[BASELINE]['total']:.3f}.")
    lines.append("")
    lines.append("## Agreement")
    lines.append("")
    lines.extend(f"- {d}" for d in disagreements) if disagreements else lines.append(
        "All pairs that decided an instance agree on status and count (up to K); every board verified.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
