"""The row-transfer programme for straight pieces on square boards: exact counts and per-placement counts.

When every piece is straight (each placement lies in one row or one column) and pieces
may touch, a deployment splits into the pieces lying along rows and those lying along
columns.  For each *split* (which pieces lie across), the programme goes down the board
keeping only the pieces lying across in its state, and lays the others along each row by
a one-dimensional programme (``_rows_nb``).  The view is turned a quarter when more
pieces lie across than along, so the state holds at most three of them: a few thousand
states whatever the board, against the frontier's hundred thousand on 10x10.  Identical
copies: one split per number of copies lying across, weighted by the binomial, and the
labelled count divided by the copies' factorials at the end.  Hints: misses, islands and
sunk pieces are in the placements; hits are cells the row programme must cover unless a
piece lying across does.  Clues and the no-touching rule are the frontier's
(:mod:`harness.counting.frontier`): :func:`unsupported` says why a layout is not for here.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from harness.counting.deployment import Deployment
from harness.counting.frontier import crt, moduli_for
from harness.counting.placements import Layout, bent, straight

MAX_PIECES = 10
"""Pieces (copies included) the programme takes: the row pieces' subsets are its vector."""

MAX_LONG = 7
"""Pieces longer than one cell (copies included) the programme takes: each split's pieces lying across."""


def _long(t) -> bool:
    """Can the piece lie across (longer than one cell)?  A single cell only ever lies along."""
    return any(len(p) > 1 for p in t.placements)


def unsupported(dep: Deployment, lay: Layout) -> str | None:
    """Why the row programme cannot count this layout, or None when it can."""
    if dep.grid.kind != "square":
        return "not a square board"
    if not dep.touching:
        return "pieces may not touch"
    if dep.row_clues is not None or dep.col_clues is not None:
        return "clues"
    copies = sum(t.count for t in lay.types)
    if copies > MAX_PIECES:
        return f"more than {MAX_PIECES} pieces"
    why = bent(lay)
    if why:
        return why
    long = sum(t.count for t in lay.types if _long(t))
    if long > MAX_LONG:
        return f"more than {MAX_LONG} pieces longer than one cell"
    return None


def may_take(dep: Deployment) -> bool:
    """:func:`unsupported` is None, decided from the instance alone (no layout: cheap whatever the board)."""
    return (straight(dep) and dep.touching and dep.row_clues is None and dep.col_clues is None
            and dep.copies <= MAX_PIECES and sum(p.count for p in dep.pieces if len(p.cells) > 1) <= MAX_LONG)


class _View:
    """The board seen with rows along (``turned``: columns along), placements as start grids per layout type."""

    def __init__(self, lay: Layout, turned: bool):
        cells = [(c[1], c[0]) if turned else (c[0], c[1]) for c in lay.cells]
        r0 = min(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        self.height = max(r for r, _ in cells) - r0 + 1
        self.width = max(c for _, c in cells) - c0 + 1
        self.hit = np.zeros((self.height, self.width), np.bool_)
        for i in lay.hits:
            self.hit[cells[i][0] - r0, cells[i][1] - c0] = True
        shape = (self.height, self.width)
        self.along, self.across = [], []  # per type: (start grid, length, {(row, col): placement})
        for t in lay.types:
            a, x = np.zeros(shape, np.bool_), np.zeros(shape, np.bool_)
            a_at, x_at = {}, {}
            a_len = x_len = 0
            for p in t.placements:
                rc = [(cells[i][0] - r0, cells[i][1] - c0) for i in p]
                top = min(rc)
                if len({r for r, _ in rc}) == 1:
                    a[top], a_at[top], a_len = True, p, len(p)
                else:
                    x[top], x_at[top], x_len = True, p, len(p)
            self.along.append((a, a_len, a_at))
            self.across.append((x, x_len, x_at))


def _splits(lay: Layout):
    """(copies of each type lying across, weight): one split per number of copies across."""
    choices = [range(t.count + 1) if _long(t) else range(1) for t in lay.types]
    for across in product(*choices):
        yield across, math.prod(math.comb(t.count, a) for t, a in zip(lay.types, across))


def _run_split(lay: Layout, views: tuple, across: tuple, weight: int, mods: np.ndarray, want: bool, acc: dict):
    """One split: its count (residues, labelled, times ``weight``); per-placement counts added into ``acc``."""
    from harness.counting import _rows_nb as nb

    long = [_long(t) for t in lay.types]
    n_across = sum(across)
    n_long_along = sum(t.count - a for t, a, lg in zip(lay.types, across, long) if lg)
    turned = n_across > n_long_along  # then the view is turned: what lay along lies across
    view = views[int(turned)]
    in_slots = [(t.count - a if lg else 0) if turned else a for t, a, lg in zip(lay.types, across, long)]
    slot_type = [t for t, k in enumerate(in_slots) for _ in range(k)]
    line_type = [t for t, typ in enumerate(lay.types) for _ in range(typ.count - in_slots[t])]
    if any(view.across[t][1] == 0 for t in slot_type):
        return [0] * len(mods)  # a piece lying across that has nowhere to lie across
    vlen = np.zeros(nb.SLOTS, np.int64)
    vstart = np.zeros((view.height, nb.SLOTS, view.width), np.bool_)
    for i, t in enumerate(slot_type):
        vstart[:, i, :], vlen[i] = view.across[t][0], view.across[t][1]
    hlen = np.array([view.along[t][1] for t in line_type], np.int64)
    hstart = np.zeros((view.height, len(line_type), view.width), np.bool_)
    for j, t in enumerate(line_type):
        hstart[:, j, :] = view.along[t][0]
    total, vcount, hcount = nb.run(vlen, vstart, view.hit, hlen, hstart, mods, want)
    if want:
        for i, t in enumerate(slot_type):
            _gather(acc, (int(turned), "across", t), vcount[i], weight, mods)
        for j, t in enumerate(line_type):
            _gather(acc, (int(turned), "along", t), hcount[j], weight, mods)
    return [int(v) * weight for v in total]


def _gather(acc: dict, key: tuple, grid: np.ndarray, weight: int, mods: np.ndarray) -> None:
    """acc[key] += weight * grid, exactly (int64 suffices: every entry counts labelled deployments, at most
    the bound) or per modulus."""
    add = grid * weight
    if mods[0] != 0:
        add %= mods
    old = acc.get(key)
    acc[key] = add if old is None else (old + add if mods[0] == 0 else (old + add) % mods)


def _bound(lay: Layout) -> int:
    """A bound on every partial count of labelled copies the programme keeps."""
    return math.prod((1 + len(t.placements)) ** t.count for t in lay.types)


def _solve(lay: Layout, want: bool):
    bound = _bound(lay)
    mods = moduli_for(bound * 2 ** len(lay.types))  # split weights (binomials) times per-split counts
    exact = mods[0] == 0
    views = (_View(lay, False), _View(lay, True))
    total = [0] * len(mods)
    acc: dict = {}
    for across, weight in _splits(lay):
        total = [a + b for a, b in zip(total, _run_split(lay, views, across, weight, mods, want, acc))]
    labels = math.prod(math.factorial(t.count) for t in lay.types)

    def value(residues) -> int:
        if exact:
            whole = int(residues[0])
        else:
            whole = crt([int(r) % int(m) for r, m in zip(residues, mods)], [int(m) for m in mods])
        assert whole % labels == 0, "labelled count not divisible by the copies' orderings"
        return whole // labels

    per: dict = {}
    for (turned, kind, t), grid in acc.items():
        view = views[turned]
        for rc, p in (view.across if kind == "across" else view.along)[t][2].items():
            per[(t, p)] = per.get((t, p), 0) + value(grid[rc])
    return value(total), per


def count(lay: Layout) -> int:
    """The number of deployments (identical copies not told apart)."""
    return _solve(lay, False)[0]


def placement_counts(lay: Layout) -> tuple[int, dict]:
    """(the count, {(layout type index, placement): deployments in which a copy of that type lies there})."""
    return _solve(lay, True)


__all__ = ["MAX_PIECES", "count", "placement_counts", "unsupported"]
