"""The profile programme's compiled steps (numba): one cell forward, one cell backward, over column profiles.

A state before cell (r, c) of a view ``H x W`` is one int64 key:

* per column ``j`` a code of ``bits`` bits: for ``j < c`` the cell (r, j), for ``j >= c`` the cell
  (r-1, j): 0 empty, 1 taken and ending there, ``1 + k`` taken by a piece lying across that
  still covers the next ``k`` cells below (so a piece of length L started here is code L);
  pieces may touch: code 1 is written 0 (nothing below depends on it);
* bit ``W * bits``: the cell (r-1, c-1) is taken (the diagonal, only when pieces may not touch);
* the next ``hbits`` bits: how many more cells of the current row a piece lying along still covers.

The value of a state is a vector over the fleet (mixed radix: copies of each type placed
so far), per modulus.  A cell is left empty (unless it is a hit and nothing covers it),
covered by what the state says covers it, or starts a placement of any type with copies
left whose start grid allows it here (when pieces may not touch: only where the cells
above, to the left and diagonally above are empty).  Every value is kept per modulus: a
modulus 0 is int64 arithmetic wrapping around, that is modulo 2**64 (counting only adds and
multiplies, so the residue is exact whatever the partial counts), the others are primes
below 2**31, reduced at each step.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def options(key, r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, out_key, out_t, out_o):
    """The moves from state ``key`` at cell (r, c): their number; each move's next key, type (-1: none) and
    orientation (0 none, 1 along, 2 across) in ``out_*``."""
    mask = (1 << bits) - 1
    up = (key >> (c * bits)) & mask
    left = (key >> ((c - 1) * bits)) & mask if c > 0 else 0
    upright = (key >> ((c + 1) * bits)) & mask if c + 1 < W else 0
    dpos = W * bits
    diag = (key >> dpos) & 1 if c > 0 else 0
    hrem = (key >> (dpos + 1)) & ((1 << hbits) - 1)
    base = key & ~(mask << (c * bits)) & ~(((1 << (hbits + 1)) - 1) << dpos)
    last = c + 1 == W
    nd = 0 if last or not notouch else (1 if up != 0 else 0)
    base |= nd << dpos
    taken = 1 if notouch else 0  # the code of a taken cell that ends here
    n = 0
    if hrem > 0:
        if up >= 2 or (notouch and (up != 0 or upright != 0)):
            return 0
        out_key[0] = base | (taken << (c * bits)) | ((hrem - 1) << (dpos + 1))
        out_t[0] = -1
        out_o[0] = 0
        return 1
    if up >= 2:
        code = up - 1
        if code == 1:
            code = taken
        out_key[0] = base | (code << (c * bits))
        out_t[0] = -1
        out_o[0] = 0
        return 1
    if not hit:
        out_key[n] = base
        out_t[n] = -1
        out_o[n] = 0
        n += 1
    if notouch and (up != 0 or left != 0 or diag != 0 or upright != 0):
        return n
    for t in range(hlen.shape[0]):
        if hstart[t]:
            out_key[n] = base | (taken << (c * bits)) | ((hlen[t] - 1) << (dpos + 1))
            out_t[n] = t
            out_o[n] = 1
            n += 1
        if vstart[t]:
            out_key[n] = base | (vlen[t] << (c * bits))
            out_t[n] = t
            out_o[n] = 2
            n += 1
    return n


@nb.njit(cache=True, nogil=True)
def forward(keys, vals, r, c, W, bits, hbits, notouch, hit, hstart, vstart, hlen, vlen, digit, cnt, stride, mods,
            ordered):
    """One cell forward: the next layer's keys (sorted when ``ordered``) and values ``(S, M, F)``; a state that
    nothing reaches with a non-zero value is not kept."""
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
            else:
                st = stride[t]
                for f in range(F):
                    if digit[t, f] < cnt[t]:
                        for m in range(M):
                            nvals[j, m, f + st] += vals[s, m, f]
    for m in range(M):
        if mods[m] != 0:
            for j in range(ns):
                for f in range(F):
                    nvals[j, m, f] %= mods[m]
    if not ordered:
        return nkeys[:ns], nvals[:ns]
    order = np.argsort(nkeys[:ns])
    return nkeys[:ns][order], nvals[:ns][order]


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
    for m in range(M):
        if mods[m] != 0:
            for s in range(S):
                for f in range(F):
                    back[s, m, f] %= mods[m]
    return back
