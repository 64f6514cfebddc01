"""The profile programme for straight pieces on square boards, touching or not: exact counts and per-placement counts.

A transfer matrix cell by cell over column profiles (:mod:`harness.counting._profile_nb`):
the state is, per column, what the next cell down must know (free, blocked by a taken
neighbour in the row above when pieces may not touch, or covered by a piece lying across
that goes on below, and for how many cells), and how much of a piece lying along the row
is still to come.  The fleet is not in the state but the index of a vector every state
carries (copies placed per piece type), so the states are the board's profiles whatever
the fleet: ten pieces cost what five cost, times the vector's length.  The no-touching
rule is local in that state (a piece starts only on a free cell whose left neighbour is
empty), so it costs little: rows above that block the same cells are one state.

Hints are the layout's (:mod:`harness.counting.placements`: misses, islands, sunk pieces,
pieces that sank at a cell, announced sinks are placement filters); hits are cells the
programme must cover.  When pieces may touch, the copies of each type are split by
orientation (every way: how many lie across) and the view turned so that the state keeps
the fewer pieces lying across (the standard fleet on 10x10: 1,988 states against 201,141
unsplit); without touching the taken cells of the row above are in the state anyway and
splitting costs more than it saves (the Russian fleet on 10x10: 3.1 s unsplit, 15.7 s
split, before blocked cells were merged), so it is not split.  Types with the same placements are merged (copies of one vector
digit) and the count multiplied back by the multinomials, so boards (by ``boards``, no
touching) are the merged count itself.  The view is turned when the board is wider than
tall: a state is ``width x bits + 1 + hbits`` bits of an int64.

Where a piece's type is chosen: below the *switch row*, at its first cell (a piece lying
across is then coded by the cells it still covers); above it, at its last cell (a run is
coded by its cells so far and goes on while a longer placement from its first cell may, and
while the fleet entries' copies left can end every open run), and a piece across the switch
row gets its type there.  Choosing late keeps the top rows' states few (pieces not yet told
apart are one state), choosing early the bottom rows' (a piece that cannot fit below is never
begun).  Without touching the switch row is a third of the way down (the standard fleet on
10x10: 1.86M state-steps against 2.40M choosing early everywhere and 2.96M late everywhere)
and the view is :func:`_view`'s; split by orientation, types are chosen early everywhere
(late choices cost it more).  Counting runs in int64 and
watches for a value past 2**63; only then, and only if the count may pass 2**64, it counts
again modulo 2**64 and primes (Chinese remainders).

:func:`placement_counts` runs forward keeping every layer, then backward; a placement's
count is the sum over the states before its first cell of forward value times
completions after it.  Clues are the frontier's (:mod:`harness.counting.frontier`).
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from harness.counting.deployment import Deployment
from harness.counting.frontier import crt, primes
from harness.counting.placements import Layout, bent, shape_of, straight, told_apart

ARENA_KEEP = 1 << 25
"""Values (int64) of the forward layers' buffer a process keeps between calls of :func:`placement_counts`."""

MAX_VECTOR = 200_000
"""The fleet vector's length the programme takes (copies placed per type, mixed radix)."""


def _merged(lay: Layout) -> tuple[list[tuple[int, tuple]], list[list[int]]]:
    """Types with identical placements merged: [(copies, placements)], and which layout types each holds."""
    groups: dict = {}
    for k, t in enumerate(lay.types):
        groups.setdefault(t.placements, []).append(k)
    merged = [(sum(lay.types[k].count for k in ks), p) for p, ks in groups.items()]
    return merged, list(groups.values())


def _geometry(lay: Layout) -> tuple[int, int, int, int, bool]:
    """(rows, columns, bits per column, bits of the run, turned: is the board wider than tall)."""
    rs = [c[0] for c in lay.cells]
    cs = [c[1] for c in lay.cells]
    height, width = max(rs) - min(rs) + 1, max(cs) - min(cs) + 1
    longest = max((len(p) for t in lay.types for p in t.placements), default=1)
    bits = max(1, longest.bit_length())
    hbits = max(1, (longest - 1).bit_length())
    return height, width, bits, hbits, width > height


def _fits(width: int, bits: int, hbits: int) -> bool:
    return width * bits + 1 + hbits <= 62


def unsupported(dep: Deployment, lay: Layout) -> str | None:
    """Why the profile programme cannot count this layout, or None when it can."""
    if dep.grid.kind != "square":
        return "not a square board"
    if dep.row_clues is not None or dep.col_clues is not None:
        return "clues"
    if not lay.cells:
        return "no cells"
    why = bent(lay)
    if why:
        return why
    height, width, bits, hbits, _ = _geometry(lay)
    if not _fits(min(height, width), bits, hbits):
        return f"a profile of {min(height, width)} columns of {bits} bits does not fit in 62 bits"
    merged, _ = _merged(lay)
    vector = math.prod(k + 1 for k, _ in merged)
    if vector > MAX_VECTOR:
        return f"a fleet vector of {vector:,} entries (more than {MAX_VECTOR:,})"
    return None


def may_take(dep: Deployment) -> bool:
    """:func:`unsupported` is None, decided from the instance alone (no layout: cheap whatever the board); the
    fleet vector as if pieces of one shape are merged (hints telling them apart make it longer)."""
    if not straight(dep) or dep.row_clues is not None or dep.col_clues is not None or not dep.cells:
        return False
    rs, cs = [c[0] for c in dep.cells], [c[1] for c in dep.cells]
    longest = max((len(p.cells) for p in dep.pieces), default=1)
    shapes: dict = {}
    for p in dep.pieces:
        key = shape_of(dep, p)
        shapes[key] = shapes.get(key, 0) + p.count
    return (_fits(min(max(rs) - min(rs) + 1, max(cs) - min(cs) + 1), max(1, longest.bit_length()),
                  max(1, (longest - 1).bit_length()))
            and math.prod(k + 1 for k in shapes.values()) <= MAX_VECTOR)


class _Plan:
    """One split of the layout as the compiled steps' arrays: per merged type, the copies lying along the view's
    rows and those lying across (each a type of the programme), in the view turned or not."""

    def __init__(self, dep: Deployment, lay: Layout, geometry: tuple, split: tuple[int, ...], turned: bool,
                 switch: int | None = None, flip: tuple[bool, bool] = (False, False)):
        merged, _ = _merged(lay)
        self.height, self.width, self.bits, self.hbits, _ = geometry
        if turned:
            self.height, self.width = self.width, self.height
        cells = [(c[1], c[0]) if turned else (c[0], c[1]) for c in lay.cells]
        cells = [(-r if flip[0] else r, -c if flip[1] else c) for r, c in cells]  # scanned from the other end
        r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
        rc = [(r - r0, c - c0) for r, c in cells]
        H, W = self.height, self.width
        self.hit = np.zeros((H, W), np.bool_)
        for i in lay.hits:
            self.hit[rc[i]] = True
        kinds = []  # (merged type, orientation 1 along / 2 across / 0 either, copies)
        if split is None:  # not split: every copy lies either way
            kinds = [(t, 0, k) for t, (k, _) in enumerate(merged)]
        for t, ((k, _), across) in enumerate(zip(merged, split or ())):
            if k - across:
                kinds.append((t, 1, k - across))
            if across:
                kinds.append((t, 2, across))
        T = len(kinds)
        self.kinds = kinds
        self.hstart = np.zeros((H, W, T), np.bool_)
        self.vstart = np.zeros((H, W, T), np.bool_)
        self.hlen = np.zeros(T, np.int64)
        self.vlen = np.zeros(T, np.int64)
        self.switch = H // 3 if switch is None else switch  # a third of the way down unless asked
        self.at: dict = {}  # (r, c, kind, slot) -> placement (layout indices): where the programme gives its type
        self.cover = np.zeros((H + 1, W), np.bool_)  # cells some placement covers (none below the last row)
        self.longest = 1
        for q, (t, o, _) in enumerate(kinds):
            for p in merged[t][1]:
                rcs = sorted(rc[i] for i in p)
                along = len({r for r, _ in rcs}) == 1
                if o and along != (o == 1):
                    continue
                for cell in rcs:
                    self.cover[cell] = True
                (self.hstart if along else self.vstart)[rcs[0] + (q,)] = True
                (self.hlen if along else self.vlen)[q] = len(p)
                self.longest = max(self.longest, len(p))
                (first, _), (last, _) = rcs[0], rcs[-1]
                if first >= self.switch:  # below the switch row: at its first cell
                    self.at[rcs[0] + (q, 0 if along else 1)] = p
                elif last < self.switch:  # above: at its last cell
                    self.at[rcs[-1] + (q, 0 if along else 1)] = p
                else:  # across the switch row: there, with its cells above
                    self.at[(self.switch, rcs[0][1], q, 2 + self.switch - first)] = p
        self.slots = 2 + self.longest
        self.cnt = np.array([k for _, _, k in kinds], np.int64)
        self.stride = np.ones(T, np.int64)
        for q in range(1, T):
            self.stride[q] = self.stride[q - 1] * (self.cnt[q - 1] + 1)
        self.F = int(np.prod(self.cnt + 1)) if T else 1
        self._choices()
        self.notouch = not dep.touching

    def _choices(self) -> None:
        """What the compiled step asks at each cell besides the placements' first cells: above the switch row, a
        single cell's types (``single``); whether a run along or across with ``e`` cells before this one may take
        it and go on (``hcont``, ``vcont``; ``e`` = 0: a run begins here), and on which fleet entries
        (``hmask``, ``vmask``: those with a copy left of a type whose placement from the run's first cell is
        longer); per type, whether its placement ending here is allowed (``hlast``, ``vlast``); on the switch row,
        the types a run across with ``e`` cells above may be (``conv``)."""
        H, W, T, F, L = self.height, self.width, len(self.kinds), self.F, self.longest
        hs, vs, hl, vl = self.hstart, self.vstart, self.hlen, self.vlen
        self.single = hs & (hl == 1)
        htypes = np.zeros((H, W, L, T), np.bool_)  # types that may go on after the (e + 1)-th cell here
        vtypes = np.zeros((H, W, L, T), np.bool_)
        self.conv = np.zeros((H, W, L + 1, T), np.bool_)
        for e in range(L):
            htypes[:, e:, e] = (hs & (hl > e + 1))[:, :W - e]
            vtypes[e:, :, e] = (vs & (vl > e + 1))[:H - e, :]
            if e:
                self.conv[e:, :, e] = (vs & (vl >= e + 1))[:H - e, :]
        self.hcont, self.vcont = htypes.any(axis=3), vtypes.any(axis=3)
        f = np.arange(F)
        left = np.array([(f // self.stride[q]) % (self.cnt[q] + 1) < self.cnt[q] for q in range(T)]).reshape(T, F)
        self.hmask = (htypes[..., :, None] & left).any(axis=3)  # (H, W, L, F)
        self.vmask = (vtypes[..., :, None] & left).any(axis=3)
        self.room = np.zeros((3, F, L + 1), np.int64)  # per entry, copies left of the types longer than e
        for q in range(T):
            copies = self.cnt[q] - (f // self.stride[q]) % (self.cnt[q] + 1)
            for e in range(L + 1):
                self.room[0, :, e] += copies * (hl[q] > e)
                self.room[1, :, e] += copies * (vl[q] > e)
                self.room[2, :, e] += copies * ((hl[q] > e) | (vl[q] > e))
        self.hlast = np.zeros((H, W, T), np.bool_)
        self.vlast = np.zeros((H, W, T), np.bool_)
        for q in range(T):
            if hl[q] >= 1:
                self.hlast[:, hl[q] - 1:, q] = hs[:, :W - hl[q] + 1, q]
            if vl[q] >= 1:
                self.vlast[vl[q] - 1:, :, q] = vs[:H - vl[q] + 1, :, q]

    def args(self, r: int, c: int) -> tuple:
        mode = 0 if r < self.switch else 1 if r == self.switch else 2
        return (c, self.width, self.bits, self.hbits, self.notouch, mode, self.cover[r + 1], bool(self.hit[r, c]),
                self.hstart[r, c], self.vstart[r, c], self.single[r, c], self.hcont[r, c], self.vcont[r, c],
                self.hmask[r, c], self.vmask[r, c], self.hlast[r, c], self.vlast[r, c], self.conv[r, c], self.room,
                self.slots, self.hlen, self.vlen, self.cnt, self.stride)


def _moduli(bound: int) -> np.ndarray:
    """``[0]`` (int64 wrapping around: modulo 2**64) and as many 31-bit primes as a final count below
    ``bound`` needs to be rebuilt: every count the programme gives (a deployment count, a placement's) is at
    most the final count, and its partial sums may wrap."""
    k, product = 0, 1 << 64
    while product <= bound:
        k += 1
        product = (1 << 64) * math.prod(int(p) for p in primes(k))
    return np.array([0, *primes(k)], np.int64)


def _final_bound(lay: Layout) -> int:
    """At most this many deployments: per type, its copies on distinct placements."""
    return math.prod(math.comb(len(t.placements), t.count) for t in lay.types) + 1


def _value(residues, mods: np.ndarray) -> int:
    rs = [int(x) % (1 << 64) if m == 0 else int(x) % int(m) for x, m in zip(residues, mods)]
    return crt(rs, [1 << 64 if m == 0 else int(m) for m in mods])


def _splits(lay: Layout):
    """Per merged type, how many of its copies lie across (in the board's own orientation): every way.  A type
    whose placements are all one cell, or all along, or all across, has one way."""
    merged, _ = _merged(lay)
    choices = []
    for k, placements in merged:
        ways = {len({lay.cells[i][0] for i in p}) == 1 for p in placements if len(p) > 1}
        if ways == {True}:
            choices.append(range(1))  # along only
        elif ways == {False}:
            choices.append(range(k, k + 1))  # across only
        elif not ways:
            choices.append(range(1))  # single cells (or no placement): along
        else:
            choices.append(range(k + 1))
    return merged, product(*choices)


class _Arena:
    """Where :func:`placement_counts` keeps its forward layers (states' keys and values, and each state's moves):
    large buffers, the last call's kept for the next while they hold at most :data:`ARENA_KEEP` values (a
    game asks for position after position), so the layers are written once into memory the process already
    has rather than into memory the system must first zero."""

    _kept: dict = {}

    def __init__(self, M: int, F: int, width: int):
        self.shape = (M, F, width)
        self.keys, self.vals = np.empty(1 << 12, np.int64), np.empty((1 << 12, M, F), np.int64)
        self.edge, self.kind = np.empty((1 << 12, width), np.int32), np.empty((1 << 12, width), np.int16)
        self.off = self.eoff = 0
        self.total = self.etotal = 0  # rows this call used, in every buffer it had
        self.grew = False

    @classmethod
    def get(cls, M: int, F: int, width: int) -> "_Arena":
        arena = cls._kept.pop((M, F, width), None) or cls(M, F, width)
        arena.off = arena.eoff = arena.total = arena.etotal = 0
        arena.grew = False
        return arena

    def room(self, S: int) -> tuple:
        """Buffers for the next layer (about ``S`` states; the forward step grows its own when it needs more)
        and for the moves of this layer's ``S`` states."""
        M, F, width = self.shape
        if self.keys.shape[0] - self.off < S + S // 2 + 16:
            rows = max(self.keys.shape[0] * 3 // 2, 4 * S + 16)  # earlier layers keep the old buffer alive
            self.keys, self.vals, self.off = np.empty(rows, np.int64), np.empty((rows, M, F), np.int64), 0
            self.grew = True
        if self.edge.shape[0] - self.eoff < S:
            rows = max(self.edge.shape[0] * 3 // 2, 4 * S + 16)
            self.edge, self.kind = np.empty((rows, width), np.int32), np.empty((rows, width), np.int16)
            self.eoff, self.grew = 0, True
        edge, kind = self.edge[self.eoff:self.eoff + S], self.kind[self.eoff:self.eoff + S]
        self.eoff += S
        self.etotal += S
        return self.keys[self.off:], self.vals[self.off:], edge, kind

    def used(self, keys: np.ndarray, n: int) -> None:
        """The layer just written holds ``n`` states; in this buffer unless the step grew its own (a grown buffer
        is longer than the room it was given)."""
        self.total += n
        if n and keys.shape[0] == self.keys.shape[0] - self.off:
            self.off += n

    def keep(self) -> None:
        """Kept for the next call: when this one outgrew the buffer, one buffer that would have held all of it
        (a quarter more), so a game's next position, much the same size, fits (its memory is the system's
        until first written)."""
        M, F, width = self.shape
        rows = self.total + self.total // 4 + (1 << 12)
        if rows * M * F > ARENA_KEEP:
            return
        if self.grew:
            self.keys, self.vals = np.empty(rows, np.int64), np.empty((rows, M, F), np.int64)
            rows = self.etotal + self.etotal // 4 + (1 << 12)
            self.edge, self.kind = np.empty((rows, width), np.int32), np.empty((rows, width), np.int16)
        _Arena._kept = {self.shape: self}  # one buffer at most: a game's fleet vector changes only at a sink


VIEW_MODEL = (0.391, 0.406, -0.146)
"""How :func:`_view` weighs what is known, per cell at ``u`` (its row's place in the view, 0 the first row, 1 the
last): a known cell (a miss, a hit, a cell off the board) ``VIEW_MODEL[0] * (u - 1/2)**2``, a hit besides
``VIEW_MODEL[1] * u + VIEW_MODEL[2] * (u - 1/2)**2``; the sum predicts the logarithm of the scan's state-steps
(less is better).  Fitted (least squares, per position against its own views' mean) on 167 positions of 40
10x10 no-touch games played by ``posterior`` and 120 positions after 12 random shots, every view run and its
state-steps counted; see the docstring of :func:`_view` for what it gives."""


def _view(dep: Deployment, lay: Layout, geometry: tuple) -> tuple[bool, tuple[bool, bool]]:
    """How the profile programme scans a layout it does not split (turned, and its rows and columns from the far
    end or not): what is known about cells (misses, hits, cells off the board) prunes states where it is met,
    most in the middle rows, where the layers are widest, and a hit met early prunes every layer after it, so
    the view whose :data:`VIEW_MODEL` prediction is least is taken (columns as they are: the model cannot tell
    a view from its mirror; a board wider than tall is turned).  Measured on held-out positions (each view run,
    its state-steps counted against the best of the eight): the view taken held 1.2x more state-steps than the
    best on 10x10 no-touch games and positions after random shots, where the earlier rule (known cells scored
    by their distance to the nearer end, squared, half as much again after the first column) held 1.4x more."""
    height, width, bits, hbits, wide = geometry
    rs, cs = [c[0] for c in lay.cells], [c[1] for c in lay.cells]
    r0, c0 = min(rs), min(cs)
    on = set(lay.cells)
    known = set(dep.misses) | set(dep.hits) | {(r0 + i, c0 + j) for i in range(height) for j in range(width)
                                               if (r0 + i, c0 + j) not in on}
    a, b, c = VIEW_MODEL
    best, view = None, (wide, (False, False))
    for turned in ((wide,) if height != width else (False, True)):
        span = max(1, (width if turned else height) - 1)
        for rows_back in (False, True):
            cost = 0.0
            for cell in known:
                i = cell[1] - c0 if turned else cell[0] - r0
                u = (span - i if rows_back else i) / span  # the cell's row's place in the view, 0 to 1
                cost += a * (u - 0.5) ** 2
                if cell in dep.hits:
                    cost += b * u + c * (u - 0.5) ** 2
            if best is None or cost < best - 1e-12:
                best, view = cost, (turned, (rows_back, False))
    return view


def _run_split(dep: Deployment, lay: Layout, geometry: tuple, split: tuple, merged: list, mods: np.ndarray,
               want: bool, scan: tuple | None = None):
    from harness.counting import _profile_nb as nb

    if split is None:
        turned, flip = _view(dep, lay, geometry) if scan is None else scan[:2]
        plan = _Plan(dep, lay, geometry, None, turned, switch=None if scan is None else scan[2], flip=flip)
    else:  # the split's own turn, types chosen at a piece's first cell everywhere (switch row 0: measured best)
        across = sum(split)
        along = sum(k for k, p in merged if any(len(q) > 1 for q in p)) - across
        turned = across > along  # turned, what lay across lies along: the state keeps the fewer pieces
        if not _fits(geometry[0] if turned else geometry[1], geometry[2], geometry[3]):
            turned = geometry[4]  # only the narrower side fits the key
        flip, switch = ((False, False), 0) if scan is None else scan[1:]
        plan = _Plan(dep, lay, geometry, tuple(k - x if any(len(q) > 1 for q in p) else x
                                               for (k, p), x in zip(merged, split)) if turned else split, turned,
                     switch=switch, flip=flip)
    M = len(mods)
    keys = np.zeros(1, np.int64)
    vals = np.zeros((1, M, plan.F), np.int64)
    vals[0, :, 0] = 1
    S, spare = 1, (np.empty(16, np.int64), np.empty((16, M, plan.F), np.int64))
    layers, peak, wrapped = [], 1, False
    table = np.empty(0, np.int32)  # the hash table's buffer, cell after cell
    cells = [(r, c) for r in range(plan.height) for c in range(plan.width)]
    T = len(plan.kinds)
    arena = _Arena.get(M, plan.F, nb.most_moves(T)) if want else None
    edge, kind = np.empty((0, nb.most_moves(T)), np.int32), np.empty((0, nb.most_moves(T)), np.int16)
    for r, c in cells:
        if want:
            *spare, edge, kind = arena.room(S)
            layers.append((vals[:S], edge, kind))
        ns, nkeys, nvals, over, table = nb.forward(keys, vals, S, *plan.args(r, c), mods, *spare, edge, kind, table)
        if want:
            arena.used(nkeys, ns)
        else:
            spare = (keys, vals)  # two buffers in turn
        keys, vals, S = nkeys, nvals, ns
        wrapped |= over
        peak = max(peak, S)
        if not S:
            return [0] * M, {}, peak, wrapped
    full = [sum(int(x) for x in vals[:S, m, plan.F - 1]) for m in range(M)]  # Python integers: no overflow
    per: dict = {}
    if want:
        back = np.zeros((S, M, plan.F), np.int64)
        back[:, :, plan.F - 1] = 1
        spare = np.empty_like(back)
        acc = np.zeros((len(cells), T, plan.slots, M), np.int64)  # per cell, type and slot: the placement's count
        for i in range(len(cells) - 1, -1, -1):
            fvals, edge, kind = layers[i]
            got = nb.backward(fvals, edge, kind, back, plan.cnt, plan.stride, mods, plan.slots, acc[i], spare)
            spare, back = back, got
        values = acc.tolist()  # Python integers (residues), one list per cell, type and slot
        for i, q, o in zip(*(x.tolist() for x in np.nonzero(acc.any(axis=3)))):
            r, c = cells[i]
            per[(plan.kinds[q][0], plan.at[(r, c, q, o)])] = values[i][q][o]
    if want:
        arena.keep()
    return full, per, peak, wrapped


def _run(dep: Deployment, lay: Layout, want: bool, split: bool | None = None, scan: tuple | None = None):
    """(merged types, groups, labels, the merged count, {(merged type, placement): count}, peak states).
    Split by orientation when pieces may touch (``split`` None), else not (see the module docstring); scanned as
    :func:`_view` and the switch row say, or as ``scan`` = (turned, (rows, columns) from the far end, switch
    row) asks."""
    merged, splits = _splits(lay)
    splits = list(splits)
    if split is None:
        split = dep.touching
    if not split:
        splits = [None]
    _, groups = _merged(lay)
    geometry = _geometry(lay)
    bound = _final_bound(lay)
    # counting: int64 first, watching for a value past 2**63 (then again with primes, if the count may pass 2**64);
    # per-placement counts (products of two values) always with the moduli the bound asks for
    mods = _moduli(bound) if want else np.zeros(1, np.int64)
    while True:
        M = len(mods)
        total = [0] * M
        per: dict = {}
        peak, wrapped = 0, want
        for way in splits:
            full, part, p, over = _run_split(dep, lay, geometry, way, merged, mods, want, scan)
            peak, wrapped = max(peak, p), wrapped or over
            total = [a + b for a, b in zip(total, full)]
            for key, v in part.items():
                got = per.get(key)
                per[key] = v if got is None else [a + b for a, b in zip(got, v)]
        if not wrapped or len(mods) == len(_moduli(bound)):
            break
        mods = _moduli(bound)
    labels = math.prod(math.factorial(k) // math.prod(math.factorial(lay.types[j].count) for j in ks)
                       for (k, _), ks in zip(merged, groups))
    value = _value(total, mods) if wrapped else total[0]
    if len(mods) == 1:  # modulo 2**64 alone (the bound is below it): the residue is the count
        per = {key: int(v[0]) % (1 << 64) for key, v in per.items()}
    else:
        per = {key: _value(v, mods) for key, v in per.items()}
    return merged, groups, labels, value, per, peak


def count(dep: Deployment, lay: Layout) -> tuple[int, int]:
    """(the number of deployments, the most states a layer held)."""
    _, _, labels, total, _, peak = _run(dep, lay, False)
    return total * labels, peak


def placement_counts(dep: Deployment, lay: Layout) -> tuple[int, dict]:
    """(the count, {(layout type index, placement): deployments in which a copy of that type lies there})."""
    merged, groups, labels, total, per, _ = _run(dep, lay, True)
    out: dict = {}
    for (t, p), n in per.items():
        k = merged[t][0]
        for j in groups[t]:  # merged copies shared out by symmetry, as the labels are
            out[(j, p)] = n * labels * lay.types[j].count // k
    return total * labels, out


def boards(dep: Deployment, lay: Layout) -> int:
    """Distinct boards when pieces may not touch: the merged count when pieces of one shape share their
    placements (ValueError when hints tell such pieces apart)."""
    _, groups, _, total, _, _ = _run(dep, lay, False)
    if told_apart(dep, groups):
        raise ValueError("pieces of one shape that hints tell apart")
    return total


__all__ = ["ARENA_KEEP", "MAX_VECTOR", "boards", "count", "may_take", "placement_counts", "unsupported"]
