"""Hypothesis boards shared by the counting tests: small square boards of straight pieces with every kind of hint."""

from __future__ import annotations

from hypothesis import strategies as st

from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import SQUARE


@st.composite
def straight_boards(draw, max_cols: int = 5, touching: bool | None = True):
    """Small square boards with holes, straight pieces (copies, single cells), misses, hits, a piece that sank
    at a cell, sinks announced; pieces may touch (``touching`` True), may not (False) or either (None)."""
    h, w = draw(st.integers(2, 5)), draw(st.integers(2, max_cols))
    full = [(r, c) for r in range(h) for c in range(w)]
    holes = draw(st.sets(st.sampled_from(full), max_size=3))
    cells = frozenset(full) - holes
    lengths = draw(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 2)), min_size=1, max_size=3))
    if sum(n for _, n in lengths) > 4:
        lengths = lengths[:1]
    pieces = tuple(Piece(f"p{i}", SQUARE.straight(ln), n) for i, (ln, n) in enumerate(lengths))
    inside = sorted(cells)
    misses = draw(st.sets(st.sampled_from(inside), max_size=3)) if inside else set()
    hits = draw(st.sets(st.sampled_from(inside), max_size=2)) - misses if inside else set()
    sunk_at = {}
    if hits and pieces[0].count == 1 and draw(st.booleans()):
        sunk_at = {"p0": sorted(hits)[0]}
    touch = draw(st.booleans()) if touching is None else touching
    return Deployment(SQUARE, cells, pieces, touching=touch, misses=frozenset(misses), hits=frozenset(hits),
                      sunk_at=sunk_at, announce_sinks=draw(st.booleans()))
