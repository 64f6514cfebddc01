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
tall: a state is ``width x bits + 1 + hbits`` bits of an int64.  Counting runs in int64 and
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

    def __init__(self, dep: Deployment, lay: Layout, geometry: tuple, split: tuple[int, ...], turned: bool):
        merged, _ = _merged(lay)
        self.height, self.width, self.bits, self.hbits, _ = geometry
        if turned:
            self.height, self.width = self.width, self.height
        cells = [(c[1], c[0]) if turned else (c[0], c[1]) for c in lay.cells]
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
        self.at: dict = {}  # (r, c, kind) -> placement (layout indices)
        self.cover = np.zeros((H + 1, W), np.bool_)  # cells some placement covers (none below the last row)
        for q, (t, o, _) in enumerate(kinds):
            for p in merged[t][1]:
                rcs = [rc[i] for i in p]
                along = len({r for r, _ in rcs}) == 1
                if o and along != (o == 1):
                    continue
                for cell in rcs:
                    self.cover[cell] = True
                top = min(rcs)
                (self.hstart if along else self.vstart)[top + (q,)] = True
                (self.hlen if along else self.vlen)[q] = len(p)
                self.at[top + (q, 1 if along else 2)] = p
        self.cnt = np.array([k for _, _, k in kinds], np.int64)
        self.stride = np.ones(T, np.int64)
        for q in range(1, T):
            self.stride[q] = self.stride[q - 1] * (self.cnt[q - 1] + 1)
        self.F = int(np.prod(self.cnt + 1)) if T else 1
        self.notouch = not dep.touching

    def args(self, r: int, c: int) -> tuple:
        return (r, c, self.width, self.bits, self.hbits, self.notouch, self.cover[r + 1], bool(self.hit[r, c]),
                self.hstart[r, c], self.vstart[r, c], self.hlen, self.vlen, self.cnt, self.stride)


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
        self.edge, self.kind = np.empty((1 << 12, width), np.int32), np.empty((1 << 12, width), np.int8)
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
            self.edge, self.kind = np.empty((rows, width), np.int32), np.empty((rows, width), np.int8)
            self.eoff, self.grew = 0, True
        edge, kind = self.edge[self.eoff:self.eoff + S], self.kind[self.eoff:self.eoff + S]
        self.eoff += S
        self.etotal += S
        return self.keys[self.off:], self.vals[self.off:], edge, kind

    def used(self, keys: np.ndarray, n: int) -> None:
        """The layer just written holds ``n`` states; in this buffer unless the step grew its own."""
        self.total += n
        if n and keys.ctypes.data == self.keys[self.off:].ctypes.data:
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
            self.edge, self.kind = np.empty((rows, width), np.int32), np.empty((rows, width), np.int8)
        _Arena._kept = {self.shape: self}  # one buffer at most: a game's fleet vector changes only at a sink


def _run_split(dep: Deployment, lay: Layout, geometry: tuple, split: tuple, merged: list, mods: np.ndarray,
               want: bool):
    from harness.counting import _profile_nb as nb

    if split is None:
        plan = _Plan(dep, lay, geometry, None, geometry[4])
    else:
        across = sum(split)
        along = sum(k for k, p in merged if any(len(q) > 1 for q in p)) - across
        turned = across > along  # turned, what lay across lies along: the state keeps the fewer pieces
        if not _fits(geometry[0] if turned else geometry[1], geometry[2], geometry[3]):
            turned = geometry[4]  # only the narrower side fits the key
        plan = _Plan(dep, lay, geometry, tuple(k - x if any(len(q) > 1 for q in p) else x
                                               for (k, p), x in zip(merged, split)) if turned else split, turned)
    M = len(mods)
    keys = np.zeros(1, np.int64)
    vals = np.zeros((1, M, plan.F), np.int64)
    vals[0, :, 0] = 1
    S, spare = 1, (np.empty(16, np.int64), np.empty((16, M, plan.F), np.int64))
    layers, peak, wrapped = [], 1, False
    table = np.empty(0, np.int32)  # the hash table's buffer, cell after cell
    cells = [(r, c) for r in range(plan.height) for c in range(plan.width)]
    T = len(plan.kinds)
    arena = _Arena.get(M, plan.F, 2 * T + 1) if want else None
    edge, kind = np.empty((0, 2 * T + 1), np.int32), np.empty((0, 2 * T + 1), np.int8)
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
        for (r, c), (fvals, edge, kind) in zip(reversed(cells), reversed(layers)):
            acc = np.zeros((T, 2, M), np.int64)
            got = nb.backward(fvals, edge, kind, back, plan.cnt, plan.stride, mods, acc, spare)
            spare, back = back, got
            for q, (t, _, _) in enumerate(plan.kinds):
                for o in (1, 2):
                    if acc[q, o - 1].any():
                        per[(t, plan.at[(r, c, q, o)])] = acc[q, o - 1].copy()
    if want:
        arena.keep()
    return full, per, peak, wrapped


def _run(dep: Deployment, lay: Layout, want: bool, split: bool | None = None):
    """(merged types, groups, labels, the merged count, {(merged type, placement): count}, peak states).
    Split by orientation when pieces may touch (``split`` None), else not (see the module docstring)."""
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
            full, part, p, over = _run_split(dep, lay, geometry, way, merged, mods, want)
            peak, wrapped = max(peak, p), wrapped or over
            total = [a + b for a, b in zip(total, full)]
            for key, v in part.items():
                per[key] = per.get(key, 0) + v.astype(object)
        if not wrapped or len(mods) == len(_moduli(bound)):
            break
        mods = _moduli(bound)
    labels = math.prod(math.factorial(k) // math.prod(math.factorial(lay.types[j].count) for j in ks)
                       for (k, _), ks in zip(merged, groups))
    value = _value(total, mods) if wrapped else total[0]
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
