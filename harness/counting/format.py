"""Deployment files: the native TOML format extended with ``[grid]`` and ``[pieces]``, and puzzles read as deployments.

A deployment file is a native ``.toml`` with a ``[grid]`` table::

    [meta]
    name = "standard_10x10"
    source = "seed-003"              # free-form: source, provenance, expected_count, ...
    [grid]
    kind = "square"                  # or "hex"
    rows = 10                        # square: a rows x cols rectangle ...
    cols = 10
    islands = [[4, 4], [4, 5]]       # ... without these cells (optional)
    # cells = [[r, c], ...]          # or the board's cells listed (hex: [x, y, z] cube coordinates,
    #                                #    x + y + z = 0; islands must be among them)
    [rules]
    touching = true                  # may pieces touch? (default true: the two-player game)
    reflections = false              # may pieces be mirrored? (default false)
    [pieces]
    Carrier = 5                      # a straight piece of 5 cells
    Battleship = 4
    [pieces.Cruiser]
    length = 3                       # straight, or cells = [[0, 0], [1, 0], [1, 1]] for any shape
    count = 2                        # two identical copies (unlabelled)
    [hints]                          # a game position (all optional)
    misses = [[0, 0]]
    hits = [[1, 1], [1, 2]]
    sunk = { Destroyer = [[5, 5], [5, 6]] }   # a piece's exact cells
    sunk_at = { Carrier = [2, 3] }            # a piece sank at this cell: it covers it, within the hits
    sunk_within = { Carrier = [[2, 2], [2, 3]] }  # ... within these hits (those made up to its sink)
    announce_sinks = true            # a piece not sunk never lies wholly within the hits
    [clues]                          # square boards: occupied cells per row / column, "?" unknown
    rows = [1, "?", 3]

Every existing puzzle file keeps its meaning: :func:`read_deployment` reads a puzzle (any
format) as the deployment of its fleet on its board (pieces ``ship5``, ``ship3`` x 2, ...
as identical copies per length), its touching rule, its clues, and its water / ship hints
as misses / hits.  Piece hints (``O < > ^ v #``) say more than a hit and have no deployment
form: such a puzzle is refused with one line.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import KINDS, Cell, Grid
from harness.errors import InstanceFormatError

TABLES = ("meta", "grid", "rules", "pieces", "hints", "clues")
GRID_KEYS = ("kind", "rows", "cols", "cells", "islands")
RULE_KEYS = ("touching", "reflections")
HINT_KEYS = ("misses", "hits", "sunk", "sunk_at", "sunk_within", "announce_sinks")
PIECE_KEYS = ("length", "cells", "count")


def is_deployment_text(text: str) -> bool:
    """Does this TOML text describe a deployment (a ``[grid]`` or ``[pieces]`` table)?"""
    return bool(re.search(r"^\s*\[(grid|pieces)[\].]", text, re.M))


def _cell(value: Any, grid: Grid, where: str) -> Cell:
    if not isinstance(value, list) or len(value) != grid.dim or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        shape = "[row, col]" if grid.kind == "square" else "[x, y, z]"
        raise InstanceFormatError(f"a cell is {shape}, not {value!r}", place=where)
    cell = tuple(value)
    if not grid.valid(cell):
        raise InstanceFormatError(f"{value} is not a hex cell: x + y + z must be 0", place=where)
    return cell


def _cells(value: Any, grid: Grid, where: str) -> list[Cell]:
    if not isinstance(value, list):
        raise InstanceFormatError(f"must be a list of cells, not {type(value).__name__}", place=where)
    return [_cell(v, grid, f"{where}[{i}]") for i, v in enumerate(value)]


def _unknown(table: dict, known: tuple[str, ...], where: str) -> None:
    for key in table:
        if key not in known:
            raise InstanceFormatError(f"unknown key (known: {', '.join(known)})", place=f"{where}.{key}")


def _flag(table: dict, key: str, default: bool, where: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise InstanceFormatError(f"must be true or false, not {value!r}", place=f"{where}.{key}")
    return value


def _board(doc: dict, where: str = "grid") -> tuple[Grid, frozenset[Cell], tuple[int, int] | None]:
    table = doc.get("grid")
    if not isinstance(table, dict):
        raise InstanceFormatError("a deployment needs a [grid] table", place="grid")
    _unknown(table, GRID_KEYS, where)
    kind = table.get("kind", "square")
    if kind not in KINDS:
        raise InstanceFormatError(f"unknown grid kind {kind!r} (expected one of {', '.join(KINDS)})",
                                  place="grid.kind")
    grid = Grid(kind)
    shape = None
    if "cells" in table:
        if "rows" in table or "cols" in table:
            raise InstanceFormatError("give either cells or rows and cols", place="grid")
        cells = _cells(table["cells"], grid, "grid.cells")
        if len(set(cells)) != len(cells):
            raise InstanceFormatError("a cell is listed twice", place="grid.cells")
    elif kind == "square":
        rows, cols = table.get("rows"), table.get("cols")
        for key, v in (("rows", rows), ("cols", cols)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InstanceFormatError(f"must be an integer >= 1, not {v!r}", place=f"grid.{key}")
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        shape = (rows, cols)
    else:
        raise InstanceFormatError("a hex board lists its cells", place="grid.cells")
    board = set(cells)
    for i, island in enumerate(_cells(table.get("islands", []), grid, "grid.islands")):
        if island not in board:
            raise InstanceFormatError(f"island {list(island)} is not on the board", place=f"grid.islands[{i}]")
        board.discard(island)
    return grid, frozenset(board), shape


def _pieces(doc: dict, grid: Grid) -> list[Piece]:
    table = doc.get("pieces")
    if not isinstance(table, dict) or not table:
        raise InstanceFormatError("a deployment needs a [pieces] table naming at least one piece", place="pieces")
    out = []
    for name, spec in table.items():
        where = f"pieces.{name}"
        count = 1
        if isinstance(spec, int) and not isinstance(spec, bool):
            spec = {"length": spec}
        if not isinstance(spec, dict):
            raise InstanceFormatError("must be a length or a table with length or cells (and count)", place=where)
        _unknown(spec, PIECE_KEYS, where)
        if ("length" in spec) == ("cells" in spec):
            raise InstanceFormatError("give either length or cells", place=where)
        if "length" in spec:
            length = spec["length"]
            if not isinstance(length, int) or isinstance(length, bool) or length < 1:
                raise InstanceFormatError(f"length must be an integer >= 1, not {length!r}", place=f"{where}.length")
            cells = list(grid.straight(length))
        else:
            cells = _cells(spec["cells"], grid, f"{where}.cells")
        count = spec.get("count", 1)
        out.append(Piece(str(name), tuple(cells), count))
    return out


def _hints(doc: dict, grid: Grid) -> dict[str, Any]:
    table = doc.get("hints", {})
    if not isinstance(table, dict):
        raise InstanceFormatError("must be a table", place="hints")
    _unknown(table, HINT_KEYS, "hints")
    out: dict[str, Any] = {
        "misses": _cells(table.get("misses", []), grid, "hints.misses"),
        "hits": _cells(table.get("hits", []), grid, "hints.hits"),
        "announce_sinks": _flag(table, "announce_sinks", False, "hints"),
    }
    for key in ("sunk", "sunk_at", "sunk_within"):
        value = table.get(key, {})
        if not isinstance(value, dict):
            raise InstanceFormatError("must be a table: piece name = cells", place=f"hints.{key}")
        if key in ("sunk", "sunk_within"):
            out[key] = {n: tuple(_cells(v, grid, f"hints.{key}.{n}")) for n, v in value.items()}
        else:
            out[key] = {n: _cell(v, grid, f"hints.sunk_at.{n}") for n, v in value.items()}
    return out


def _clues(doc: dict) -> tuple[tuple | None, tuple | None]:
    table = doc.get("clues", {})
    if not isinstance(table, dict):
        raise InstanceFormatError("must be a table", place="clues")
    _unknown(table, ("rows", "cols"), "clues")
    out = []
    for key in ("rows", "cols"):
        value = table.get(key)
        if value is None:
            out.append(None)
            continue
        if not isinstance(value, list):
            raise InstanceFormatError("must be a list", place=f"clues.{key}")
        out.append(tuple(None if v == "?" else v for v in value))
    return out[0], out[1]


def parse_deployment(text: str, *, file: str, name: str | None = None) -> Deployment:
    """A deployment from native TOML text (see the module docstring)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstanceFormatError(f"invalid TOML: {exc}", file=file) from None
    try:
        for key in doc:
            if key not in TABLES:
                raise InstanceFormatError(f"unknown table (known: {', '.join(TABLES)})", place=f"table {key}")
        grid, cells, shape = _board(doc)
        rules = doc.get("rules", {})
        if not isinstance(rules, dict):
            raise InstanceFormatError("must be a table", place="rules")
        _unknown(rules, RULE_KEYS, "rules")
        meta = dict(doc.get("meta", {}))
        title = str(meta.pop("name", None) or name or Path(file).stem)
        rows, cols = _clues(doc)
        return Deployment(grid, cells, tuple(_pieces(doc, grid)), touching=_flag(rules, "touching", True, "rules"),
                          reflections=_flag(rules, "reflections", False, "rules"), row_clues=rows, col_clues=cols,
                          name=title, meta=meta, shape=shape, **_hints(doc, grid))
    except InstanceFormatError as err:
        raise err.located(file=file) from None


def format_deployment(dep: Deployment) -> str:
    """The native TOML text of a deployment (``parse_deployment`` reads it back equal in content)."""
    doc: dict[str, Any] = {"meta": {"name": dep.name, **dict(dep.meta)}}
    if dep.grid.kind == "square":
        rows, cols = dep.rows, dep.cols
        missing = sorted((r, c) for r in range(rows) for c in range(cols) if (r, c) not in dep.cells)
        doc["grid"] = {"kind": "square", "rows": rows, "cols": cols}
        if missing:
            doc["grid"]["islands"] = [list(c) for c in missing]
    else:
        doc["grid"] = {"kind": "hex", "cells": [list(c) for c in sorted(dep.cells)]}
    doc["rules"] = {"touching": dep.touching, "reflections": dep.reflections}
    pieces: dict[str, Any] = {}
    for p in dep.pieces:
        length = p.size if sorted(p.cells) == sorted(dep.grid.straight(p.size)) else None
        spec: dict[str, Any] = {"length": length} if length else {"cells": [list(c) for c in p.cells]}
        if p.count != 1:
            spec["count"] = p.count
        pieces[p.name] = spec["length"] if list(spec) == ["length"] else spec
    doc["pieces"] = pieces
    hints: dict[str, Any] = {}
    if dep.misses:
        hints["misses"] = [list(c) for c in sorted(dep.misses)]
    plain_hits = dep.hits - {c for cells in dep.sunk.values() for c in cells} - set(dep.sunk_at.values())
    plain_hits -= {c for cells in dep.sunk_within.values() for c in cells}
    if plain_hits:
        hints["hits"] = [list(c) for c in sorted(plain_hits)]
    if dep.sunk:
        hints["sunk"] = {k: [list(c) for c in v] for k, v in dep.sunk.items()}
    if dep.sunk_at:
        hints["sunk_at"] = {k: list(v) for k, v in dep.sunk_at.items()}
    if dep.sunk_within:
        hints["sunk_within"] = {k: [list(c) for c in sorted(v)] for k, v in dep.sunk_within.items()}
    if dep.announce_sinks:
        hints["announce_sinks"] = True
    if hints:
        doc["hints"] = hints
    clues = {k: ["?" if v is None else v for v in vals] for k, vals in (("rows", dep.row_clues),
                                                                          ("cols", dep.col_clues)) if vals}
    if clues:
        doc["clues"] = clues
    return tomli_w.dumps(doc)


def from_puzzle(inst: Any) -> Deployment:
    """A puzzle instance read as a deployment (see the module docstring)."""
    from harness.puzzle.instance import Hint

    pieces = tuple(Piece(f"ship{length}", tuple((0, i) for i in range(length)), n)
                   for length, n in sorted(inst.fleet.items(), reverse=True) if n > 0)
    piece_hints = sorted(c for c, h in inst.hints.items() if h.is_piece)
    if piece_hints:
        raise InstanceFormatError(f"the piece hint at {list(piece_hints[0])} says more than a hit; a deployment "
                                  "knows hits and misses only (count such a puzzle with a puzzle backend)",
                                  place="board")
    return Deployment(Grid("square"), frozenset((r, c) for r in range(inst.rows) for c in range(inst.cols)), pieces,
                      touching=inst.touching,
                      misses=frozenset(c for c, h in inst.hints.items() if h is Hint.WATER),
                      hits=frozenset(c for c, h in inst.hints.items() if h is Hint.SHIP),
                      row_clues=None if all(v is None for v in inst.row_clues) else inst.row_clues,
                      col_clues=None if all(v is None for v in inst.col_clues) else inst.col_clues,
                      name=inst.name, meta=dict(inst.meta))


def read_deployment(path: str | Path) -> Deployment:
    """A deployment file, or any puzzle file read as a deployment (InstanceFormatError on bad input)."""
    from harness.core.files import read_text

    path = Path(path)
    try:
        text = read_text(path)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InstanceFormatError(f"cannot read: {reason}", file=str(path)) from None
    if path.suffix.lower() == ".toml" and is_deployment_text(text):
        return parse_deployment(text, file=str(path))
    from harness.puzzle.formats import read_instance

    inst = read_instance(path)
    try:
        return from_puzzle(inst)
    except InstanceFormatError as err:
        raise err.located(file=str(path)) from None


def write_deployment(dep: Deployment, path: str | Path) -> None:
    try:
        Path(path).write_text(format_deployment(dep), encoding="utf-8")
    except OSError as exc:
        raise InstanceFormatError(f"cannot write: {exc.strerror or exc}", file=str(path)) from None


__all__ = ["format_deployment", "from_puzzle", "is_deployment_text", "parse_deployment", "read_deployment",
           "write_deployment"]
