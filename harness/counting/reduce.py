"""Sunk pieces taken off the board before counting: they have one placement, so the count is that of the rest.

A sunk piece lies exactly on its stated cells (one placement, or none when they are not
its shape).  Removing it with its cells (and, when touching is forbidden, the cells
around it: no other piece may use them) leaves a smaller instance with the same number
of deployments; its cells are then certain (every deployment covers them with that
piece).  The dp runs on the smaller instance: fewer pieces in its state, fewer cells.
"""

from __future__ import annotations

from dataclasses import replace

from harness.counting.deployment import Deployment


def cannot_fit(dep: Deployment) -> str | None:
    """Why no deployment can exist, told from sizes alone (the pieces need more cells than the board has free),
    or None: such an instance has 0 deployments, whatever its counter (no counter needs to look at it)."""
    free = len(dep.cells - dep.misses)
    needed = sum(len(p.cells) * p.count for p in dep.pieces)
    if needed > free:
        return f"the pieces need {needed:,} cells, the board has {free:,} free"
    for axis, what, clues in ((0, "row", dep.row_clues), (1, "column", dep.col_clues)):
        for line, clue in enumerate(clues or ()):
            room = sum(1 for c in dep.cells - dep.misses if c[axis] == line)
            if clue is not None and clue > room:
                return f"{what} {line} has clue {clue} but {room} free cells"
    return None


def pinned(dep: Deployment) -> Deployment:
    """The instance with every piece that sank at a cell (``sunk_at``) and has one placement left stated as
    sunk on those cells: the same deployments (game positions pin most sunk ships)."""
    if not dep.sunk_at:
        return dep
    from harness.counting.placements import placements_of

    cells = sorted(dep.cells)
    index = {c: i for i, c in enumerate(cells)}
    sunk = dict(dep.sunk)
    for k, piece in enumerate(dep.pieces):
        if piece.name in dep.sunk_at and piece.count == 1:
            found = placements_of(dep, k, index)
            if len(found) == 1:
                sunk[piece.name] = tuple(cells[i] for i in next(iter(found)))
    if len(sunk) == len(dep.sunk):
        return dep
    return replace(dep, sunk=sunk, sunk_at={k: v for k, v in dep.sunk_at.items() if k not in sunk},
                   sunk_within={k: v for k, v in dep.sunk_within.items() if k not in sunk})


def without_sunk(dep: Deployment) -> tuple[Deployment, dict[str, tuple]]:
    """(the instance without its sunk pieces, {name: cells} of those taken off), sunk pieces first
    :func:`pinned`; the same instance when a sunk piece's cells are not its shape or would leave no piece
    (nothing to take off then)."""
    dep = pinned(dep)
    if not dep.sunk:
        return dep, {}
    grid = dep.grid
    taken: dict[str, tuple] = {}
    gone: set = set()
    for name, cells in dep.sunk.items():
        piece = next(p for p in dep.pieces if p.name == name)
        if not set(cells) <= dep.cells or grid.normal(cells) not in grid.orientations(piece.cells, dep.reflections):
            return dep, {}
        if set(cells) & gone:
            return dep, {}
        taken[name] = tuple(cells)
        gone |= set(cells)
        if not dep.touching:
            gone |= {n for c in cells for n in grid.around(c) if n in dep.cells}
    if gone & (dep.hits - {c for cs in taken.values() for c in cs}):
        return dep, {}  # a hit next to a sunk piece where none may touch it: let the dp say 0
    if any(cell in gone for name, cell in dep.sunk_at.items() if name not in taken):
        return dep, {}  # another piece sank on a cell of one taken off: let the dp say 0
    pieces = tuple(p for p in dep.pieces if p.name not in taken)
    if not pieces or dep.row_clues is not None or dep.col_clues is not None:
        return dep, {}
    cells = dep.cells - gone
    if not cells:
        return dep, {}
    rest = replace(dep, cells=cells, pieces=pieces, sunk={}, misses=dep.misses & cells, hits=dep.hits & cells,
                   sunk_at={k: v for k, v in dep.sunk_at.items() if k not in taken},
                   sunk_within={k: v & cells for k, v in dep.sunk_within.items() if k not in taken})
    return rest, taken


__all__ = ["pinned", "without_sunk"]
