#!/usr/bin/env python3
"""Regenerate instances/deployments/ (deployment files, MANIFEST.toml, README.md) for the counting task.

    .venv/bin/python scripts/make_deployments.py [--out PATH]

Writes, deterministically (no dates, no randomness):

* the games of seed-003 (``shared/seeds/seed-003-counting-dlx-hex.txt``): the standard
  10x10 game (labelled, unlabelled, unlabelled without touching), a 12x10 board, and the
  two halves of the 2008 hexagonal board (Blue = ``HexBattleship(is_upper=True)``, Green =
  ``is_upper=False``), built by the seed's own comprehension with numpy's sign;
* ``sweep/``: the standard fleet on n x n boards, 6 <= n <= 30;
* ``islands/``: square boards with cells taken out;
* ``tiny/``: boards small enough for brute force, counted here by
  :func:`harness.counting.brute.brute_count`.

Every file is written with :func:`write_deployment` and read back with
:func:`read_deployment` (same content hash, same meta).  For the seed's boards the
placements the format yields are checked against the rows the seed's own ``cover()``
builds (numpy matrix products), and each hex half must have the 79 cells the seed
states.  ``expected_count`` is set only where known; ``counted_by`` says where it comes
from.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from harness.counting.brute import brute_count  # noqa: E402
from harness.counting.deployment import Deployment, Piece  # noqa: E402
from harness.counting.format import read_deployment, write_deployment  # noqa: E402
from harness.counting.geometry import HEX, SQUARE, Grid  # noqa: E402
from harness.counting.placements import layout  # noqa: E402

SEED = "seed-003"
SEED_PATH = "seeds/seed-003-counting-dlx-hex.txt"
SEED_TITLE = "seed-003 (counting deployments with DLX)"
STANDARD = (("Carrier", 5), ("Battleship", 4), ("Submarine", 3), ("Cruiser", 3), ("Destroyer", 2))
BRIEF = ("battlebench issue 15 (measured for it by a numpy counting programme, and for 6x6 by DLX); the "
         "dp and the cluster counters give the same number")

SUITES = {
    "game": "seed-003's games: the standard 10x10 (labelled, unlabelled, unlabelled without touching), "
            "12x10, and the two halves (Blue, Green) of the 2008 hexagonal board",
    "sweep": "the standard fleet (5, 4, 3, 3, 2, labelled, touching allowed) on n x n boards, n = 6 .. 30",
    "islands": "square boards with cells taken out (islands): no known count, for counters to cross-check",
    "tiny": "small enough for brute force (under a second each); counted by harness.counting.brute",
}


# ---------------------------------------------------------------- building blocks
def straight(grid: Grid, fleet) -> tuple[Piece, ...]:
    """Straight pieces from (name, length) or (name, length, count)."""
    return tuple(Piece(name, grid.straight(length), rest[0] if rest else 1) for name, length, *rest in fleet)


def rect(rows: int, cols: int, islands=()) -> frozenset:
    out = {(r, c) for r in range(rows) for c in range(cols)} - set(islands)
    assert len(out) == rows * cols - len(set(islands))
    return frozenset(out)


def seed_meta(title: str, provenance: str, **more) -> dict:
    return {"title": title, "source": f"battlebench shared/{SEED_PATH}", "source_path": SEED_PATH,
            "provenance": provenance, **more}


def own_meta(title: str, notes: str, **more) -> dict:
    return {"title": title, "source": "battlebench", "provenance": "hand-written for battlebench "
            "(scripts/make_deployments.py)", "notes": notes, **more}


def known(count: int | None, counted_by: str) -> dict:
    return {} if count is None else {"expected_count": count, "counted_by": counted_by}


# ---------------------------------------------------------------- seed-003, reproduced
def matrix_powers(R, n):
    """seed-003's helper: [R^1, R^2, ..., R^n]."""
    result = []
    a = np.array(R)
    for _ in range(n):
        result.append(a)
        a = a.dot(R)
    return result


HEX_ISLANDS = {
    True: {(-5, 4, 1), (-1, 3, -2), (-1, 7, -6), (4, 2, -6), (5, -1, -4)},
    False: {(-5, 1, 4), (-1, -6, 7), (-1, -2, 3), (2, -1, -1), (4, -6, 2)},
}
HEX_RULE = ("{(x, y, -x - y) for x in range(-7, 8) for y in range(max(-7 - x, -7) + 1 - abs(np.sign(x)), "
            "min(7 - x, 7) + 1) if (6 * y >= -3 * x + x % 4) == is_upper and not (x, y, -x - y) in islands}")


def hex_board(is_upper: bool) -> set:
    """HexBattleship(is_upper).board, exactly the seed's comprehension (numpy sign, Python %)."""
    islands = HEX_ISLANDS[is_upper]
    return {(int(x), int(y), int(-x - y))
            for x in range(-7, 8)
            for y in range(max(-7 - x, -7) + 1 - abs(np.sign(x)), min(7 - x, 7) + 1)
            if (6 * y >= -3 * x + x % 4) == is_upper and
            (x, y, -x - y) not in islands}


def hex_half(is_upper: bool) -> set:
    """The same half with its islands kept: the islands must lie on it."""
    return {(int(x), int(y), int(-x - y))
            for x in range(-7, 8)
            for y in range(max(-7 - x, -7) + 1 - abs(np.sign(x)), min(7 - x, 7) + 1)
            if (6 * y >= -3 * x + x % 4) == is_upper}


HEX_PIECES = {'Carrier': {(x, 0, -x) for x in range(3)} | {(x, -1, -x + 1) for x in range(1, 3)},
              'Battleship': {(x, 0, -x) for x in range(4)},
              'Submarine': {(x, 0, -x) for x in range(3)},
              'Destroyer': {(x, 0, -x) for x in range(2)},
              'Weapons': {(0, 0, 0), (1, 0, -1), (0, 1, -1)}}
SQUARE_PIECES = {name: {(x, 0) for x in range(n)} for name, n in STANDARD}


def seed_rows(board: set, pieces: dict, rotations: list) -> dict[str, set]:
    """seed-003's cover(): per piece, every placement (sorted occupied cells), by matrix products."""
    rows: dict[str, set] = {name: set() for name in pieces}
    for name, piece in pieces.items():
        for R in rotations:
            for offset in board:
                occupied = {tuple(int(v) for v in R.dot(x) + offset) for x in piece}
                if occupied <= board:
                    rows[name].add(tuple(sorted(occupied)))
    return rows


def check_against_seed(dep: Deployment, board: set, pieces: dict, rotations: list) -> dict[str, int]:
    """The format's placements of every piece are exactly the seed's rows (the board's coordinates may differ
    on square boards: the seed's (x, y) is taken as (row, col))."""
    lay = layout(dep)
    ours = {t.name: {tuple(sorted(lay.cells[i] for i in p)) for p in t.placements} for t in lay.types}
    theirs = seed_rows(board, pieces, rotations)
    for name in pieces:
        assert ours[name] == theirs[name], (dep.name, name, len(ours[name]), len(theirs[name]))
    return {name: len(theirs[name]) for name in pieces}


# ---------------------------------------------------------------- the instances
def games() -> list[tuple[str, Deployment]]:
    std = straight(SQUARE, STANDARD)
    unl = straight(SQUARE, (("Carrier", 5), ("Battleship", 4), ("Cruiser", 3, 2), ("Destroyer", 2)))
    seed_says = "seed-003 DLX (the seed's text: 30,093,975,536 ways to place the 5 ships)"
    out = [
        ("standard_10x10.toml", Deployment(
            SQUARE, rect(10, 10), std, touching=True, name="standard_10x10",
            meta=seed_meta(f"{SEED_TITLE}: standard game",
                           f"{SEED_TITLE}: standard game; class Battleship: the 10x10 board, Carrier 5, Battleship 4, "
                           "Submarine 3, Cruiser 3, Destroyer 2, 4 rotations, ships may touch",
                           **known(30093975536, seed_says)))),
        ("standard_10x10_unlabelled.toml", Deployment(
            SQUARE, rect(10, 10), unl, touching=True, name="standard_10x10_unlabelled",
            meta=seed_meta(f"{SEED_TITLE}: standard game, the two 3-ships identical",
                           f"{SEED_TITLE}: standard game with Submarine and Cruiser as two identical copies "
                           "(Cruiser count = 2)",
                           **known(15046987768, "seed-003 DLX / 2: swapping the two 3-ships pairs the labelled "
                                   "deployments two to one (30,093,975,536 / 2)")))),
        ("standard_10x10_notouch_unlabelled.toml", Deployment(
            SQUARE, rect(10, 10), unl, touching=False, name="standard_10x10_notouch_unlabelled",
            meta=seed_meta(f"{SEED_TITLE}: standard fleet, no touching, the two 3-ships identical",
                           f"{SEED_TITLE}: standard game's board and fleet, 3-ships identical, pieces may not "
                           "touch (not even diagonally); the rule is battlebench's, not the seed's",
                           **known(1925751392, BRIEF)))),
        ("standard_12x10.toml", Deployment(
            SQUARE, rect(12, 10), std, touching=True, name="standard_12x10",
            meta=seed_meta(f"{SEED_TITLE}: standard fleet on 12 rows x 10 columns",
                           f"{SEED_TITLE}: standard game's fleet and rules on a 12 x 10 board (battlebench's "
                           "variant)", **known(101832786704, BRIEF)))),
    ]
    for is_upper, colour, count in ((True, "Blue", 17290404311), (False, "Green", 21625126041)):
        board = hex_board(is_upper)
        assert len(board) == 79, (colour, len(board))  # "Each half has 79 grid cells" (seed-003)
        assert HEX_ISLANDS[is_upper] <= hex_half(is_upper), colour
        assert not HEX_ISLANDS[is_upper] & board
        pieces = tuple(Piece(name, tuple(sorted(cells))) for name, cells in HEX_PIECES.items())
        name = f"hex_{colour.lower()}"
        out.append((f"{name}.toml", Deployment(
            HEX, frozenset(board), pieces, touching=True, reflections=False, name=name,
            meta=seed_meta(f"{SEED_TITLE}: 2008 hexagonal board, {colour}'s half",
                           f"{SEED} HexBattleship(is_upper={is_upper}) board, islands and pieces, built by the "
                           "seed's own comprehension",
                           notes=f"{colour} deploys on the {'upper' if is_upper else 'lower'} half; the 5 islands "
                                 "are not board cells (the seed leaves them out of the board) and are listed in "
                                 "meta.islands; 6 rotations (x, y, z) -> (-y, -z, -x), no reflections",
                           board_rule=HEX_RULE.replace("is_upper", str(is_upper)),
                           islands=[list(c) for c in sorted(HEX_ISLANDS[is_upper])],
                           **known(count, f"seed-003 DLX (the seed's text: {count:,} for {colour})")))))
    return out


def sweep() -> list[tuple[str, Deployment]]:
    std = straight(SQUARE, STANDARD)
    both = ("two independent counters of battlebench agree: the dp (harness.counting.frontier) and the cluster "
            "expansion (harness.counting.counters.cluster): reports/counting, and scripts/make_deployments.py "
            "--check-dp for 12x12 (59 s) and 15x15 (432 s)")
    rows = ("two independent counters of battlebench agree: the dp's row programme (harness.counting.rows) and "
            "the cluster expansion (harness.counting.counters.cluster): reports/counting")
    counts = {6: (6687136, BRIEF), 10: (30093975536, "seed-003 DLX (the seed's text: 30,093,975,536)"),
              7: (124757096, both), 8: (1142253520, both), 9: (6788392256, both), 12: (332291498192, both),
              15: (5081105547824, both), 20: (137408668491984, rows), 25: (1593034477460144, rows),
              30: (11265202694332304, rows)}
    out = []
    for n in (6, 7, 8, 9, 10, 12, 15, 20, 25, 30):
        count, by = counts.get(n, (None, ""))
        out.append((f"sweep/sweep_{n}x{n}.toml", Deployment(
            SQUARE, rect(n, n), std, touching=True, name=f"sweep_{n}x{n}",
            meta=seed_meta(f"standard fleet on {n}x{n}",
                           f"{SEED_TITLE}: standard game's fleet and rules on an {n}x{n} board (size sweep)",
                           **known(count, by)))))
    return out


def islands() -> list[tuple[str, Deployment]]:
    std = straight(SQUARE, STANDARD)
    centre = [(4, 4), (4, 5), (5, 4), (5, 5)]
    scattered = [(1, 5), (2, 2), (3, 6), (5, 1), (6, 4)]
    ell = [(r, c) for r in range(5) for c in range(5, 10)]  # 10x10 without its top-right 5x5 quarter
    return [
        ("islands/centre_2x2_10x10.toml", Deployment(
            SQUARE, rect(10, 10, centre), std, touching=True, name="centre_2x2_10x10",
            meta=own_meta("standard fleet on 10x10 with a 2x2 island in the middle",
                          "seed-003's standard fleet and rules; cells (4..5, 4..5) are an island"))),
        ("islands/scattered_8x8_notouch.toml", Deployment(
            SQUARE, rect(8, 8, scattered), std, touching=False, name="scattered_8x8_notouch",
            meta=own_meta("standard fleet on 8x8 with 5 scattered island cells, no touching",
                          "seed-003's standard fleet; pieces may not touch each other (islands do not count)"))),
        ("islands/l_shape_10x10.toml", Deployment(
            SQUARE, rect(10, 10, ell), std, touching=True, name="l_shape_10x10",
            meta=own_meta("standard fleet on an L-shaped board (10x10 without its top-right 5x5)",
                          "seed-003's standard fleet and rules; rows 0..4 x cols 5..9 are removed (75 cells)"))),
    ]


def tiny() -> list[tuple[str, Deployment]]:
    radius2 = frozenset((x, y, -x - y) for x in range(-2, 3) for y in range(-2, 3) if abs(x + y) <= 2)
    assert len(radius2) == 19
    return [
        ("tiny/t4x4_3_2.toml", Deployment(
            SQUARE, rect(4, 4), straight(SQUARE, (("Cruiser", 3), ("Destroyer", 2))), name="t4x4_3_2",
            meta=own_meta("4x4, pieces 3 and 2, touching allowed", "two labelled straight pieces"))),
        ("tiny/t5x5_3_2x2.toml", Deployment(
            SQUARE, rect(5, 5), straight(SQUARE, (("Cruiser", 3), ("Destroyer", 2, 2))), name="t5x5_3_2x2",
            meta=own_meta("5x5, pieces 3 and two identical 2s, touching allowed",
                          "Destroyer has count = 2: the two copies are unlabelled"))),
        ("tiny/t5x5_notouch.toml", Deployment(
            SQUARE, rect(5, 5), straight(SQUARE, (("Cruiser", 3), ("Destroyer", 2, 2))), touching=False,
            name="t5x5_notouch",
            meta=own_meta("5x5, pieces 3 and two identical 2s, touching forbidden",
                          "no two pieces share a side or a corner"))),
        ("tiny/hex_r2.toml", Deployment(
            HEX, radius2, (Piece("Straight", HEX.straight(3)), Piece("Triangle", ((0, 0, 0), (0, 1, -1), (1, 0, -1)))),
            name="hex_r2",
            meta=own_meta("hex board of radius 2 (19 cells), a 3-straight and a 3-triangle",
                          "cells max(|x|, |y|, |z|) <= 2; 6 rotations, no reflections; touching allowed"))),
        ("tiny/t6x6_position.toml", Deployment(
            SQUARE, rect(6, 6), straight(SQUARE, (("Battleship", 4), ("Cruiser", 3), ("Destroyer", 2))),
            misses=[(0, 0), (1, 4), (3, 3), (4, 5), (0, 5)], hits=[(2, 1), (2, 2), (2, 3)],
            sunk={"Destroyer": [(5, 0), (5, 1)]}, announce_sinks=True, name="t6x6_position",
            meta=own_meta("6x6 game position: misses, a run of 3 hits, the Destroyer sunk, sinks announced",
                          "announce_sinks: the Cruiser cannot lie exactly on the 3 hits (it would have been "
                          "announced sunk)"))),
        ("tiny/t5x5_clues.toml", Deployment(
            SQUARE, rect(5, 5), straight(SQUARE, (("Cruiser", 3), ("Destroyer", 2), ("Boat", 1))), touching=False,
            row_clues=(3, 0, 1, 1, 1), col_clues=(1, 2, None, 0, 2), name="t5x5_clues",
            meta=own_meta("5x5 with row and column clues (one unknown), no touching",
                          "clues of the board Cruiser (0,0)-(0,2), Destroyer (2,4)-(3,4), Boat (4,1); "
                          "column 2 unknown"))),
    ]


# ---------------------------------------------------------------- writing and checking
def save(out: Path, rel: str, dep: Deployment) -> Deployment:
    target = out / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    write_deployment(dep, target)
    back = read_deployment(target)
    # the file may list the pieces in another order (TOML puts plain keys before sub-tables, so a piece given
    # as a table -- count or cells -- moves after the pieces given as a length); the question is the same
    assert _content(back) == _content(dep), rel
    assert back.name == dep.name and dict(back.meta) == dict(dep.meta), rel
    text = target.read_text()
    write_deployment(back, target)
    assert target.read_text() == text, f"{rel}: writing what was read changes the file"
    return back


def _content(dep: Deployment) -> str:
    """The content hash with the pieces in name order."""
    return Deployment(**{**_fields(dep), "pieces": tuple(sorted(dep.pieces, key=lambda p: p.name))}).content_hash()


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def manifest_entry(suite: str, rel: str, dep: Deployment) -> dict:
    meta = dep.meta
    entry: dict = {"suite": suite, "path": rel, "name": dep.name, "grid": dep.grid.kind}
    if dep.grid.kind == "square":
        entry |= {"rows": dep.rows, "cols": dep.cols}
        holes = dep.rows * dep.cols - len(dep.cells)
    else:
        holes = len(meta.get("islands", []))
    entry["cells"] = len(dep.cells)
    entry["islands"] = holes
    entry["pieces"] = {p.name: p.size for p in dep.pieces}
    if any(p.count != 1 for p in dep.pieces):
        entry["copies"] = {p.name: p.count for p in dep.pieces if p.count != 1}
    shaped = [p.name for p in dep.pieces if sorted(p.cells) != sorted(dep.grid.straight(p.size))]
    if shaped:
        entry["shaped"] = shaped
    entry["touching"] = dep.touching
    entry["reflections"] = dep.reflections
    entry["hints"] = len(dep.misses) + len(dep.hits)
    if dep.sunk or dep.sunk_at:
        entry["sunk"] = sorted({*dep.sunk, *dep.sunk_at})
    if dep.announce_sinks:
        entry["announce_sinks"] = True
    if dep.row_clues is not None or dep.col_clues is not None:
        entry["clues"] = True
    entry["content_hash"] = dep.content_hash()
    entry["source"] = meta["source"]
    entry["provenance"] = meta["provenance"]
    for k in ("expected_count", "counted_by"):
        if k in meta:
            entry[k] = meta[k]
    return entry


def write_manifest(out: Path, entries: list[dict]) -> None:
    lines = ["# Generated by scripts/make_deployments.py -- do not edit by hand.",
             "# One [[instance]] per deployment file under instances/deployments/ (format: the docstring of",
             "# harness/counting/format.py).  pieces: name = cells; copies: identical copies where more than one;",
             "# shaped: pieces that are not straight.  expected_count (exact) appears only where known;",
             "# counted_by says where it comes from.", ""]
    for e in entries:
        lines.append("[[instance]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in e.items()]
        lines.append("")
    (out / "MANIFEST.toml").write_text("\n".join(lines))
    back = tomllib.loads((out / "MANIFEST.toml").read_text())  # it must parse
    assert back["instance"] == entries


def write_readme(out: Path, entries: list[dict]) -> None:
    n = {s: sum(e["suite"] == s for e in entries) for s in SUITES}
    lines = ["# Deployments", "",
             "Counting instances: in how many ways can a fleet of named pieces be placed on a board?",
             "Format: the docstring of `harness/counting/format.py` (`[grid]`, `[rules]`, `[pieces]`, optional",
             "`[hints]` and `[clues]`).  Every file is listed in `MANIFEST.toml` with its size, pieces, rules,",
             "provenance and, where known, `expected_count` and `counted_by` (where the number comes from).", "",
             "| suite | files | what |", "|---|---|---|"]
    lines += [f"| `{'./' if s == 'game' else s + '/'}` | {n[s]} | {what} |" for s, what in SUITES.items()]
    lines += ["", "## Provenance", "",
              "The standard game and the hexagonal board come from `shared/seeds/seed-003-counting-dlx-hex.txt`",
              "(counting Battleship deployments with Knuth's DLX; the 2008 Milton Bradley hexagonal edition).",
              "`hex_blue.toml` / `hex_green.toml` are `HexBattleship(is_upper=True/False)`: the board is built by",
              "the seed's own comprehension (numpy's `sign`, Python's `%`), 79 cells per half, the 5 islands left",
              "out of the board and recorded in `meta.islands`; the pieces are the seed's cube-coordinate cell",
              "sets, 6 rotations and no reflections.  The script checks that every piece's placements equal the",
              "rows the seed's `cover()` builds.  Counts quoted from the seed: 30,093,975,536 (standard 10x10),",
              "17,290,404,311 (Blue), 21,625,126,041 (Green).  The unlabelled 10x10 count is half the labelled one",
              "(swapping the two 3-ships).  The counts of `standard_10x10_notouch_unlabelled`, `standard_12x10` and",
              "`sweep/sweep_6x6` are the figures measured for battlebench issue 15 (a numpy counting programme; DLX",
              "for 6x6), reproduced by the dp and the cluster counters.  `islands/` and `tiny/` are hand-written for battlebench; the `tiny/` counts",
              "are brute force (`harness.counting.brute`), recomputed on every run.", "",
              "## Regenerate", "",
              "    .venv/bin/python scripts/make_deployments.py              # about a second",
              "    .venv/bin/python scripts/make_deployments.py --check-dp   # also recount every known count by the",
              "                                                            # frontier DP (about a minute)", "",
              "The output is deterministic: running it twice changes nothing.", ""]
    (out / "README.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "instances" / "deployments")
    ap.add_argument("--check-dp", action="store_true",
                    help="also count every file with an expected_count by the dp counter and fail on a mismatch")
    args = ap.parse_args(argv)
    out: Path = args.out
    entries = []
    sq_rot = matrix_powers(((0, -1), (1, 0)), 4)
    hex_rot = matrix_powers(((0, -1, 0), (0, 0, -1), (-1, 0, 0)), 6)
    groups = (("game", games()), ("sweep", sweep()), ("islands", islands()), ("tiny", tiny()))
    for suite, items in groups:
        for rel, dep in items:
            if suite == "tiny":
                count = brute_count(dep)
                dep = Deployment(**{**_fields(dep), "meta": {**dep.meta, "expected_count": count,
                                                             "counted_by": "brute force (harness.counting.brute)"}})
            back = save(out, rel, dep)
            if rel == "standard_10x10.toml":
                got = check_against_seed(back, {(x, y) for x in range(10) for y in range(10)}, SQUARE_PIECES, sq_rot)
                assert list(got.values()) == [120, 140, 160, 160, 180], got  # the seed's 760 rows
            if rel.startswith("hex_"):
                check_against_seed(back, hex_board(rel == "hex_blue.toml"), HEX_PIECES, hex_rot)
            entries.append(manifest_entry(suite, rel, back))
    write_manifest(out, entries)
    write_readme(out, entries)
    print(f"wrote {len(entries)} deployments to {out}: "
          + ", ".join(f"{s} {sum(e['suite'] == s for e in entries)}" for s in SUITES))
    for e in entries:
        if e["suite"] == "tiny":
            print(f"  {e['path']}: brute count {e['expected_count']}")
    if args.check_dp:
        return check_dp(out, entries)
    return 0


def check_dp(out: Path, entries: list[dict]) -> int:
    """Count every file with an expected_count by the dp counter (its row programme where it applies, else its
    frontier programme; a few seconds in all)."""
    from harness.counting.counters import get_counter

    bad = 0
    for e in entries:
        if "expected_count" not in e:
            continue
        answer = get_counter("dp")().count(read_deployment(out / e["path"]))
        ok = answer.count == e["expected_count"]
        bad += not ok
        print(f"  dp ({answer.detail['method']}) {e['path']}: {answer.count} "
              f"{'ok' if ok else 'MISMATCH, expected ' + str(e['expected_count'])}")
    return 1 if bad else 0


def _fields(dep: Deployment) -> dict:
    return {f: getattr(dep, f) for f in Deployment.__dataclass_fields__}


if __name__ == "__main__":
    sys.exit(main())
