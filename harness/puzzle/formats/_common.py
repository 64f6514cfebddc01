"""Shared helpers of the format modules: names, clue tokens, building an Instance.

Conventions every format follows:

* text positions (``line 7``, ``line 7 col 3``) are 1-based, as in an editor;
* cells (``hint (2,5)``) are 0-based ``(row, column)`` as in :class:`Instance`;
* every problem is an :class:`InstanceFormatError` carrying the file name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from harness.errors import InstanceFormatError
from harness.puzzle.instance import Instance

UNKNOWN_CLUE = "?"


def default_name(file: str | None) -> str:
    """The instance name when the file gives none: the file's stem."""
    if not file or file.startswith("<"):
        return "unnamed"
    return Path(file).stem or "unnamed"


def build(file: str, **fields: Any) -> Instance:
    """Construct an Instance, giving validation errors the file name."""
    try:
        return Instance(**fields)
    except InstanceFormatError as err:
        raise err.located(file=file) from None


def parse_int(token: str, *, what: str, file: str, place: str) -> int:
    """An integer token (optionally signed) or an error naming what was expected."""
    t = token.strip()
    body = t[1:] if t[:1] in "+-" else t
    if not body.isdigit() or not body.isascii():
        raise InstanceFormatError(f"{what}: expected an integer, got {token.strip()!r}", file=file, place=place)
    return int(t)


def parse_clue(token: str, *, file: str, place: str) -> int | None:
    """A clue token: an integer, or ``?`` for unknown."""
    if token.strip() == UNKNOWN_CLUE:
        return None
    return parse_int(token, what="clue", file=file, place=place)


def clue_text(v: int | None) -> str:
    return UNKNOWN_CLUE if v is None else str(v)


def dense_fleet(fleet: Mapping[int, int]) -> dict[int, int]:
    """The fleet with a (possibly zero) count for every length 1..longest listed."""
    top = max(fleet)
    return {length: fleet.get(length, 0) for length in range(1, top + 1)}


def cannot_express(fmt: str, what: str, place: str) -> InstanceFormatError:
    return InstanceFormatError(f"{what} cannot be expressed in the {fmt} format", place=place)


def check_no_touching(inst: Instance, fmt: str) -> None:
    if inst.touching:
        raise cannot_express(fmt, "touching = true", "rules touching")


def check_known_clues(inst: Instance, fmt: str) -> None:
    for what, clues in (("row-clues", inst.row_clues), ("col-clues", inst.col_clues)):
        for i, v in enumerate(clues):
            if v is None:
                raise cannot_express(fmt, "an unknown clue", f"{what}[{i}]")
