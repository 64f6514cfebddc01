"""What measuring CPU time costs a run: the runner with and without its /proc readings, alternating in one process.

    python benchmarks/cpu_accounting.py --runs 300 --out reports/cpu-accounting

The runner reads the worker's process tree from /proc when it sends a run, every 50 ms
while the run is in flight, and when the answer comes (``tree_cpu_s``).  This executes
the same tiny run (``instances/smoke/tiny_4x4.toml``, each backend's placement
formulation, warm workers) ``--runs`` times per backend, alternating between the real
readings and readings switched off (``tree_cpu_s`` replaced by a stub returning None,
which leaves ``cpu_s`` to the worker's own ``getrusage``), and compares the runner's
overhead per run: ``wall_s`` − ``build_s`` − ``solve_s``.  Writes ``summary.md`` and
``runs.csv`` to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

from harness.core.limits import Limits
from harness.core.status import Question
from harness.puzzle.formats import read_instance
from harness.runner import process
from harness.runner.process import WorkerPool
from harness.tasks.solve import RunRequest

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ("sat", "cpsat", "mip")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", action="append", choices=BACKENDS, default=None)
    args = ap.parse_args(argv)
    inst = read_instance(ROOT / "instances" / "smoke" / "tiny_4x4.toml")
    real = process.tree_cpu_s
    rows = []
    started = time.perf_counter()
    with WorkerPool(warm=True) as pool:
        for backend in args.backend or BACKENDS:
            request = RunRequest.of(inst, backend, "placement", Question(), {}, Limits(30.0, 4096, 5.0))
            pool.execute(request)  # warm up outside the measurement
            for i in range(2 * args.runs):
                mode = ("on", "off")[(i + i // 2) % 2]  # on off off on on off ...: neither always goes first
                process.tree_cpu_s = real if mode == "on" else (lambda pid: None)
                try:
                    ex = pool.execute(request)
                finally:
                    process.tree_cpu_s = real
                outcome = ex.outcome
                if ex.kind != "ok" or outcome is None or "build_s" not in outcome.times:
                    continue
                overhead = ex.wall_s - outcome.times["build_s"] - outcome.times["solve_s"]
                rows.append({"backend": backend, "readings": mode, "overhead_ms": 1000 * overhead,
                             "wall_ms": 1000 * ex.wall_s, "cpu_ms": None if ex.cpu_s is None else 1000 * ex.cpu_s})
    took = time.perf_counter() - started
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "runs.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# What the CPU-time readings cost a run", "",
             f"`python benchmarks/cpu_accounting.py --runs {args.runs} --out {args.out}` ({took:.0f} s). "
             "The same tiny run, warm workers, alternating between the runner's /proc readings on and off; "
             "overhead = `wall_s` − `build_s` − `solve_s`.", "",
             "| backend | runs each | overhead median, on (ms) | off (ms) | on − off (ms) | p90 on (ms) | "
             "p90 off (ms) |", "|---|---:|---:|---:|---:|---:|---:|"]
    worst = 0.0
    for backend in args.backend or BACKENDS:
        on = [r["overhead_ms"] for r in rows if r["backend"] == backend and r["readings"] == "on"]
        off = [r["overhead_ms"] for r in rows if r["backend"] == backend and r["readings"] == "off"]
        if not on or not off:
            continue
        d = statistics.median(on) - statistics.median(off)
        worst = max(worst, d)
        q = lambda v: sorted(v)[int(0.9 * (len(v) - 1))]  # noqa: E731
        lines.append(f"| {backend} | {min(len(on), len(off))} | {statistics.median(on):.3f} | "
                     f"{statistics.median(off):.3f} | {d:+.3f} | {q(on):.3f} | {q(off):.3f} |")
    lines += ["", f"Largest difference of medians: {worst:+.3f} ms per run.", ""]
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
