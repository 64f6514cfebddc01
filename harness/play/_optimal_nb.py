"""The optimal-play search compiled with numba: the branch and bound of :mod:`harness.play.optimal` on word arrays.

The same search as :class:`harness.play.optimal.Search` (free hits first, cells by
coverage, bounds passed down, child bounds before recursion, values memoised by
``(D, H)``) with two more savings: the fleet bound (:func:`_fleet_bound`, the hunt bound
joined with a count of leaves) and keys up to the board's symmetries (:func:`_canon`).  A
deployment set is ``W`` 64-bit words and the memo an
open-addressing table in arrays (exact values, proved lower bounds, the best cell + 1;
all zero until a slot is claimed, so memory is touched only where states are kept).
Nothing is allocated per state: every depth has its rows of scratch arrays (``sc``).
Work comes in slices of ``budget`` expansions: a slice that runs out sets a flag and
unwinds without storing anything it had not finished; the next slice starts again from
the root and finds every finished state in the table.  Cells are at most 64 (``H`` is
one word).
"""

from __future__ import annotations

import numpy as np
from harness.core.jitcache import njit

BIG = np.int64(1) << np.int64(60)
RULE_CODES = {"ship": 0, "sunk": 1, "none": 2}


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _count(d):
    n = np.int64(0)
    for j in range(d.shape[0]):
        n += _popcount(d[j])
    return n


@njit(cache=True)
def _find(keys, hkeys, used, d, h):
    """The slot of (d, h) in the table, or the empty slot where it goes."""
    x = np.uint64(1469598103934665603) ^ h
    for j in range(d.shape[0]):
        x = (x ^ d[j]) * np.uint64(1099511628211)
        x ^= x >> np.uint64(29)
    cap = used.shape[0]
    i = np.int64(x & np.uint64(cap - 1))
    while used[i]:
        if hkeys[i] == h:
            same = True
            for j in range(d.shape[0]):
                if keys[i, j] != d[j]:
                    same = False
                    break
            if same:
                return i
        i = (i + 1) & (cap - 1)
    return i


@njit(cache=True)
def _claim(keys, hkeys, used, exact, lower, counters, d, h):
    """The slot of (d, h), claimed when new; -1 when the table is full (the search stops)."""
    slot = _find(keys, hkeys, used, d, h)
    if used[slot]:
        return slot
    if counters[2] * 10 >= used.shape[0] * 9:
        counters[1] = 2  # full
        return -1
    used[slot] = 1
    hkeys[slot] = h
    for j in range(d.shape[0]):
        keys[slot, j] = d[j]
    exact[slot] = -1
    lower[slot] = 0
    counters[2] += 1
    return slot


@njit(cache=True)
def _outcomes(d, h, i, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships, out, out_h, acc, plain):
    """The states a shot at cell ``i`` leads to, into ``out`` / ``out_h``, largest first; their number."""
    w = d.shape[0]
    bit = np.uint64(1) << np.uint64(i)
    m = 0
    nmiss = 0
    nhit = 0
    for j in range(w):
        out[0, j] = d[j] & ~occ[i, j]
        plain[j] = d[j] & occ[i, j]
        nmiss += _popcount(out[0, j])
        nhit += _popcount(plain[j])
    if nmiss:
        out_h[0] = h
        m = 1
    if nhit:
        hit_h = h | bit
        if rule == 2:
            out[m, :] = plain
            out_h[m] = hit_h
            m += 1
        else:
            acc[:, :] = 0
            for s in range(sink_start[i], sink_start[i + 1]):
                if sink_rest[s] & ~h:
                    continue
                k = sink_ship[s]
                for j in range(w):
                    part = plain[j] & sink_mask[s, j]
                    acc[k, j] |= part
            for k in range(ships):
                for j in range(w):
                    plain[j] &= ~acc[k, j]
            if _count(plain):
                out[m, :] = plain
                out_h[m] = hit_h
                m += 1
            if rule == 0:
                for k in range(ships):
                    if _count(acc[k]):
                        out[m, :] = acc[k]
                        out_h[m] = hit_h
                        m += 1
            else:
                for j in range(w):
                    plain[j] = 0
                    for k in range(ships):
                        plain[j] |= acc[k, j]
                if _count(plain):
                    out[m, :] = plain
                    out_h[m] = hit_h
                    m += 1
    # largest first (insertion sort of a few rows)
    for a in range(1, m):
        b = a
        while b > 0 and _count(out[b]) > _count(out[b - 1]):
            for j in range(w):
                t = out[b, j]
                out[b, j] = out[b - 1, j]
                out[b - 1, j] = t
            th = out_h[b]
            out_h[b] = out_h[b - 1]
            out_h[b - 1] = th
            b -= 1
    return m


@njit(cache=True)
def _free(d, h, i, rule, sink_start, sink_rest, sink_mask):
    """Whether a certain hit at ``i`` may be shot at once: always under the ``none`` rule, else when it is the last
    cell of its ship in every deployment of ``d`` (see :meth:`harness.play.optimal.Beliefs.free`)."""
    if rule == 2:
        return True
    for j in range(d.shape[0]):
        last = np.uint64(0)
        for s in range(sink_start[i], sink_start[i + 1]):
            if not (sink_rest[s] & ~h):
                last |= sink_mask[s, j]
        if d[j] & ~last:
            return False
    return True


@njit(cache=True)
def _scan(d, h, occ, ks, ids, rule, sink_start, sink_rest, sink_mask):
    """(n, a free certain hit or -1, the number of live cells): ``ks`` / ``ids`` the live cells' coverage and
    index, most covered first (the lower index on a tie)."""
    n = _count(d)
    w = d.shape[0]
    m = 0
    for i in range(occ.shape[0]):
        if (h >> np.uint64(i)) & np.uint64(1):
            continue
        k = np.int64(0)
        for j in range(w):
            k += _popcount(d[j] & occ[i, j])
        if k == n and _free(d, h, i, rule, sink_start, sink_rest, sink_mask):
            return n, i, 0
        if k:
            b = m
            while b > 0 and ks[b - 1] < k:
                ks[b] = ks[b - 1]
                ids[b] = ids[b - 1]
                b -= 1
            ks[b] = k
            ids[b] = i
            m += 1
    return n, -1, m


@njit(cache=True)
def _fleet_bound(d, h, n, ks, m, rule, ships, ctx):
    """A lower bound of the misses from a state of ``n`` deployments (``ks``: the live cells' coverage, most
    first): the hunt bound joined with a count of leaves.  A game ends at a leaf whose outcomes hold ``r`` more
    hits; the leaves after the next hit with at most ``u`` misses are at most ``C(r - 1 + u, u) * sigma``
    (``sigma``: the orders in which the ``s`` ships still afloat can be announced sunk), each holding
    deployments of one set of cells; and after ``j`` misses the next hit has found at most the ``j + 1``
    largest coverages.  So at most ``N_t`` deployments end with ``t`` misses or fewer, and the sum of
    ``n - N_t`` bounds the misses."""
    shipc, extra, binom, prm = ctx[0], ctx[1], ctx[2], ctx[3]
    r = prm[0] - _popcount(h)
    if r <= 0 or n <= 1:
        return np.int64(0)
    j0 = 0
    for j in range(d.shape[0]):
        if d[j]:
            x = d[j]
            j0 = 64 * j + _popcount((x & (~x + np.uint64(1))) - np.uint64(1))
            break
    s = 0
    for k in range(ships):
        if shipc[j0, k] & ~h:
            s += 1
    sigma = np.int64(1)
    if rule != 2 and s > 0:
        sigma = binom[r - 1, s - 1]
        if rule == 0:
            for f in range(2, s + 1):
                sigma *= f
    extras = np.int64(0)
    for j in range(d.shape[0]):
        extras += _popcount(d[j] & extra[j])
    top = binom.shape[0]
    total = np.int64(0)
    t = 0
    while True:
        got = np.int64(0)
        cum = np.int64(0)
        for j in range(t + 1):
            if j < m:
                cum += ks[j]
            cap = min(cum, n) - got
            if cap <= 0:
                continue
            u = t - j
            leaves = n if r - 1 + u >= top else binom[r - 1 + u, u] * sigma
            got += min(cap, min(n, leaves + extras))
        if got >= n:
            return total
        total += n - got
        t += 1


@njit(cache=True)
def _image(d, pd, g, out):
    """The deployments of ``d`` under the board symmetry ``g`` into ``out``."""
    out[:] = 0
    for j in range(d.shape[0]):
        x = d[j]
        while x:
            low = x & (~x + np.uint64(1))
            b = 64 * j + _popcount(low - np.uint64(1))
            x ^= low
            t = pd[g, b]
            out[t >> 6] |= np.uint64(1) << np.uint64(t & 63)


@njit(cache=True)
def _cells_image(x, ptab, g):
    y = np.uint64(0)
    for b in range(8):
        y |= ptab[g, b, (x >> np.uint64(8 * b)) & np.uint64(255)]
    return y


@njit(cache=True)
def _canon(d, h, occ, sym, out):
    """The key of ``(d, h)`` up to the board's symmetries (``sym``: cell tables, deployment images, a spare row):
    ``out`` gets the deployments, the hits and the symmetry used are returned.  The image chosen is the least
    by (cells no deployment covers, hits), then by the deployments."""
    ptab, pd, spare = sym[0], sym[1], sym[2]
    g_n = ptab.shape[0]
    if g_n == 1:
        out[:] = d
        return h, 0
    dead = np.uint64(0)
    for i in range(occ.shape[0]):
        if (h >> np.uint64(i)) & np.uint64(1):
            continue
        live = False
        for j in range(d.shape[0]):
            if d[j] & occ[i, j]:
                live = True
                break
        if not live:
            dead |= np.uint64(1) << np.uint64(i)
    best_m = ~np.uint64(0)
    best_h = ~np.uint64(0)
    best_g = -1
    for g in range(g_n):
        gm = _cells_image(dead, ptab, g)
        gh = _cells_image(h, ptab, g)
        if gm < best_m or (gm == best_m and gh < best_h):
            best_m, best_h, best_g = gm, gh, g
            _image(d, pd, g, out)
        elif gm == best_m and gh == best_h:
            _image(d, pd, g, spare)
            for j in range(d.shape[0] - 1, -1, -1):
                if spare[j] != out[j]:
                    if spare[j] < out[j]:
                        out[:] = spare
                        best_g = g
                    break
    return best_h, best_g


@njit(cache=True)
def _bound(d, h, occ, keys, hkeys, used, exact, lower, counters, ks, ids, rule, sink_start, sink_rest, sink_mask, ships,
           ctx, sym, key):
    if _count(d) <= 1:
        return np.int64(0)
    ch, _g = _canon(d, h, occ, sym, key)
    slot = _find(keys, hkeys, used, key, ch)
    if used[slot]:
        if exact[slot] >= 0:
            return exact[slot]
        return lower[slot]
    n, forced, m = _scan(d, h, occ, ks, ids, rule, sink_start, sink_rest, sink_mask)
    low = np.int64(0) if forced >= 0 else _fleet_bound(d, h, n, ks, m, rule, ships, ctx)
    slot = _claim(keys, hkeys, used, exact, lower, counters, key, ch)
    if slot >= 0:
        lower[slot] = low
    return low


@njit
def value(d, h, cutoff, allowed, depth, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships, keys, hkeys,
          used, exact, lower, best_cell, counters, sc_k, sc_i, sc_kids, sc_kh, sc_b, sc_acc, sc_plain, ctx, sym, sc_key):
    """W(d, h) when below ``cutoff``, else a lower bound of it >= cutoff; BIG once the slice stopped
    (``counters``: [expansions, stop flag (1 budget, 2 table full), slots used, budget]).  ``d`` must not be a
    row of the scratch at ``depth``."""
    if counters[1]:
        return BIG
    if _count(d) <= 1:
        return np.int64(0)
    key = sc_key[depth]
    ch, g = _canon(d, h, occ, sym, key)
    slot = _find(keys, hkeys, used, key, ch)
    low = np.int64(0)
    if used[slot]:
        if exact[slot] >= 0:
            return exact[slot]
        low = lower[slot]
        if low >= cutoff:
            return low
    counters[0] += 1
    if counters[0] > counters[3]:
        counters[1] = 1
        return BIG
    ks = sc_k[depth]
    ids = sc_i[depth]
    kids = sc_kids[depth]
    kh = sc_kh[depth]
    n, forced, m = _scan(d, h, occ, ks, ids, rule, sink_start, sink_rest, sink_mask)
    if forced < 0 and m == 0:
        return np.int64(0)
    if forced >= 0:
        c = _outcomes(d, h, forced, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships, kids, kh,
                      sc_acc[depth], sc_plain[depth])
        total = _sum(c, np.int64(0), cutoff, depth, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships,
                     keys, hkeys, used, exact, lower, best_cell, counters, sc_k, sc_i, sc_kids, sc_kh, sc_b, sc_acc,
                     sc_plain, ctx, sym, sc_key)
        if counters[1]:
            return BIG
        slot = _claim(keys, hkeys, used, exact, lower, counters, key, ch)
        if slot < 0:
            return BIG
        if total >= cutoff:
            lower[slot] = max(low, total)
            return total
        exact[slot] = total
        best_cell[slot] = sym[3][g, forced] + 1
        return total
    low = max(low, _fleet_bound(d, h, n, ks, m, rule, ships, ctx))
    if allowed != ~np.uint64(0):
        keep = 0
        for a in range(m):
            if (allowed >> np.uint64(ids[a])) & np.uint64(1):
                ks[keep] = ks[a]
                ids[keep] = ids[a]
                keep += 1
        m = keep
    if low >= cutoff:
        slot = _claim(keys, hkeys, used, exact, lower, counters, key, ch)
        if slot >= 0:
            lower[slot] = low
        return low
    best = cutoff
    best_i = -1
    proved = BIG
    for a in range(m):
        k = ks[a]
        i = ids[a]
        if n - k >= best:
            proved = min(proved, n - k)
            break
        c = _outcomes(d, h, i, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships, kids, kh,
                      sc_acc[depth], sc_plain[depth])
        total = _sum(c, n - k, best, depth, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships, keys,
                     hkeys, used, exact, lower, best_cell, counters, sc_k, sc_i, sc_kids, sc_kh, sc_b, sc_acc,
                     sc_plain, ctx, sym, sc_key)
        if counters[1]:
            return BIG
        if total >= best:
            proved = min(proved, total)
        else:
            best = total
            best_i = i
    slot = _claim(keys, hkeys, used, exact, lower, counters, key, ch)
    if slot < 0:
        return BIG
    if best_i < 0:
        low = max(low, cutoff if proved >= BIG else proved)
        lower[slot] = low
        return low
    exact[slot] = best
    best_cell[slot] = sym[3][g, best_i] + 1
    return best


@njit
def _sum(c, total, best, depth, occ, rule, sink_start, sink_ship, sink_rest, sink_mask, ships, keys, hkeys, used,
         exact, lower, best_cell, counters, sc_k, sc_i, sc_kids, sc_kh, sc_b, sc_acc, sc_plain, ctx, sym, sc_key):
    """``total`` plus the values of the ``c`` states in the scratch of ``depth``, stopped once it reaches ``best``."""
    kids = sc_kids[depth]
    kh = sc_kh[depth]
    bounds = sc_b[depth]
    rest = np.int64(0)
    last = sc_k.shape[0] - 1  # the bound's own scratch row
    for a in range(c):
        bounds[a] = _bound(kids[a], kh[a], occ, keys, hkeys, used, exact, lower, counters, sc_k[last], sc_i[last],
                           rule, sink_start, sink_rest, sink_mask, ships, ctx, sym, sc_key[last])
        rest += bounds[a]
    if counters[1]:
        return BIG
    if total + rest >= best:
        return total + rest
    full = ~np.uint64(0)
    for a in range(c):
        rest -= bounds[a]
        if _count(kids[a]) <= 1:
            continue
        v = value(kids[a], kh[a], best - total - rest, full, depth + 1, occ, rule, sink_start, sink_ship, sink_rest,
                  sink_mask, ships, keys, hkeys, used, exact, lower, best_cell, counters, sc_k, sc_i, sc_kids, sc_kh,
                  sc_b, sc_acc, sc_plain, ctx, sym, sc_key)
        if counters[1]:
            return BIG
        total += v
        if total + rest >= best:
            return total + rest
    return total


@njit(cache=True)
def compact(keys, hkeys, used, exact, lower, best_cell, new_keys, new_hkeys, new_used, new_exact, new_lower,
            new_best, bounds_too):
    """Copy the exact values (and the proved lower bounds, with ``bounds_too``: a larger table) into a fresh
    table; the number of slots kept.  Dropped bounds are found again if the search needs them."""
    kept = 0
    for i in range(used.shape[0]):
        if not used[i] or (exact[i] < 0 and not bounds_too):
            continue
        slot = _find(new_keys, new_hkeys, new_used, keys[i], hkeys[i])
        new_used[slot] = 1
        new_hkeys[slot] = hkeys[i]
        new_keys[slot, :] = keys[i]
        new_exact[slot] = exact[i]
        new_lower[slot] = lower[i]
        new_best[slot] = best_cell[i]
        kept += 1
    return kept


__all__ = ["BIG", "RULE_CODES", "compact", "value"]
