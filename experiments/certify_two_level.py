"""Deeper cubes: the hardest cubes of the long-first proof cut again, ship by ship down the fleet.

    python experiments/certify_two_level.py --cubes-from experiments/certify-anatomy-hard/runs.csv --split-above 15 \\
        --limit 600 --out experiments/certify-two-level instances/large/large_30x20_minimal_s508.toml [--resume]
    python experiments/certify_two_level.py --cubes-from experiments/certify-anatomy-hard/runs.csv \\
        --cubes-from experiments/certify-two-level/runs.csv --split-above 15 --limit 600 \\
        --out experiments/certify-two-level/level3 instances/large/large_30x20_minimal_s508.toml

``experiments/certify_anatomy.py`` cuts the count-2 proof of
``cpsat[branching=long-first,lazy_lp=false]/placement`` into one cube per placement p of the longest
length with a single ship (level 1; its ``cube`` rows are read from ``--cubes-from``).  Here each
level-1 cube whose search took more than ``--split-above`` CPU seconds is cut again: with L2 the
next length of the fleet below and q_1 < q_2 < ... its placements, sub-cube j holds p and q_j and
none of q_1 .. q_j-1 (the ship of length L2 with the lowest placement index is at q_j).  The
sub-cubes of a cube are disjoint and together the cube, since the fleet has a ship of length L2.
Given this script's earlier runs as well (``--cubes-from`` again), the
cubes they measured above the threshold are cut the same way by the fleet's next ship (ships of
one length taken in placement order: the next 7-ship lies after the first).  The cubes not cut
keep their time; the makespan of all of them dealt longest first to N
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from runs_csv import RunsFile, earlier_runs, resumed  # noqa: E402 - benchmarks/runs_csv.py

FIELDS = ["instance", "part", "key", "holds_board", "result", "boards", "wall_s", "cpu_s", "branches", "conflicts"]
CORES = (1, 2, 4, 8, 16, 32, 64)
TARGET_S = anatomy.TARGET_S


def placement_key(ship) -> str:
    return f"{ship.length}@r{ship.row}c{ship.col}{'h' if ship.horizontal else 'v'}"


def _candidates(m, lengths: list[int], given: list[int], level: int) -> list[int]:
    """The placements ship ``level`` of the fleet (longest first, ``lengths``) may take: those of its length
    after the one the previous ship of that length took in ``given`` (each length's ships in placement order)."""
    length = lengths[level]
    before = [g for g, L in zip(given[:level], lengths) if L == length]
    return [q for q in sorted(m.by_length[length]) if not before or q > before[-1]]


def sub_cubes(path: str, parent: str, limit: float) -> Iterator[dict]:
    """The rows of the sub-cubes of cube ``parent``, each as it is measured.

    ``parent`` is a path of placement keys, one per ship of the fleet taken in order -- the longest
    length with a single ship (certify_anatomy's cubes), then the others longest first
    ("8@r17c7v", "8@r17c7v/7@r4c9h", ...): that ship is at that placement, the ships of its length
    before it (in placement order) are at lower placements, and no ship of its length is at a
    placement between.  Its sub-cubes place the next ship of the fleet the same way."""
    inst, be, board = anatomy._prepare(path, limit)
    m = be.model
    by_key = {placement_key(m.placements[p].ship): p for ps in m.by_length.values() for p in ps}
    first = max(L for L, n in m.fleet.items() if n == 1)  # level 1: certify_anatomy's cubes
    lengths = [first] + [L for L in sorted(m.fleet, reverse=True) for _ in range(m.fleet[L] - (L == first))]
    given: list[int] = []
    forbid: list[int] = []
    for level, key in enumerate(parent.split("/")):
        if key not in by_key or level >= len(lengths) or m.placements[by_key[key]].length != lengths[level]:
            raise ValueError(f"{path}: cube {parent}: {key} is not a placement of ship {level + 1} "
                             f"(length {lengths[level] if level < len(lengths) else '-'})")
        cands = _candidates(m, lengths, given, level)
        given.append(by_key[key])
        forbid += [q for q in cands if q < by_key[key]]
    level = len(given)
    if level >= len(lengths):
        raise ValueError(f"{path}: cube {parent} places every ship: nothing to cut by")
    qs = _candidates(m, lengths, given, level)
    # the board's ship at this level: its ships of this length in placement order, as many as came before
    same = sorted(q for q in board if m.placements[q].length == lengths[level])
    board_q = same[lengths[:level].count(lengths[level])] if all(g in board for g in given) else None
    for j, q in enumerate(qs):
        yield ({"key": placement_key(m.placements[q].ship), "holds_board": q == board_q}
               | anatomy._search(inst, be, given + [q], None, limit, forbid=forbid + qs[:j]))


def cube_path(row: dict) -> str:
    """A cube's path: certify_anatomy's cube rows are level 1 (their key), this script's rows extend their part."""
    return row["key"] if row["part"] == "cube" else f"{row['part']}/{row['key']}"


def earlier_cubes(paths: list[Path], instance: str) -> dict[str, dict]:
    """``instance``'s cubes measured before (path -> row): certify_anatomy's cube rows and this script's rows of
    earlier runs; each file's rows all searched to the end, the level-1 cubes present."""
    cubes: dict[str, dict] = {}
    for path in paths:
        try:
            with open(path, newline="") as fh:
                rows = [r for r in csv.DictReader(fh) if r.get("instance") == instance
                        and (r.get("part") == "cube" or "@" in (r.get("part") or ""))]
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise SystemExit(f"certify_two_level: {path}: cannot read ({exc})") from None
        if any(r.get("result") != "done" for r in rows):
            raise SystemExit(f"certify_two_level: {path}: {instance} has no complete set of cubes (a search "
                             "there did not end)")
        try:
            cubes.update({cube_path(r): r | {"cpu_s": float(r["cpu_s"])} for r in rows})
        except (ValueError, KeyError, TypeError):
            raise SystemExit(f"certify_two_level: {path}: {instance}: a cube's cpu_s is not a number") from None
    if not any("/" not in k for k in cubes):
        raise SystemExit(f"certify_two_level: {', '.join(map(str, paths))}: {instance} has no complete set of "
                         "level-1 cubes (run experiments/certify_anatomy.py --parts cube on it first)")
    return cubes


def leaves(cubes: dict[str, dict]) -> dict[str, dict]:
    """The cubes not cut further: no other cube's path extends theirs."""
    parents = {k.rsplit("/", 1)[0] for k in cubes if "/" in k}
    return {k: r for k, r in cubes.items() if k not in parents}


def _check(row: dict) -> str | None:
    return None if row["result"] in anatomy.RESULTS else "unknown result"


def figures(cubes: dict[str, dict], rows: list[dict], above: float) -> dict:
    """One instance's two-level figures: the cubes cut and their sub-cubes, and LPT makespans (only when every
    sub-cube of every cube cut was searched to the end)."""
    cubes = leaves(cubes)
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
    ap.add_argument("--cubes-from", required=True, action="append",
                    help="certify_anatomy's runs.csv with the level-1 cubes; again for this script's earlier runs, "
                         "whose cubes are then cut deeper")
    ap.add_argument("--split-above", type=float, default=15.0, help="cut the cubes that took more CPU seconds")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds for each search")
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    missing = [p for p in args.instances + args.cubes_from if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"certify_two_level: {missing[0]}: no such file")
    cubes = {Path(p).stem: earlier_cubes([Path(f) for f in args.cubes_from], Path(p).stem) for p in args.instances}
    wanted = {i: {k for k, r in leaves(c).items() if r["cpu_s"] > args.split_above} for i, c in cubes.items()}
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
                      f"CPU (the cube: {cubes[inst][parent]['cpu_s']:.1f} s)", flush=True)
    (out / "summary.md").write_text(summary(rows, cubes, args))
    return 1 if any(r["result"] in ("wrong", "error") for r in rows) else 0


def summary(rows: list[dict], cubes: dict[str, dict], args) -> str:
    f_ = anatomy._fmt
    lines = ["# Cubes cut deeper: cpsat[branching=long-first,lazy_lp=false]/placement's proof", "",
             "Command: `python experiments/certify_two_level.py "
             + "".join(f"--cubes-from {f} " for f in args.cubes_from) + "--split-above "
             f"{args.split_above:g} --limit {args.limit:g} --out {args.out} {' '.join(args.instances)}`", "",
             f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}; one CP-SAT "
             "search at a time (one worker), CPU seconds.", "",
             "The cubes measured before (level 1: one per placement of the longest single ship; deeper ones from "
             f"earlier runs of this script) that took more than {args.split_above:g} s and were not cut yet are cut "
             "by the placements of the fleet's next ship (longest first; ships of one length in placement order), "
             "the others keep their time.  `× cut`: the sub-cubes' CPU against their cubes'.  "
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
