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

That is below the switch row, where a piece's type is chosen at its first cell.  Above it
(mode 0) the type is chosen at the last cell: a code ``1 + e`` is a piece across with
``e`` cells so far that takes the cell below, and the ``hbits`` bits are the cells so far of
a piece lying along that takes the next cell; on the switch row (mode 1) a piece across
from above gets its type, and its code becomes the cells it still covers.

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

Speed: the step over a layer's states (:func:`_steps`) generates each state's moves in its
own body and calls only helpers taking numbers or arrays it never rebinds.  A jitted helper
taking arrays, called or inlined per state, costs an atomic reference count per array at
each call (numba's ``NRT_incref``/``NRT_decref``): in the earlier form (move generators
taking a dozen per-cell arrays, ``_next`` the ``cover`` row) they were 35% of the time of the
marginals of a 10x10 no-touch position, found with ``perf`` and ``gdb``; without them the
forward pass took 26 ms instead of 59.
"""

from __future__ import annotations

from harness.core.jitcache import njit
import numpy as np


@njit(cache=True, nogil=True)
def _next(key, c, W, bits, hbits, notouch, left, x, hrem, cl, ch):
    """The key after cell (r, c) gets code ``x`` (its own: 0 empty, 1 taken and ending, ``1 + k`` going on below),
    the cell left of it having had code ``left``: column c-1 (and c, at the row's end) become what they say of
    the next row.  A cell of the next row that no placement covers (``cl``: below column c-1, ``ch``: below
    column c, the ``cover`` row's) is never blocked: free or blocked, nothing can lie there, so the states that
    differ only there are one.  Numbers only (see the module's docstring)."""
    mask = (1 << bits) - 1
    dpos = W * bits
    two = (key >> dpos) & 1  # the cell (r, c-2) is taken
    key = key & ~(mask << (c * bits)) & ~(((1 << (hbits + 1)) - 1) << dpos)
    if x == 1 and not notouch:
        x = 0  # pieces may touch: a cell that ends a piece says nothing to its neighbours
    key |= x << (c * bits)
    if c > 0:
        below = left if left >= 2 else (1 if notouch and cl and (two == 1 or left >= 1 or x >= 1) else 0)
        key = (key & ~(mask << ((c - 1) * bits))) | (below << ((c - 1) * bits))
    if c + 1 == W:
        below = x if x >= 2 else (1 if notouch and ch and (left >= 1 or x >= 1) else 0)
        key = (key & ~(mask << (c * bits))) | (below << (c * bits))
    elif notouch and c > 0 and left >= 1 and ch:  # what the next cell needs for the one below it
        key |= 1 << dpos
    return key | (hrem << (dpos + 1))


@njit(cache=True, nogil=True)
def most_moves(T):
    """The most moves a state has at a cell, ``T`` types: empty, or begin any type along or across (below the switch
    row); empty, a single cell's types, begin a run along or across (above it)."""
    return 2 * T + 3


@njit(cache=True, nogil=True)
def _reduce(vals, n, mods):
    """The first ``n`` states' values reduced by each prime modulus (a modulus 0 wraps on its own)."""
    for m in range(vals.shape[1]):
        if mods[m] != 0:
            for j in range(n):
                for f in range(vals.shape[2]):
                    vals[j, m, f] %= mods[m]


@njit(cache=True, nogil=True)
def _slot(table, nkeys, k):
    """Where key ``k`` is in the open-addressing ``table`` (a power of two long; -1 empty) of indices into
    ``nkeys``: its index, or ``-1 - position`` of the empty place it would take."""
    size = table.shape[0]
    h = k * 0x5851F42D4C957F2D
    h ^= h >> 29
    p = h & (size - 1)
    while True:
        j = table[p]
        if j < 0:
            return -1 - p
        if nkeys[j] == k:
            return j
        p = (p + 1) & (size - 1)


@njit(cache=True, nogil=True)
def _rehash(nkeys, ns, size):
    table = np.full(size, -1, np.int32)
    for j in range(ns):
        p = -1 - _slot(table, nkeys, nkeys[j])
        table[p] = j
    return table


@njit(cache=True, nogil=True)
def _live(vals, s, M, st, k, F):
    """Whether state ``s`` has a non-zero value on a fleet entry with fewer than ``k`` copies of a type of
    stride ``st`` (those are contiguous runs of ``st * k`` entries every ``st * (k + 1)``)."""
    block = st * (k + 1)
    for b in range(0, F, block):
        for m in range(M):
            for f in range(b, b + st * k):
                if vals[s, m, f] != 0:
                    return True
    return False


@njit(cache=True, nogil=True)
def _any(vals, s, M, F, mask):
    """Whether state ``s`` has a non-zero value on a fleet entry ``mask`` allows."""
    for m in range(M):
        for f in range(F):
            if mask[f] and vals[s, m, f] != 0:
                return True
    return False


@njit(cache=True, nogil=True)
def _enough(key, W, bits, hbits, room, mask, live, need):
    """``mask`` and, per fleet entry, whether its copies left can end every run the key ``key`` has open above the
    switch row (a necessary condition: with ``e`` cells so far a run needs a type longer than ``e``; per ``e``,
    the runs with at least ``e`` cells, along, across and together, against ``room[0|1|2, f, e]``, the copies left
    of the types longer than ``e`` lying along, across, either), in ``live``."""
    L = need.shape[1]
    need[:] = 0
    m = (1 << bits) - 1
    for j in range(W):
        code = (key >> (j * bits)) & m
        if code >= 2:
            need[1, code - 1] += 1
    he = (key >> (W * bits + 1)) & ((1 << hbits) - 1)
    if he > 0:
        need[0, he] += 1
    for e in range(L - 2, 0, -1):  # at least e cells
        need[0, e] += need[0, e + 1]
        need[1, e] += need[1, e + 1]
    for f in range(live.shape[0]):
        ok = mask[f]
        e = 1
        while ok and e < L:
            if need[0, e] > room[0, f, e] or need[1, e] > room[1, f, e] or need[0, e] + need[1, e] > room[2, f, e]:
                ok = False
            e += 1
        live[f] = ok
    return live


@njit(cache=True, nogil=True)
def forward(keys, vals, S, c, W, bits, hbits, notouch, mode, cover, hit, hstart, vstart, single, hcont, vcont, hmask,
            vmask, hlast, vlast, conv, room, slots, hlen, vlen, cnt, stride, mods, nkeys, nvals, edge, kind, table):
    """One cell forward from the first ``S`` states of ``keys``, ``vals`` (``(., M, F)``) into the buffers
    ``nkeys``, ``nvals`` (grown when they are too small; reused, so no layer pays the system for fresh zeroed
    memory): the next layer's number of states, its keys and values buffers, whether a value of a wrapping
    modulus passed 2**63 (then it is no longer the count itself, only its residue) and the buffer of its hash
    table (``table`` unless that was too small: give it back next time); a state that nothing reaches with a
    non-zero value is not kept.  When ``edge`` has rows (``(S, most_moves(T))``), each state's moves are written
    there: the next state's index (-1: none) and in ``kind`` the move's (-1 when it gives no piece its type, else
    ``slots * t + slot``: slot 0 along, 1 across, ``2 + e`` across the switch row with ``e`` cells above), so
    :func:`backward` need not find them again.  The states are stepped by :func:`_steps`, which stops when the
    buffers may not hold one more state's moves; they are grown here and it goes on."""
    M, F = vals.shape[1], vals.shape[2]
    T = hlen.shape[0]
    MM = most_moves(T)
    size = 64
    while size < 2 * (S + S // 4):  # the next layer is about as large as this one: at most half full
        size *= 2
    if table.shape[0] < size:
        table = np.empty(size, np.int32)
    buffer = table
    table = buffer[:size]
    table[:] = -1
    if edge.shape[0] > 0:
        edge[:S] = -1
    scratch = np.empty((3, MM), np.int64)
    live = np.empty(F, np.bool_)
    need = np.empty((2, room.shape[2]), np.int64)
    maskbuf = np.empty(F, np.bool_)
    ns = 0
    sign = 0
    s = 0
    while True:
        s, ns, sign = _steps(keys, vals, s, S, c, W, bits, hbits, notouch, mode, cover, hit, hstart, vstart, single,
                             hcont, vcont, hmask, vmask, hlast, vlast, conv, room, slots, hlen, vlen, cnt, stride,
                             nkeys, nvals, edge, kind, table, ns, sign, scratch, live, need, maskbuf)
        if s == S:
            break
        if ns + MM > nkeys.shape[0]:
            cap = max(16, 2 * nkeys.shape[0], ns + MM)
            grown = np.empty((cap, M, F), np.int64)
            grown[:ns] = nvals[:ns]
            nvals = grown
            gk = np.empty(cap, np.int64)
            gk[:ns] = nkeys[:ns]
            nkeys = gk
        if 2 * (ns + MM) > size:
            while 2 * (ns + MM) > size:
                size *= 2
            table = _rehash(nkeys, ns, size)
            buffer = table
    _reduce(nvals, ns, mods)
    return ns, nkeys, nvals, sign < 0, buffer


@njit(cache=True, nogil=True)
def _steps(keys, vals, s, S, c, W, bits, hbits, notouch, mode, cover, hit, hstart, vstart, single, hcont, vcont,
           hmask, vmask, hlast, vlast, conv, room, slots, hlen, vlen, cnt, stride, nkeys, nvals, edge, kind, table,
           ns, sign, scratch, live, need, maskbuf):
    """:func:`forward`'s states from ``s`` on while ``nkeys``/``nvals`` and ``table`` have room for one more
    state's moves (``ns`` states so far, ``sign`` the OR of the sums so far): (the next state to step, the
    states, the OR of every sum: negative when one passed 2**63).  A state's moves (its next key, type and
    orientation in ``scratch``'s rows: orientation 0 none, 1 along, 2 across, ``5 + e`` across, a run with ``e``
    cells above the switch row given its type here; 3 and 4 a run along or across that goes on, its type then
    its cells before this one: only the fleet entries that may still end it are kept) are generated here, not
    by a helper (see the module's docstring).  ``mode`` 0 (above the switch row): a piece's type is chosen at
    its last cell; 2 (below it): at its first cell, a piece lying across then coded by its cells still to come;
    1 (the switch row): as 2, and a run across from above gets its type (``conv[e, t]``: a placement of type t
    begins e cells above)."""
    M, F = vals.shape[1], vals.shape[2]
    T = hlen.shape[0]
    MM = most_moves(T)
    cap = nkeys.shape[0]
    size = table.shape[0]
    record = edge.shape[0] > 0
    ok = scratch[0]
    ot = scratch[1]
    oo = scratch[2]
    cmask = (1 << bits) - 1
    cl = cover[c - 1] if c > 0 else False
    ch = cover[c]
    while s < S:
        if ns + MM > cap or 2 * (ns + MM) > size:
            return s, ns, sign
        key = keys[s]
        up = (key >> (c * bits)) & cmask
        left = (key >> ((c - 1) * bits)) & cmask if c > 0 else 0
        run = (key >> (W * bits + 1)) & ((1 << hbits) - 1)
        n = 0
        if mode == 0 and run > 0:  # above the switch row (a type at a piece's last cell): a run along goes on
            if up == 0:  # here, or ends here as a type
                if hcont[run]:
                    ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 1, run + 1, cl, ch), run, 3
                    n += 1
                for t in range(T):
                    if hlast[t] and hlen[t] == run + 1:
                        ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 1, 0, cl, ch), t, 1
                        n += 1
        elif mode == 0 and up >= 2:  # a run across with up - 1 cells so far takes this cell: on, or ends as a type
            e = up - 1
            if vcont[e]:
                ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, up + 1, 0, cl, ch), e, 4
                n += 1
            for t in range(T):
                if vlast[t] and vlen[t] == e + 1:
                    ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 1, 0, cl, ch), t, 2
                    n += 1
        elif run > 0:  # below it (a type at a piece's first cell): a piece lying along goes on here
            if up == 0:
                ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 1, run - 1, cl, ch), -1, 0
                n += 1
        elif up >= 2 and mode == 2:  # a piece lying across goes on here
            ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, up - 1, 0, cl, ch), -1, 0
            n += 1
        elif up >= 2:  # the switch row: a run across with e cells above gets its type
            e = up - 1
            for t in range(T):
                if conv[e, t]:
                    ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, vlen[t] - e, 0, cl, ch), t, 5 + e
                    n += 1
        else:  # nothing goes on here: the cell left empty (unless a hit), or a piece begins on a free cell
            if not hit:
                ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 0, 0, cl, ch), -1, 0
                n += 1
            if up == 0 and not (notouch and left != 0):
                if mode == 0:  # a single cell's types, or a run along or across begins
                    for t in range(T):
                        if single[t]:
                            ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 1, 0, cl, ch), t, 1
                            n += 1
                    if hcont[0]:
                        ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 1, 1, cl, ch), 0, 3
                        n += 1
                    if vcont[0]:
                        ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, 2, 0, cl, ch), 0, 4
                        n += 1
                else:  # a placement of any type that starts here, along or across
                    for t in range(T):
                        if hstart[t]:
                            nk = _next(key, c, W, bits, hbits, notouch, left, 1, hlen[t] - 1, cl, ch)
                            ok[n], ot[n], oo[n] = nk, t, 1
                            n += 1
                        if vstart[t]:
                            ok[n], ot[n], oo[n] = _next(key, c, W, bits, hbits, notouch, left, vlen[t], 0, cl, ch), t, 2
                            n += 1
        for q in range(n):
            t = ot[q]
            o = oo[q]
            if o == 3 or o == 4:  # a run goes on: only fleet entries with a copy left of a type that may still end it
                for f in range(F):
                    maskbuf[f] = hmask[t, f] if o == 3 else vmask[t, f]
                if not notouch:  # pieces that may touch: open runs side by side need copies enough (else few)
                    _enough(ok[q], W, bits, hbits, room, maskbuf, live, need)
                    for f in range(F):
                        maskbuf[f] = live[f]
                if not _any(vals, s, M, F, maskbuf):
                    continue
                t = -2
            elif t >= 0 and not _live(vals, s, M, stride[t], cnt[t], F):
                continue  # a placement needs a fleet entry with a copy of t left and a value
            k = ok[q]
            j = _slot(table, nkeys, k)
            fresh = j < 0  # a new state: its vector is written, not added to (no zeroing first)
            if fresh:
                nkeys[ns] = k
                table[-1 - j] = ns
                j = ns
                ns += 1
            if record:
                edge[s, q] = j
                kind[s, q] = -1 if t < 0 else slots * t + (o - 1 if o < 3 else o - 3)
            if t == -2:
                for m in range(M):
                    if fresh:
                        for f in range(F):
                            v = vals[s, m, f] if maskbuf[f] else 0
                            nvals[j, m, f] = v
                    else:
                        for f in range(F):
                            if maskbuf[f]:
                                v = nvals[j, m, f] + vals[s, m, f]
                                nvals[j, m, f] = v
                                sign |= v
            elif t < 0:
                for m in range(M):
                    if fresh:
                        for f in range(F):
                            nvals[j, m, f] = vals[s, m, f]
                    else:
                        for f in range(F):
                            v = nvals[j, m, f] + vals[s, m, f]
                            nvals[j, m, f] = v
                            sign |= v
            else:
                st = stride[t]
                run = st * cnt[t]
                block = st * (cnt[t] + 1)
                for m in range(M):
                    if fresh:
                        for b in range(0, F, block):
                            for f in range(b, b + st):
                                nvals[j, m, f] = 0
                            for f in range(b, b + run):
                                nvals[j, m, f + st] = vals[s, m, f]
                    else:
                        for b in range(0, F, block):
                            for f in range(b, b + run):
                                v = nvals[j, m, f + st] + vals[s, m, f]
                                nvals[j, m, f + st] = v
                                sign |= v
        s += 1
    return s, ns, sign


@njit(cache=True, nogil=True)
def backward(fvals, edge, kind, nback, cnt, stride, mods, slots, per, back):
    """One cell backward: the completions of this layer's states (``fvals``: ``(S, M, F)``) from the next layer's
    (``nback``) along the moves :func:`forward` wrote in ``edge`` and ``kind``, into the buffer ``back`` (grown
    when too small: it is returned); adds into ``per[t, slot, m]`` the deployments in which a move at this cell
    gives a copy of type ``t`` its placement (``kind``'s slot; forward value times the completions after it)."""
    S, M, F = fvals.shape
    if back.shape[0] < S:
        back = np.empty((max(S, 2 * back.shape[0]), M, F), np.int64)
    Q = edge.shape[1]
    for s in range(S):
        for m in range(M):
            for f in range(F):
                back[s, m, f] = 0
        for q in range(Q):
            j = edge[s, q]
            if j < 0:
                continue
            code = kind[s, q]
            if code < 0:
                for m in range(M):
                    for f in range(F):
                        back[s, m, f] += nback[j, m, f]
            else:
                t = code // slots
                o = code % slots
                st = stride[t]
                run = st * cnt[t]
                block = st * (cnt[t] + 1)
                for m in range(M):
                    acc = 0
                    mod = mods[m]
                    if mod == 0:
                        for blk in range(0, F, block):
                            for f in range(blk, blk + run):  # the entries with a copy of t left
                                b = nback[j, m, f + st]
                                back[s, m, f] += b
                                acc += fvals[s, m, f] * b  # wraps: exact modulo 2**64
                        per[t, o, m] += acc
                    else:
                        for blk in range(0, F, block):
                            for f in range(blk, blk + run):
                                b = nback[j, m, f + st]
                                back[s, m, f] += b
                                acc = (acc + fvals[s, m, f] * b) % mod
                        per[t, o, m] = (per[t, o, m] + acc) % mod
    _reduce(back, S, mods)
    return back
