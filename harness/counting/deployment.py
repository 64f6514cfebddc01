"""A deployment instance: a board of cells, named pieces, the touching rule, what is known (hints, clues).

The counting task asks how many ways the pieces can be *deployed* on the board: every
piece placed (in one of its orientations, on board cells), no two sharing a cell and,
when touching is forbidden, none touching another at a side or a corner.

* **pieces** are named shapes.  Pieces with distinct names are distinct (labelled): two
  3-cell ships named Submarine and Cruiser swap to give two deployments.  A piece with
  ``count > 1`` stands for that many identical copies (unlabelled): swapping them gives
  the same deployment.
* **hints**, what a game position reveals: ``misses`` (no piece there), ``hits`` (some
  piece there), ``sunk`` (a piece's exact cells), ``sunk_at`` (a piece sank at this cell:
  it covers the cell and lies within the hits), ``sunk_within`` (for a piece of
  ``sunk_at``, the hits made up to the shot that sank it: it lies within those, not
  within hits made later), and ``announce_sinks`` (sinks are announced, so a piece that
  is not sunk never lies wholly within the hits).
* **clues** (square boards): the number of occupied cells per row and per column, ``None``
  where unknown; a board without clues has ``row_clues is None``.

Validation raises :class:`~harness.errors.InstanceFormatError` naming the place.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from harness.counting.geometry import Cell, Grid
from harness.errors import InstanceFormatError


@dataclass(frozen=True)
class Piece:
    """A named shape; ``count`` identical copies of it."""

    name: str
    cells: tuple[Cell, ...]
    count: int = 1

    @property
    def size(self) -> int:
        return len(self.cells)


def _freeze(d: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Deployment:
    """One counting instance (see the module docstring)."""

    grid: Grid
    cells: frozenset[Cell]
    pieces: tuple[Piece, ...]
    touching: bool = True
    reflections: bool = False
    misses: frozenset[Cell] = frozenset()
    hits: frozenset[Cell] = frozenset()
    sunk: Mapping[str, tuple[Cell, ...]] = field(default_factory=dict)
    sunk_at: Mapping[str, Cell] = field(default_factory=dict)
    announce_sinks: bool = False
    row_clues: tuple[int | None, ...] | None = None
    col_clues: tuple[int | None, ...] | None = None
    name: str = "unnamed"
    meta: Mapping[str, Any] = field(default_factory=dict)
    shape: tuple[int, int] | None = None  # square boards: the declared rows x cols (islands may take whole lines)
    sunk_within: Mapping[str, frozenset[Cell]] = field(default_factory=dict)  # sunk_at piece -> hits at its sink

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", frozenset(self.cells))
        object.__setattr__(self, "pieces", tuple(self.pieces))
        object.__setattr__(self, "misses", frozenset(self.misses))
        sunk = {k: tuple(sorted(v)) for k, v in dict(self.sunk).items()}
        object.__setattr__(self, "sunk", _freeze(sunk))
        object.__setattr__(self, "sunk_at", _freeze(dict(self.sunk_at)))
        object.__setattr__(self, "sunk_within", _freeze({k: frozenset(v) for k, v in dict(self.sunk_within).items()}))
        hits = set(self.hits) | {c for cells in sunk.values() for c in cells} | set(self.sunk_at.values())
        hits |= {c for cells in self.sunk_within.values() for c in cells}
        object.__setattr__(self, "hits", frozenset(hits))
        object.__setattr__(self, "meta", _freeze(dict(self.meta)))
        for name in ("row_clues", "col_clues"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value))
        self.validate()

    def __reduce__(self):  # mapping proxies do not pickle
        return (_rebuild, (self.grid.kind, sorted(self.cells), [(p.name, p.cells, p.count) for p in self.pieces],
                           self.touching, self.reflections, sorted(self.misses), sorted(self.hits), dict(self.sunk),
                           dict(self.sunk_at), self.announce_sinks, self.row_clues, self.col_clues, self.name,
                           dict(self.meta), self.shape, {k: sorted(v) for k, v in self.sunk_within.items()}))

    # -- derived --------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        """Square boards: the declared rows, else those of the bounding box from row 0 (0 on hex boards)."""
        if self.shape is not None:
            return self.shape[0]
        return 1 + max(c[0] for c in self.cells) if self.grid.kind == "square" and self.cells else 0

    @property
    def cols(self) -> int:
        if self.shape is not None:
            return self.shape[1]
        return 1 + max(c[1] for c in self.cells) if self.grid.kind == "square" and self.cells else 0

    def _box(self) -> tuple[int, int]:
        return (1 + max(c[0] for c in self.cells), 1 + max(c[1] for c in self.cells)) if self.cells else (0, 0)

    @property
    def is_rectangle(self) -> bool:
        """A full rows × cols square board (no islands)."""
        return self.grid.kind == "square" and len(self.cells) == self.rows * self.cols

    @property
    def copies(self) -> int:
        """How many pieces are placed in a deployment (identical copies counted)."""
        return sum(p.count for p in self.pieces)

    @property
    def has_hints(self) -> bool:
        return bool(self.misses or self.hits or self.sunk or self.sunk_at or self.sunk_within or self.announce_sinks)

    def content_hash(self) -> str:
        """A stable hash of what defines the counting question (not its name or meta)."""
        payload = {
            "grid": self.grid.kind, "cells": sorted(self.cells),
            "pieces": sorted([p.name, sorted(p.cells), p.count] for p in self.pieces),  # order says nothing
            "touching": self.touching, "reflections": self.reflections,
            "misses": sorted(self.misses), "hits": sorted(self.hits),
            "sunk": {k: sorted(v) for k, v in sorted(self.sunk.items())},
            "sunk_at": {k: list(v) for k, v in sorted(self.sunk_at.items())},
            "announce_sinks": self.announce_sinks,
            "row_clues": self.row_clues, "col_clues": self.col_clues,
        }
        if self.sunk_within:  # only where given (older hashes stay)
            payload["sunk_within"] = {k: sorted(v) for k, v in sorted(self.sunk_within.items())}
        if self.shape is not None and self.grid.kind == "square" and tuple(self.shape) != self._box():
            payload["shape"] = list(self.shape)  # only where it says more than the cells (older hashes stay)
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    # -- checks ---------------------------------------------------------------------------

    def validate(self) -> None:
        """Raise InstanceFormatError naming the place and the problem."""
        grid = self.grid
        if not self.cells:
            raise InstanceFormatError("the board has no cells", place="grid")
        for cell in self.cells:
            if not grid.valid(cell):
                raise InstanceFormatError(f"{list(cell)} is not a cell of a {grid.kind} grid", place="grid")
            if grid.kind == "square" and min(cell) < 0:
                raise InstanceFormatError(f"cell {list(cell)} has a negative coordinate", place="grid")
        if not self.pieces:
            raise InstanceFormatError("there are no pieces", place="pieces")
        names = [p.name for p in self.pieces]
        for p in self.pieces:
            where = f"pieces.{p.name}"
            if names.count(p.name) > 1:
                raise InstanceFormatError(f"piece {p.name!r} is named twice", place=where)
            if not isinstance(p.count, int) or isinstance(p.count, bool) or p.count < 1:
                raise InstanceFormatError(f"count must be an integer >= 1, not {p.count!r}", place=where)
            if not p.cells:
                raise InstanceFormatError("the shape has no cells", place=where)
            for cell in p.cells:
                if not grid.valid(cell):
                    raise InstanceFormatError(f"{list(cell)} is not a cell of a {grid.kind} grid", place=where)
            if len(set(p.cells)) != len(p.cells):
                twice = sorted(c for c in set(p.cells) if p.cells.count(c) > 1)
                raise InstanceFormatError(f"shape cell {list(twice[0])} is repeated", place=where)
            if not grid.connected(p.cells):
                raise InstanceFormatError("the shape is not connected (its cells must share sides)", place=where)
        for what, cells in (("misses", self.misses), ("hits", self.hits)):
            for cell in sorted(cells):
                if cell not in self.cells:
                    raise InstanceFormatError(f"cell {list(cell)} is not on the board", place=f"hints.{what}")
        both = sorted(self.misses & self.hits)
        if both:
            raise InstanceFormatError(f"cell {list(both[0])} is both a miss and a hit", place="hints")
        for what, mapping in (("sunk", self.sunk), ("sunk_at", self.sunk_at)):
            for name in mapping:
                piece = next((p for p in self.pieces if p.name == name), None)
                if piece is None:
                    raise InstanceFormatError(f"no piece is named {name!r}", place=f"hints.{what}")
                if piece.count != 1:
                    raise InstanceFormatError(f"piece {name!r} has {piece.count} identical copies: give the "
                                              "sunk one a name of its own", place=f"hints.{what}")
        for name, cells in self.sunk_within.items():
            where = f"hints.sunk_within.{name}"
            if name not in self.sunk_at:
                raise InstanceFormatError(f"piece {name!r} has no sunk_at cell", place=where)
            if self.sunk_at[name] not in cells:
                raise InstanceFormatError(f"the cell it sank at, {list(self.sunk_at[name])}, is not among them",
                                          place=where)
        for name, cells in self.sunk.items():
            piece = next(p for p in self.pieces if p.name == name)
            if len(cells) != piece.size:
                raise InstanceFormatError(f"{len(cells)} cells for a piece of {piece.size}", place=f"hints.sunk.{name}")
        for what, clues, size in (("rows", self.row_clues, self.rows), ("cols", self.col_clues, self.cols)):
            if clues is None:
                continue
            if grid.kind != "square":
                raise InstanceFormatError("clues need a square board", place=f"clues.{what}")
            if len(clues) != size:
                raise InstanceFormatError(f"{len(clues)} clues for {size} {what}", place=f"clues.{what}")
            for i, v in enumerate(clues):
                if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                    raise InstanceFormatError(f"clue must be an integer >= 0 or '?', not {v!r}",
                                              place=f"clues.{what}[{i}]")


def _rebuild(kind, cells, pieces, touching, reflections, misses, hits, sunk, sunk_at, announce, rows, cols, name,
             meta, shape=None, sunk_within=None) -> Deployment:
    return Deployment(Grid(kind), frozenset(map(tuple, cells)), tuple(Piece(n, tuple(map(tuple, c)), k)
                                                                       for n, c, k in pieces),
                      touching, reflections, frozenset(map(tuple, misses)), frozenset(map(tuple, hits)), sunk,
                      sunk_at, announce, rows, cols, name, meta, tuple(shape) if shape else None,
                      {k: frozenset(map(tuple, v)) for k, v in (sunk_within or {}).items()})


__all__ = ["Deployment", "Piece"]
