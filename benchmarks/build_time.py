"""Build time of every pair on large planted instances (abstract model + native model).

    python benchmarks/build_time.py --rows 30 --cols 20 --seeds 5 --out reports/build-30x20

Each pair builds in its own warm worker; the figure per instance is the median of
``--repeat`` builds.  Writes ``builds.csv`` and ``summary.md``; exits 1 when a pair
other than ``mip/ship-pairs`` exceeds ``--target`` seconds (median over instances).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
from pathlib import Path

from harness.backends.registry import all_pairs
from harness.puzzle.plant import default_fleet, instance_from_board, random_board
from harness.tasks.isolated import IsolatedSolver

EXEMPT = {"mip/ship-pairs"}


def planted(rows: int, cols: int, seed: int):
    rng = random.Random(seed)
    fleet = default_fleet(rows, cols)
    while True:
        board = random_board(rows, cols, fleet, rng)
        if board is not None:
            return instance_from_board(board, fleet, name=f"planted-{rows}x{cols}-s{seed}", rng=rng)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=30)
    ap.add_argument("--cols", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--target", type=float, default=0.5)
    ap.add_argument("--out", required=True)
    ap.add_argument("--skip", default="mip/ship-pairs",
                    help="comma list of pairs not to build (ship-pairs has ~5.5 million rows at 30x20)")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    instances = [planted(args.rows, args.cols, s) for s in range(args.seeds)]
    rows = []
    started = time.perf_counter()
    with IsolatedSolver() as iso:
        for backend, formulation in all_pairs():
            if f"{backend}/{formulation}" in skip:
                continue
            iso.build(instances[0], backend, formulation)  # warm-up: imports are not build time
            for inst in instances:
                runs = [iso.build(inst, backend, formulation) for _ in range(args.repeat)]
                med = {k: statistics.median(r[k] for r in runs) for k in ("model_s", "native_s", "build_s")}
                rows.append({"pair": f"{backend}/{formulation}", "instance": inst.name, **med,
                             "variables": runs[0]["variables"], "constraints": runs[0]["constraints"],
                             "placements": runs[0]["placements"]})
                print(f"{rows[-1]['pair']:<20} {inst.name:<24} build {med['build_s']:.3f} s", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "builds.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    failing = []
    lines = [
        f"# Build time, {args.rows}x{args.cols}, {args.seeds} planted instances (default fleet), "
        f"median of {args.repeat} builds each",
        "",
        f"Command: `python benchmarks/build_time.py --rows {args.rows} --cols {args.cols} --seeds {args.seeds} "
        f"--repeat {args.repeat} --out {args.out}`  ",
        f"Elapsed {time.perf_counter() - started:.1f} s. `build_s` = abstract model (`model_s`) + native solver "
        f"model (`native_s`). Target: < {args.target} s for every pair except {', '.join(sorted(EXEMPT))}.",
        "",
        "| pair | median build_s | max build_s | median model_s | median native_s | variables | constraints | target |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for pair in dict.fromkeys(r["pair"] for r in rows):
        rs = [r for r in rows if r["pair"] == pair]
        med = statistics.median(r["build_s"] for r in rs)
        ok = pair in EXEMPT or med < args.target
        if not ok:
            failing.append(pair)
        lines.append(
            f"| {pair} | {med:.3f} | {max(r['build_s'] for r in rs):.3f} | "
            f"{statistics.median(r['model_s'] for r in rs):.3f} | {statistics.median(r['native_s'] for r in rs):.3f} | "
            f"{rs[0]['variables']} | {rs[0]['constraints']} | "
            f"{'exempt' if pair in EXEMPT else ('ok' if ok else 'MISSED')} |")
    lines.extend(f"| {pair} | not built (--skip) | | | | | | exempt |" for pair in sorted(skip))
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
