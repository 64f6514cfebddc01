"""Parallel generation: ``battlebench generate --jobs N`` against ``--jobs 1`` on the same seeds, in one run.

    python experiments/generate_parallel.py --rows 17 --cols 17 --seeds 4 --jobs 1 --jobs 2 --rounds 2 \\
        --out experiments/generate-parallel

Each (jobs, round) is one ``battlebench generate --number SEEDS`` command run as its own
process into a fresh directory; rounds alternate the order of the jobs values (1, 2, then
2, 1, ...) so a drift in the machine's load does not favour one.  Recorded per command:
wall time, CPU time of the whole process tree (``RUSAGE_CHILDREN``: the command, its pool
workers and their solver workers), the load average before it, and the CPU time every
*other* process on the machine used meanwhile (``/proc/stat`` less the command's own): a
shared machine's contention, which a parallel run feels most.  Every command must
make the same puzzles (content hashes); the ratio is the median wall time of each jobs
value over the median of ``--jobs 1``.  Writes ``results.json`` and ``README.md``; exits 1
when the best ratio misses ``--goal`` (default 0.6, the issue's).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from harness.puzzle.formats import read_instance


def _machine_cpu() -> float | None:
    """CPU seconds every process on the machine has used (/proc/stat: user, nice, system, irq, softirq, steal)."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()[1:]
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / ticks


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(args: argparse.Namespace, jobs: int, out: Path) -> dict:
    cmd = [sys.executable, "-m", "harness.cli", "generate", "--rows", str(args.rows), "--cols", str(args.cols),
           "--hints", args.hints, "--number", str(args.seeds), "--seed", str(args.seed), "--certify", args.certify,
           "--jobs", str(jobs), "--out", str(out)]
    load = os.getloadavg()[0]
    machine0, cpu0, t0 = _machine_cpu(), _cpu_children(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _cpu_children() - cpu0
    machine1 = _machine_cpu()
    others = None if machine0 is None or machine1 is None else max(machine1 - machine0 - cpu, 0.0)
    if done.returncode != 0:
        raise SystemExit(f"generate --jobs {jobs} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    hashes = {f.name: read_instance(f).content_hash() for f in sorted(out.glob("*.toml"))}
    return {"jobs": jobs, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "load_before": round(load, 2),
            "others_cpu_s": None if others is None else round(others, 1), "puzzles": hashes}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=17)
    p.add_argument("--cols", type=int, default=17)
    p.add_argument("--hints", default="minimal")
    p.add_argument("--seeds", type=int, default=4, help="seeds per command (default 4)")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--certify", default="cpsat/placement")
    p.add_argument("--jobs", type=int, action="append", default=None, help="jobs values (default 1 and 2)")
    p.add_argument("--rounds", type=int, default=2, help="commands per jobs value (default 2)")
    p.add_argument("--goal", type=float, default=0.6, help="best ratio to reach (default 0.6)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    jobs_values = args.jobs or [1, 2]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = jobs_values if r % 2 == 0 else list(reversed(jobs_values))
            for jobs in order:
                rec = run_once(args, jobs, Path(tmp) / f"j{jobs}-r{r}")
                rec["round"] = r
                runs.append(rec)
                print(f"round {r} jobs {jobs}: wall {rec['wall_s']:.1f} s  cpu {rec['cpu_s']:.1f} s  "
                      f"load {rec['load_before']}", flush=True)
    reference = runs[0]["puzzles"]
    same = all(rec["puzzles"] == reference for rec in runs)
    med = {j: statistics.median(r["wall_s"] for r in runs if r["jobs"] == j) for j in jobs_values}
    cpu = {j: statistics.median(r["cpu_s"] for r in runs if r["jobs"] == j) for j in jobs_values}
    base = med[min(jobs_values)]
    ratios = {j: round(med[j] / base, 3) for j in jobs_values}
    best = min(ratios[j] for j in jobs_values if j != min(jobs_values)) if len(jobs_values) > 1 else 1.0
    met = same and best <= args.goal
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "python experiments/generate_parallel.py " + " ".join(argv if argv is not None else sys.argv[1:])
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    summary = {"command": command, "when": when, "host": platform.node(), "cores": os.cpu_count(),
               "size": f"{args.rows}x{args.cols}", "hints": args.hints, "seeds": args.seeds,
               "certify": args.certify, "median_wall_s": med, "median_cpu_s": cpu, "ratio": ratios,
               "goal": args.goal, "met": met, "same_puzzles": same, "runs": runs}
    (out / "results.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [f"# Parallel generation: `--jobs` on {args.seeds} seeds of {args.rows}x{args.cols} `--hints {args.hints}`",
             "", f"Measured {when} on {platform.node()} ({os.cpu_count()} cores). Command: `{command}`", "",
             "| jobs | median wall s | median CPU s | wall ratio to jobs 1 |", "|---:|---:|---:|---:|"]
    lines += [f"| {j} | {med[j]:.1f} | {cpu[j]:.1f} | {ratios[j]:.2f} |" for j in jobs_values]
    lines += ["", "Every command (others' CPU: what every other process on the machine used meanwhile):", "",
              "| round | jobs | wall s | CPU s | load before | others' CPU s |", "|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['round']} | {r['jobs']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['load_before']} | "
              f"{r['others_cpu_s']} |" for r in runs]
    lines += ["", f"Same puzzles from every command (content hashes): **{'yes' if same else 'NO'}**. "
              f"Goal: ratio ≤ {args.goal}: **{'met' if met else 'not met'}** (best {best:.2f}).",
              "", "CPU time is the whole process tree's (the command, its pool workers, their solver workers)."]
    (out / "README.md").write_text("\n".join(lines) + "\n")
    print(f"ratios {ratios}; same puzzles: {same}; goal {args.goal}: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
