"""The compiled kernels of :mod:`harness.counting.frontier` (numba): state tables and the forward/backward passes.

A *state* is the frontier's occupancy, not the pieces used: the key is five 64-bit words
``(occ_lo, occ_hi, blk_lo, blk_hi, aux)`` with ``aux`` the current row's count (8 bits)
and, when column clues are kept, 4 bits per clued column.  The pieces used live in the
*value*: a vector over every used-count combination (mixed radix, ``U`` entries), one such
vector per modulus.  Placing a piece of type ``t`` shifts the vector by ``radix[t]``.  So
one hash lookup moves every used-count combination of a frontier at once.

A table is open addressing: ``keys`` (cap, 5), ``vals`` (cap, K*U) int64, ``live`` flags
and ``slots`` listing the live rows.  Tables double when half full.  Compiled on first use
and cached on disk by numba in the harness's folder (:mod:`harness.core.jitcache`).
"""

from __future__ import annotations

from harness.core.jitcache import njit
import numpy as np

_EMPTY = np.uint64(0)
_ONE = np.uint64(1)
_M63 = np.uint64(63)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_NIB = np.uint64(15)


@njit(cache=True, nogil=True)
def _new(cap, width):
    return (np.zeros((cap, 5), np.uint64), np.zeros((cap, width), np.int64), np.zeros(cap, np.bool_),
            np.zeros(cap, np.int64), np.zeros(1, np.int64))


@njit(cache=True, nogil=True)
def _mix(h):
    """splitmix64's finaliser: every input bit reaches every output bit."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@njit(cache=True, nogil=True)
def _slot(keys, live, k0, k1, k2, k3, k4):
    cap = keys.shape[0]
    h = _mix(k0 ^ _mix(k1 ^ (k2 * _GOLD) ^ _mix(k3 + (k4 * _GOLD))))
    i = np.int64(h & np.uint64(cap - 1))
    while live[i]:
        if keys[i, 0] == k0 and keys[i, 1] == k1 and keys[i, 2] == k2 and keys[i, 3] == k3 and keys[i, 4] == k4:
            return i
        i = (i + 1) & (cap - 1)
    return i


@njit(cache=True, nogil=True)
def _grow(table):
    keys, vals, live, slots, n = table
    bigger = _new(keys.shape[0] * 2, vals.shape[1])
    k2, v2, l2, s2, n2 = bigger
    for j in range(n[0]):
        i = slots[j]
        t = _slot(k2, l2, keys[i, 0], keys[i, 1], keys[i, 2], keys[i, 3], keys[i, 4])
        l2[t] = True
        k2[t, :] = keys[i]
        v2[t, :] = vals[i]
        s2[n2[0]] = t
        n2[0] += 1
    return bigger


@njit(cache=True, nogil=True)
def _put(keys, vals, live, slots, n, k0, k1, k2, k3, k4):
    """The row of this key, made (zeroed) if new; the caller has made room (at most half full)."""
    i = _slot(keys, live, k0, k1, k2, k3, k4)
    if not live[i]:
        live[i] = True
        keys[i, 0], keys[i, 1], keys[i, 2], keys[i, 3], keys[i, 4] = k0, k1, k2, k3, k4
        vals[i, :] = 0
        slots[n[0]] = i
        n[0] += 1
    return i


@njit(cache=True, nogil=True)
def _room(table, more):
    """The table, grown until ``more`` new keys keep it at most half full."""
    while 2 * (table[4][0] + more) > table[0].shape[0]:
        table = _grow(table)
    return table


@njit(cache=True, nogil=True)
def _row(table, k0, k1, k2, k3, k4):
    """The row of this key, made (zeroed) if new; returns (table, row)."""
    table = _room(table, 1)
    keys, vals, live, slots, n = table
    return table, _put(keys, vals, live, slots, n, k0, k1, k2, k3, k4)


@njit(cache=True, nogil=True)
def _get(table, k0, k1, k2, k3, k4):
    keys, vals, live, slots, n = table
    i = _slot(keys, live, k0, k1, k2, k3, k4)
    return i if live[i] else -1


@njit(cache=True, nogil=True)
def _clear(table):
    keys, vals, live, slots, n = table
    for j in range(n[0]):
        live[slots[j]] = False
    n[0] = 0


@njit(cache=True, nogil=True)
def _shift(lo, hi):
    return (lo >> _ONE) | ((hi & _ONE) << _M63), hi >> _ONE


@njit(cache=True, nogil=True)
def _judge(o_lo, aux, must, clue, row_end, col, ccl, col_end):
    """The aux word after the cell is judged, or -1 when the cell breaks a hit or a clue (the cell's ``must``,
    ``clue``, ``row_end``, ``col``, ``ccl``, ``col_end``: numbers, not the arrays, as every helper called per
    state here takes: a jitted helper given an array costs atomic reference counts at each call)."""
    filled = np.int64(o_lo & _ONE)
    if must == 1 and filled == 0:
        return np.int64(-1)
    rc = np.int64(aux & np.uint64(255))
    cols = aux >> np.uint64(8)
    if clue >= 0:
        rc += filled
        if rc > clue:
            return np.int64(-1)
        if row_end == 1:
            if rc != clue:
                return np.int64(-1)
            rc = 0
    if ccl >= 0:
        sh = np.uint64(4 * col)
        cc = np.int64((cols >> sh) & _NIB) + filled
        if cc > ccl:
            return np.int64(-1)
        if col_end == 1 and cc != ccl:
            return np.int64(-1)
        cols = (cols & ~(_NIB << sh)) | (np.uint64(cc) << sh)
    return np.int64((cols << np.uint64(8)) | np.uint64(rc))


@njit(cache=True, nogil=True)
def _place(m0, m1, h0, h1, occ_lo, occ_hi, blk_lo, blk_hi, aux, must, clue, row_end, col, ccl, col_end):
    """The key after a placement (its cells ``m0``, ``m1``, its halo ``h0``, ``h1``) at the cell (its cells taken,
    its halo blocked, the cell judged as :func:`_judge`, the window moved on); ``a < 0`` when the placement does
    not fit or breaks a hit or a clue."""
    if (m0 & blk_lo) != _EMPTY or (m1 & blk_hi) != _EMPTY:
        return np.int64(-1), _EMPTY, _EMPTY, _EMPTY, _EMPTY
    o_lo, o_hi = occ_lo | m0, occ_hi | m1
    a = _judge(o_lo, aux, must, clue, row_end, col, ccl, col_end)
    b_lo, b_hi = _shift(blk_lo | h0, blk_hi | h1)
    o_lo, o_hi = _shift(o_lo, o_hi)
    return a, o_lo, o_hi, b_lo, b_hi


@njit(cache=True, nogil=True)
def _expand(i, first, keys, vals, n_src, slots_src, nk, nv, nl, ns, nn, ptr, ptype, pmask, phalo, radix, valid,
            nvalid, allu, must, clue, row_end, col, ccl, col_end, mods, units):
    """Successors of the source states from ``first`` on into the next table while it has room; returns the
    index of the first source state not expanded."""
    cap = nk.shape[0]
    most = ptr[i + 1] - ptr[i] + 1
    K = mods.shape[0]
    W = nv.shape[1]
    mu, cl, re, co, cc, ce = must[i], clue[i], row_end[i], col[i], ccl[i], col_end[i]
    for j in range(first, n_src):
        if 2 * (nn[0] + most) > cap:
            return j
        s = slots_src[j]
        occ_lo, occ_hi, blk_lo, blk_hi, aux = keys[s, 0], keys[s, 1], keys[s, 2], keys[s, 3], keys[s, 4]
        a = _judge(occ_lo, aux, mu, cl, re, co, cc, ce)
        if a >= 0:
            o_lo, o_hi = _shift(occ_lo, occ_hi)
            b_lo, b_hi = _shift(blk_lo, blk_hi)
            r = _slot(nk, nl, o_lo, o_hi, b_lo, b_hi, np.uint64(a))
            if not nl[r]:  # a new state (the table's own _put, written out: see _judge)
                nl[r] = True
                nk[r, 0], nk[r, 1], nk[r, 2], nk[r, 3], nk[r, 4] = o_lo, o_hi, b_lo, b_hi, np.uint64(a)
                for u in range(W):
                    nv[r, u] = 0
                ns[nn[0]] = r
                nn[0] += 1
            for m in range(K):  # the value added, written out (see _judge)
                base = m * units
                md = mods[m]
                for u in range(units):
                    if md == 0:
                        nv[r, base + u] += vals[s, base + u]
                    else:
                        nv[r, base + u] = (nv[r, base + u] + vals[s, base + u]) % md
        if (occ_lo & _ONE) != _EMPTY:
            continue
        for q in range(ptr[i], ptr[i + 1]):
            m0, m1 = pmask[q, 0], pmask[q, 1]
            if (m0 & blk_lo) != _EMPTY or (m1 & blk_hi) != _EMPTY:
                continue  # (also in _place: here it spares the used-vector test)
            t = ptype[q]
            nt = nvalid[t]
            seen = False  # a non-zero value on an entry with a copy of t left (written out: see _judge)
            for m in range(K):
                for v in range(nt):
                    if vals[s, m * units + valid[t, v]] != 0:
                        seen = True
                        break
                if seen:
                    break
            if not seen:
                continue
            a, o_lo, o_hi, b_lo, b_hi = _place(m0, m1, phalo[q, 0], phalo[q, 1], occ_lo, occ_hi, blk_lo, blk_hi, aux,
                                               mu, cl, re, co, cc, ce)
            if a < 0:
                continue
            r = _slot(nk, nl, o_lo, o_hi, b_lo, b_hi, np.uint64(a))
            if not nl[r]:
                nl[r] = True
                nk[r, 0], nk[r, 1], nk[r, 2], nk[r, 3], nk[r, 4] = o_lo, o_hi, b_lo, b_hi, np.uint64(a)
                for u in range(W):
                    nv[r, u] = 0
                ns[nn[0]] = r
                nn[0] += 1
            shift = radix[t]
            for m in range(K):
                base = m * units
                md = mods[m]
                for v in range(nt):
                    u = valid[t, v]
                    if md == 0:
                        nv[r, base + u + shift] += vals[s, base + u]
                    else:
                        nv[r, base + u + shift] = (nv[r, base + u + shift] + vals[s, base + u]) % md
    return n_src


@njit(cache=True, nogil=True)
def _layer_into(i, table, nxt, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, must, clue, row_end, col, ccl,
                col_end, mods, units):
    """The states after cell i, added into the (cleared) table ``nxt``; returns it (possibly grown)."""
    keys, vals, live, slots, n = table
    _clear(nxt)
    j = 0
    while True:
        nk, nv, nl, ns, nn = nxt
        j = _expand(i, j, keys, vals, n[0], slots, nk, nv, nl, ns, nn, ptr, ptype, pmask, phalo, radix, valid,
                    nvalid, allu, must, clue, row_end, col, ccl, col_end, mods, units)
        if j >= n[0]:
            return nxt
        nxt = _grow(nxt)


@njit(cache=True, nogil=True)
def _start(width, mods, units):
    table = _new(1024, width)
    table, r = _row(table, _EMPTY, _EMPTY, _EMPTY, _EMPTY, _EMPTY)
    for m in range(mods.shape[0]):
        table[1][r, m * units] = 1
    return table


@njit(cache=True, nogil=True)
def _total(table, full, mods, units):
    keys, vals, live, slots, n = table
    total = np.zeros(mods.shape[0], np.int64)
    for j in range(n[0]):
        s = slots[j]
        for m in range(mods.shape[0]):
            v = vals[s, m * units + full]
            total[m] = total[m] + v if mods[m] == 0 else (total[m] + v) % mods[m]
    return total


@njit(cache=True, nogil=True)
def forward_count(n, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, full, must, clue, row_end, col, ccl,
                  col_end, mods, units):
    """(the number of deployments, one residue per modulus; the count itself for modulus 0; the peak states)."""
    width = mods.shape[0] * units
    table = _start(width, mods, units)
    spare = _new(1024, width)
    peak = 1
    for i in range(n):
        nxt = _layer_into(i, table, spare, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, must, clue,
                          row_end, col, ccl, col_end, mods, units)
        spare = table
        table = nxt
        peak = max(peak, table[4][0])
    return _total(table, full, mods, units), peak


@njit(cache=True, nogil=True)
def _layer(i, table, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, must, clue, row_end, col, ccl, col_end,
           mods, units):
    size = 1024
    while size < 2 * table[4][0] + 2:
        size *= 2
    return _layer_into(i, table, _new(size, table[1].shape[1]), ptr, ptype, pmask, phalo, radix, valid, nvalid,
                       allu, must, clue, row_end, col, ccl, col_end, mods, units)


@njit(cache=True, nogil=True)
def _dot(fv, fs, bv, bs, mods, units, shift, valid, out, q):
    """out[q] += sum over valid u of fv[fs, u] * bv[bs, u + shift], per modulus."""
    for m in range(mods.shape[0]):
        base = m * units
        md = mods[m]
        acc = np.int64(0)
        for j in range(valid.shape[0]):
            u = valid[j]
            if md == 0:
                acc += fv[fs, base + u] * bv[bs, base + u + shift]
            else:
                acc = (acc + fv[fs, base + u] * bv[bs, base + u + shift]) % md
        out[q, m] = out[q, m] + acc if md == 0 else (out[q, m] + acc) % md


@njit(cache=True, nogil=True)
def _pull(dst, drow, src, srow, mods, units, shift, valid):
    """dst[drow, u] += src[srow, u + shift] over the valid u: completions seen from before a placement."""
    for m in range(mods.shape[0]):
        base = m * units
        md = mods[m]
        for j in range(valid.shape[0]):
            u = valid[j]
            if md == 0:
                dst[drow, base + u] += src[srow, base + u + shift]
            else:
                dst[drow, base + u] = (dst[drow, base + u] + src[srow, base + u + shift]) % md


@njit(cache=True, nogil=True)
def forward_backward(n, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, full, must, clue, row_end, col, ccl,
                     col_end, mods, units):
    """(the count, per placement: the deployments that use it).

    Every forward layer is kept while they hold few values (game positions); else tables
    are kept at checkpoints every ``stride`` cells, and going backward each stretch is
    recomputed from its checkpoint and walked back with the completion vectors
    of the layer after it (entry ``u``: completions from used-counts ``u`` to all placed).
    """
    k = mods.shape[0]
    width = k * units
    table = _start(width, mods, units)
    layers = [table]
    kept = 1
    budget = 20_000_000 // max(1, width)  # keep every layer while they hold few values (game positions)
    for i in range(n):
        table = _layer(i, table, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, must, clue, row_end, col,
                       ccl, col_end, mods, units)
        kept += table[4][0]
        layers.append(table)
        if kept > budget:
            break
    keep_all = kept <= budget
    stride = 1 if keep_all else max(1, int(np.sqrt(n)))
    checkpoints = [layers[0]]
    if not keep_all:
        table = layers[0]
        layers = [table]
        for i in range(n):
            table = _layer(i, table, ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, must, clue, row_end,
                           col, ccl, col_end, mods, units)
            if (i + 1) % stride == 0 and i + 1 < n:
                checkpoints.append(table)
    total = _total(table, full, mods, units)
    keys, vals, live, slots, cnt = table
    after = _new(max(1024, keys.shape[0]), width)
    for j in range(cnt[0]):
        s = slots[j]
        after, r = _row(after, keys[s, 0], keys[s, 1], keys[s, 2], keys[s, 3], keys[s, 4])
        for m in range(k):
            after[1][r, m * units + full] = 1
    per = np.zeros((ptype.shape[0], k), np.int64)
    spare = _new(1024, width)
    for c in range(n - 1 if keep_all else len(checkpoints) - 1, -1, -1):
        first = c * stride
        last = min(n, first + stride)
        if keep_all:
            stretch = [layers[c]]
        else:
            stretch = [checkpoints[c]]
            for i in range(first, last - 1):
                stretch.append(_layer(i, stretch[-1], ptr, ptype, pmask, phalo, radix, valid, nvalid, allu, must,
                                      clue, row_end, col, ccl, col_end, mods, units))
        for i in range(last - 1, first - 1, -1):
            hk, hv, hl, hs, hn = stretch[i - first]
            _clear(spare)
            back = _room(spare, hn[0])  # the table two layers on, cleared: no allocation per layer
            av = after[1]
            for j in range(hn[0]):
                s = hs[j]
                occ_lo, occ_hi, blk_lo, blk_hi, aux = hk[s, 0], hk[s, 1], hk[s, 2], hk[s, 3], hk[s, 4]
                back, r = _row(back, occ_lo, occ_hi, blk_lo, blk_hi, aux)
                a = _judge(occ_lo, aux, must[i], clue[i], row_end[i], col[i], ccl[i], col_end[i])
                if a >= 0:
                    o_lo, o_hi = _shift(occ_lo, occ_hi)
                    b_lo, b_hi = _shift(blk_lo, blk_hi)
                    t = _get(after, o_lo, o_hi, b_lo, b_hi, np.uint64(a))
                    if t >= 0:
                        _pull(back[1], r, av, t, mods, units, 0, allu)
                if (occ_lo & _ONE) != _EMPTY:
                    continue
                for q in range(ptr[i], ptr[i + 1]):
                    a, o_lo, o_hi, b_lo, b_hi = _place(pmask[q, 0], pmask[q, 1], phalo[q, 0], phalo[q, 1], occ_lo,
                                                       occ_hi, blk_lo, blk_hi, aux, must[i], clue[i], row_end[i],
                                                       col[i], ccl[i], col_end[i])
                    if a < 0:
                        continue
                    t = _get(after, o_lo, o_hi, b_lo, b_hi, np.uint64(a))
                    if t < 0:
                        continue
                    typ = ptype[q]
                    vt = valid[typ, :nvalid[typ]]
                    _pull(back[1], r, av, t, mods, units, radix[typ], vt)
                    _dot(hv, s, av, t, mods, units, radix[typ], vt, per, q)
            spare = after
            after = back
    return total, per
