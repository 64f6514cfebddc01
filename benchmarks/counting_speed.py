"""Counting speed against issue 15's targets: warm times of dp, cluster and marginals, measured side by side in one run.

    python benchmarks/counting_speed.py --reps 5 --out reports/counting-speed

Each case is counted once to warm up (numba compiles or loads its cache; the cluster
counter computes or loads its per-fleet tables) and then ``--reps`` times; the table
gives the median and the best wall time, and the median CPU time (``process_time``) of
the warm repetitions, with the count (an exact integer, checked against the known one
where there is one).  Cases: standard 10x10, 12x10, 15x15 and 30x30 by dp (its row
programme) and by cluster, 10x10 by the frontier programme alone (``frontier``; 15x15
too with ``--slow``), both hex halves by dp (its frontier programme), and the exact
marginals of 10x10 game positions after 30 shots (three hidden fleets, shots drawn from
a seed; the time includes the layout of placements) by dp and by the frontier alone.  The first
row is the cluster counter's one cold count (its tables computed with no cache), the
price of its first use per fleet.  Writes ``summary.md`` and ``runs.csv`` to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import time
from pathlib import Path

from harness.counting.counters import get_counter
from harness.counting.deployment import Deployment
from harness.counting.format import read_deployment
from harness.counting.marginals import marginals

ROOT = Path(__file__).resolve().parents[1]
DEP = ROOT / "instances" / "deployments"

HIDDEN = (  # three hidden fleets of the standard game, ships may touch
    {"Carrier": [(0, c) for c in range(2, 7)], "Battleship": [(r, 8) for r in range(3, 7)],
     "Submarine": [(5, c) for c in range(1, 4)], "Cruiser": [(r, 5) for r in range(6, 9)],
     "Destroyer": [(9, 0), (9, 1)]},
    {"Carrier": [(r, 0) for r in range(5)], "Battleship": [(9, c) for c in range(6, 10)],
     "Submarine": [(2, c) for c in range(3, 6)], "Cruiser": [(3, c) for c in range(3, 6)],
     "Destroyer": [(6, 7), (7, 7)]},
    {"Carrier": [(7, c) for c in range(1, 6)], "Battleship": [(r, 9) for r in range(0, 4)],
     "Submarine": [(r, 4) for r in range(1, 4)], "Cruiser": [(5, c) for c in range(6, 9)],
     "Destroyer": [(0, 0), (0, 1)]},
)


def position(base: Deployment, hidden: dict, shots: int, seed: int) -> Deployment:
    """The game after ``shots`` random shots at ``hidden``: misses, hits, sunk ships announced by name."""
    rng = random.Random(seed)
    cells = sorted(base.cells)
    fired = set(rng.sample(cells, shots))
    occupied = {c: name for name, cs in hidden.items() for c in cs}
    hits = {c for c in fired if c in occupied}
    sunk = {name: tuple(cs) for name, cs in hidden.items() if set(cs) <= fired}
    return Deployment(base.grid, base.cells, base.pieces, touching=base.touching, misses=frozenset(fired - hits),
                      hits=frozenset(hits), sunk=sunk, announce_sinks=True,
                      name=f"position{seed}-{shots}shots")


def timed(fn, reps: int) -> tuple[object, list[float], list[float]]:
    value = fn()  # warm-up
    walls, cpus = [], []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        got = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        assert got == value, "a repetition gave another count"
    return value, walls, cpus


def cold_cluster() -> dict:
    """The cluster counter's first count of the standard fleet: its block tables computed (no cache)."""
    import os
    import tempfile

    from harness.counting.counters import cluster

    dep = read_deployment(DEP / "standard_10x10.toml")
    cluster.count_rectangle(read_deployment(DEP / "tiny" / "t4x4_3_2.toml"))  # numba compiled or loaded
    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("BATTLEBENCH_CACHE")
        os.environ["BATTLEBENCH_CACHE"] = tmp
        cluster.block_table.cache_clear()
        w0, c0 = time.perf_counter(), time.process_time()
        value = cluster.count_rectangle(dep)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        if old is None:
            os.environ.pop("BATTLEBENCH_CACHE")
        else:
            os.environ["BATTLEBENCH_CACHE"] = old
    assert value == int(dep.meta["expected_count"])
    print(f"cold cluster tables: {wall:.2f} s wall, {cpu:.2f} s cpu", flush=True)
    return {"case": "standard_10x10 (tables computed, no cache)", "counter": "cluster cold", "count": value,
            "known": "yes", "median_wall_s": wall, "best_wall_s": wall, "median_cpu_s": cpu, "target_s": None,
            "met": ""}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", required=True)
    ap.add_argument("--slow", action="store_true", help="also the frontier programme on 15x15 (minutes)")
    args = ap.parse_args(argv)

    def count(counter: str, path: Path):
        dep = read_deployment(path)
        return lambda: get_counter(counter)().count(dep).count, dep

    cases = []  # (case, counter, target_s, thunk, known)
    for counter, rel, target in (("dp", "standard_10x10.toml", 0.1), ("cluster", "standard_10x10.toml", 0.1),
                                 ("frontier", "standard_10x10.toml", None),
                                 ("dp", "standard_12x10.toml", None), ("cluster", "standard_12x10.toml", None),
                                 ("dp", "sweep/sweep_15x15.toml", 1.0), ("cluster", "sweep/sweep_15x15.toml", 1.0),
                                 ("dp", "sweep/sweep_30x30.toml", 10.0), ("cluster", "sweep/sweep_30x30.toml", 10.0),
                                 ("dp", "hex_blue.toml", 1.0), ("dp", "hex_green.toml", 1.0),
                                 *((("frontier", "sweep/sweep_15x15.toml", None),) if args.slow else ())):
        thunk, dep = count(counter, DEP / rel)
        known = dep.meta.get("expected_count")
        cases.append((dep.name, counter, target, thunk, None if known is None else int(known)))
    base = read_deployment(DEP / "standard_10x10.toml")
    for k, hidden in enumerate(HIDDEN):
        pos = position(base, hidden, 30, k)
        cases.append((pos.name, "marginals (dp)", 0.05, lambda pos=pos: marginals(pos).total, None))
        cases.append((pos.name, "marginals (frontier)", None, lambda pos=pos: marginals(pos, "frontier").total,
                      None))

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [cold_cluster()]
    for name, counter, target, thunk, known in cases:
        value, walls, cpus = timed(thunk, args.reps)
        if known is not None:
            assert value == known, f"{name} by {counter}: {value} is not the known {known}"
        row = {"case": name, "counter": counter, "count": value, "known": "yes" if known is not None else "",
               "median_wall_s": statistics.median(walls), "best_wall_s": min(walls),
               "median_cpu_s": statistics.median(cpus), "target_s": target,
               "met": "" if target is None else ("yes" if statistics.median(walls) <= target else "NO")}
        rows.append(row)
        print(f"{name:28s} {counter:15s} {value:>26,d}  median {row['median_wall_s']:.4f} s  "
              f"cpu {row['median_cpu_s']:.4f} s  target {target}  {row['met']}", flush=True)
    with open(out / "runs.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = [f"# Counting speed (benchmarks/counting_speed.py --reps {args.reps})", "",
             f"Warm repetitions: {args.reps} per case after one warm-up, all in one process, one run; "
             "wall and CPU seconds.", "",
             "| case | counter | count | known | median wall s | best wall s | median CPU s | target s | met |",
             "|---|---|---:|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['counter']} | {r['count']:,} | {r['known']} | {r['median_wall_s']:.4f} | "
                     f"{r['best_wall_s']:.4f} | {r['median_cpu_s']:.4f} | {r['target_s'] or ''} | {r['met']} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out}/summary.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
