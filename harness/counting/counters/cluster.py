"""The ``cluster`` counter: the Mayer cluster expansion, exact and independent of the board's size, for plain rectangles.

Write the deployments of labelled pieces as a sum over every way to place each piece
anywhere on the board of ``prod over pairs (1 + f_ij)``, with ``f_ij = -1`` when the two
placements conflict (share a cell; or touch, when touching is forbidden).  Expanding the
product and grouping the graphs of ``f`` factors by connected component gives

    N(H, W) = sum over set partitions P of the pieces of prod over blocks B of w_B(H, W)

where ``w_B`` sums, over the placements of B's pieces whose conflict graph G is
connected, ``phi(G)`` = the sum over G's connected spanning subgraphs S of (-1)^|S|.  On
an H x W rectangle a placement is a configuration (up to translation) times a
translation, so ``w_B(H, W) = sum over (h, w) of T_B[h, w] (H-h+1)+ (W-w+1)+`` where
``T_B`` (computed once per block of shapes, by the compiled kernel
:mod:`harness.counting._cluster_nb`) adds ``phi`` over configurations by bounding box.
The count is then a few hundred integer products for any board size: 30 x 30 costs what
10 x 10 costs.  Tables are cached in the process and on disk (``BATTLEBENCH_CACHE`` or
``~/.cache/battlebench``), keyed by the shapes and the touching rule; the standard fleet's
are shipped (:data:`SHIPPED`): without touching they cost minutes of CPU to compute.

Square rectangles without hints or clues, at most :data:`MAX_PIECES` pieces; anything
else is :class:`Unsupported` (the ``dp`` counts those).  By deployments only.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from harness.counting.counters import CountAnswer, Counter, Unsupported

MAX_PIECES = 6


def _phis(k: int) -> np.ndarray:
    """phi of every graph on k vertices, indexed by its edge bits (edge (a, b), a < b, numbered row by row)."""
    edges = [(a, b) for a in range(k) for b in range(a + 1, k)]
    out = np.zeros(1 << len(edges), np.int64)
    for bits in range(1 << len(edges)):
        adj = [0] * k
        for e, (a, b) in enumerate(edges):
            if bits >> e & 1:
                adj[a] |= 1 << b
                adj[b] |= 1 << a
        out[bits] = _phi_of(k, tuple(adj))
    return out


def _phi_of(k: int, adj: tuple[int, ...]) -> int:
    """Sum over connected spanning subgraphs S of (-1)^|S|, by the component of vertex 0 (memo on vertex sets)."""
    memo: dict[int, int] = {}

    def has_edge(mask: int) -> bool:
        return any(mask >> v & 1 and adj[v] & mask for v in range(k))

    def phi(mask: int) -> int:
        if mask in memo:
            return memo[mask]
        low = mask & -mask
        rest_all = mask & ~low
        value = 0 if has_edge(mask) else 1
        sub = rest_all
        while True:  # U = low | sub, a proper subset containing the lowest vertex
            u = low | sub
            if u != mask and not has_edge(mask & ~u):
                value -= phi(u)
            if sub == 0:
                break
            sub = (sub - 1) & rest_all
        memo[mask] = value
        return value

    return phi((1 << k) - 1)


@lru_cache(maxsize=None)
def _phi_table(k: int) -> np.ndarray:
    return _phis(k)


SHIPPED = Path(__file__).resolve().parents[1] / "tables" / "cluster"
"""Tables shipped with battlebench (the standard fleet's blocks, touching or not): ``scripts/cluster_tables.py``."""


def _cache_dir() -> Path:
    return Path(os.environ.get("BATTLEBENCH_CACHE") or Path.home() / ".cache" / "battlebench") / "cluster"


def _key(shapes: tuple, touching: bool) -> str:
    return hashlib.sha256(json.dumps([shapes, touching]).encode()).hexdigest()[:24]


def _stored(key: str) -> Path | None:
    """The file holding a block's table: shipped, else in the cache; None when it is not computed yet."""
    for folder in (SHIPPED, _cache_dir()):
        if (folder / f"{key}.json").is_file():
            return folder / f"{key}.json"
    return None


def _blocks(dep: Any) -> set[tuple]:
    """The distinct blocks of two or more pieces whose tables the count needs (their shapes, sorted)."""
    from itertools import combinations

    copies = [_normal_orients(dep, p) for p in dep.pieces for _ in range(p.count)]
    return {tuple(sorted(copies[i] for i in block))
            for k in range(2, len(copies) + 1) for block in combinations(range(len(copies)), k)}


def tables_ready(dep: Any) -> bool:
    """Is every table this deployment's count needs shipped or cached (so counting costs well under a second)?"""
    return all(_stored(_key(shapes, dep.touching)) for shapes in _blocks(dep))


@lru_cache(maxsize=None)
def block_table(shapes: tuple, touching: bool) -> dict[tuple[int, int], int]:
    """T_B for a block of pieces given by their orientation lists (each a tuple of cell tuples), cached."""
    key = _key(shapes, touching)
    path = _cache_dir() / f"{key}.json"
    stored = _stored(key)
    if stored is not None:
        try:
            return {tuple(map(int, k.split("x"))): v for k, v in json.loads(stored.read_text())["table"].items()}
        except (OSError, ValueError, KeyError):
            pass  # unreadable: computed again and written to the cache
    out = _compute(shapes, touching)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"shapes": shapes, "touching": touching,
                                   "table": {f"{h}x{w}": v for (h, w), v in out.items()}}))
        tmp.replace(path)
    except OSError:
        pass
    return out


def _compute(shapes: tuple, touching: bool) -> dict[tuple[int, int], int]:
    """T_B computed by the compiled kernel (:mod:`harness.counting._cluster_nb`), not read from disk."""
    from harness.counting import _cluster_nb

    k = len(shapes)
    most = max(len(s) for s in shapes)
    cells = max(len(o) for s in shapes for o in s)
    shp = np.zeros((k, most, cells, 2), np.int64)
    nc = np.zeros((k, most), np.int64)
    no = np.array([len(s) for s in shapes], np.int64)
    extent = 0
    for j, orients in enumerate(shapes):
        for o, cs in enumerate(orients):
            nc[j, o] = len(cs)
            for a, (r, c) in enumerate(cs):
                shp[j, o, a] = (r, c)
        extent += max(max(max(r for r, _ in cs), max(c for _, c in cs)) + 1 for cs in orients)
    size = extent + 2 * k + 2
    edge = np.zeros((k, k), np.int64)
    e = 0
    for a in range(k):
        for b in range(a + 1, k):
            edge[a, b] = e
            e += 1
    table = _cluster_nb.block_table(k, shp, nc, no, 0 if touching else 1, _phi_table(k), edge, size)
    out = {(int(h), int(w)): int(table[h, w]) for h, w in zip(*np.nonzero(table))}
    return out


DOMINO = (((0, 0), (0, 1)), ((0, 0), (1, 0)))
"""A domino's orientations (:func:`_normal_orients`): the tiny block :func:`compile_kernel` computes."""


def compile_kernel() -> None:
    """Compile the table kernel into numba's cache (``battlebench prepare``): a block of two dominoes, computed
    and not stored (the tables on disk are the cluster's own)."""
    _compute((DOMINO, DOMINO), True)


def _partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def _normal_orients(dep: Any, piece: Any) -> tuple:
    """The piece's orientations, each translated to start at row 0, column 0."""
    out = []
    for o in dep.grid.orientations(piece.cells, dep.reflections):
        r0 = min(r for r, _ in o)
        c0 = min(c for _, c in o)
        out.append(tuple(sorted((r - r0, c - c0) for r, c in o)))
    return tuple(sorted(set(out)))


def count_rectangle(dep: Any) -> int:
    """The labelled deployments of a hint-free rectangle by the cluster expansion."""
    H, W = dep.rows, dep.cols
    copies = [_normal_orients(dep, p) for p in dep.pieces for _ in range(p.count)]

    def translations(h: int, w: int) -> int:
        return max(H - h + 1, 0) * max(W - w + 1, 0)

    weights: dict[tuple[int, ...], int] = {}

    def weight(block: list[int]) -> int:
        key = tuple(block)
        if key not in weights:
            if len(block) == 1:
                orients = copies[block[0]]
                weights[key] = sum(translations(max(r for r, _ in o) + 1, max(c for _, c in o) + 1) for o in orients)
            else:
                shapes = tuple(sorted(copies[i] for i in block))
                table = block_table(shapes, dep.touching)
                weights[key] = sum(v * translations(h, w) for (h, w), v in table.items())
        return weights[key]

    total = 0
    for part in _partitions(list(range(len(copies)))):
        term = 1
        for block in part:
            term *= weight(block)
            if term == 0:
                break
        total += term
    for p in dep.pieces:
        total //= math.factorial(p.count)
    return total


class ClusterCounter(Counter):
    name = "cluster"
    by = ("deployments",)
    library = None  # battlebench's own expansion, compiled by numba
    packages = ("numba",)
    requires = ('numba',)
    install = 'pip install numba'

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        why = super().refuses(dep, by)
        if why:
            return why
        if not dep.is_rectangle:
            return "the cluster expansion needs a full rectangle of square cells (no islands, no hex)"
        if dep.has_hints or dep.row_clues is not None or dep.col_clues is not None:
            return "the cluster expansion counts boards without hints or clues"
        if dep.copies > MAX_PIECES:
            return f"the cluster expansion takes at most {MAX_PIECES} pieces, not {dep.copies}"
        return None

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        why = self.refuses(dep, by)
        if why:
            raise Unsupported(why)
        return CountAnswer(count_rectangle(dep), True, {"pieces": dep.copies})


__all__ = ["ClusterCounter", "SHIPPED", "block_table", "compile_kernel", "count_rectangle", "tables_ready"]
