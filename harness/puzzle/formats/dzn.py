"""The MiniZinc ``solbat`` data format (``.dzn``): read and write.

Keys (each ``key = value;``, whitespace and ``% comments`` anywhere)::

    height = 12;  width = 12;      % board size
    maxship = 5;                   % longest ship length (optional on read: len(ship))
    ship = [2,0,1,4,4];            % ship[i] = number of ships of length i
    hint = [| 0, 0, ... | ... |];  % height x width; optional on read (all 0)
    rowsum = [...];  colsum = [...];

Hint codes: 0 unknown, 1 water, 2 circle (submarine), 3 left, 4 right, 5 top,
6 bottom, 7 middle.  dzn has no unknown clues, no ship-of-unknown-piece hint and no
touching flag: writing an instance that uses them raises InstanceFormatError whose
place names the clue, cell or rule.

Planted solution: the solbat files end with a comment block, one ``%`` line per row,
numbers = ship ids and ``.`` = water.  When present it goes into ``meta["planted"]`` as
board rows (``Board.from_cells``).  In the 12x12 and 13x13 files that block is the
*transpose* of the board the clues describe; the reader orients it by the clue sums
and says so in ``meta["planted_note"]`` (also when neither orientation fits).  The
writer emits ``meta["planted"]`` back as such a block, in the instance's orientation.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from harness.errors import InstanceFormatError
from harness.puzzle.board import Board
from harness.puzzle.formats._common import (
    build, check_known_clues, check_no_touching, cannot_express, default_name, dense_fleet,
)
from harness.puzzle.instance import Hint, Instance

FMT = "dzn"
CODES: dict[int, Hint | None] = {
    0: None, 1: Hint.WATER, 2: Hint.SUBMARINE, 3: Hint.LEFT, 4: Hint.RIGHT,
    5: Hint.TOP, 6: Hint.BOTTOM, 7: Hint.MIDDLE,
}
CODE_OF = {h: code for code, h in CODES.items() if h is not None}
KEYS = ("height", "width", "maxship", "ship", "hint", "rowsum", "colsum")

_TOKEN = re.compile(r"\s*(?:(-?\d+)|([A-Za-z_]\w*)|(\[\||\|\]|[\[\]|,;=])|(\S+?)(?=[\s\[\]|,;=]|$))")


class Tok(NamedTuple):
    kind: str  # int, id, punct, bad, end
    text: str
    line: int


def _tokenize(text: str) -> tuple[list[Tok], list[tuple[int, str]]]:
    toks: list[Tok] = []
    comments: list[tuple[int, str]] = []
    for ln, raw in enumerate(text.splitlines(), 1):
        code, pct, comment = raw.partition("%")
        if pct:
            comments.append((ln, comment))
        pos = 0
        while pos < len(code):
            m = _TOKEN.match(code, pos)
            if not m or m.end() == pos:
                break
            pos = m.end()
            kind = ("int", "id", "punct", "bad")[[g is not None for g in m.groups()].index(True)]
            toks.append(Tok(kind, m.group(m.lastindex), ln))
    toks.append(Tok("end", "end of file", len(text.splitlines()) or 1))
    return toks, comments


class _Parser:
    def __init__(self, text: str, file: str):
        self.toks, self.comments = _tokenize(text)
        self.i = 0
        self.file = file
        self.key = ""

    def err(self, problem: str, tok: Tok | None = None) -> InstanceFormatError:
        tok = tok or self.toks[self.i]
        what = f"{self.key}: " if self.key else ""
        return InstanceFormatError(what + problem, file=self.file, place=f"line {tok.line}")

    def next(self) -> Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.next()
        if tok.text != text or tok.kind == "end":
            raise self.err(f"expected {text!r}, got {tok.text!r}", tok)

    def integer(self) -> int:
        tok = self.next()
        if tok.kind != "int":
            raise self.err(f"expected an integer, got {tok.text!r}", tok)
        return int(tok.text)

    def items(self, close: tuple[str, ...]) -> tuple[list[int], Tok]:
        """Comma-separated integers up to one of ``close`` (trailing comma allowed)."""
        out: list[int] = []
        while True:
            tok = self.toks[self.i]
            if tok.text in close and tok.kind == "punct":
                self.i += 1
                return out, tok
            out.append(self.integer())
            tok = self.toks[self.i]
            if tok.text == "," and tok.kind == "punct":
                self.i += 1
            elif not (tok.text in close and tok.kind == "punct"):
                raise self.err(f"expected ',' or {' or '.join(map(repr, close))}, got {tok.text!r}", tok)

    def value(self) -> int | list[int] | list[list[int]]:
        tok = self.next()
        if tok.kind == "int":
            return int(tok.text)
        if tok.text == "[" and tok.kind == "punct":
            return self.items(("]",))[0]
        if tok.text == "[|" and tok.kind == "punct":
            rows: list[list[int]] = []
            if self.toks[self.i].text == "|]":
                self.i += 1
                return rows
            while True:
                row, closer = self.items(("|", "|]"))
                rows.append(row)
                if closer.text == "|]":
                    return rows
                if self.toks[self.i].text == "|]":  # `... |]` after a final `|`
                    self.i += 1
                    return rows
        raise self.err(f"expected an integer, '[' or '[|', got {tok.text!r}", tok)

    def statements(self) -> dict[str, tuple[object, int]]:
        out: dict[str, tuple[object, int]] = {}
        while self.toks[self.i].kind != "end":
            self.key = ""
            tok = self.next()
            if tok.kind != "id":
                raise self.err(f"expected a key name, got {tok.text!r}", tok)
            if tok.text not in KEYS:
                raise InstanceFormatError(
                    f"unknown key (expected one of {', '.join(KEYS)})", file=self.file, place=f"key {tok.text}"
                )
            if tok.text in out:
                raise InstanceFormatError("key given twice", file=self.file, place=f"line {tok.line}")
            self.key = tok.text
            self.expect("=")
            out[tok.text] = (self.value(), tok.line)
            self.expect(";")
        return out


def parse(text: str, *, file: str, name: str | None = None) -> Instance:
    p = _Parser(text, file)
    data = p.statements()

    def err(problem: str, key: str) -> InstanceFormatError:
        return InstanceFormatError(problem, file=file, place=f"key {key}")

    shapes = {"int": "an integer", "list": "a list [ ... ]", "array2d": "a 2-D array [| ... |]"}

    def get(key: str, kind: str, default: object = None) -> object:
        if key not in data:
            if default is not None:
                return default
            raise err("missing", key)
        v = data[key][0]
        if kind == "int":
            ok = isinstance(v, int)
        elif kind == "list":
            ok = isinstance(v, list) and all(isinstance(x, int) for x in v)
        else:
            ok = isinstance(v, list) and all(isinstance(x, list) for x in v)
        if not ok:
            raise err(f"must be {shapes[kind]}", key)
        return v

    height, width = get("height", "int"), get("width", "int")
    ship = get("ship", "list")
    maxship = get("maxship", "int", len(ship))
    if len(ship) != maxship:
        raise err(f"expected maxship = {maxship} entries, got {len(ship)}", "ship")
    for i, n in enumerate(ship):
        if n < 0:
            raise err(f"number of ships of length {i + 1} must be >= 0, got {n}", "ship")
    hint_rows = get("hint", "array2d", [])
    hints: dict[tuple[int, int], Hint] = {}
    if "hint" in data:
        if len(hint_rows) != height:
            raise err(f"expected {height} rows, got {len(hint_rows)}", "hint")
        for r, row in enumerate(hint_rows):
            if len(row) != width:
                raise err(f"row {r} has {len(row)} values, expected {width}", "hint")
            for c, code in enumerate(row):
                if code not in CODES:
                    raise InstanceFormatError(
                        f"hint code {code} not in 0..7", file=file, place=f"hint ({r},{c})")
                if CODES[code] is not None:
                    hints[(r, c)] = CODES[code]
    rowsum, colsum = get("rowsum", "list"), get("colsum", "list")
    meta = _planted(p.comments, height, width, rowsum, colsum) if height > 0 and width > 0 else {}
    return build(
        file, rows=height, cols=width, fleet={i + 1: n for i, n in enumerate(ship)},
        row_clues=rowsum, col_clues=colsum, hints=hints, name=name or default_name(file), meta=meta,
    )


def _planted(comments: list[tuple[int, str]], h: int, w: int, rowsum: list[int], colsum: list[int]) -> dict:
    grid = [c.split() for _, c in comments if c.split()]
    grid = [row for row in grid if all(t == "." or t.isdigit() for t in row)]
    if not grid:
        return {}
    shape = (len(grid), len(set(map(len, grid))) == 1 and len(grid[0]))
    as_is = shape == (h, w)
    transposed = shape == (w, h)
    if not (as_is or transposed):
        return {}
    cells = {(r, c) for r, row in enumerate(grid) for c, t in enumerate(row) if t != "."}

    def sums(cs: set[tuple[int, int]]) -> tuple[list[int], list[int]]:
        return [sum((r, c) in cs for c in range(w)) for r in range(h)], \
               [sum((r, c) in cs for r in range(h)) for c in range(w)]

    flipped = {(c, r) for r, c in cells}
    if as_is and sums(cells) == (rowsum, colsum):
        return {"planted": list(Board.from_cells(h, w, cells).rows)}
    if transposed and sums(flipped) == (rowsum, colsum):
        return {"planted": list(Board.from_cells(h, w, flipped).rows),
                "planted_note": "the planted solution in the comments is transposed; stored here in the "
                                "orientation the clues describe"}
    if not as_is:
        cells = flipped
    return {"planted": list(Board.from_cells(h, w, cells).rows),
            "planted_note": "the planted solution in the comments matches the clue sums in neither "
                            "orientation; stored as given"}


def _ship_ids(rows: list[str]) -> list[list[str]]:
    """Label the ships of a board row-major from 1; water as '.'."""
    ids = [["."] * len(rows[0]) for _ in rows]
    n = 0
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch == "." or ids[r][c] != ".":
                continue
            n += 1
            stack = [(r, c)]
            while stack:
                y, x = stack.pop()
                if 0 <= y < len(rows) and 0 <= x < len(line) and rows[y][x] != "." and ids[y][x] == ".":
                    ids[y][x] = str(n)
                    stack += [(y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)]
    return ids


def format(inst: Instance) -> str:  # noqa: A001 - the module's writer
    check_no_touching(inst, FMT)
    check_known_clues(inst, FMT)
    for (r, c), h in inst.hints.items():
        if h not in CODE_OF:
            raise cannot_express(FMT, "a ship hint of unknown piece", f"hint ({r},{c})")
    fleet = dense_fleet(inst.fleet)
    out = [f"% instance: {' '.join(inst.name.split())}", f"height = {inst.rows};", f"width = {inst.cols};",
           f"maxship = {max(fleet)};", f"ship = [{','.join(map(str, fleet.values()))}];", "hint = [|"]
    for r in range(inst.rows):
        codes = (str(CODE_OF[h]) if (h := inst.hints.get((r, c))) else "0" for c in range(inst.cols))
        out.append(", ".join(codes) + (" |" if r < inst.rows - 1 else " |];"))
    out += [f"rowsum = [{','.join(map(str, inst.row_clues))}];",
            f"colsum = [{','.join(map(str, inst.col_clues))}];"]
    planted = inst.meta.get("planted")
    if (isinstance(planted, list) and len(planted) == inst.rows
            and all(isinstance(r, str) and len(r) == inst.cols for r in planted)):
        out += ["%" + "".join(f" {t:>2}" for t in row) for row in _ship_ids(planted)]
    return "\n".join(out) + "\n"
