"""Distributed certification of the minimal 30x20 puzzles: cubes as cluster tasks, measured; more workers simulated.

    python benchmarks/cube_makespan.py --cubes 64 --workers 2 --out reports/cube-makespan

Each minimal-hint 30x20 puzzle of ``large`` (``instances/large/large_30x20_minimal*.toml``) is split into
``--cubes`` disjoint, exhaustive cubes (:func:`harness.backends.cubes.cubes`: the placements of the fleet's one
ship of the longest unique length dealt into groups, cube g saying "that ship is in group g"), and every cube is
one task on a Dask ``LocalCluster`` of ``--workers`` single-threaded worker processes.  A worker builds the
puzzle's CP-SAT model once (the options of ``reports/certify-speed``: long-first branching, every linear
constraint in the LP from the start) and searches the cube to its end with one single-worker CP-SAT search,
collecting up to 2 boards, under ``--cube-limit`` seconds.  A puzzle is *certified unique* (CP-SAT's word: these
searches log no proof) when every cube was searched to its end and the boards of all cubes, each checked by the
independent verifier, are one board.  Each cube's CPU seconds (its thread's), wall seconds and the worker's
build time are journaled in ``--work``/cubes.csv as cubes end, so a stopped run resumes.

The makespan on W workers is simulated from the measured cube times by list scheduling: cubes handed out in the
order submitted to the first free worker, each worker paying the puzzle's model build once before its first
cube (and, as a bound on what a cube order could gain, longest cube first).  The simulation on ``--workers``
workers is set beside the measured makespan, so the simulation's error is shown.  Writes ``summary.md`` and
``cubes.csv`` (every cube) and ``makespan.csv`` (every puzzle x workers) to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import heapq
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = {"branching": "long-first", "lazy_lp": False}
FIELDS = ["puzzle", "cubes", "cube", "boards", "board_hashes", "exhausted", "hit_limit", "cpu_s", "wall_s",
          "build_s", "worker", "verdicts"]
"""The journal's columns (``board_hashes``: each board's hash, of its rows)."""


def search_cube(path: str, count: int, index: int, limit_s: float) -> dict:
    """On a Dask worker: cube ``index`` of ``count`` of the puzzle at ``path``, searched to its end (module
    docstring).  The built model is kept on the worker for the puzzle's next cubes."""
    from distributed import get_worker

    from harness.backends.cpsat import CpSatBackend
    from harness.backends.cubes import cubes, search_cube
    from harness.model.abstract import build_model
    from harness.puzzle.formats import read_instance
    from harness.puzzle.verify import verify

    worker = get_worker()
    cache = worker.__dict__.setdefault("_battlebench_cubes", {})
    build_s = 0.0
    if path not in cache:
        cache.clear()  # one puzzle at a time
        t0 = time.perf_counter()
        instance = read_instance(Path(path))
        backend = CpSatBackend(build_model(instance), "placement", OPTIONS)
        backend.build()
        cache[path] = (instance, backend, cubes(backend, count))
        build_s = time.perf_counter() - t0
    instance, backend, todo = cache[path]
    boards, meaning, cpu, wall = search_cube(backend, todo[index], 2, limit_s)
    verdicts = [str(verify(instance, b)) for b in boards]  # "ok", or the first rule broken
    return {"puzzle": Path(path).stem, "cubes": len(todo), "cube": index, "boards": len(boards),
            "board_hashes": "|".join(sorted(hashlib.sha256("/".join(b.rows).encode()).hexdigest()[:16]
                                           for b in boards)),
            "exhausted": int(meaning == "exhausted"), "hit_limit": int(meaning == "hit_limit"),
            "cpu_s": round(cpu, 4), "wall_s": round(wall, 4), "build_s": round(build_s, 4),
            "worker": worker.address, "verdicts": "|".join(verdicts)}


def cut(path: Path, count: int) -> list:
    """The cubes of the puzzle at ``path`` (:func:`harness.backends.cubes.cubes` over its built model)."""
    from harness.backends.cpsat import CpSatBackend
    from harness.backends.cubes import cubes
    from harness.model.abstract import build_model
    from harness.puzzle.formats import read_instance

    backend = CpSatBackend(build_model(read_instance(path)), "placement", OPTIONS)
    backend.build()
    return cubes(backend, count)


def simulate(times: list[float], build_s: float, workers: int, longest_first: bool = False) -> float:
    """The makespan of ``times`` on ``workers`` by list scheduling (each worker's first cube after ``build_s``)."""
    order = sorted(times, reverse=True) if longest_first else list(times)
    free = [(0.0, w, True) for w in range(workers)]  # (time it is free, worker, still to build)
    heapq.heapify(free)
    end = 0.0
    for t in order:
        at, w, cold = heapq.heappop(free)
        done = at + (build_s if cold else 0.0) + t
        end = max(end, done)
        heapq.heappush(free, (done, w, False))
    return end


def read_journal(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cube-limit", type=float, default=600.0)
    parser.add_argument("--simulate", default="2,8,32,64")
    parser.add_argument("--puzzles", default=str(ROOT / "instances" / "large" / "large_30x20_minimal*.toml"))
    parser.add_argument("--work", default="results/cube-makespan")
    parser.add_argument("--out", required=True)
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args(argv)
    work = Path(args.work)
    if args.fresh:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    journal = work / f"cubes-{args.cubes}.csv"
    measured_path = work / f"makespans-{args.cubes}.csv"
    done = {(r["puzzle"], int(r["cube"])) for r in read_journal(journal)}
    puzzles = sorted(Path(p) for p in __import__("glob").glob(args.puzzles))

    from harness.runner.dask import local_cluster
    import distributed

    cluster = local_cluster(args.workers)
    client = distributed.Client(cluster)
    try:
        new = not journal.exists()
        with open(journal, "a", newline="") as fh, open(measured_path, "a", newline="") as mh:
            writer = csv.DictWriter(fh, fieldnames=FIELDS)
            if new:
                writer.writeheader()
            for path in puzzles:
                count = len(cut(path, args.cubes))  # fewer than asked when the ship has fewer placements
                todo = [i for i in range(count) if (path.stem, i) not in done]
                if not todo:
                    continue
                t0 = time.perf_counter()
                futures = [client.submit(search_cube, str(path), args.cubes, i, args.cube_limit, pure=False)
                           for i in todo]
                for future in distributed.as_completed(futures):
                    row = future.result()
                    writer.writerow(row)
                    fh.flush()
                makespan = time.perf_counter() - t0
                if len(todo) == count:  # the whole puzzle in this run: its makespan was measured
                    mh.write(f"{path.stem},{args.workers},{makespan:.3f}\n")
                    mh.flush()
                print(f"{path.stem}: {len(todo)} cubes in {makespan:.1f} s", flush=True)
    finally:
        client.close()
        cluster.close()
    write_report(journal, measured_path, args, Path(args.out))
    return 0


def write_report(journal: Path, measured_path: Path, args: argparse.Namespace, out: Path) -> None:
    rows = read_journal(journal)
    measured = {}
    if measured_path.exists():
        for line in measured_path.read_text().splitlines():
            name, workers, seconds = line.split(",")
            measured[(name, int(workers))] = float(seconds)
    widths = [int(w) for w in args.simulate.split(",")]
    by_puzzle: dict[str, list[dict]] = {}
    for r in rows:
        if int(r["cubes"]) <= args.cubes:
            by_puzzle.setdefault(r["puzzle"], []).append(r)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(journal, out / "cubes.csv")
    lines = ["# Distributed certification of the minimal 30x20 puzzles: cubes measured, makespans simulated", "",
             f"`python benchmarks/cube_makespan.py --cubes {args.cubes} --workers {args.workers} --cube-limit "
             f"{args.cube_limit:g}` on {os.uname().nodename} ({os.cpu_count()} cores), {time.strftime('%Y-%m-%d')}: "
             f"each puzzle cut into {args.cubes} cubes (fewer where its longest unique ship has fewer placements), "
             f"each cube one task on a Dask LocalCluster of {args.workers} single-threaded workers (a CP-SAT "
             "search of one worker, long-first branching, every linear constraint in the LP). `certified`: every "
             "cube searched to its end and their boards, each verified, one board (CP-SAT's word, no proof). "
             "Makespans on W workers are simulated from the measured cube wall times by list scheduling in the "
             "order submitted (each worker building the model once); `LPT` hands out the longest cube first.", "",
             "| puzzle | cubes | certified | boards | cube CPU s (sum) | longest cube s | build s | measured "
             f"makespan on {args.workers} s | " + " | ".join(f"simulated on {w} s" for w in widths)
             + f" | LPT on {max(widths)} s |",
             "|---|---|---|---|---|---|---|---|" + "---|" * (len(widths) + 1)]
    csv_rows = []
    for name, rs in sorted(by_puzzle.items()):
        rs.sort(key=lambda r: int(r["cube"]))
        complete = len(rs) == int(rs[0]["cubes"])
        times = [float(r["wall_s"]) for r in rs]
        build = statistics.median(float(r["build_s"]) for r in rs if float(r["build_s"]) > 0) \
            if any(float(r["build_s"]) > 0 for r in rs) else 0.0
        cells = {c for r in rs for c in r["board_hashes"].split("|") if c}
        verdicts_ok = all(v == "ok" for r in rs for v in r["verdicts"].split("|") if v)
        certified = complete and all(r["exhausted"] == "1" for r in rs) and len(cells) == 1 and verdicts_ok
        sims = [simulate(times, build, w) for w in widths]
        lpt = simulate(times, build, max(widths), longest_first=True)
        got = measured.get((name, args.workers))
        shown = f"{got:.1f}" if got is not None else "–"
        lines.append(f"| {name} | {len(rs)}{'' if complete else ' (incomplete)'} | {'yes' if certified else 'no'} "
                     f"| {len(cells)} | {sum(float(r['cpu_s']) for r in rs):.1f} | {max(times):.1f} | {build:.1f} "
                     f"| {shown} | " + " | ".join(f"{s:.1f}" for s in sims) + f" | {lpt:.1f} |")
        for w, s in zip(widths, sims):
            csv_rows.append({"puzzle": name, "workers": w, "simulated_s": round(s, 2),
                             "measured_s": got if w == args.workers else "", "certified": int(certified)})
    certified = sorted({r["puzzle"] for r in csv_rows if r["certified"]})
    lines.append("")
    lines.append(f"{len(certified)} of {len(by_puzzle)} puzzles certified unique.")
    for w in widths:
        within = [r for r in csv_rows if r["workers"] == w and r["certified"] and r["simulated_s"] <= 30.0]
        lines.append(f"- on {w} workers: {len(within)} of {len(certified)} certified within 30 s (simulated); the "
                     f"slowest {max((r['simulated_s'] for r in csv_rows if r['workers'] == w), default=0):.1f} s")
    pairs = [(r["measured_s"], r["simulated_s"]) for r in csv_rows if r["workers"] == args.workers and r["measured_s"]]
    if pairs:
        ratios = [m / s for m, s in pairs if s > 0]
        lines.append(f"- measured / simulated makespan on {args.workers} workers: median {statistics.median(ratios):.2f} "
                     f"(min {min(ratios):.2f}, max {max(ratios):.2f}), the cluster's own cost the simulation leaves out")
    with open(out / "makespan.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["puzzle", "workers", "simulated_s", "measured_s", "certified"])
        writer.writeheader()
        writer.writerows(csv_rows)
    (out / "summary.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
