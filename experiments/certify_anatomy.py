"""Where a certification's time goes: the best pair's proof cut into cubes, and its board's long ships given.

    python experiments/certify_anatomy.py --limit 300 --out experiments/certify-anatomy \\
        instances/large/large_30x20_minimal_s502.toml ... [--parts whole,cube,given] [--resume]

The best single search, ``cpsat[branching=long-first,lazy_lp=false]/placement``, certifies a
minimal-hint 30x20 puzzle (count 2) in 17-480 s on this machine.  This measures, per instance
and one CP-SAT search at a time (one worker, callback enumeration, every board verified):

* ``whole``: the count-2 certification itself, the baseline;
* ``cube``: the same search once per placement of the longest length with a single ship (the
  fleet's longest, on the default fleet), with that placement given (the cubes are disjoint and
  cover every board, so together they are the whole proof): their CPU against the whole's (on
  a unique puzzle) says what cutting the proof costs, and the
  makespan of the cubes dealt longest first to N cores (LPT) says how fast N cores could
  certify by cubes of this size, the cube holding the board being the floor;
* ``given``: the search with the board's ships of length >= k given, for each k from the
  longest down: where in the fleet the proof's work lies.

The board is the instance's ``planted`` one (checked by the verifier) when it has it, else the
first the search finds.  Each part runs in its own worker process, which sends each search's
row as it ends (killed when a row is over a minute late); every search has ``--limit``
seconds.  Writes ``runs.csv`` (one row per search, kept as it comes: see
``benchmarks/runs_csv.py``) and ``summary.md``.  ``--resume`` keeps every earlier row but
those of an instance asked for that lacks a part asked for, which runs again whole; a failed or
timed-out search is a result and is kept.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import platform
import sys
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from runs_csv import RunsFile, earlier_runs, resumed  # noqa: E402 - benchmarks/runs_csv.py

PAIR = {"branching": "long-first", "lazy_lp": False}
PARTS = ("whole", "cube", "given")
RESULTS = ("done", "timeout", "wrong", "error", "skipped")  # skipped: no cubes (no length has a single ship)
FIELDS = ["instance", "part", "key", "holds_board", "result", "boards", "wall_s", "cpu_s", "branches", "conflicts"]
CORES = (1, 2, 4, 8, 16, 32)
TARGET_S = 30.0


def _prepare(path: str, limit: float):
    """(instance, built backend, the board's placement indices): the planted board, checked by the verifier,
    or the first board the search finds within ``limit``."""
    from harness.backends.cpsat import CpSatBackend
    from harness.model.abstract import build_model
    from harness.puzzle.board import Board
    from harness.puzzle.formats import read_instance
    from harness.puzzle.verify import parse_ships, verify

    inst = read_instance(path)
    be = CpSatBackend(build_model(inst), "placement", dict(PAIR))
    be.build()
    if "planted" in inst.meta:
        board = Board(tuple(inst.meta["planted"]))
        verdict = verify(inst, board)
        if not verdict.ok:
            raise ValueError(f"{path}: the planted board is not a solution ({verdict.message})")
    else:
        found = be.enumerate(1, limit).boards
        if not found:
            raise ValueError(f"{path}: no board found within {limit:g} s")
        board = found[0]
    index = {p.ship: p.index for p in be.model.placements}
    ships, _ = parse_ships(board.rows)
    return inst, be, sorted(index[s] for s in ships)


def _search(inst, be, given: list[int], count: int | None, limit: float, forbid: list[int] = ()) -> dict:
    """Enumerate (up to ``count``) boards with the placements ``given`` present and ``forbid`` absent; one
    row's measurements."""
    from ortools.sat.python import cp_model

    from harness.backends.status_tables import CPSAT
    from harness.puzzle.verify import verify

    md = be.cp_model.clone()
    lit = [md.get_bool_var_from_proto_index(v.index) for v in be.cp_y]
    for i in given:
        md.add_bool_or([lit[i]])
    for i in forbid:
        md.add_bool_or([~lit[i]])
    boards: list = []

    class Collector(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            boards.append(be.model.board_from([i for i, v in enumerate(lit) if self.boolean_value(v)]))
            if count is not None and len(boards) >= count:
                self.stop_search()

    solver = be.new_solver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = limit
    t0, c0 = time.perf_counter(), time.process_time()
    meaning = CPSAT.meaning(solver.solve(md, Collector()), "callback")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    done = meaning == "exhausted" or (count is not None and len(boards) >= count)
    result = ("wrong" if any(not verify(inst, b).ok for b in boards) else "done" if done else "timeout")
    return {"result": result, "boards": len(boards), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "branches": solver.num_branches, "conflicts": solver.num_conflicts}


def measure(path: str, part: str, limit: float) -> Iterator[dict]:
    """The rows of one part of one instance, measured in this process, each as soon as it is measured."""
    inst, be, board = _prepare(path, limit)
    m = be.model
    if part == "whole":
        yield {"key": "count-2", "holds_board": True} | _search(inst, be, [], 2, limit)
    elif part == "cube":
        # The fleet's exactly-one makes the placements of a length with a single ship disjoint, exhaustive cubes.
        ones = [L for L, n in m.fleet.items() if n == 1]
        if not ones:
            yield {"key": "none", "holds_board": False, "result": "skipped", "boards": 0, "wall_s": 0.0,
                   "cpu_s": 0.0, "branches": "", "conflicts": "no length has a single ship: no cubes"}
            return
        for p in sorted(m.by_length[max(ones)]):
            ship = m.placements[p].ship
            key = f"{ship.length}@r{ship.row}c{ship.col}{'h' if ship.horizontal else 'v'}"
            yield {"key": key, "holds_board": p in board} | _search(inst, be, [p], None, limit)
    else:
        for k in sorted({m.placements[p].length for p in board}, reverse=True):
            given = [p for p in board if m.placements[p].length >= k]
            yield {"key": f">={k}", "holds_board": True} | _search(inst, be, given, None, limit)


def _worker(path: str, part: str, limit: float, queue, rows_of=None) -> None:
    import ortools.sat.python.cp_model  # noqa: F401 - imports are not the run's time

    try:
        for row in (rows_of or measure)(path, part, limit):
            queue.put(("row", row))
        queue.put(("end", None))
    except BaseException as exc:  # noqa: BLE001 - reported as the part's result
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def run_part(path: str, part: str, limit: float, rows_of=None) -> Iterator[dict]:
    """``measure`` (or ``rows_of``, the same signature) in a fresh worker process, each row as it comes (tagged
    with instance and part); the worker is killed when a row is 60 s later than the limit of its search, and the
    part ends with an error row."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_worker, args=(path, part, limit, queue, rows_of))
    proc.start()
    tag = {"instance": Path(path).stem, "part": part}
    try:
        while True:
            try:
                kind, got = queue.get(timeout=2 * limit + 60)  # a search, and finding the board first
            except Exception:  # noqa: BLE001 - queue.Empty: the worker overran
                kind, got = "error", "killed: the worker overran its time"
            if kind == "end":
                return
            if kind == "error":
                yield tag | {"key": "-", "holds_board": False, "result": "error", "boards": 0, "wall_s": "",
                             "cpu_s": "", "branches": "", "conflicts": got}
                return
            yield tag | got
    finally:
        proc.kill()
        proc.join()


def lpt(times: list[float], cores: int) -> float:
    """Makespan of ``times`` dealt longest first, each to the least loaded of ``cores``."""
    loads = [0.0] * cores
    for t in sorted(times, reverse=True):
        loads[loads.index(min(loads))] += t
    return max(loads)


def _check(row: dict) -> str | None:
    if row["result"] not in RESULTS or row["part"] not in PARTS:
        return "unknown part or result"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instances", nargs="+")
    ap.add_argument("--limit", type=float, default=300.0, help="seconds for each search")
    ap.add_argument("--out", required=True)
    ap.add_argument("--parts", default=",".join(PARTS), help=f"which of {', '.join(PARTS)} to run")
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    if not parts or any(p not in PARTS for p in parts):
        raise SystemExit(f"certify_anatomy: --parts {args.parts!r}: choose from {', '.join(PARTS)}")
    missing = [p for p in args.instances if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"certify_anatomy: {missing[0]}: no such instance file")
    out = Path(args.out)
    rows = earlier_runs(out / "runs.csv", FIELDS, "certify_anatomy", args.resume, _check)
    for r in rows:
        r["holds_board"] = r["holds_board"] == "True"
    rows, again = resumed(rows, "instance", {Path(p).stem: set(parts) for p in args.instances}, "part")
    with RunsFile(out / "runs.csv", FIELDS, rows) as runs:
        for path in args.instances:
            if Path(path).stem not in again:
                continue
            for part in parts:
                new = []
                for row in run_part(path, part, args.limit):
                    new.append(row)
                    runs.add([row])
                rows += new
                print(f"{Path(path).stem} {part}: {len(new)} search(es), "
                      f"{sum(r['cpu_s'] or 0 for r in new):.1f} s CPU", flush=True)
    (out / "summary.md").write_text(summary(rows, args))
    return 1 if any(r["result"] in ("wrong", "error") for r in rows) else 0


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def cube_state(cubes: list[dict]) -> str:
    """``complete`` (every cube searched to the end), ``none`` (no cubes), or the worst other result."""
    if not cubes or all(r["result"] == "skipped" for r in cubes):
        return "none"
    for bad in ("error", "wrong", "timeout"):
        if any(r["result"] == bad for r in cubes):
            return bad
    return "complete"


def instance_figures(rows: list[dict]) -> dict:
    """One instance's figures: whole CPU, its cubes (state, count, CPU, the board's), LPT makespans by core
    count and the fewest cores within the target (only when every cube was searched to the end), given CPU by k.
    ``× whole`` only compares like with like: a unique puzzle, whose whole search exhausts every cube's boards."""
    whole = next((r for r in rows if r["part"] == "whole"), None)
    w = whole["cpu_s"] if whole and whole["result"] == "done" else None
    cubes = [r for r in rows if r["part"] == "cube" and r["result"] != "skipped"]
    state = cube_state([r for r in rows if r["part"] == "cube"])
    times = [float(r["cpu_s"]) for r in cubes if r["cpu_s"] != ""]
    held = [float(r["cpu_s"]) for r in cubes if r["holds_board"] and r["result"] == "done"]
    full = state == "complete"
    fig = {"whole": w, "cubes": len(cubes), "state": state, "cube_sum": sum(times) if times else None,
           "board_cube": held[0] if held else None,
           "lpt": {n: lpt(times, n) if full else None for n in CORES}}
    unique = whole is not None and w is not None and int(whole["boards"]) < 2
    fig["ratio"] = fig["cube_sum"] / w if full and unique and w else None
    fig["reach"] = next((n for n in CORES if full and fig["lpt"][n] <= TARGET_S), None)
    fig["given"] = {r["key"]: (r["cpu_s"] if r["result"] == "done" else None)
                    for r in rows if r["part"] == "given" and r["key"].startswith(">=")}
    fig["given_error"] = any(r["part"] == "given" and r["result"] in ("error", "wrong") for r in rows)
    return fig


_STATE_MARK = {"complete": "", "none": "", "timeout": " (a cube ran out of time: at least)",
               "wrong": " (a cube gave a wrong board)", "error": " (a cube failed: at least)"}


def summary(rows: list[dict], args) -> str:
    asked = [Path(p).stem for p in args.instances]
    others = len({r["instance"] for r in rows} - set(asked))
    lines = ["# Where a certification's time goes: cpsat[branching=long-first,lazy_lp=false]/placement", "",
             f"Command: `python experiments/certify_anatomy.py --limit {args.limit:g} --parts {args.parts} --out {args.out} "
             f"{' '.join(args.instances)}`" + (f" (runs.csv also holds {others} other instance(s), not summed "
                                               "up here)" if others else ""), "",
             f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}; one CP-SAT "
             f"search at a time (one worker), CPU seconds.  Limit {args.limit:g} s per search.", "",
             "`whole`: the count-2 certification.  `cubes`: the same search once per placement of the longest "
             "length with a single ship (the fleet's longest here), that placement given (disjoint, together the "
             "whole proof): how many, their CPU summed, against the whole (unique puzzles only), and the cube "
             "holding the board.  `N cores`: the cubes dealt longest first to N cores (LPT makespan); "
             f"`cores for {TARGET_S:g} s`: the fewest of {', '.join(map(str, CORES))} whose makespan is within "
             f"{TARGET_S:g} s (– when none: the board's cube alone takes longer; no makespan when a cube did not "
             "finish).", "",
             "| instance | whole | cubes | cube sum | × whole | board's cube | "
             + " | ".join(f"{n} cores" for n in CORES[1:]) + f" | cores for {TARGET_S:g} s |",
             "|---|---:|---:|---:|---:|---:|" + "---:|" * (len(CORES) - 1) + "---:|"]
    figs = {i: instance_figures([r for r in rows if r["instance"] == i]) for i in asked
            if any(r["instance"] == i for r in rows)}
    for i, f in figs.items():
        lines.append(f"| {i} | {_fmt(f['whole'])} | {f['cubes']} | {_fmt(f['cube_sum'])}{_STATE_MARK[f['state']]} | "
                     + ("–" if f["ratio"] is None else f"{f['ratio']:.2f}") + f" | {_fmt(f['board_cube'])} | "
                     + " | ".join(_fmt(f["lpt"][n]) for n in CORES[1:]) + f" | {f['reach'] or '–'} |")
    keys = sorted({k for f in figs.values() for k in f["given"]}, key=lambda k: -int(k[2:]))
    lines += ["", "CPU seconds of the search with the board's ships of length >= k given (– : out of time or not "
              "run; an instance marked * had a failed or wrong search there, see runs.csv):", "",
              "| instance | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for i, f in figs.items():
        lines.append(f"| {i}{' *' if f['given_error'] else ''} | " + " | ".join(_fmt(f["given"].get(k)) for k in keys)
                     + " |")
    lines += ["", "Every search: [runs.csv](runs.csv)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
