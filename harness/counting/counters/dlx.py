"""The ``dlx`` counter: generalized exact cover (seed-003's formulation) enumerated by xcover's dancing cells.

One option per (piece copy, placement).  Items:

* primary: one per piece copy (each copy placed exactly once) and one per hit cell (a
  hit is covered, and like every cell at most once);
* secondary: the other cells (covered at most once);
* touching forbidden, secondary ``("pair", a, b)`` for each unordered pair of touching
  cells: a placement claims every pair with one cell inside it and the other outside.
  Two disjoint placements then share an item exactly when one holds ``a`` and the other
  ``b`` of a touching pair, i.e. when they touch (overlapping ones already share a cell).

Identical copies of a piece are numbered and made to take placements in increasing order,
so each unlabelled deployment is found once: copy ``j`` at placement ``q`` claims the
secondary items ``("order", k, j, r)`` for ``r <= q``, copy ``j + 1`` at ``q'`` claims
them for ``r >= q'``, and the two conflict exactly when ``q' <= q`` (5-9 times faster than
listing the ``count!`` labelled orders and dividing, measured on fleets of 2 and 3 copies).

Plain enumeration (xcover's ``covers``), not its ZDD mode.  By deployments only, without
row or column clues.  ``deadline`` is checked every :data:`CHUNK` solutions (a long
stretch without solutions is not interrupted).
"""

from __future__ import annotations

import time
import warnings
from itertools import islice
from typing import Any

from harness.counting.counters import CountAnswer, Counter, Unsupported

CHUNK = 1 << 15


def exact_cover(dep: Any, lay: Any) -> tuple[list[list[Any]], list[Any], list[Any]]:
    """(options, primary items, secondary items) of the deployment (see the module docstring)."""
    touch: list[set[int]] = [set() for _ in range(lay.n)]
    if not dep.touching:
        for i, cell in enumerate(lay.cells):
            touch[i] = {lay.index[c] for c in dep.grid.around(cell) if c in lay.index}
    primary: list[Any] = [("copy", k, j) for k, t in enumerate(lay.types) for j in range(t.count)]
    primary += [("cell", i) for i in sorted(lay.hits)]
    secondary: list[Any] = [("cell", i) for i in range(lay.n) if i not in lay.hits]
    extra: set[tuple[Any, ...]] = set()
    options = []
    for k, t in enumerate(lay.types):
        last = len(t.placements) - 1
        for q, p in enumerate(t.placements):
            inside = set(p)
            items: list[Any] = [("cell", i) for i in p]
            items += sorted({("pair", min(a, b), max(a, b)) for a in p for b in touch[a] if b not in inside})
            for j in range(t.count):
                below = [("order", k, j - 1, r) for r in range(q, last + 1)] if j else []
                above = [("order", k, j, r) for r in range(q + 1)] if j + 1 < t.count else []
                options.append([("copy", k, j), *items, *below, *above])
                extra.update(below + above)
            extra.update(items[len(p):])
    return options, primary, secondary + sorted(extra)


class DlxCounter(Counter):
    name = "dlx"
    by = ("deployments",)
    library = "xcover"

    requires = ('xcover',)
    install = 'pip install xcover'

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        if any(v is not None for v in (*(dep.row_clues or ()), *(dep.col_clues or ()))):
            return "dlx counts without clues (row or column clues have no exact cover form)"
        return super().refuses(dep, by)

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from harness.counting.placements import layout

        why = self.refuses(dep, by)
        if why:
            raise Unsupported(why)
        with warnings.catch_warnings():  # its ZDD module may warn while numba compiles it
            warnings.simplefilter("ignore")
            from xcover import covers
        lay = layout(dep)
        if any(len(t.placements) < t.count for t in lay.types):
            return CountAnswer(0, True, {"rows": 0, "columns": 0})
        options, primary, secondary = exact_cover(dep, lay)
        detail = {"rows": len(options), "columns": len(primary) + len(secondary)}
        solutions = covers(options, primary=primary, secondary=secondary)
        found = 0
        while True:
            got = sum(1 for _ in islice(solutions, CHUNK))
            found += got
            if got < CHUNK:
                break
            if deadline is not None and time.monotonic() >= deadline:
                return CountAnswer(found, False, detail)
        return CountAnswer(found, True, detail)


__all__ = ["DlxCounter", "exact_cover"]
