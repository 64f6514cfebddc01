"""Exact optimal play on small boards: the minimum expected number of shots over every policy, by search over belief states.

A game's hidden deployment is uniform over the board's labelled deployments (the ships
of :func:`~harness.play.game.labelled`).  Every deployment is listed once
(:class:`Beliefs`); a *belief state* is the set ``D`` of deployments that fit what was
announced (a bitmask over the list) together with the hits ``H`` (a bitmask over the
cells).  That pair is a sufficient statistic: the cells shot so far are ``H`` and misses
no deployment of ``D`` covers, and such cells are never worth a shot.

Every game makes exactly ``K`` hits (``K`` ship cells), so the number of shots is ``K`` plus
the misses, and the search minimises the **sum of misses over the deployments of D**, an
integer: ``W(D, H) = min over cells c of [misses of c in D + sum over announcements o of
W(D_o, H_o)]``.  The expected number of shots is ``K + W / |D|``: an exact fraction.

What makes it fast enough:

* a *free* hit is shot at once (:meth:`Beliefs.free`): a certain hit (every deployment of
  ``D`` covers it) that completes its ship in every deployment, or any certain hit under the
  ``none`` rule; it costs no miss and its announcement is the same whenever it is shot.  A
  certain hit in the middle of a ship is not free: kept back, the sink it would have
  completed can tell which cells form a ship (the brute force of :func:`brute_value` found
  it, state by state);
* cells are tried best-first (most deployments covering them), the first being the
  ``posterior`` strategy's shot, and every candidate is pruned by the best found so far
  (depth-first branch and bound with a bound passed down: :meth:`Search.value` returns
  the exact value when it is below the bound, else a lower bound at least the bound);
* a state starts from a lower bound of its misses (:func:`_hunt_bound`: until its next
  hit a deployment sees one shared sequence of shots, and ``j`` shots hit at most the
  ``j`` largest coverages; the compiled search joins it with a count of the leaves of the
  game tree, its *fleet bound*);
* values (exact, or the best lower bound proved) are memoised by ``(D, H)`` (the compiled
  search keys them up to the board's symmetries);
* at the first shot only one cell per orbit of the board's symmetries is tried.

:class:`Search` stops at a deadline or a state budget with the bounds proved so far
(:class:`Stopped`).  :class:`CompiledSearch` is the same search compiled with numba
(:mod:`harness.play._optimal_nb`, about three times the states per second, five times fewer
states on square boards, its memo a table sized by the memory it may use); :func:`make_search` picks it for boards of at
most 64 cells.  Both are checked against :func:`brute_value` and against each other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import Grid
from harness.errors import Signal
from harness.play.game import RULES, labelled


class Stopped(Signal):
    """The search reached its deadline or its state budget."""


@dataclass
class Beliefs:
    """Every labelled deployment of a board, as bitmasks the search works on.

    ``occupied[i]``: the deployments that put a ship on cell ``i``; ``sinking[i]``: per ship,
    ``(other cells of a placement through i, deployments with the ship there)``: a hit on
    ``i`` sinks the ship in those deployments once the other cells are hits."""

    board: Deployment
    rule: str
    cells: tuple  # index -> cell
    ships: tuple  # ship names (labelled)
    deployments: list  # per deployment: tuple of cell-index tuples, one per ship
    occupied: list  # per cell: int bitmask over deployments
    sinking: list  # per cell: list of (ship index, int cell mask of the rest, int deployment mask)
    ship_cells: int  # K

    @classmethod
    def of(cls, board: Deployment, rule: str = "ship", most: int = 2_000_000) -> Beliefs:
        from harness.counting.brute import _deployments
        from harness.counting.placements import layout

        if rule not in RULES:
            raise ValueError(f"unknown announcement rule {rule!r} (choose from {', '.join(RULES)})")
        ships = labelled(board)
        lay = layout(ships)
        names = tuple(t.name for t in lay.types)
        listed = []
        for chosen, _ in _deployments(ships, lay):
            by_ship = [()] * len(names)
            for k, p in chosen:
                by_ship[k] = tuple(p)
            listed.append(tuple(by_ship))
            if len(listed) > most:
                raise ValueError(f"{board.name}: more than {most:,} deployments: too many to search")
        if not listed:
            raise ValueError(f"{board.name}: the fleet fits nowhere on the board")
        n = len(lay.cells)
        occ = [0] * n
        per_placement: dict = {}
        for j, dep in enumerate(listed):
            bit = 1 << j
            for k, p in enumerate(dep):
                per_placement[(k, p)] = per_placement.get((k, p), 0) | bit
                for i in p:
                    occ[i] |= bit
        sinking: list = [[] for _ in range(n)]
        for (k, p), mask in per_placement.items():
            for i in p:
                rest = sum(1 << q for q in p if q != i)
                sinking[i].append((k, rest, mask))
        size = sum(len(p) for p in listed[0])
        return cls(board, rule, lay.cells, names, listed, occ, sinking, size)

    @property
    def full(self) -> int:
        return (1 << len(self.deployments)) - 1

    def outcomes(self, d: int, h: int, i: int) -> list[tuple[Any, int]]:
        """The announcements a shot at cell ``i`` can give in state ``(d, h)``: ``[(what, deployments)]``, empty
        parts left out.  ``what``: ``"miss"``, ``"hit"``, or the sunk ship's index (``"sunk"`` under the sunk
        rule)."""
        hit = d & self.occupied[i]
        out = []
        miss = d & ~self.occupied[i]
        if miss:
            out.append(("miss", miss))
        if not hit:
            return out
        if self.rule == "none":
            out.append(("hit", hit))
            return out
        sunk: dict = {}
        for k, rest, mask in self.sinking[i]:
            if rest & ~h:
                continue
            part = hit & mask
            if part:
                key = k if self.rule == "ship" else "sunk"
                sunk[key] = sunk.get(key, 0) | part
        plain = hit
        for part in sunk.values():
            plain &= ~part
        if plain:
            out.append(("hit", plain))
        out.extend(sunk.items())
        return out

    def free(self, d: int, h: int, i: int) -> bool:
        """Whether a shot at cell ``i``, a certain hit in ``d``, may be taken at once by an optimal policy: under the
        ``none`` rule always (its outcome tells nothing); else when it is the last cell of its ship in every
        deployment (its announcement is the same whenever it is shot, and no other shot's changes).  A certain
        hit in the middle of a ship is not free: shot later, the sink it would have completed can tell which
        cells form a ship."""
        if self.rule == "none":
            return True
        last = 0
        for _, rest, mask in self.sinking[i]:
            if not rest & ~h:
                last |= mask
        return not d & ~last

    def symmetries(self) -> list[tuple[int, ...]]:
        """The board's symmetries that map the board and every ship's shape onto themselves, as cell permutations
        (``perm[i]``: the image of cell ``i``), the identity first; only the identity off square grids."""
        n = len(self.cells)
        identity = tuple(range(n))
        b = self.board
        if b.grid.kind != "square":
            return [identity]
        rows, cols = b.rows, b.cols
        maps = [lambda r, c: (rows - 1 - r, c), lambda r, c: (r, cols - 1 - c),
                lambda r, c: (rows - 1 - r, cols - 1 - c)]
        if rows == cols:
            maps += [lambda r, c: (c, r), lambda r, c: (cols - 1 - c, r), lambda r, c: (c, rows - 1 - r),
                     lambda r, c: (cols - 1 - c, rows - 1 - r)]
        index = {c: i for i, c in enumerate(self.cells)}
        out = [identity]
        for g in maps:
            if {g(*c) for c in b.cells} != set(b.cells):
                continue
            if not all(_shape_kept(b, p.cells, g) for p in b.pieces):
                continue
            out.append(tuple(index[g(*c)] for c in self.cells))
        return out

    def deployment_images(self, perm: tuple[int, ...]) -> list[int]:
        """Per deployment, the index of its image under the cell permutation ``perm`` (each ship keeps its name)."""
        where = {tuple(frozenset(p) for p in dep): j for j, dep in enumerate(self.deployments)}
        return [where[tuple(frozenset(perm[i] for i in p) for p in dep)] for dep in self.deployments]

    def symmetric_cells(self) -> list[int]:
        """One cell per orbit of the board's symmetries (the first shot's candidates)."""
        seen, out = set(), []
        perms = self.symmetries()
        for i in range(len(self.cells)):
            if i in seen:
                continue
            out.append(i)
            seen |= {perm[i] for perm in perms}
        return out


def _shape_kept(board: Deployment, shape: tuple, g) -> bool:
    """Whether the symmetry ``g`` maps a ship's placements to placements (its orientations are closed under it)."""
    mapped = tuple(g(*c) for c in shape)
    return board.grid.normal(mapped) in board.grid.orientations(shape, board.reflections)


@dataclass
class Search:
    """Depth-first branch and bound over belief states (see the module docstring)."""

    beliefs: Beliefs
    deadline: float | None = None  # time.monotonic() value
    budget: int | None = None  # most states expanded
    exact: dict = field(default_factory=dict)  # (d, h) -> exact W
    lower: dict = field(default_factory=dict)  # (d, h) -> a lower bound of W
    states: int = 0
    best_first: dict = field(default_factory=dict)  # (d, h) -> the cell index of an optimal shot

    def lower_of(self, d: int, h: int) -> int:
        return self.exact.get((d, h), self.lower.get((d, h), 0))

    def best_of(self, d: int, h: int) -> int | None:
        return self.best_first.get((d, h))

    def _tick(self) -> None:
        self.states += 1
        if self.budget is not None and self.states > self.budget:
            raise Stopped(f"state budget {self.budget:,} reached")
        if self.deadline is not None and not self.states & 255 and time.monotonic() > self.deadline:
            raise Stopped("time limit reached")

    def _expand(self, d: int, h: int) -> tuple:
        """(``n``, a free cell or None, ``[(-k, cell)]`` the cells some deployment covers, most first)."""
        n = d.bit_count()
        live = []
        for i, occ in enumerate(self.beliefs.occupied):
            if h >> i & 1:
                continue
            k = (d & occ).bit_count()
            if k == n and self.beliefs.free(d, h, i):
                return n, i, []
            if k:
                live.append((-k, i))
        live.sort()
        return n, None, live

    def _children(self, d: int, h: int, i: int) -> list:
        """The states a shot at ``i`` leads to, ``[(deployments, hits)]``, the largest first."""
        bit = 1 << i
        occ = self.beliefs.occupied[i]
        got = [(part, h | bit if part & occ else h) for _, part in self.beliefs.outcomes(d, h, i)]
        got.sort(key=lambda t: -t[0].bit_count())
        return got

    def _bound(self, d: int, h: int) -> int:
        """A lower bound of ``W(d, h)``: its exact value or proved bound when known, else :func:`_hunt_bound`."""
        if d & (d - 1) == 0:
            return 0
        key = (d, h)
        got = self.exact.get(key)
        if got is not None:
            return got
        got = self.lower.get(key)
        if got is not None:
            return got
        n, forced, live = self._expand(d, h)
        low = self.lower[key] = 0 if forced is not None else _hunt_bound(n, live)
        return low

    def _sum(self, kids: list, total: int, best: float) -> int:
        """``total`` plus the values of ``kids``, stopped once it reaches ``best`` (then a lower bound of it)."""
        bounds = [self._bound(part, h2) for part, h2 in kids]
        rest = sum(bounds)
        if total + rest >= best:
            return total + rest
        exact = self.exact
        for (part, h2), low in zip(kids, bounds):
            rest -= low
            if part & (part - 1) == 0:
                continue
            got = exact.get((part, h2))
            total += got if got is not None else self.value(part, h2, best - total - rest)
            if total + rest >= best:
                return total + rest
        return total

    def value(self, d: int, h: int, cutoff: float = float("inf"), first: list | None = None) -> int:
        """``W(d, h)`` when it is below ``cutoff``; else a lower bound of it that is at least ``cutoff``."""
        if d & (d - 1) == 0:
            return 0  # one deployment left: every cell of it is a certain hit
        key = (d, h)
        got = self.exact.get(key)
        if got is not None:
            return got
        low = self.lower.get(key, 0)
        if low >= cutoff:
            return low
        self._tick()
        n, forced, live = self._expand(d, h)
        if forced is not None:
            total = self._sum(self._children(d, h, forced), 0, cutoff)
            if total >= cutoff:
                self.lower[key] = max(low, total)
                return total
            self.exact[key] = total
            self.best_first[key] = forced
            return total
        if not live:
            return 0  # every ship cell is hit
        if first is not None:
            allowed = set(first)
            live = [t for t in live if t[1] in allowed]
        low = max(low, _hunt_bound(n, live))
        if low >= cutoff:
            self.lower[key] = low
            return low
        best, best_cell = cutoff, None
        proved = None  # the least lower bound of a pruned cell
        for k, i in live:
            if n + k >= best:  # cells come by hits (k is minus the hits): every later one misses as often or more
                proved = n + k if proved is None else min(proved, n + k)
                break
            total = self._sum(self._children(d, h, i), n + k, best)
            if total >= best:
                proved = total if proved is None else min(proved, total)
            else:
                best, best_cell = total, i
        if best_cell is None:
            low = max(low, cutoff if proved is None else proved)
            self.lower[key] = low
            return low
        self.exact[key] = best
        self.best_first[key] = best_cell
        return best


class CompiledSearch:
    """:class:`Search` compiled (:mod:`harness.play._optimal_nb`): the same values, its memo a table of ``slots``
    entries (default: 65,536 growing fourfold when full up to as many as 60% of ``memory_mb`` megabytes hold,
    256 MB when not given); a full table at its largest keeps only its exact values (twice the table while
    compacting) and stops the search like its deadline when those fill half of it."""

    SLICE = 20_000  # most expansions between looks at the clock
    SLICE_S = 0.1  # under a deadline, a slice is sized to take about this long at the rate measured so far

    def __init__(self, beliefs: Beliefs, memory_mb: int | None = None, slots: int | None = None,
                 symmetry: bool = True):
        import numpy as np

        from harness.play._optimal_nb import RULE_CODES

        if len(beliefs.cells) > 64:
            raise ValueError("the compiled search takes boards of at most 64 cells")
        self.beliefs = beliefs
        self.deadline: float | None = None
        self.budget: int | None = None
        self._rate: float | None = None  # expansions per second of the slices so far (None: none timed yet)
        self._grow_rate: float | None = None  # seconds per slot of the memo table's last growth or compaction
        n = len(beliefs.deployments)
        self.words = w = (n + 63) // 64
        self.occ = np.array([_words(o, w) for o in beliefs.occupied], np.uint64).reshape(len(beliefs.cells), w)
        start, ship, rest, mask = [0], [], [], []
        for per in beliefs.sinking:
            for k, r, m in per:
                ship.append(k)
                rest.append(r)
                mask.append(_words(m, w))
            start.append(len(ship))
        self.sink_start = np.array(start, np.int64)
        self.sink_ship = np.array(ship, np.int64)
        self.sink_rest = np.array(rest, np.uint64)
        self.sink_mask = np.array(mask, np.uint64).reshape(len(ship), w)
        self.rule = RULE_CODES[beliefs.rule]
        per_slot = 8 * w + 8 + 1 + 8 + 8 + 2
        if slots is None:  # start small and grow: a table spread over many pages costs memory it does not use
            budget = memory_mb * (1 << 20) * 0.6 if memory_mb else 256 * (1 << 20)
            self.max_slots = 1 << max(10, int(budget // per_slot).bit_length() - 1)
            slots = min(self.max_slots, 1 << 16)
        else:
            self.max_slots = slots
        self.keys = np.zeros((slots, w), np.uint64)
        self.hkeys = np.zeros(slots, np.uint64)
        self.used = np.zeros(slots, np.int8)
        self.exact = np.zeros(slots, np.int64)  # -1 once claimed, until exact (pages touched only where used)
        self.lower = np.zeros(slots, np.int64)
        self.best_cell = np.zeros(slots, np.int16)  # the best cell + 1; 0: none
        self.counters = np.zeros(4, np.int64)
        self.compactions = 0
        rows, cells, ships = len(beliefs.cells) + 3, len(beliefs.cells), len(beliefs.ships)
        self.scratch = (np.zeros((rows, cells), np.int64), np.zeros((rows, cells), np.int64),
                        np.zeros((rows, ships + 2, w), np.uint64), np.zeros((rows, ships + 2), np.uint64),
                        np.zeros((rows, ships + 2), np.int64), np.zeros((rows, ships, w), np.uint64),
                        np.zeros((rows, w), np.uint64))
        self.ctx = _bound_tables(beliefs, w)
        self.symmetry = symmetry
        self.sym = _symmetry_tables(beliefs, w, symmetry)
        self.sc_key = np.zeros((rows, w), np.uint64)

    @property
    def states(self) -> int:
        return int(self.counters[0])

    def _call(self, d: int, h: int, cutoff: int, allowed: int) -> int:
        import numpy as np

        from harness.play import _optimal_nb as nb

        dw = np.array(_words(d, self.words), np.uint64)
        c = self.counters
        while True:
            if self.budget is not None and c[0] >= self.budget:
                raise Stopped(f"state budget {self.budget:,} reached")
            now = time.monotonic()
            if self.deadline is not None and now > self.deadline:
                raise Stopped("time limit reached")
            step = self._step(now)
            c[1], c[3] = 0, c[0] + step
            before = int(c[0])
            got = nb.value(dw, np.uint64(h), np.int64(cutoff), np.uint64(allowed), 0, self.occ, self.rule,
                           self.sink_start, self.sink_ship, self.sink_rest, self.sink_mask, len(self.beliefs.ships),
                           self.keys, self.hkeys, self.used, self.exact, self.lower, self.best_cell, c,
                           *self.scratch, self.ctx, self.sym, self.sc_key)
            took = time.monotonic() - now
            if int(c[0]) - before >= 64 and took > 0:
                self._rate = (int(c[0]) - before) / took
            if c[1] == 2:
                if not self._compact():
                    raise Stopped(f"the memo table is full ({len(self.used):,} states): give it more memory")
                continue
            if c[1] == 0:
                return int(got)

    def _step(self, now: float) -> int:
        """The expansions of the next slice: :attr:`SLICE` at most (and the budget's rest); under a deadline, as
        many as :attr:`SLICE_S` seconds (and half the time left) take at the rate measured so far, so that a
        slow machine or a costly board (many deployments: long states) still looks at the clock often enough
        to stop by its deadline (the first slice, not timed yet, is small)."""
        step = self.SLICE if self.budget is None else min(self.SLICE, self.budget - int(self.counters[0]))
        if self.deadline is not None:
            span = min(self.SLICE_S, max(self.deadline - now, 0.0) / 2)
            timed = 256 if self._rate is None else int(self._rate * span)
            step = max(64, min(step, timed))
        return step

    def _compact(self) -> bool:
        """A full table grows fourfold (at most to its largest size: every entry moved) while the memory allows,
        then keeps only its exact values (drops the proved bounds) while that frees at least half of it; False
        when neither can."""
        import numpy as np

        from harness.play._optimal_nb import compact

        slots = len(self.used)
        grow = slots < self.max_slots
        if not grow:
            exact = int(np.count_nonzero(self.exact[self.used == 1] >= 0))
            if exact * 2 > slots:
                return False
        size = min(slots * 4, self.max_slots) if grow else slots
        t0 = time.monotonic()
        if self.deadline is not None and self._grow_rate is not None and \
                t0 + 2 * self._grow_rate * (size + slots) > self.deadline:  # it would end past the deadline
            raise Stopped("time limit reached (no time left to grow the memo table)")
        fresh = (np.zeros((size, self.words), np.uint64), np.zeros(size, np.uint64), np.zeros(size, np.int8),
                 np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int16))
        arrays = (self.keys, self.hkeys, self.used, self.exact, self.lower, self.best_cell)
        self.keys = self.hkeys = self.used = self.exact = self.lower = self.best_cell = None
        kept = compact(*arrays, *fresh, grow)
        del arrays
        self.keys, self.hkeys, self.used, self.exact, self.lower, self.best_cell = fresh
        self.counters[2] = kept
        self.compactions += 1
        self._grow_rate = (time.monotonic() - t0) / (size + slots)
        return True

    def value(self, d: int, h: int, cutoff: float = float("inf"), first: list | None = None) -> int:
        from harness.play._optimal_nb import BIG

        allowed = (1 << 64) - 1 if first is None else sum(1 << i for i in first)
        return self._call(d, h, int(min(cutoff, BIG)), allowed)

    def _slot(self, d: int, h: int) -> tuple[int | None, int]:
        """The table slot of the state (None when not stored) and the symmetry that maps it to its key."""
        import numpy as np

        from harness.play._optimal_nb import _canon, _find

        dw = np.array(_words(d, self.words), np.uint64)
        key = np.zeros(self.words, np.uint64)
        ch, g = _canon(dw, np.uint64(h), self.occ, self.sym, key)
        slot = int(_find(self.keys, self.hkeys, self.used, key, np.uint64(ch)))
        return (slot if self.used[slot] else None), int(g)

    def lower_of(self, d: int, h: int) -> int:
        slot, _ = self._slot(d, h)
        return 0 if slot is None else int(max(self.lower[slot], self.exact[slot]))

    def best_of(self, d: int, h: int) -> int | None:
        slot, g = self._slot(d, h)
        if slot is None or self.best_cell[slot] <= 0:
            return None
        return int(self.sym[3][g].tolist().index(int(self.best_cell[slot]) - 1))  # the key's cell, mapped back


def _bound_tables(beliefs: Beliefs, w: int) -> tuple:
    """What the fleet bound reads: each deployment's ship cells, the deployments whose set of cells an earlier
    one has, binomial coefficients (saturated), and ``[K]``."""
    from math import comb

    import numpy as np

    n, ships = len(beliefs.deployments), len(beliefs.ships)
    shipc = np.zeros((n, ships), np.uint64)
    seen: set = set()
    extra = 0
    for j, dep in enumerate(beliefs.deployments):
        for k, p in enumerate(dep):
            shipc[j, k] = sum(1 << i for i in p)
        cells = frozenset(i for p in dep for i in p)
        if cells in seen:
            extra |= 1 << j
        seen.add(cells)
    top = len(beliefs.cells) + beliefs.ship_cells + 2
    binom = np.array([[min(comb(a, b), 1 << 40) for b in range(top)] for a in range(top)], np.int64)
    return shipc, np.array(_words(extra, w), np.uint64), binom, np.array([beliefs.ship_cells], np.int64)


def _symmetry_tables(beliefs: Beliefs, w: int, symmetry: bool) -> tuple:
    """The board's symmetries for the compiled search's keys: per symmetry, the images of cell masks byte by
    byte, of each deployment, of each cell; and a spare row (the identity alone without ``symmetry``)."""
    import numpy as np

    perms = beliefs.symmetries() if symmetry else [tuple(range(len(beliefs.cells)))]
    ptab = np.zeros((len(perms), 8, 256), np.uint64)
    for g, perm in enumerate(perms):
        for b in range(8):
            for v in range(256):
                ptab[g, b, v] = sum(1 << perm[8 * b + q] for q in range(8) if v >> q & 1 and 8 * b + q < len(perm))
    pd = np.array([beliefs.deployment_images(perm) for perm in perms], np.int64)
    pcell = np.array(perms, np.int64)
    return ptab, pd, np.zeros(w, np.uint64), pcell


_COMPILED: list[bool] = []  # whether the compiled search loads in this process (found once)


def compiled_available() -> bool:
    """Whether numba compiles and runs the search here (llvmlite needs address space: under a small memory limit
    it fails to load, and the Python search takes over)."""
    if not _COMPILED:
        try:
            board = Deployment(Grid("square"), frozenset({(0, 0), (0, 1)}), (Piece("A", ((0, 0),)),), name="probe")
            CompiledSearch(Beliefs.of(board), slots=1024).value(3, 0)
            _COMPILED.append(True)
        except (OSError, ImportError, MemoryError):
            _COMPILED.append(False)
    return _COMPILED[0]


def compile_table_kernel() -> None:
    """Compile the memo table's ``compact`` (called only when a search's table fills) into numba's cache
    (``battlebench prepare``): on a tiny empty table of the search's own types."""
    import numpy as np

    from harness.play._optimal_nb import compact

    def table() -> tuple:
        return (np.zeros((4, 1), np.uint64), np.zeros(4, np.uint64), np.zeros(4, np.int8), np.zeros(4, np.int64),
                np.zeros(4, np.int64), np.zeros(4, np.int16))

    compact(*table(), *table(), True)


def make_search(beliefs: Beliefs, memory_mb: int | None = None) -> Search | CompiledSearch:
    """The compiled search where the board has at most 64 cells and numba loads (its table in 40% of
    ``memory_mb``), else the Python one."""
    if len(beliefs.cells) <= 64 and compiled_available():
        return CompiledSearch(beliefs, memory_mb=None if memory_mb is None else max(64, int(memory_mb * 0.4 / 0.6)))
    return Search(beliefs)


def _words(x: int, w: int) -> list[int]:
    mask = (1 << 64) - 1
    return [(x >> (64 * j)) & mask for j in range(w)]


@dataclass
class Optimum:
    """The optimum of one board under one rule: exact expected shots and what the search took."""

    board: str
    rule: str
    deployments: int
    ship_cells: int
    misses: int | None  # the sum over deployments of the misses of an optimal policy (None when stopped)
    lower: int  # a proved lower bound of that sum (= misses when solved)
    first: tuple | None  # an optimal first shot (a cell)
    states: int
    wall_s: float
    cpu_s: float
    stopped: str | None = None

    @property
    def expected(self) -> Fraction | None:
        return None if self.misses is None else Fraction(self.ship_cells) + Fraction(self.misses, self.deployments)

    @property
    def bound(self) -> Fraction:
        return Fraction(self.ship_cells) + Fraction(self.lower, self.deployments)


def optimum(board: Deployment, rule: str = "ship", time_limit: float | None = None,
            budget: int | None = None, search: Search | None = None) -> Optimum:
    """The minimum expected number of shots to sink the fleet of ``board`` (a hint-free deployment) under
    ``rule``, with an optimal first shot; stopped at ``time_limit`` seconds or ``budget`` states with the lower
    bound proved (``misses`` None)."""
    w0, c0 = time.perf_counter(), time.process_time()
    if search is None:
        beliefs = Beliefs.of(board, rule)
        search = make_search(beliefs)
    beliefs = search.beliefs
    search.deadline = None if time_limit is None else time.monotonic() + time_limit
    search.budget = budget
    d, h = beliefs.full, 0
    stopped = None
    misses = None
    try:
        misses = search.value(d, h, first=beliefs.symmetric_cells())
    except Stopped as why:
        stopped = str(why)
    lower = misses if misses is not None else max(search.lower_of(d, h), _first_bound(beliefs))
    first = search.best_of(d, h)
    return Optimum(board.name, rule, len(beliefs.deployments), beliefs.ship_cells, misses, lower,
                   None if first is None else tuple(beliefs.cells[first]), search.states,
                   time.perf_counter() - w0, time.process_time() - c0, stopped)


def _hunt_bound(n: int, live: list) -> int:
    """A lower bound of the misses from a state of ``n`` deployments whose cells not hit yet cover ``k`` of
    them each (``live``: ``(-k, cell)``, most first): until its next hit a deployment sees one shared sequence of
    shots, and after ``j`` shots at most the ``j`` largest ``k`` have been hit, so shot ``j + 1`` misses at least
    ``n`` minus their sum."""
    bound, covered = 0, 0
    for k, _ in live:
        covered -= k
        if covered >= n:
            break
        bound += n - covered
    return bound


def _first_bound(beliefs: Beliefs) -> int:
    n = len(beliefs.deployments)
    return _hunt_bound(n, sorted((-occ.bit_count(), i) for i, occ in enumerate(beliefs.occupied)))


def policy_misses(search: Search | CompiledSearch, d: int | None = None, h: int = 0,
                  memo: dict | None = None) -> int:
    """The sum over the deployments of ``D`` of the misses of the policy a finished search holds (its best cell
    at every state), by walking that policy's tree: each cell's misses counted and each announcement's part
    walked, none of the search's values read.  Equal to the optimum when the search's values are consistent;
    a state without a stored best cell is an error (ValueError)."""
    beliefs = search.beliefs
    d = beliefs.full if d is None else d
    memo = {} if memo is None else memo
    if d & (d - 1) == 0:
        return 0  # one deployment left: its cells are shot, all hits
    key = (d, h)
    got = memo.get(key)
    if got is not None:
        return got
    cell = search.best_of(d, h)
    if cell is None:
        if not any(not h >> i & 1 and d & occ for i, occ in enumerate(beliefs.occupied)):
            memo[key] = 0  # every ship cell is hit
            return 0
        raise ValueError(f"no best cell stored for a state of {d.bit_count()} deployments")
    occ = beliefs.occupied[cell]
    total = d.bit_count() - (d & occ).bit_count()
    for _, part in beliefs.outcomes(d, h, cell):
        total += policy_misses(search, part, h | 1 << cell if part & occ else h, memo)
    memo[key] = total
    return total


def brute_value(beliefs: Beliefs, d: int | None = None, h: int = 0, memo: dict | None = None) -> int:
    """W by plain recursion over every cell and every announcement, no pruning and no certain-hit rule: the
    minimum over all policies (tiny boards only; the check of :class:`Search`)."""
    d = beliefs.full if d is None else d
    memo = {} if memo is None else memo
    key = (d, h)
    if key in memo:
        return memo[key]
    n = d.bit_count()
    best = None
    for i, occ in enumerate(beliefs.occupied):
        if h >> i & 1 or not d & occ:
            continue
        total = n - (d & occ).bit_count()
        for _, part in beliefs.outcomes(d, h, i):
            total += brute_value(beliefs, part, h | 1 << i if part & occ else h, memo)
        best = total if best is None else min(best, total)
    memo[key] = 0 if best is None else best
    return memo[key]


__all__ = ["Beliefs", "CompiledSearch", "Optimum", "Search", "Stopped", "brute_value", "compile_table_kernel",
           "make_search", "optimum", "policy_misses"]
