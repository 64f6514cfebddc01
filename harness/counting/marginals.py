"""Exact marginals: for every cell, how many deployments put a piece there (and which piece), from the dp.

The probability that a cell holds a ship, given what is known (hits, misses, sunk
pieces), is ``occupied[cell] / total`` over uniformly likely deployments: the exact
posterior of a game position.  Counts are integers; probabilities are only made when
drawn.  :func:`heat_map` draws them as text, :func:`write_png` as a picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.counting import frontier
from harness.counting.deployment import Deployment
from harness.counting.placements import layout
from harness.counting.reduce import without_sunk


@dataclass
class Marginals:
    """Exact counts per cell: ``occupied[c]`` deployments cover c; ``by_piece[name][c]`` with that piece."""

    total: int
    occupied: dict
    by_piece: dict

    def probability(self, cell: Any) -> float:
        return self.occupied.get(cell, 0) / self.total if self.total else 0.0


def marginals(dep: Deployment) -> Marginals:
    """The exact marginals of every cell and piece (the dp's forward-backward pass)."""
    whole = dep
    dep, taken = without_sunk(dep)
    lay = layout(dep)
    prog = frontier.compile_layout(dep, lay)
    total, per = frontier.placement_counts(prog, frontier.count_bound(lay))
    occupied = {c: 0 for c in whole.cells}
    by_piece = {p.name: {} for p in whole.pieces}
    for name, cells in taken.items():
        for c in cells:
            occupied[c] = total
            by_piece[name][c] = total
    group_of = {t: g for g in prog.groups for t in g}
    size_of = {g[0]: sum(lay.types[u].count for u in g) for g in prog.groups}
    for q, (t, cells) in enumerate(prog.order):
        n = per[q]
        if not n:
            continue
        group = group_of[t]
        size = size_of[group[0]]
        for i in cells:
            occupied[lay.cells[i]] += n  # at most one piece covers a cell
        for u in group:  # by symmetry, piece u is the one at this placement in count_u / size of them
            share = n * lay.types[u].count // size
            name = lay.types[u].name
            for i in cells:
                by_piece[name][lay.cells[i]] = by_piece[name].get(lay.cells[i], 0) + share
    return Marginals(total, occupied, by_piece)


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
