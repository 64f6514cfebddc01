"""The native TOML instance format: battlebench's own, lossless, human-readable.

Layout (tables in this order when written; all but ``[fleet]`` and ``[clues]`` optional
when read)::

    [meta]              # free-form: title, source, provenance, license, expected_status,
    name = "sb_12_12_5_0"   # expected_count, notes, planted, ...; `name` is the instance name
    [size]              # always written; when absent on read, the size comes from the
    rows = 12           # board if present, else from the lengths of the clue lists
    cols = 12
    [rules]
    touching = false    # may ships touch?  (false = the puzzle rule, also the default)
    [fleet]             # ship length = number of ships; zero counts are kept
    1 = 2
    3 = 1
    [clues]             # "?" = unknown
    rows = [6, 2, "?", ...]
    cols = [1, 7, 3, ...]
    [board]             # written only when there are hints
    rows = [            # one string per row:
      "..~.O.",         # `.` unknown, `~` water, `O` submarine, `< > ^ v` ends,
    ]                   # `#` middle, `*` ship cell of unknown piece

Reading is strict: an unknown table or key is an error naming it (``key rules.foo``),
except inside ``[meta]``, which is free-form.  ``meta.name`` becomes ``Instance.name``
(the file stem when absent) and is not repeated in ``Instance.meta``.  Round trip:
``parse(format(x))`` equals ``x`` in content, name and meta, for any meta that TOML can
hold (no ``None``; tuples come back as lists).
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from harness.errors import InstanceFormatError
from harness.puzzle.formats._common import UNKNOWN_CLUE, build, default_name
from harness.puzzle.instance import Hint, Instance

TABLES = ("meta", "size", "rules", "fleet", "clues", "board")
UNKNOWN_CELL = "."
BOARD_LEGEND = "`.` unknown, `~` water, `O` submarine, `< > ^ v` ends, `#` middle, `*` ship of unknown piece"


def parse(text: str, *, file: str, name: str | None = None) -> Instance:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at (?:line (\d+), column (\d+)|end of document)\)", msg)
        place = (f"line {m.group(1)} col {m.group(2)}" if m.group(1) else "end of file") if m else None
        problem = msg[: m.start()].strip() if m else msg
        raise InstanceFormatError(f"invalid TOML: {problem}", file=file, place=place) from None

    def err(problem: str, key: str) -> InstanceFormatError:
        return InstanceFormatError(problem, file=file, place=f"key {key}")

    for key, value in doc.items():
        if key not in TABLES:
            raise err(f"unknown table (expected one of {', '.join(TABLES)})", key)
        if not isinstance(value, dict):
            raise err("must be a table", key)

    def table(key: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        t = doc.get(key, {})
        for k in t:
            if k not in allowed:
                raise err(f"unknown key (expected {', '.join(allowed)})", f"{key}.{k}")
        return t

    meta = dict(doc.get("meta", {}))
    file_name = meta.pop("name", None)
    if file_name is not None and not isinstance(file_name, str):
        raise err("must be a string", "meta.name")

    size = table("size", ("rows", "cols"))
    for k, v in size.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise err(f"must be a positive integer, got {v!r}", f"size.{k}")

    rules = table("rules", ("touching",))
    touching = rules.get("touching", False)
    if not isinstance(touching, bool):
        raise err(f"must be true or false, got {touching!r}", "rules.touching")

    if "fleet" not in doc:
        raise err("missing table", "fleet")
    fleet: dict[int, int] = {}
    for k, v in doc["fleet"].items():
        if not re.fullmatch(r"[0-9]+", k) or int(k) < 1:
            raise err("ship length must be a positive integer", f"fleet.{k}")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise err(f"number of ships must be an integer >= 0, got {v!r}", f"fleet.{k}")
        if int(k) in fleet:
            raise err("ship length listed twice", f"fleet.{k}")
        fleet[int(k)] = v

    if "clues" not in doc:
        raise err("missing table", "clues")
    clues = table("clues", ("rows", "cols"))
    lines: dict[str, list[int | None]] = {}
    for k in ("rows", "cols"):
        if k not in clues:
            raise err("missing key", f"clues.{k}")
        if not isinstance(clues[k], list):
            raise err("must be a list of integers and \"?\"", f"clues.{k}")
        out: list[int | None] = []
        for i, v in enumerate(clues[k]):
            if v == UNKNOWN_CLUE:
                out.append(None)
            elif isinstance(v, int) and not isinstance(v, bool):
                out.append(v)
            else:
                raise err(f"clue must be an integer or \"?\", got {v!r}", f"clues.{k}[{i}]")
        lines[k] = out

    board = table("board", ("rows",))
    grid: list[str] | None = None
    if board:
        grid = board.get("rows")
        if not isinstance(grid, list) or not all(isinstance(r, str) for r in grid):
            raise err("must be a list of strings, one per row", "board.rows")

    rows = size.get("rows", len(grid) if grid is not None else len(lines["rows"]))
    cols = size.get("cols", len(grid[0]) if grid else len(lines["cols"]))
    hints: dict[tuple[int, int], Hint] = {}
    if grid is not None:
        if len(grid) != rows:
            raise err(f"expected {rows} rows, got {len(grid)}", "board.rows")
        for r, line in enumerate(grid):
            if len(line) != cols:
                raise err(f"row {r} has {len(line)} cells, expected {cols}", f"board.rows[{r}]")
            for c, ch in enumerate(line):
                if ch == UNKNOWN_CELL:
                    continue
                try:
                    hints[(r, c)] = Hint.from_symbol(ch)
                except ValueError:
                    raise InstanceFormatError(
                        f"unknown board symbol {ch!r} (use {BOARD_LEGEND})", file=file, place=f"row {r} col {c}"
                    ) from None

    return build(
        file, rows=rows, cols=cols, fleet=fleet, row_clues=lines["rows"], col_clues=lines["cols"],
        hints=hints, touching=touching, name=name or file_name or default_name(file), meta=meta,
    )


def _clue_list(clues: tuple[int | None, ...]) -> str:
    return "[" + ", ".join('"?"' if v is None else str(v) for v in clues) + "]"


def format(inst: Instance) -> str:  # noqa: A001 - the module's writer
    import tomli_w  # writing only: reading a puzzle does not import it

    meta = {k: v for k, v in inst.meta.items() if k != "name"}
    try:
        head = tomli_w.dumps({"meta": {"name": inst.name, **meta}})
    except (TypeError, ValueError) as exc:
        raise InstanceFormatError(f"metadata cannot be written as TOML: {exc}", place="key meta") from None
    out = [head.rstrip("\n"), ""]
    out += ["[size]", f"rows = {inst.rows}", f"cols = {inst.cols}", ""]
    out += ["[rules]", f"touching = {'true' if inst.touching else 'false'}", ""]
    out += ["[fleet]  # ship length = number of ships"]
    out += [f"{length} = {count}" for length, count in inst.fleet.items()]
    out += ["", '[clues]  # "?" = unknown', f"rows = {_clue_list(inst.row_clues)}",
            f"cols = {_clue_list(inst.col_clues)}"]
    if inst.hints:
        out += ["", f"[board]  # {BOARD_LEGEND}", "rows = ["]
        for r in range(inst.rows):
            row = "".join(
                h.value if (h := inst.hints.get((r, c))) else UNKNOWN_CELL for c in range(inst.cols)
            )
            out.append(f'    "{row}",')
        out.append("]")
    return "\n".join(out) + "\n"
