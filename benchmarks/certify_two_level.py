"""Two-level cubes: the hardest cubes of the long-first proof cut again by the next ship length's placements.

    python benchmarks/certify_two_level.py --cubes-from reports/certify-anatomy-hard/runs.csv --split-above 15 \\
        --limit 600 --out reports/certify-two-level instances/large/large_30x20_minimal_s508.toml [--resume]

``benchmarks/certify_anatomy.py`` cuts the count-2 proof of
``cpsat[branching=long-first,lazy_lp=false]/placement`` into one cube per placement p of the longest
length with a single ship (level 1; its ``cube`` rows are read from ``--cubes-from``).  Here each
level-1 cube whose search took more than ``--split-above`` CPU seconds is cut again: with L2 the
next length of the fleet below and q_1 < q_2 < ... its placements, sub-cube j holds p and q_j and
none of q_1 .. q_j-1 (the ship of length L2 with the lowest placement index is at q_j).  The
sub-cubes of a cube are disjoint and together the cube, since the fleet has a ship of length L2.
The cubes not cut keep their level-1 time; the makespan of all of them dealt longest first to N
cores (LPT) says how many cores a two-level split needs to certify within 30 s.  Every search is
one CP-SAT worker with every board verified, in a worker process per level-1 cube (killed when a
row is a minute late).  Writes ``runs.csv`` (``--resume`` keeps the instances finished) and
``summary.md``.
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
import certify_anatomy as anatomy  # noqa: E402 - a sibling script

from harness.runner.runs_csv import RunsFile, earlier_runs, resumed  # noqa: E402

FIELDS = ["instance", "part", "key", "holds_board", "result", "boards", "wall_s", "cpu_s", "branches", "conflicts"]
CORES = (1, 2, 4, 8, 16, 32, 64)
TARGET_S = anatomy.TARGET_S


def placement_key(ship) -> str:
    return f"{ship.length}@r{ship.row}c{ship.col}{'h' if ship.horizontal else 'v'}"


def sub_cubes(path: str, parent: str, limit: float) -> Iterator[dict]:
    """The rows of the sub-cubes of level-1 cube ``parent`` (a placement key), each as it is measured."""
    inst, be, board = anatomy._prepare(path, limit)
    m = be.model
    by_key = {placement_key(m.placements[p].ship): p for ps in m.by_length.values() for p in ps}
    if parent not in by_key:
        raise ValueError(f"{path}: no placement {parent}")
    p = by_key[parent]
    length = m.placements[p].length
    lower = [L for L, n in m.fleet.items() if n >= 1 and L < length]
    if not lower:
        raise ValueError(f"{path}: no ship shorter than {length} to cut by")
    qs = sorted(m.by_length[max(lower)])
    board_q = min((q for q in board if q in set(qs)), default=None)
    for j, q in enumerate(qs):
        yield ({"key": placement_key(m.placements[q].ship), "holds_board": p in board and q == board_q}
               | anatomy._search(inst, be, [p, q], None, limit, forbid=qs[:j]))


def level_one(path: Path, instance: str) -> dict[str, dict]:
    """``instance``'s level-1 cube rows in certify_anatomy's ``path`` (key -> row); every one searched to the end."""
    try:
        with open(path, newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if r.get("instance") == instance and r.get("part") == "cube"]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SystemExit(f"certify_two_level: {path}: cannot read ({exc})") from None
    if not rows or any(r.get("result") != "done" for r in rows):
        raise SystemExit(f"certify_two_level: {path}: {instance} has no complete set of level-1 cubes "
                         "(run benchmarks/certify_anatomy.py --parts cube on it first)")
    try:
        return {r["key"]: r | {"cpu_s": float(r["cpu_s"])} for r in rows}
    except ValueError:
        raise SystemExit(f"certify_two_level: {path}: {instance}: a cube's cpu_s is not a number") from None


def _check(row: dict) -> str | None:
    return None if row["result"] in anatomy.RESULTS else "unknown result"


def figures(cubes: dict[str, dict], rows: list[dict], above: float) -> dict:
    """One instance's two-level figures: the cubes cut and their sub-cubes, and LPT makespans (only when every
    sub-cube of every cube cut was searched to the end)."""
    cut = {k for k, r in cubes.items() if r["cpu_s"] > above}
    subs = [r for r in rows if r["part"] in cut]
    state = anatomy.cube_state(subs) if {r["part"] for r in subs} == cut else "error"
    kept = [r["cpu_s"] for k, r in cubes.items() if k not in cut]
    times = kept + [float(r["cpu_s"]) for r in subs if r["cpu_s"] != ""]
    full = state == "complete" or not cut
    fig = {"cubes": len(cubes), "cut": len(cut), "cut_s": sum(cubes[k]["cpu_s"] for k in cut),
           "subs": len(subs), "sub_s": sum(float(r["cpu_s"]) for r in subs if r["cpu_s"] != ""),
           "largest_sub": max((float(r["cpu_s"]) for r in subs if r["cpu_s"] != ""), default=None),
           "largest_kept": max(kept, default=None), "state": state,
           "board_sub": next((float(r["cpu_s"]) for r in subs if r["holds_board"] in (True, "True")), None),
           "lpt": {n: anatomy.lpt(times, n) if full else None for n in CORES}}
    fig["reach"] = next((n for n in CORES if full and fig["lpt"][n] <= TARGET_S), None)
    return fig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instances", nargs="+")
    ap.add_argument("--cubes-from", required=True, help="certify_anatomy's runs.csv holding the level-1 cubes")
    ap.add_argument("--split-above", type=float, default=15.0, help="cut the cubes that took more CPU seconds")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds for each search")
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    missing = [p for p in args.instances + [args.cubes_from] if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"certify_two_level: {missing[0]}: no such file")
    cubes = {Path(p).stem: level_one(Path(args.cubes_from), Path(p).stem) for p in args.instances}
    wanted = {i: {k for k, r in c.items() if r["cpu_s"] > args.split_above} for i, c in cubes.items()}
    out = Path(args.out)
    rows = earlier_runs(out / "runs.csv", FIELDS, "certify_two_level", args.resume, _check)
    rows, again = resumed(rows, "instance", wanted, "part")
    with RunsFile(out / "runs.csv", FIELDS, rows) as runs:
        for path in args.instances:
            inst = Path(path).stem
            if inst not in again:
                continue
            for parent in sorted(wanted[inst], key=lambda k: -cubes[inst][k]["cpu_s"]):
                new = []
                for row in anatomy.run_part(path, parent, args.limit, rows_of=sub_cubes):
                    new.append(row)
                    runs.add([row])
                rows += new
                print(f"{inst} {parent}: {len(new)} sub-cube(s), {sum(float(r['cpu_s'] or 0) for r in new):.1f} s "
                      f"CPU (level 1: {cubes[inst][parent]['cpu_s']:.1f} s)", flush=True)
    (out / "summary.md").write_text(summary(rows, cubes, args))
    return 1 if any(r["result"] in ("wrong", "error") for r in rows) else 0


def summary(rows: list[dict], cubes: dict[str, dict], args) -> str:
    f_ = anatomy._fmt
    lines = ["# Two-level cubes of cpsat[branching=long-first,lazy_lp=false]/placement's proof", "",
             f"Command: `python benchmarks/certify_two_level.py --cubes-from {args.cubes_from} --split-above "
             f"{args.split_above:g} --limit {args.limit:g} --out {args.out} {' '.join(args.instances)}`", "",
             f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}; one CP-SAT "
             "search at a time (one worker), CPU seconds.", "",
             f"Level-1 cubes (one per placement of the longest single ship, from {args.cubes_from}) that took more "
             f"than {args.split_above:g} s are cut by the placements of the next length (the lowest-placed ship of "
             "that length), the others keep their time.  `× cut`: the sub-cubes' CPU against their cubes'.  "
             f"`N cores`: LPT makespan of the cubes kept and the sub-cubes; `cores for {TARGET_S:g} s`: the fewest "
             f"of {', '.join(map(str, CORES))} within {TARGET_S:g} s.", "",
             "| instance | cubes | cut | their CPU | sub-cubes | sub CPU | × cut | largest sub | board's sub | "
             "largest kept | " + " | ".join(f"{n} cores" for n in CORES) + f" | cores for {TARGET_S:g} s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(CORES) + "---:|"]
    for inst, c in cubes.items():
        f = figures(c, [r for r in rows if r["instance"] == inst], args.split_above)
        ratio = f"{f['sub_s'] / f['cut_s']:.2f}" if f["cut_s"] and f["state"] == "complete" else "–"
        lines.append(f"| {inst} | {f['cubes']} | {f['cut']} | {f_(f['cut_s'])} | {f['subs']} | {f_(f['sub_s'])}"
                     f"{anatomy._STATE_MARK.get(f['state'], ' (missing)')} | {ratio} | {f_(f['largest_sub'])} | "
                     f"{f_(f['board_sub'])} | {f_(f['largest_kept'])} | "
                     + " | ".join(f_(f["lpt"][n]) for n in CORES) + f" | {f['reach'] or '–'} |")
    lines += ["", "Every search: [runs.csv](runs.csv)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
