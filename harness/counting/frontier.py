"""The frontier dynamic programme over a layout's cells, compiled with numba: exact counts and per-placement counts.

Cells are visited in the layout's order.  A *state* at cell ``i`` says which cells from
``i`` on are already taken by pieces placed earlier (``occ``), which of them no new piece
may use (``blk``: taken, or touching a taken cell when touching is forbidden), how many
copies of each piece are placed (mixed radix) and how many cells of the current row are
occupied (for row clues).  At cell ``i`` a state either leaves the cell as it is or, if
the cell is free, places any placement whose first cell is ``i`` and that fits; then the
cell is judged (a hit must be occupied; at the end of a row the row clue must hold) and
the window moves on.  Each placement is tried only at its first cell, so every deployment
is counted once (identical copies are counted once per arrangement: the piece count is a
multiset).  The number of states grows like (board width)^(pieces): polynomially in the
board for a fixed fleet.

Masks are two 64-bit words: a frontier window of at most :data:`MAX_WINDOW` cells.
Counts are exact: int64 while the deployments cannot exceed it (a bound from the
placement counts), else the programme runs with several prime moduli at once and the
count is rebuilt by the Chinese remainder theorem.

:func:`placement_counts` runs the programme forward and backward (a checkpoint at the
start of each row, the row's layers recomputed on the way back) and gives, for every
placement, how many deployments use it: the marginals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from harness.counting.counters import Unsupported
from harness.counting.deployment import Deployment
from harness.counting.placements import Layout

MAX_WINDOW = 127
PRIMES = (2147483647, 2147483629, 2147483587, 2147483579, 2147483563, 2147483549, 2147483543, 2147483497)
"""31-bit primes: the product of two residues fits in int64."""
_INT64_SAFE = 2 ** 62


class TooWide(Unsupported):
    """The frontier window is wider than the programme's masks."""


@dataclass
class Program:
    """A layout as arrays for the compiled programme (identical piece types merged)."""

    n: int
    ptr: np.ndarray  # placements starting at cell i: ptr[i]..ptr[i+1]
    ptype: np.ndarray  # merged type of each placement
    pmask: np.ndarray  # (P, 2) uint64: cells of the placement, relative to its first cell
    phalo: np.ndarray  # (P, 2) uint64: cells + touching cells, relative to the first cell
    radix: np.ndarray  # per merged type: the place value of its copy count in the used vector
    valid: np.ndarray  # (T, units): per merged type, the used vectors that may take one more copy
    nvalid: np.ndarray
    allu: np.ndarray  # every used vector: 0..units-1
    units: int  # entries of the used vector
    full: int  # the used vector when every copy is placed
    must: np.ndarray  # per cell: 1 if it is a hit
    clue: np.ndarray  # per cell: its row's clue, -1 if none
    row_end: np.ndarray  # per cell: 1 if it is the last cell of its row
    col: np.ndarray  # per cell: its slot among the clued columns
    ccl: np.ndarray  # per cell: its column's clue, -1 if none
    col_end: np.ndarray  # per cell: 1 if it is the last cell of its column
    order: list  # placement index -> (layout type index, placement cells)
    groups: list  # per merged type: the layout type indices merged into it
    labels: int  # labelled deployments per merged deployment: the multinomials of the groups
    bound: int = 0  # an upper bound on every partial count the programme keeps (merged types)


MAX_COL_CLUES = 14
"""Column clues are kept in the state, 4 bits per clued column (clues up to 15)."""

MAX_UNITS = 1 << 20
"""The most used-vectors (the product of each merged type's copies + 1) the programme's tables hold."""


def _merge(lay: Layout) -> list[list[int]]:
    """Layout types with identical placements, grouped: they are one type with the summed copies."""
    groups: dict[tuple, list[int]] = {}
    for t, typ in enumerate(lay.types):
        groups.setdefault(typ.placements, []).append(t)
    return list(groups.values())


def compile_layout(dep: Deployment, lay: Layout) -> Program:
    """The arrays of :class:`Program`; :class:`TooWide` if a placement spans more than the masks hold."""
    if lay.span() > MAX_WINDOW:
        raise TooWide(f"the frontier is {lay.span() + 1} cells wide, more than the {MAX_WINDOW + 1} the dp holds")
    groups = _merge(lay)
    caps = [sum(lay.types[t].count for t in g) for g in groups]
    labels = 1
    for g, cap in zip(groups, caps):
        labels *= math.factorial(cap) // math.prod(math.factorial(lay.types[t].count) for t in g)
    by_first: list[list] = [[] for _ in range(lay.n)]
    for m, g in enumerate(groups):
        for p in lay.types[g[0]].placements:
            by_first[p[0]].append((m, p))
    order, types, masks, halos, ptr = [], [], [], [], [0]
    for i in range(lay.n):
        for m, p in by_first[i]:
            order.append((groups[m][0], p))
            types.append(m)
            masks.append(_words(sum(1 << (c - i) for c in p)))
            halos.append(_words(sum(1 << (c - i) for c in (*p, *lay.halo.get(p, ())) if c >= i)))
        ptr.append(len(order))
    radix, place = [], 1
    for cap in caps:
        radix.append(place)
        place *= cap + 1
        if place > MAX_UNITS:
            raise Unsupported(f"the dp keeps which copies are placed in its state: {len(caps)} kinds of piece with "
                              f"{sum(caps)} copies are more than its {MAX_UNITS:,} vectors hold")
    units = place
    full = sum(r * cap for r, cap in zip(radix, caps))
    valid = np.zeros((len(caps), units), np.int64)
    nvalid = np.zeros(len(caps), np.int64)
    for m, (r, cap) in enumerate(zip(radix, caps)):
        ok = [u for u in range(units) if (u // r) % (cap + 1) < cap]
        valid[m, :len(ok)] = ok
        nvalid[m] = len(ok)
    n = lay.n
    clue = np.full(n, -1, np.int64)
    row_end = np.zeros(n, np.int64)
    col = np.zeros(n, np.int64)
    ccl = np.full(n, -1, np.int64)
    col_end = np.zeros(n, np.int64)
    if dep.row_clues is not None:
        for i in range(n):
            clue[i] = -1 if dep.row_clues[lay.rows[i]] is None else dep.row_clues[lay.rows[i]]
            row_end[i] = int(i == n - 1 or lay.rows[i + 1] != lay.rows[i])
    if dep.col_clues is not None:
        clued = [j for j, v in enumerate(dep.col_clues) if v is not None]
        if len(clued) > MAX_COL_CLUES or any(dep.col_clues[j] > 15 for j in clued):
            raise Unsupported(f"the dp keeps at most {MAX_COL_CLUES} column clues of at most 15 in its state")
        slot = {j: s for s, j in enumerate(clued)}
        last = {}
        for i, cell in enumerate(lay.cells):
            last[cell[1]] = i
        for i, cell in enumerate(lay.cells):
            if cell[1] in slot:
                col[i] = slot[cell[1]]
                ccl[i] = dep.col_clues[cell[1]]
                col_end[i] = int(last[cell[1]] == i)
    must = np.array([int(i in lay.hits) for i in range(n)], np.int64)
    sizes = np.bincount(np.array(types, np.int64), minlength=len(caps)) if types else np.zeros(len(caps), np.int64)
    bound = math.prod(sum(math.comb(int(size), j) for j in range(cap + 1)) for size, cap in zip(sizes, caps))
    return Program(n, np.array(ptr, np.int64), np.array(types, np.int64),
                   np.array(masks, np.uint64).reshape(-1, 2), np.array(halos, np.uint64).reshape(-1, 2),
                   np.array(radix, np.int64), valid, nvalid, np.arange(units, dtype=np.int64), units, full, must,
                   clue, row_end, col, ccl, col_end, order, groups, labels, bound)


def _words(value: int) -> tuple[int, int]:
    return value & 0xFFFFFFFFFFFFFFFF, value >> 64


def count_bound(lay: Layout) -> int:
    """An upper bound on every partial count the programme keeps: per piece, any number of its copies placed."""
    bound = 1
    for t in lay.types:
        bound *= sum(math.comb(len(t.placements), j) for j in range(t.count + 1))
    return bound


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.4e14 (bases 2, 3, 5, 7, 11, 13, 17)."""
    if n < 2:
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in (2, 3, 5, 7, 11, 13, 17):
        if a % n == 0:
            continue
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def primes(k: int) -> tuple[int, ...]:
    """The ``k`` largest primes below 2**31 (the first of them are :data:`PRIMES`)."""
    out = list(PRIMES[:k])
    n = out[-1] - 2 if out else 2 ** 31 - 1
    while len(out) < k:
        if _is_prime(n):
            out.append(n)
        n -= 2
    return tuple(out)


def moduli_for(bound: int) -> np.ndarray:
    """``[0]`` (exact int64) when the bound is safe, else enough 31-bit primes to rebuild the count."""
    if bound < _INT64_SAFE:
        return np.zeros(1, np.int64)
    k, product = 0, 1
    while product <= 2 * bound:
        k += 1
        product *= primes(k)[-1]
    return np.array(primes(k), np.int64)


def crt(residues: list[int], moduli: list[int]) -> int:
    """The integer below the product of the moduli with these residues."""
    total, product = 0, 1
    for r, m in zip(residues, moduli):
        # x = total (mod product), x = r (mod m)
        t = ((r - total) * pow(product, -1, m)) % m
        total += product * t
        product *= m
    return total


def _args(prog: Program, mods: np.ndarray) -> tuple:
    return (prog.n, prog.ptr, prog.ptype, prog.pmask, prog.phalo, prog.radix, prog.valid, prog.nvalid, prog.allu,
            prog.full, prog.must, prog.clue, prog.row_end, prog.col, prog.ccl, prog.col_end, mods, prog.units)


def _value(residues, mods: np.ndarray) -> int:
    if mods[0] == 0:
        return int(residues[0])
    return crt([int(r) for r in residues], [int(m) for m in mods])


def count(prog: Program, bound: int) -> tuple[int, int]:
    """(how many deployments the programme counts, labelled; the peak number of states)."""
    from harness.counting import _frontier_nb as nb

    mods = moduli_for(min(bound, prog.bound) if prog.bound else bound)
    residues, peak = nb.forward_count(*_args(prog, mods))
    return _value(residues, mods) * prog.labels, int(peak)


def placement_counts(prog: Program, bound: int) -> tuple[int, list[int]]:
    """(the count, per placement in ``prog.order``: how many labelled deployments use it, for the piece of
    ``order[q][0]``'s merged group as a whole)."""
    from harness.counting import _frontier_nb as nb

    mods = moduli_for(min(bound, prog.bound) if prog.bound else bound)
    total, per = nb.forward_backward(*_args(prog, mods))
    return (_value(total, mods) * prog.labels, [_value(row, mods) * prog.labels for row in per])


__all__ = ["MAX_WINDOW", "Program", "TooWide", "Unsupported", "compile_layout", "count", "count_bound", "crt",
           "moduli_for", "placement_counts"]
