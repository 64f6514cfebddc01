"""The cell formulation's local rules as data: what a cell's symbol implies about its neighbours.

``docs/explanation/formulations.md`` (``cell``) states them; backends that post them one literal at a
time (``cpsat``, ``cpmpy``) read them from here and translate each kind:

``("any", symbol, groups)``
    ``z[cell][symbol] -> OR`` of the literals "``neighbour`` holds one of ``symbols``" over
    ``groups = ((neighbour, symbols), ...)``; neighbours off the board contribute nothing, so
    an empty OR forbids the symbol (piece stitching, and ``#`` as four clauses, no helper);
``("water", symbol, neighbour)``
    ``z[cell][symbol] -> neighbour`` is water (no touching; only neighbours on the board);
``("water-or", "#", (side, vertical))``
    ``z[cell]["#"] -> side`` is water or ``vertical`` is water: a middle piece never has a
    ship both beside it and above or below it (no touching; both on the board).
"""

from __future__ import annotations

from typing import Iterator

Cell = tuple[int, int]
# no touching: the orthogonal neighbours that must be water, by piece (as offsets' names)
_WATER = (("<", ("left", "up", "down")), (">", ("right", "up", "down")), ("^", ("up", "left", "right")),
          ("v", ("down", "left", "right")), ("O", ("left", "right", "up", "down")))


def local_rules(cell: Cell, rows: int, cols: int, touching: bool) -> Iterator[tuple[str, str, object]]:
    """The rules of one cell, in the order above."""
    r, c = cell
    near = {"left": (r, c - 1), "right": (r, c + 1), "up": (r - 1, c), "down": (r + 1, c)}

    def on(x: Cell) -> bool:
        return 0 <= x[0] < rows and 0 <= x[1] < cols

    yield ("any", "<", ((near["right"], "#>"),))
    yield ("any", ">", ((near["left"], "<#"),))
    yield ("any", "^", ((near["down"], "#v"),))
    yield ("any", "v", ((near["up"], "^#"),))
    # '#': (A and B) or (C and D) as CNF (A|C)(A|D)(B|C)(B|D)
    horizontal = ((near["left"], "<#"), (near["right"], "#>"))
    vertical = ((near["up"], "^#"), (near["down"], "#v"))
    for p in horizontal:
        for q in vertical:
            yield ("any", "#", (p, q))
    if touching:
        return
    for symbol, sides in _WATER:
        for side in sides:
            if on(near[side]):
                yield ("water", symbol, near[side])
    for side in ("left", "right"):
        for vert in ("up", "down"):
            if on(near[side]) and on(near[vert]):
                yield ("water-or", "#", (near[side], near[vert]))


__all__ = ["local_rules"]
