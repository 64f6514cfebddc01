"""Distributed certification of the minimal 30x20 puzzles: cubes as cluster tasks, measured; more workers simulated.

    python benchmarks/cube_makespan.py --cubes 64 --workers 2 --out reports/cube-makespan
    python benchmarks/cube_makespan.py --cubes 64 --resplit-after 6 --workers 2 --out reports/cube-resplit

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

With ``--resplit-after T`` it is cube-and-conquer: a cube searched for T seconds without an end is stopped and
cut into ``--parts`` cubes again (:func:`harness.backends.cubes.split`; by default 0: one cube per placement of the
fleet's next ship, or of the placements its last ship may still take),
submitted at once ahead of the cubes not yet begun (deeper first); the T seconds spent are counted, and a cube
whose every ship is fixed is searched under ``--cube-limit``.  A cube is named by its path of part indices
("12/3/0": part 0 of part 3 of cube 12).

The makespan on W workers is simulated from the measured cube times (``--clock``: each search's thread CPU
seconds, by default, or its wall seconds) by list scheduling: a free worker takes the deepest cube ready, in
the order submitted, each worker paying the puzzle's model build once before its first cube; a cut cube's parts
are ready when it ends (and, as a bound on what a cube order could gain, longest cube first).  The simulation
on ``--workers`` workers is set beside the measured makespan, so the simulation's error is shown.  Writes
``summary.md`` and ``cubes.csv`` (every cube) and ``makespan.csv`` (every puzzle x workers) to ``--out``.
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
          "build_s", "worker", "verdicts", "limit_s", "parts"]
"""The journal's columns (``board_hashes``: each board's hash, of its rows; ``parts``: how many cubes it was cut
into when its search was stopped at ``limit_s``, else 0)."""


def cube_at(model, key: str, count: int, parts: int) -> tuple | None:
    """The path (:func:`harness.backends.cubes.split`) of the cube named ``key`` ("12/3/0"), or None when no
    such part exists."""
    from harness.backends.cubes import split

    path: tuple = ()
    for depth, index in enumerate(key.split("/")):
        cut = split(model, path, count if depth == 0 else parts or len(model.placements)) or []
        if int(index) >= len(cut):
            return None
        path = cut[int(index)]
    return path


def search_cube(path: str, count: int, key: str, limit_s: float, resplit_s: float = 0.0, parts: int = 8) -> dict:
    """On a Dask worker: cube ``key`` of the puzzle at ``path``, searched to its end -- or, with ``resplit_s``,
    for that long and then cut into up to ``parts`` cubes if it can be (module docstring).  The built model is
    kept on the worker for the puzzle's next cubes."""
    from distributed import get_worker

    from harness.backends.cpsat import CpSatBackend
    from harness.backends.cubes import constraints, search_cube, split
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
        cache[path] = (instance, backend, len(split(backend.model, (), count)))
        build_s = time.perf_counter() - t0
    instance, backend, first = cache[path]
    cube = cube_at(backend.model, key, count, parts)
    if cube is None:
        raise ValueError(f"{path}: no cube {key}")
    below = split(backend.model, cube, parts or len(backend.model.placements)) if resplit_s > 0 else None
    limit = min(resplit_s, limit_s) if below else limit_s
    boards, meaning, cpu, wall = search_cube(backend, constraints(backend.model, cube), 2, limit)
    verdicts = [str(verify(instance, b)) for b in boards]  # "ok", or the first rule broken
    cut = len(below) if below and meaning == "hit_limit" and limit < limit_s else 0
    return {"puzzle": Path(path).stem, "cubes": first, "cube": key,
            "boards": len(boards),
            "board_hashes": "|".join(sorted(hashlib.sha256("/".join(b.rows).encode()).hexdigest()[:16]
                                           for b in boards)),
            "exhausted": int(meaning == "exhausted"), "hit_limit": int(meaning == "hit_limit"),
            "cpu_s": round(cpu, 4), "wall_s": round(wall, 4), "build_s": round(build_s, 4),
            "worker": worker.address, "verdicts": "|".join(verdicts), "limit_s": limit, "parts": cut}


def cut(path: Path, count: int) -> int:
    """How many cubes the puzzle at ``path`` is cut into first (:func:`harness.backends.cubes.split`)."""
    from harness.backends.cubes import split
    from harness.model.abstract import build_model
    from harness.puzzle.formats import read_instance

    return len(split(build_model(read_instance(path)), (), count))


def simulate(rows: list[dict], build_s: float, workers: int, clock: str = "cpu_s",
             longest_first: bool = False) -> float:
    """The makespan of one puzzle's cubes (journal ``rows``) on ``workers`` by list scheduling (module
    docstring): a free worker takes the deepest ready cube, first submitted first (or the longest), each
    worker's first cube after ``build_s``; a cut cube's parts are ready when it ends."""
    times = {r["cube"]: float(r[clock]) for r in rows}
    parts = {r["cube"]: int(r.get("parts") or 0) for r in rows}
    seq = iter(range(1 << 30))

    def entry(key: str) -> tuple:
        depth = key.count("/")
        return (-depth, -times[key] if longest_first else 0.0, next(seq), key)

    ready = [entry(k) for k in sorted((k for k in times if "/" not in k), key=int)]
    heapq.heapify(ready)
    idle = [(w, True) for w in range(workers)]  # (worker, still to build)
    running: list[tuple[float, int, str]] = []
    now = end = 0.0
    while ready or running:
        while ready and idle:
            *_, key = heapq.heappop(ready)
            w, cold = idle.pop()
            heapq.heappush(running, (now + (build_s if cold else 0.0) + times[key], w, key))
        if not running:
            break
        now, w, key = heapq.heappop(running)
        end = max(end, now)
        idle.append((w, False))
        for j in range(parts[key]):
            child = f"{key}/{j}"
            if child in times:
                heapq.heappush(ready, entry(child))
    return end


def tree_state(rows: list[dict], count: int) -> str:
    """``complete`` when the puzzle's cubes cover it: its ``count`` first cubes and every part of every cube
    cut are in ``rows``; else ``incomplete``."""
    keys = {r["cube"] for r in rows}
    need = {str(i) for i in range(count)} | {f"{r['cube']}/{j}" for r in rows for j in range(int(r.get("parts") or 0))}
    return "complete" if need <= keys else "incomplete"


def to_run(count: int, done: dict[str, dict]) -> list[str]:
    """The cubes of a puzzle still to search, given its journal rows ``done`` (key -> row): its first cubes and
    the parts of the cubes cut, not searched yet."""
    todo, frontier = [], [str(i) for i in range(count)]
    while frontier:
        key = frontier.pop(0)
        if key not in done:
            todo.append(key)
        else:
            frontier += [f"{key}/{j}" for j in range(int(done[key].get("parts") or 0))]
    return todo


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
    parser.add_argument("--resplit-after", type=float, default=0.0,
                        help="stop a cube's search after this many seconds and cut it again (0: never)")
    parser.add_argument("--parts", type=int, default=0,
                        help="how many cubes a cube stopped is cut into (0: one per placement of its next ship)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="the cube times simulated")
    args = parser.parse_args(argv)
    if args.resplit_after < 0 or args.parts == 1 or args.parts < 0 or args.cubes < 1 or args.workers < 1:
        parser.error("--resplit-after must be >= 0, --parts 0 or >= 2, --cubes and --workers >= 1")
    work = Path(args.work)
    if args.fresh:
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    variant = f"{args.cubes}" + (f"-r{args.resplit_after:g}-p{args.parts}" if args.resplit_after else "")
    journal = work / f"cubes-{variant}.csv"
    measured_path = work / f"makespans-{variant}.csv"
    earlier = read_journal(journal)
    if journal.exists() and (not earlier or list(earlier[0]) != FIELDS):  # an older journal: new columns, empty
        with open(journal, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=FIELDS, restval="")
            writer.writeheader()
            writer.writerows(earlier)
    done: dict[str, dict[str, dict]] = {}
    for r in earlier:
        done.setdefault(r["puzzle"], {})[r["cube"]] = r
    puzzles = sorted(Path(p) for p in __import__("glob").glob(args.puzzles))

    from harness.runner.dask import local_cluster
    import distributed

    cluster = local_cluster(args.workers)
    client = distributed.Client(cluster)

    def submit(path: Path, key: str):
        return client.submit(search_cube, str(path), args.cubes, key, args.cube_limit, args.resplit_after,
                             args.parts, pure=False, priority=key.count("/"))

    try:
        new = not journal.exists()
        with open(journal, "a", newline="") as fh, open(measured_path, "a", newline="") as mh:
            writer = csv.DictWriter(fh, fieldnames=FIELDS)
            if new:
                writer.writeheader()
            for path in puzzles:
                count = cut(path, args.cubes)  # fewer than asked when the ship has fewer placements
                mine = done.setdefault(path.stem, {})
                whole = not mine  # no cube of it searched before: its makespan is measured in this run
                todo = to_run(count, mine)
                if not todo:
                    continue
                t0 = time.perf_counter()
                ran = distributed.as_completed([submit(path, key) for key in todo])
                searched = 0
                for future in ran:
                    row = future.result()
                    writer.writerow(row)
                    fh.flush()
                    searched += 1
                    mine[row["cube"]] = row
                    for j in range(row["parts"]):  # stopped and cut: its parts, deeper first
                        ran.add(submit(path, f"{row['cube']}/{j}"))
                makespan = time.perf_counter() - t0
                if whole:
                    mh.write(f"{path.stem},{args.workers},{makespan:.3f}\n")
                    mh.flush()
                print(f"{path.stem}: {searched} cubes in {makespan:.1f} s", flush=True)
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
    clock = f"{args.clock}_s"
    resplit = (f" --resplit-after {args.resplit_after:g} --parts {args.parts}" if args.resplit_after else "")
    lines = ["# Distributed certification of the minimal 30x20 puzzles: cubes measured, makespans simulated", "",
             f"`python benchmarks/cube_makespan.py --cubes {args.cubes}{resplit} --workers {args.workers} "
             f"--cube-limit {args.cube_limit:g} --clock {args.clock}` on {os.uname().nodename} ({os.cpu_count()} "
             f"cores), {time.strftime('%Y-%m-%d')}: each puzzle cut into {args.cubes} cubes (fewer where its longest "
             "unique ship has fewer placements), each cube one task on a Dask LocalCluster of "
             f"{args.workers} single-threaded workers (a CP-SAT search of one worker, long-first branching, every "
             "linear constraint in the LP). "
             + (f"A cube not ended after {args.resplit_after:g} s is stopped and cut again "
                + (f"into up to {args.parts} cubes " if args.parts else "into one cube per placement ")
                + "of the fleet's next ship (or of the placements its last ship may still take; "
                "`harness.backends.cubes.split`), those submitted at once, deeper first; its seconds are counted. "
                if args.resplit_after else "")
             + "`certified`: the cubes cover the puzzle, every cube not cut searched to its end, and their boards, "
             "each verified, one board (CP-SAT's word, no proof). Makespans on W workers are simulated from the "
             f"measured cube {'CPU' if args.clock == 'cpu' else 'wall'} times by list scheduling (a free worker "
             "takes the deepest cube ready, first submitted first; each worker builds the model once; a cut cube's "
             "parts are ready when it ends); `LPT` hands out the longest ready cube first.", "",
             "| puzzle | cubes | cut | certified | boards | cube CPU s (sum) | longest cube s | build s | measured "
             f"makespan on {args.workers} s | " + " | ".join(f"simulated on {w} s" for w in widths)
             + f" | LPT on {max(widths)} s |",
             "|---|---|---|---|---|---|---|---|---|" + "---|" * (len(widths) + 1)]
    csv_rows = []
    for name, rs in sorted(by_puzzle.items()):
        complete = tree_state(rs, int(rs[0]["cubes"])) == "complete"
        cut_n = sum(1 for r in rs if int(r.get("parts") or 0))
        leaves = [r for r in rs if not int(r.get("parts") or 0)]
        build = statistics.median(float(r["build_s"]) for r in rs if float(r["build_s"]) > 0) \
            if any(float(r["build_s"]) > 0 for r in rs) else 0.0
        cells = {c for r in rs for c in r["board_hashes"].split("|") if c}
        verdicts_ok = all(v == "ok" for r in rs for v in r["verdicts"].split("|") if v)
        certified = complete and all(r["exhausted"] == "1" for r in leaves) and len(cells) == 1 and verdicts_ok
        sims = [simulate(rs, build, w, clock) for w in widths]
        lpt = simulate(rs, build, max(widths), clock, longest_first=True)
        got = measured.get((name, args.workers))
        shown = f"{got:.1f}" if got is not None else "–"
        lines.append(f"| {name} | {len(rs)}{'' if complete else ' (incomplete)'} | {cut_n} | "
                     f"{'yes' if certified else 'no'} | {len(cells)} | {sum(float(r['cpu_s']) for r in rs):.1f} | "
                     f"{max(float(r[clock]) for r in rs):.1f} | {build:.1f} | {shown} | "
                     + " | ".join(f"{s:.1f}" for s in sims) + f" | {lpt:.1f} |")
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
