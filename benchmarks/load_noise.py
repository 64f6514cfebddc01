"""Does machine load pass for a slowdown?  A campaign run idle twice and once under load, judged on wall and CPU time.

    python benchmarks/load_noise.py configs/load-noise.toml --hogs 2 --out reports/load-noise

The config's campaign is executed three times, each a fresh ``battlebench run`` into
its own store under ``--out``: ``idle-a`` and ``idle-b`` on a quiet machine, then
``loaded`` while ``--hogs`` busy processes (each in its own session, so each gets its
own share of the scheduler) spin on the same cores.  Then ``check --baseline idle-a``
is asked of ``idle-b`` (the noise between two quiet runs) and of ``loaded``, on wall
time and on CPU time, with the same ``--ratio`` and each ``--floor``; and per run, the
ratio of each run's time to its ``idle-a`` time, on both clocks.  A config with
``repetitions`` of 3 or more is judged by the distribution rule (Mann–Whitney); the
report also judges each campaign's first repetition alone, as a single-run campaign
would be.  A baseline check that is right about load finds no slowdown on CPU time.
Writes ``summary.md`` and ``ratios.csv`` to ``--out``; the stores stay there too
(``--reuse`` judges stores already there again without executing anything).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from harness.report.completeness import load_campaign
from harness.report.regression import compare

RUNS = ("idle-a", "idle-b", "loaded")


def battlebench_run(config: str, output: Path) -> float:
    """One fresh campaign in its own process; its wall seconds."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "harness.cli", "run", config, "--fresh", "--output", str(output),
                    "--progress", "plain", "--interval", "60"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def hogs(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(n)]


def per_run_ratios(base, other, column: str) -> list[float]:
    """other / base per run, matched on run_id; runs solved in both with a positive base time."""
    a = base.set_index("run_id")
    b = other.set_index("run_id")
    out = []
    for run_id in a.index.intersection(b.index):
        x, y = a.at[run_id, column], b.at[run_id, column]
        if a.at[run_id, "status"] in ("sat", "unsat") and x == x and y == y and x > 0:
            out.append(float(y) / float(x))
    return out


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ratio", type=float, default=2.0)
    ap.add_argument("--floor", type=float, action="append", default=None,
                    help="noise floor(s) to judge at, seconds (default 0.02 and 0.1)")
    ap.add_argument("--reuse", action="store_true", help="judge the stores already in --out again")
    args = ap.parse_args(argv)
    floors = args.floor or [0.02, 0.1]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    took: dict[str, float] = {}
    for name in RUNS:
        if args.reuse and (out / name / "results.sqlite").is_file():
            continue
        busy = hogs(args.hogs) if name == "loaded" else []
        try:
            took[name] = battlebench_run(args.config, out / name)
        finally:
            for hog in busy:
                hog.kill()
                hog.wait()
    runs = {name: load_campaign(out / name).runs for name in RUNS}
    reps = int(runs["idle-a"]["repetition"].max())
    views = [("all", runs)] if reps < 2 else [(f"all {reps}", runs), ("first", {
        n: df[(df["repetition"] == 1).to_numpy(dtype=bool)] for n, df in runs.items()})]
    rows = []
    for view, frames in views:
        base = frames["idle-a"]
        for floor in floors:
            for name in ("idle-b", "loaded"):
                for time_basis in ("wall", "cpu"):
                    regs = compare(base, frames[name], ratio=args.ratio, floor_s=floor, time=time_basis)
                    slow = [r for r in regs if r.kind == "slowdown"]
                    ratios = per_run_ratios(base, frames[name], f"{time_basis}_s")
                    rows.append({"repetitions": view, "floor_s": floor, "campaign": name, "time": time_basis,
                                 "slowdowns": len(slow), "other_regressions": len(regs) - len(slow),
                                 "runs_compared": len(ratios),
                                 "median_ratio": statistics.median(ratios) if ratios else float("nan"),
                                 "p90_ratio": quantile(ratios, 0.9),
                                 "max_ratio": max(ratios, default=float("nan"))})
    base = runs["idle-a"]
    with open(out / "ratios.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    matches = base.groupby(["instance_hash", "pair"]).ngroups
    lines = [
        "# Machine load against the baseline check", "",
        f"`python benchmarks/load_noise.py {args.config} --hogs {args.hogs} --ratio {args.ratio:g} "
        + " ".join(f"--floor {f:g}" for f in floors) + f" --out {args.out}`", "",
        f"The campaign of `{args.config}` ({len(base)} runs: {matches} instance × pair matches, {reps} "
        f"repetition{'s' if reps != 1 else ''} each) executed three times on this machine ({os.cpu_count()} "
        f"cores): twice idle, once with {args.hogs} busy processes beside it. Each row judges one campaign "
        "against the first idle one, as `battlebench check --baseline` does (ratio "
        f"{args.ratio:g}), on wall time and on CPU time, at a noise floor; `all` uses every repetition "
        "(with 3 or more: medians and a Mann–Whitney test), `first` only the first repetition of each run "
        "(medians of one: what a single-run campaign gets). The ratios are per run, that campaign's time "
        "over the first idle one's, over the runs solved in both.", "",
        "| repetitions | floor (s) | campaign | time | slowdowns flagged | other regressions | runs | "
        "median ratio | p90 ratio | max ratio |", "|---|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['repetitions']} | {r['floor_s']:g} | {r['campaign']} | {r['time']} | "
                     f"{r['slowdowns']} | {r['other_regressions']} | {r['runs_compared']} | "
                     f"{r['median_ratio']:.2f} | {r['p90_ratio']:.2f} | {r['max_ratio']:.2f} |")
    if took:
        lines += ["", "Whole campaigns, wall time: " + ", ".join(f"{n} {t:.0f} s" for n, t in took.items()) + ".",
                  ""]
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    cpu_false = sum(r["slowdowns"] for r in rows if r["time"] == "cpu" and r["repetitions"] != "first")
    return 1 if cpu_false else 0


if __name__ == "__main__":
    sys.exit(main())
