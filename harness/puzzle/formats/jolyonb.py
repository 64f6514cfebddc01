"""The plain-text format of jolyonb/puzzles' battleship solver: read and write.

Lines starting with ``#`` are comments; blank lines are ignored.  The other lines are,
in order, comma-separated::

    4, 0, 2, ?, 2, 1      <- row clues, top to bottom (`?` unknown)
    1, 0, 4, 0, 3, 2      <- column clues, left to right
    3, 2, 1               <- number of ships by length, shortest first (length 1, 2, ...)
    2, 2, w               <- zero or more hints: x (column), y (row), kind

Hint kinds: ``w`` water, ``o`` submarine, ``#`` ship cell of unknown piece, ``< > ^ v``
ends.  There is no middle-piece hint and no touching flag: writing either raises
InstanceFormatError naming the cell or rule.  The fleet is written with a count for
every length from 1 to the longest listed, so zero counts up to it survive a round trip.
"""

from __future__ import annotations

from harness.errors import InstanceFormatError
from harness.puzzle.formats._common import (
    build, cannot_express, check_no_touching, clue_text, default_name, dense_fleet, parse_clue, parse_int,
)
from harness.puzzle.instance import Hint, Instance, add_hints

FMT = "jolyonb"
KINDS = {"w": Hint.WATER, "o": Hint.SUBMARINE, "#": Hint.SHIP, "<": Hint.LEFT, ">": Hint.RIGHT,
         "^": Hint.TOP, "v": Hint.BOTTOM}
KIND_OF = {h: k for k, h in KINDS.items()}
HEADER = """\
# Initial information: x, y, information
# Positions start at (0, 0) in the top left corner, given as (x, y)
# w = water
# o = one-length boat
# # = boat (unknown piece)
# <, >, ^, v, boat ends"""


def parse(text: str, *, file: str, name: str | None = None) -> Instance:
    lines = [(ln, s.strip()) for ln, s in enumerate(text.splitlines(), 1)]
    data = [(ln, s) for ln, s in lines if s and not s.startswith("#")]
    for i, what in enumerate(("row clues", "column clues", "numbers of ships")):
        if len(data) <= i:
            raise InstanceFormatError(f"missing the line of {what}", file=file, place=f"line {len(lines) + 1}")

    def fields(ln: int, s: str) -> list[str]:
        out = [f.strip() for f in s.split(",")]
        if out and out[-1] == "" and len(out) > 1:  # a trailing comma
            out.pop()
        if any(f == "" for f in out):
            raise InstanceFormatError("empty field", file=file, place=f"line {ln}")
        return out

    (ln_r, row_s), (ln_c, col_s), (ln_f, fleet_s) = data[:3]
    row_clues = [parse_clue(f, file=file, place=f"line {ln_r}") for f in fields(ln_r, row_s)]
    col_clues = [parse_clue(f, file=file, place=f"line {ln_c}") for f in fields(ln_c, col_s)]
    counts = [parse_int(f, what="number of ships", file=file, place=f"line {ln_f}") for f in fields(ln_f, fleet_s)]
    for length, n in enumerate(counts, 1):
        if n < 0:
            raise InstanceFormatError(f"number of ships of length {length} must be >= 0, got {n}",
                                      file=file, place=f"line {ln_f}")
    rows, cols = len(row_clues), len(col_clues)
    pairs = []
    for ln, s in data[3:]:
        f = fields(ln, s)
        if len(f) != 3:
            raise InstanceFormatError(f"a hint is 'x, y, kind', got {len(f)} fields", file=file, place=f"line {ln}")
        x = parse_int(f[0], what="x", file=file, place=f"line {ln}")
        y = parse_int(f[1], what="y", file=file, place=f"line {ln}")
        kind = KINDS.get(f[2].lower() if f[2] in ("W", "O") else f[2])
        if kind is None:
            raise InstanceFormatError(f"unknown hint kind {f[2]!r} (expected one of {' '.join(KINDS)})",
                                      file=file, place=f"line {ln}")
        if not (0 <= x < cols and 0 <= y < rows):
            raise InstanceFormatError(f"hint at x={x}, y={y} is outside the {rows}x{cols} board",
                                      file=file, place=f"line {ln}")
        pairs.append(((y, x), kind))
    hints = add_hints(pairs, file=file)
    return build(file, rows=rows, cols=cols, fleet=dict(enumerate(counts, 1)), row_clues=row_clues,
                 col_clues=col_clues, hints=hints, name=name or default_name(file))


def format(inst: Instance) -> str:  # noqa: A001 - the module's writer
    check_no_touching(inst, FMT)
    for (r, c), h in inst.hints.items():
        if h not in KIND_OF:
            raise cannot_express(FMT, "a middle-piece hint", f"hint ({r},{c})")
    out = ["# Row clues", ", ".join(map(clue_text, inst.row_clues)),
           "# Column clues", ", ".join(map(clue_text, inst.col_clues)),
           "# Number of Ships (shortest first)", ", ".join(map(str, dense_fleet(inst.fleet).values()))]
    if inst.hints:
        out.append(HEADER)
        out += [f"{c}, {r}, {KIND_OF[h]}" for (r, c), h in inst.hints.items()]
    return "\n".join(out) + "\n"
