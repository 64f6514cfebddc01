"""The ASCII-art format of seed-001 ("Solving Battleships with SAT"): read and write.

Two spellings are read; the clean one is written::

    ships = +++++ ++++ ++++ +++ + +      <- one run of `+` per ship (its length)
    across = 4 4 3 ? 5 1                 <- COLUMN clues, left to right (`?` unknown)
    down = 1 1 2 4 ? 1                   <- ROW clues, top to bottom
    ......                               <- the grid, one line per row
    ..#>..

The seed's Python spelling is accepted as well: values in ``'...'`` or ``"..."``
quotes, and the grid inside ``puzzle = \"\"\"\\`` ... ``\"\"\"`` (the closing quotes
may end the last grid row).  Note the seed's naming: ``across`` lists the numbers
*across the top*, i.e. the column clues; ``down`` lists those *down the side*, the
row clues.  The three keys may come in any order, before the grid; blank lines are
ignored.  Without a grid the size comes from the clue counts (no hints).

Grid symbols: ``.`` unknown, ``~`` water, ``O`` submarine, ``< > ^ v`` ends, ``#``
middle, and (battlebench's extension, not in the seed) ``*`` a ship cell of unknown
piece.  The format has no touching flag (writing ``touching = true`` is an error)
and no zero ship counts (dropped on write).
"""

from __future__ import annotations

import re
from collections import Counter

from harness.errors import InstanceFormatError
from harness.puzzle.formats._common import build, check_no_touching, clue_text, default_name, parse_clue
from harness.puzzle.instance import CELL_SYMBOLS, Hint, Instance

FMT = "ascii"
KEYS = ("ships", "across", "down")
UNKNOWN_SYMBOL = "."  # a cell nothing is known of
GRID_SYMBOLS = UNKNOWN_SYMBOL + CELL_SYMBOLS + Hint.SHIP.value  # ".~O<>^v#*"
_KEY_LINE = re.compile(r"^\s*(\w+)\s*=\s*(.*?)\s*$")
_PUZZLE_OPEN = re.compile(r'^\s*puzzle\s*=\s*("""|\'\'\')(\\?)(.*)$')


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse(text: str, *, file: str, name: str | None = None) -> Instance:
    values: dict[str, tuple[str, int]] = {}
    grid: list[tuple[str, int]] = []
    closing: str | None = None  # the quote that ends a `puzzle = """` block
    lines = text.splitlines()
    for ln, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if closing is not None:
            if line.endswith(closing):
                line, closing = line[: -len(closing)], None
                if line:
                    grid.append((line, ln))
            else:
                grid.append((line, ln))
            continue
        if not line.strip():
            continue
        m = _PUZZLE_OPEN.match(line)
        if m:
            if grid:
                raise InstanceFormatError("a second grid", file=file, place=f"line {ln}")
            closing, rest = m.group(1), m.group(3)
            if rest.endswith(closing):
                rest, closing = rest[: -len(closing)], None
            if rest:
                grid.append((rest, ln))
            continue
        m = _KEY_LINE.match(line)
        if m and not set(line.strip()) <= set(GRID_SYMBOLS):
            key = m.group(1)
            if key not in KEYS:
                raise InstanceFormatError(f"unknown key (expected one of {', '.join(KEYS)})",
                                          file=file, place=f"line {ln}")
            if key in values:
                raise InstanceFormatError(f"{key} given twice", file=file, place=f"line {ln}")
            if grid:
                raise InstanceFormatError(f"{key} after the grid", file=file, place=f"line {ln}")
            values[key] = (_unquote(m.group(2)), ln)
            continue
        grid.append((line.strip(), ln))
    if closing is not None:
        raise InstanceFormatError(f"grid not closed with {closing}", file=file, place=f"line {len(lines)}")
    for key in KEYS:
        if key not in values:
            raise InstanceFormatError("missing", file=file, place=f"key {key}")

    fleet: Counter[int] = Counter()
    ships_text, ln = values["ships"]
    for tok in ships_text.split():
        if set(tok) != {"+"}:
            raise InstanceFormatError(f"ship {tok!r} is not a run of '+'", file=file, place=f"line {ln}")
        fleet[len(tok)] += 1
    clues = {}
    for key in ("across", "down"):
        text_, ln = values[key]
        clues[key] = [parse_clue(tok, file=file, place=f"line {ln}") for tok in text_.split()]

    hints: dict[tuple[int, int], Hint] = {}
    if grid:
        width = len(grid[0][0])
        for r, (row, ln) in enumerate(grid):
            if len(row) != width:
                raise InstanceFormatError(f"row has {len(row)} cells, expected {width}", file=file,
                                          place=f"line {ln}")
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                if ch not in GRID_SYMBOLS:
                    raise InstanceFormatError(
                        f"unknown grid symbol {ch!r} (expected one of {' '.join(GRID_SYMBOLS)})",
                        file=file, place=f"line {ln} col {c + 1}")
                hints[(r, c)] = Hint.from_symbol(ch)
        rows, cols = len(grid), width
    else:
        rows, cols = len(clues["down"]), len(clues["across"])
    return build(file, rows=rows, cols=cols, fleet=dict(fleet), row_clues=clues["down"],
                 col_clues=clues["across"], hints=hints, name=name or default_name(file))


def format(inst: Instance) -> str:  # noqa: A001 - the module's writer
    check_no_touching(inst, FMT)
    ships = " ".join("+" * length for length, n in sorted(inst.fleet.items(), reverse=True) for _ in range(n))
    out = [f"ships = {ships}",
           f"across = {' '.join(map(clue_text, inst.col_clues))}",
           f"down = {' '.join(map(clue_text, inst.row_clues))}"]
    for r in range(inst.rows):
        out.append("".join(h.value if (h := inst.hints.get((r, c))) else "." for c in range(inst.cols)))
    return "\n".join(out) + "\n"
