"""Brute force: every deployment listed, for ground truth on tiny boards.  Slow by design, obviously right.

Pieces are expanded into their copies; identical copies take placements in increasing
order (so each unlabelled arrangement is listed once), every placement of the next copy
is tried against those placed (no shared cell; no touching cell when touching is
forbidden), and a finished deployment is kept when it covers every hit and meets every
clue.  ``by="boards"`` counts distinct sets of occupied cells instead.
"""

from __future__ import annotations

from harness.counting.deployment import Deployment
from harness.counting.placements import layout

BY = ("deployments", "boards")


def _deployments(dep: Deployment, lay):
    """Every deployment: per copy, (layout type index, placement); hits covered and clues met."""
    copies = [(k, t) for k, t in enumerate(lay.types) for _ in range(t.count)]

    def clues_ok(occupied: set[int]) -> bool:
        for clues, axis in ((dep.row_clues, 0), (dep.col_clues, 1)):
            if clues is None:
                continue
            counts = [0] * len(clues)
            for i in occupied:
                counts[lay.cells[i][axis]] += 1
            if any(v is not None and v != n for v, n in zip(clues, counts)):
                return False
        return True

    def place(j: int, occupied: set[int], blocked: set[int], last: dict[int, int], chosen: tuple):
        if j == len(copies):
            if lay.hits <= occupied and clues_ok(occupied):
                yield chosen, occupied
            return
        k, t = copies[j]
        start = last.get(k, -1) + 1
        for pos in range(start, len(t.placements)):
            p = t.placements[pos]
            if blocked.intersection(p):
                continue
            halo = lay.halo.get(p, ())
            if not dep.touching and occupied.intersection(halo):
                continue
            yield from place(j + 1, occupied | set(p), blocked | set(p) | set(halo), {**last, k: pos},
                             (*chosen, (k, p)))

    yield from place(0, set(), set(), {}, ())


def brute_count(dep: Deployment, by: str = "deployments", limit: int = 10_000_000) -> int:
    """The exact count, by deployments or boards; ValueError past ``limit`` deployments listed."""
    if by not in BY:
        raise ValueError(f"by must be one of {BY}")
    lay = layout(dep)
    boards: set[frozenset[int]] = set()
    found = 0
    for _, occupied in _deployments(dep, lay):
        found += 1
        if found > limit:
            raise ValueError(f"more than {limit} deployments: too many for brute force")
        if by == "boards":
            boards.add(frozenset(occupied))
    return found if by == "deployments" else len(boards)


def brute_placement_counts(dep: Deployment) -> tuple[int, dict]:
    """(the count, {(layout type index, placement): deployments with a copy of that type there})."""
    lay = layout(dep)
    total, per = 0, {}
    for chosen, _ in _deployments(dep, lay):
        total += 1
        for key in chosen:
            per[key] = per.get(key, 0) + 1
    return total, per


__all__ = ["BY", "brute_count", "brute_placement_counts"]
