"""Exact marginals: for every cell, how many deployments put a piece there (and which piece), from the dp.

The probability that a cell holds a ship, given what is known (hits, misses, sunk
pieces), is ``occupied[cell] / total`` over uniformly likely deployments: the exact
posterior of a game position.  Counts are integers; probabilities are only made when
drawn.  :func:`heat_map` draws them as text, :func:`write_png` as a picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.counting import frontier, profile, rows
from harness.counting.deployment import Deployment
from harness.counting.placements import layout
from harness.counting.reduce import without_sunk


@dataclass
class Marginals:
    """Exact counts per cell: ``occupied[c]`` deployments cover c; ``by_piece[name][c]`` with that piece;
    ``placements[(name, cells)]`` with that piece on exactly those cells (sorted)."""

    total: int
    occupied: dict
    by_piece: dict
    placements: dict = field(default_factory=dict)

    def probability(self, cell: Any) -> float:
        return self.occupied.get(cell, 0) / self.total if self.total else 0.0


METHODS = ("rows", "profile", "frontier")
"""The programmes that give per-placement counts, in the order tried when no method is asked for."""


def marginals(dep: Deployment, method: str | None = None) -> Marginals:
    """The exact marginals of every cell and piece: the dp's per-placement counts, by ``method`` ``"profile"``
    (the profile programme), ``"rows"`` (the row programme; either raises ValueError when it cannot take the
    instance), ``"frontier"`` (its forward-backward pass) or None (the first of :data:`METHODS` that takes it)."""
    whole = dep
    dep, taken = without_sunk(dep)
    lay = layout(dep)
    refusals = {"profile": profile.unsupported(dep, lay), "rows": rows.unsupported(dep, lay), "frontier": None}
    if method is not None and method not in refusals:
        raise ValueError(f"no method {method!r} gives marginals: {', '.join(METHODS)}")
    if method is not None and refusals[method] is not None:
        raise ValueError(f"the {method} programme cannot take {dep.name}: {refusals[method]}")
    chosen = method or next(m for m in METHODS if refusals[m] is None)
    if chosen == "profile":
        total, per = profile.placement_counts(dep, lay)
    elif chosen == "rows":
        total, per = rows.placement_counts(lay)
    else:
        total, per = _frontier_counts(dep, lay)
    occupied = {c: 0 for c in whole.cells}
    by_piece = {p.name: {} for p in whole.pieces}
    placements = {}
    for name, cells in taken.items():
        placements[(name, tuple(sorted(cells)))] = total
        for c in cells:
            occupied[c] = total
            by_piece[name][c] = total
    for (t, cells), n in per.items():
        if not n:
            continue
        name = lay.types[t].name
        key = (name, tuple(sorted(lay.cells[i] for i in cells)))
        placements[key] = placements.get(key, 0) + n
        for i in cells:
            occupied[lay.cells[i]] += n  # at most one piece covers a cell
            by_piece[name][lay.cells[i]] = by_piece[name].get(lay.cells[i], 0) + n
    return Marginals(total, occupied, by_piece, placements)


def _frontier_counts(dep: Deployment, lay) -> tuple[int, dict]:
    """(the count, {(layout type, placement): deployments with that type there}) from the frontier programme,
    whose merged types (identical placements) are shared out by symmetry: type u holds a merged placement in
    count_u / size of its deployments."""
    prog = frontier.compile_layout(dep, lay)
    total, per = frontier.placement_counts(prog, frontier.count_bound(lay))
    group_of = {t: g for g in prog.groups for t in g}
    out: dict = {}
    for q, (t, cells) in enumerate(prog.order):
        if not per[q]:
            continue
        group = group_of[t]
        size = sum(lay.types[u].count for u in group)
        for u in group:
            out[(u, cells)] = out.get((u, cells), 0) + per[q] * lay.types[u].count // size
    return total, out


def _shade(p: float) -> str:
    return " .:-=+*#%@"[min(9, int(p * 10))]


def heat_map(dep: Deployment, m: Marginals) -> str:
    """Text: per cell the percentage (00-99, ``##`` for certain), ``x`` for a hit, ``o`` for a miss."""
    grid = dep.grid
    pos = {c: grid.position(c) for c in dep.cells}
    rows = sorted({r for r, _ in pos.values()})
    lines = []
    for r in rows:
        row = sorted((col, c) for c, (rr, col) in pos.items() if rr == r)
        start = min(col for _, (rr, col) in pos.items())
        text = []
        at = start
        for col, c in row:
            gap = int(round((col - at) * 3))
            text.append(" " * gap)
            if c in dep.misses:
                cell = " o"
            elif c in dep.hits:
                cell = " x"
            else:
                p = m.probability(c)
                cell = "##" if m.total and m.occupied[c] == m.total else f"{min(99, int(round(p * 100))):2d}"
            text.append(cell + " ")
            at = col + 1
        lines.append("".join(text).rstrip())
    return "\n".join(lines)


def write_png(dep: Deployment, m: Marginals, path: str | Path, title: str = "") -> None:
    """A picture of the marginals: one coloured square or hexagon per cell."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import RegularPolygon

    cells = sorted(dep.cells)
    pos = {c: dep.grid.position(c) for c in cells}
    fig, ax = plt.subplots(figsize=(6, 6))
    cmap = plt.get_cmap("viridis")
    for c in cells:
        r, col = pos[c]
        p = m.probability(c)
        if dep.grid.kind == "square":
            patch = plt.Rectangle((col - 0.5, r - 0.5), 1, 1, color=cmap(p))
        else:
            patch = RegularPolygon((col, r * math.sqrt(3) / 2), 6, radius=0.55, color=cmap(p))
        ax.add_patch(patch)
        y = r if dep.grid.kind == "square" else r * math.sqrt(3) / 2
        mark = "x" if c in dep.hits else ("o" if c in dep.misses else f"{p * 100:.0f}")
        ax.text(col, y, mark, ha="center", va="center", fontsize=6, color="white" if p < 0.6 else "black")
    xs = [pos[c][1] for c in cells]
    ys = [pos[c][0] * (1 if dep.grid.kind == "square" else math.sqrt(3) / 2) for c in cells]
    ax.set_xlim(min(xs) - 1, max(xs) + 1)
    ax.set_ylim(max(ys) + 1, min(ys) - 1)
    ax.set_aspect("equal")
    ax.axis("off")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, 1))
    fig.colorbar(sm, ax=ax, fraction=0.046, label="P(ship)")
    ax.set_title(title or f"{dep.name}: {m.total:,} deployments")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


__all__ = ["Marginals", "heat_map", "marginals", "write_png"]
