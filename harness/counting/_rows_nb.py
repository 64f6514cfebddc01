"""The compiled kernels of :mod:`harness.counting.rows` (numba): one split of the pieces, row by row.

A split says which pieces lie along the rows (*row pieces*, at most a handful) and which
across them (*column pieces*, at most :data:`SLOTS`).  Going down the board, the *state*
is the status of each column piece: not placed yet (0), done (1), or open in column ``c``
with ``k`` cells still below (``2 + c*(L-1) + k-1``).  The *value* of a state is a vector
over the subsets of row pieces already placed, one vector per modulus.  Within a row the
column pieces block at most :data:`SLOTS` cells; the row pieces are then placed by a
one-dimensional programme along the row (``_along``), whose totals per subset are the
row's *table* for those blocked cells.  A row's transitions (old state, new state,
table) are listed once and walked forward (counts), backward (completions) and both
together (per-placement counts).
"""

from __future__ import annotations

from harness.core.jitcache import njit
import numpy as np

SLOTS = 3


@njit(cache=True, nogil=True)
def _mul(a, b, md):
    return a * b if md == 0 else (a * b) % md


@njit(cache=True, nogil=True)
def _add(a, b, md):
    return a + b if md == 0 else (a + b) % md


@njit(cache=True, nogil=True)
def _options(r, i, s, vlen, vstart, width, onew, ocol):
    """The statuses column piece ``i`` may go to in row ``r`` from status ``s`` (and the column it covers)."""
    ln = vlen[i]
    if ln == 0:
        onew[i, 0], ocol[i, 0] = 0, -1
        return 1
    if s == 1:
        onew[i, 0], ocol[i, 0] = 1, -1
        return 1
    if s == 0:
        onew[i, 0], ocol[i, 0] = 0, -1
        n = 1
        for c in range(width):
            if vstart[r, i, c]:
                onew[i, n], ocol[i, n] = 2 + c * (ln - 1) + (ln - 2), c
                n += 1
        return n
    x = s - 2
    c = x // (ln - 1)
    k = x % (ln - 1) + 1
    onew[i, 0], ocol[i, 0] = (1 if k == 1 else 2 + c * (ln - 1) + (k - 2)), c
    return 1


@njit(cache=True, nogil=True)
def _clear(blocked, pos, ln):
    """Are columns pos .. pos+ln-1 free of pieces lying across?"""
    for d in range(ln):
        if blocked[pos + d]:
            return False
    return True


@njit(cache=True, nogil=True)
def _along(r, blocked, hit, hlen, hstart, forward):
    """Ways to lay subsets of the row pieces along row ``r`` clear of ``blocked``, every other hit covered:
    ``f[pos, S]`` within columns ``< pos`` (forward) or ``g[pos, S]`` within columns ``>= pos``."""
    width = blocked.shape[0]
    mh = hlen.shape[0]
    sub = 1 << mh
    out = np.zeros((width + 1, sub), np.int64)
    if forward:
        out[0, 0] = 1
        for pos in range(width):
            skip = blocked[pos] or not hit[r, pos]
            for s in range(sub):
                v = out[pos, s]
                if v == 0:
                    continue
                if skip:
                    out[pos + 1, s] += v
                if blocked[pos]:
                    continue
                for j in range(mh):
                    if not (s >> j) & 1 and hstart[r, j, pos] and _clear(blocked, pos, hlen[j]):
                        out[pos + hlen[j], s | (1 << j)] += v
    else:
        out[width, 0] = 1
        for pos in range(width - 1, -1, -1):
            skip = blocked[pos] or not hit[r, pos]
            for s in range(sub):
                v = out[pos + 1, s] if skip else 0
                if not blocked[pos]:
                    for j in range(mh):
                        if (s >> j) & 1 and hstart[r, j, pos] and _clear(blocked, pos, hlen[j]):
                            v += out[pos + hlen[j], s ^ (1 << j)]
                out[pos, s] = v
    return out


@njit(cache=True, nogil=True)
def _transitions(r, cur, sizes, vlen, vstart, hit, hlen, hstart, keymap):
    """Row ``r``'s transitions (old, new, table index) from the states ``cur`` holds, its tables (per subset of
    row pieces) and each table's blocked columns."""
    width = hit.shape[1]
    nstates = sizes[0] * sizes[1] * sizes[2]
    onew = np.zeros((SLOTS, width + 1), np.int64)
    ocol = np.zeros((SLOTS, width + 1), np.int64)
    cap = 1024
    old = np.empty(cap, np.int64)
    new = np.empty(cap, np.int64)
    tab = np.empty(cap, np.int64)
    ncols = np.empty((64, SLOTS), np.int64)
    tables = np.empty((64, 1 << hlen.shape[0]), np.int64)
    nt = 0
    nk = 0
    keymap[:] = -1
    blocked = np.zeros(width, np.bool_)
    for s in range(nstates):
        if not np.any(cur[:, s, :]):
            continue
        s0 = s % sizes[0]
        s1 = (s // sizes[0]) % sizes[1]
        s2 = s // (sizes[0] * sizes[1])
        n0 = _options(r, 0, s0, vlen, vstart, width, onew, ocol)
        n1 = _options(r, 1, s1, vlen, vstart, width, onew, ocol)
        n2 = _options(r, 2, s2, vlen, vstart, width, onew, ocol)
        for a in range(n0):
            for b in range(n1):
                ca, cb = ocol[0, a], ocol[1, b]
                if ca >= 0 and ca == cb:
                    continue
                for c in range(n2):
                    cc = ocol[2, c]
                    if cc >= 0 and (cc == ca or cc == cb):
                        continue
                    key = (ca + 1) + (width + 1) * ((cb + 1) + (width + 1) * (cc + 1))
                    k = keymap[key]
                    if k < 0:
                        if nk == tables.shape[0]:
                            tables2 = np.empty((2 * nk, tables.shape[1]), np.int64)
                            tables2[:nk] = tables
                            tables = tables2
                            cols2 = np.empty((2 * nk, SLOTS), np.int64)
                            cols2[:nk] = ncols
                            ncols = cols2
                        blocked[:] = False
                        for x in (ca, cb, cc):
                            if x >= 0:
                                blocked[x] = True
                        f = _along(r, blocked, hit, hlen, hstart, True)
                        tables[nk, :] = f[width, :]
                        ncols[nk, 0], ncols[nk, 1], ncols[nk, 2] = ca, cb, cc
                        k = nk
                        keymap[key] = k
                        nk += 1
                    if nt == cap:
                        cap *= 2
                        old2, new2, tab2 = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64)
                        old2[:nt], new2[:nt], tab2[:nt] = old, new, tab
                        old, new, tab = old2, new2, tab2
                    old[nt] = s
                    new[nt] = onew[0, a] + sizes[0] * (onew[1, b] + sizes[1] * onew[2, c])
                    tab[nt] = k
                    nt += 1
    return old[:nt], new[:nt], tab[:nt], tables[:nk], ncols[:nk]


@njit(cache=True, nogil=True)
def _forward(src, dst, old, new, tab, tables, mods, full):
    for t in range(old.shape[0]):
        o, n, h = old[t], new[t], tables[tab[t]]
        for m in range(mods.shape[0]):
            md = mods[m]
            for s in range(full + 1):
                a = src[m, o, s]
                if a == 0:
                    continue
                rest = full ^ s
                x = rest
                while True:
                    hv = h[x] if md == 0 else h[x] % md
                    if hv != 0:
                        dst[m, n, s | x] = _add(dst[m, n, s | x], _mul(a, hv, md), md)
                    if x == 0:
                        break
                    x = (x - 1) & rest


@njit(cache=True, nogil=True)
def _backward(src, dst, old, new, tab, tables, mods, full):
    for t in range(old.shape[0]):
        o, n, h = old[t], new[t], tables[tab[t]]
        for m in range(mods.shape[0]):
            md = mods[m]
            for s in range(full + 1):
                rest = full ^ s
                x = rest
                acc = dst[m, o, s]
                while True:
                    b = src[m, n, s | x]
                    if b != 0:
                        hv = h[x] if md == 0 else h[x] % md
                        acc = _add(acc, _mul(hv, b, md), md)
                    if x == 0:
                        break
                    x = (x - 1) & rest
                dst[m, o, s] = acc


@njit(cache=True, nogil=True)
def _status_at(s, i, sizes):
    if i == 0:
        return s % sizes[0]
    if i == 1:
        return (s // sizes[0]) % sizes[1]
    return s // (sizes[0] * sizes[1])


@njit(cache=True, nogil=True)
def _row_marginals(r, alpha, beta, old, new, tab, tables, ncols, sizes, vlen, hit, hlen, hstart, mods, full,
                   vcount, hcount):
    """Per-placement counts of row ``r``: column pieces starting here, row pieces lying here."""
    width = hit.shape[1]
    k = mods.shape[0]
    w = np.zeros((tables.shape[0], k, full + 1), np.int64)
    for t in range(old.shape[0]):
        o, n, h, key = old[t], new[t], tables[tab[t]], tab[t]
        for m in range(k):
            md = mods[m]
            z = np.int64(0)
            for s in range(full + 1):
                a = alpha[m, o, s]
                if a == 0:
                    continue
                rest = full ^ s
                x = rest
                while True:
                    b = beta[m, n, s | x]
                    if b != 0:
                        ab = _mul(a, b, md)
                        w[key, m, x] = _add(w[key, m, x], ab, md)
                        hv = h[x] if md == 0 else h[x] % md
                        z = _add(z, _mul(ab, hv, md), md)
                    if x == 0:
                        break
                    x = (x - 1) & rest
            if z == 0:
                continue
            for i in range(SLOTS):
                if vlen[i] == 0:
                    continue
                if _status_at(o, i, sizes) == 0:
                    sn = _status_at(n, i, sizes)
                    if sn != 0:
                        c = (sn - 2) // (vlen[i] - 1)
                        vcount[i, r, c, m] = _add(vcount[i, r, c, m], z, md)
    mh = hlen.shape[0]
    blocked = np.zeros(width, np.bool_)
    for key in range(tables.shape[0]):
        if not np.any(w[key]):
            continue
        blocked[:] = False
        for x in range(SLOTS):
            if ncols[key, x] >= 0:
                blocked[ncols[key, x]] = True
        f = _along(r, blocked, hit, hlen, hstart, True)
        g = _along(r, blocked, hit, hlen, hstart, False)
        for j in range(mh):
            ln = hlen[j]
            bit = 1 << j
            for a0 in range(width):
                if not hstart[r, j, a0] or not _clear(blocked, a0, ln):
                    continue
                for m in range(k):
                    md = mods[m]
                    acc = np.int64(0)
                    for tt in range(full + 1):
                        if not tt & bit or w[key, m, tt] == 0:
                            continue
                        rest = tt ^ bit
                        x = rest
                        inner = np.int64(0)
                        while True:
                            fv, gv = f[a0, x], g[a0 + ln, rest ^ x]
                            if fv != 0 and gv != 0:
                                if md == 0:
                                    inner += fv * gv
                                else:
                                    inner = (inner + (fv % md) * (gv % md)) % md
                            if x == 0:
                                break
                            x = (x - 1) & rest
                        acc = _add(acc, _mul(w[key, m, tt], inner if md == 0 else inner % md, md), md)
                    hcount[j, r, a0, m] = _add(hcount[j, r, a0, m], acc, md)


def run(vlen, vstart, hit, hlen, hstart, mods, want):
    """(the count per modulus, per column-piece start ``[i, row, col]``, per row-piece start ``[j, row, col]``);
    the per-placement arrays are filled only when ``want``.  Plain Python: it calls the kernels once per row."""
    height, width = hit.shape
    k = mods.shape[0]
    mh = hlen.shape[0]
    full = (1 << mh) - 1
    sizes = np.ones(SLOTS, np.int64)
    final = 0
    place = 1
    for i in range(SLOTS):
        if vlen[i] > 0:
            sizes[i] = 2 + width * (vlen[i] - 1)
            final += place
        place *= sizes[i]
    nstates = sizes[0] * sizes[1] * sizes[2]
    keymap = np.empty((width + 1) ** SLOTS, np.int64)
    rows_old, rows_new, rows_tab, rows_tables, rows_cols = [], [], [], [], []
    cur = np.zeros((k, nstates, full + 1), np.int64)
    cur[:, 0, 0] = 1
    alphas = [cur]
    for r in range(height):
        old, new, tab, tables, ncols = _transitions(r, cur, sizes, vlen, vstart, hit, hlen, hstart, keymap)
        nxt = np.zeros((k, nstates, full + 1), np.int64)
        _forward(cur, nxt, old, new, tab, tables, mods, full)
        cur = nxt
        if want:
            alphas.append(cur)
            rows_old.append(old)
            rows_new.append(new)
            rows_tab.append(tab)
            rows_tables.append(tables)
            rows_cols.append(ncols)
    total = cur[:, final, full].copy()
    vcount = np.zeros((SLOTS, height, width, k), np.int64)
    hcount = np.zeros((mh, height, width, k), np.int64)
    if not want:
        return total, vcount, hcount
    beta = np.zeros((k, nstates, full + 1), np.int64)
    beta[:, final, full] = 1
    for r in range(height - 1, -1, -1):
        _row_marginals(r, alphas[r], beta, rows_old[r], rows_new[r], rows_tab[r], rows_tables[r], rows_cols[r],
                       sizes, vlen, hit, hlen, hstart, mods, full, vcount, hcount)
        before = np.zeros((k, nstates, full + 1), np.int64)
        _backward(beta, before, rows_old[r], rows_new[r], rows_tab[r], rows_tables[r], mods, full)
        beta = before
    return total, vcount, hcount
