"""The profile programme's compiled steps (numba): one cell forward, one cell backward, over column profiles.

A state before cell (r, c) of a view ``H x W`` is one int64 key:

* per column ``j`` a code of ``bits`` bits saying what the next cell down that column must
  know: for ``j >= c`` of the cell (r, j), for ``j < c - 1`` of the cell (r+1, j): 0 free,
  1 blocked (pieces may not touch and a cell next to it, diagonals included, in the row
  above is taken), ``1 + k`` covered by a piece lying across that covers ``k - 1`` more
  cells below it; for ``j = c - 1`` the cell (r, c-1)'s own code (0 empty, 1 taken and
  ending, ``1 + k``), turned into the next row's when the cell right of it is decided;
* bit ``W * bits``: the cell (r, c-2) is taken (what that turning still needs);
* the next ``hbits`` bits: how many more cells of the current row a piece lying along still covers.

Different rows above that block the same cells are one state: only what they forbid is kept.
When pieces may touch nothing is blocked and a taken cell that ends a piece is 0.

The value of a state is a vector over the fleet (mixed radix: copies of each type placed
so far), per modulus.  A cell is left empty (unless it is a hit and nothing covers it),
covered by what the state says covers it, or starts a placement of any type with copies
left whose start grid allows it here (only on a free cell; when pieces may not touch, only
where the cell to the left is empty too).  Every value is kept per modulus: a
modulus 0 is int64 arithmetic wrapping around, that is modulo 2**64 (counting only adds and
multiplies, so the residue is exact whatever the partial counts), the others are primes
below 2**31, reduced at each step.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def _next(key, c, W, bits, hbits, notouch, left, x, hrem):
    """The key after cell (r, c) gets code ``x`` (its own: 0 empty, 1 taken and ending, ``1 + k`` going on below),
    the cell left of it having had code ``left``: column c-1 (and c, at the row's end) become what they say of
    the next row."""
    mask = (1 << bits) - 1
    dpos = W * bits
    two = (key >> dpos) & 1  # the cell (r, c-2) is taken
    key = key & ~(mask << (c * bits)) & ~(((1 << (hbits + 1)) - 1) << dpos)
    if x == 1 and not notouch:
        x = 0  # pieces may touch: a cell that ends a piece says nothing to its neighbours
    key |= x << (c * bits)
    if c > 0:
        below = left if left >= 2 else (1 if notouch and (two == 1 or left >= 1 or x >= 1) else 0)
        key = (key & ~(mask << ((c - 1) * bits))) | (below << ((c - 1) * bits))
    if c + 1 == W:
        below = x if x >= 2 else (1 if notouch and (left >= 1 or x >= 1) else 0)
        key = (key & ~(mask << (c * bits))) | (below << (c * bits))
    elif notouch and c > 0 and left >= 1:
        key |= 1 << dpos
    return key | (hrem << (dpos + 1))


@nb.njit(cache=True, nogil=True)
def options(key, r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, out_key, out_t, out_o):
    """The moves from state ``key`` at cell (r, c): their number; each move's next key, type (-1: none) and
    orientation (0 none, 1 along, 2 across) in ``out_*``."""
    mask = (1 << bits) - 1
    up = (key >> (c * bits)) & mask  # this cell: 0 free, 1 blocked (a taken neighbour above), 1 + k covered
    left = (key >> ((c - 1) * bits)) & mask if c > 0 else 0  # the cell to the left: its own code
    hrem = (key >> (W * bits + 1)) & ((1 << hbits) - 1)
    if hrem > 0:  # a piece lying along goes on here
        if up != 0:
            return 0
        out_key[0] = _next(key, c, W, bits, hbits, notouch, left, 1, hrem - 1)
        out_t[0] = -1
        out_o[0] = 0
        return 1
    if up >= 2:  # a piece lying across goes on here
        out_key[0] = _next(key, c, W, bits, hbits, notouch, left, up - 1, 0)
        out_t[0] = -1
        out_o[0] = 0
        return 1
    n = 0
    if not hit:
        out_key[n] = _next(key, c, W, bits, hbits, notouch, left, 0, 0)
        out_t[n] = -1
        out_o[n] = 0
        n += 1
    if up != 0 or (notouch and left != 0):
        return n
    for t in range(hlen.shape[0]):
        if hstart[t]:
            out_key[n] = _next(key, c, W, bits, hbits, notouch, left, 1, hlen[t] - 1)
            out_t[n] = t
            out_o[n] = 1
            n += 1
        if vstart[t]:
            out_key[n] = _next(key, c, W, bits, hbits, notouch, left, vlen[t], 0)
            out_t[n] = t
            out_o[n] = 2
            n += 1
    return n


@nb.njit(cache=True, nogil=True)
def _reduce(vals, n, mods):
    """The first ``n`` states' values reduced by each prime modulus (a modulus 0 wraps on its own)."""
    for m in range(vals.shape[1]):
        if mods[m] != 0:
            for j in range(n):
                for f in range(vals.shape[2]):
                    vals[j, m, f] %= mods[m]


@nb.njit(cache=True, nogil=True)
def forward(keys, vals, r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, digit, cnt, stride, mods,
            ordered):
    """One cell forward: the next layer's keys (sorted when ``ordered``), values ``(S, M, F)`` and whether a
    value of a wrapping modulus passed 2**63 (then it is no longer the count itself, only its residue); a state
    that nothing reaches with a non-zero value is not kept."""
    S, M, F = vals.shape
    T = hlen.shape[0]
    slot = nb.typed.Dict.empty(nb.int64, nb.int64)
    cap = max(16, S + S // 4)
    nkeys = np.empty(cap, np.int64)
    nvals = np.zeros((cap, M, F), np.int64)
    ok = np.empty(2 * T + 1, np.int64)
    ot = np.empty(2 * T + 1, np.int64)
    oo = np.empty(2 * T + 1, np.int64)
    ns = 0
    wrapped = False
    for s in range(S):
        n = options(keys[s], r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, ok, ot, oo)
        for q in range(n):
            t = ot[q]
            if t >= 0:  # a placement: only when some fleet entry has a copy of t left and a value
                live = False
                for f in range(F):
                    if digit[t, f] < cnt[t]:
                        for m in range(M):
                            if vals[s, m, f] != 0:
                                live = True
                                break
                        if live:
                            break
                if not live:
                    continue
            k = ok[q]
            if k in slot:
                j = slot[k]
            else:
                if ns == cap:
                    cap *= 2
                    grown = np.zeros((cap, M, F), np.int64)
                    grown[:ns] = nvals[:ns]
                    nvals = grown
                    gk = np.empty(cap, np.int64)
                    gk[:ns] = nkeys[:ns]
                    nkeys = gk
                j = ns
                slot[k] = j
                nkeys[j] = k
                ns += 1
            if t < 0:
                for m in range(M):
                    for f in range(F):
                        nvals[j, m, f] += vals[s, m, f]
                        wrapped |= nvals[j, m, f] < 0  # two values below 2**63 sum below 2**64
            else:
                st = stride[t]
                for f in range(F):
                    if digit[t, f] < cnt[t]:
                        for m in range(M):
                            nvals[j, m, f + st] += vals[s, m, f]
                            wrapped |= nvals[j, m, f + st] < 0
    _reduce(nvals, ns, mods)
    if not ordered:
        return nkeys[:ns], nvals[:ns], wrapped
    order = np.argsort(nkeys[:ns])
    return nkeys[:ns][order], nvals[:ns][order], wrapped


@nb.njit(cache=True, nogil=True)
def backward(keys, fvals, nkeys, nback, r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, digit, cnt,
             stride, mods, per):
    """One cell backward: the completions of this layer's states (``(S, M, F)``) from the next layer's
    (``nback``, keys ``nkeys`` sorted); adds into ``per[t, o - 1, m]`` the deployments that start a copy of
    type ``t`` in orientation ``o`` at this cell (forward value times the completions after it)."""
    S, M, F = fvals.shape
    T = hlen.shape[0]
    back = np.zeros((S, M, F), np.int64)
    ok = np.empty(2 * T + 1, np.int64)
    ot = np.empty(2 * T + 1, np.int64)
    oo = np.empty(2 * T + 1, np.int64)
    for s in range(S):
        n = options(keys[s], r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, ok, ot, oo)
        for q in range(n):
            j = np.searchsorted(nkeys, ok[q])
            if j >= nkeys.shape[0] or nkeys[j] != ok[q]:
                continue  # a state dropped forward (nothing reaches it)
            t = ot[q]
            if t < 0:
                for m in range(M):
                    for f in range(F):
                        back[s, m, f] += nback[j, m, f]
            else:
                st = stride[t]
                o = oo[q] - 1
                for m in range(M):
                    acc = 0
                    for f in range(F):
                        if digit[t, f] < cnt[t]:
                            b = nback[j, m, f + st]
                            back[s, m, f] += b
                            if mods[m] == 0:
                                acc += fvals[s, m, f] * b  # wraps: exact modulo 2**64
                            else:
                                acc = (acc + fvals[s, m, f] * b) % mods[m]
                    per[t, o, m] += acc
                    if mods[m] != 0:
                        per[t, o, m] %= mods[m]
    _reduce(back, S, mods)
    return back
