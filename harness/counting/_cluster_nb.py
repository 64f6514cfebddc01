"""The compiled kernel of :mod:`harness.counting.counters.cluster` (numba): connected configurations, each once.

``block_table`` lists every configuration of a block of pieces whose conflict graph is
connected, up to translation (the block's first piece anchored at the origin), each
exactly once: pieces join in *canonical order* (the next piece is always the
lowest-numbered one that conflicts with those already placed), enforced as it grows, so
no configuration needs to be remembered.  For each it adds ``phi`` of its conflict graph
(from ``phis``, indexed by the graph's edge bits) into ``table[h, w]`` by bounding box.
"""

from __future__ import annotations

from harness.core.jitcache import njit
import numpy as np


@njit(cache=True, nogil=True)
def _conflict(k1, o1, r1, c1, k2, o2, r2, c2, shp, nc, d):
    for a in range(nc[k1, o1]):
        x0 = shp[k1, o1, a, 0] + r1
        x1 = shp[k1, o1, a, 1] + c1
        for b in range(nc[k2, o2]):
            if abs(x0 - shp[k2, o2, b, 0] - r2) <= d and abs(x1 - shp[k2, o2, b, 1] - c2) <= d:
                return True
    return False


@njit(cache=True, nogil=True)
def block_table(k, shp, nc, no, d, phis, edge, size):
    """table[h, w] = sum of phi over the block's connected configurations with an h x w bounding box."""
    table = np.zeros((size, size), np.int64)
    off = 4 * size
    span = 2 * off
    # placement of each piece by depth; order[m] = piece placed at step m
    po = np.zeros(k, np.int64)
    pr = np.zeros(k, np.int64)
    pc = np.zeros(k, np.int64)
    placed = np.zeros(k, np.bool_)
    order = np.zeros(k, np.int64)
    cap = 1 << 16
    cand = np.zeros((k, cap, 4), np.int64)  # per depth: (piece, orientation, row, col)
    ncand = np.zeros(k, np.int64)
    idx = np.zeros(k, np.int64)
    for o0 in range(no[0]):
        placed[:] = False
        placed[0] = True
        po[0], pr[0], pc[0] = o0, 0, 0
        order[0] = 0
        depth = 1
        if k == 1:
            break
        ncand[1] = -1
        while depth >= 1:
            if ncand[depth] < 0:
                # build the candidates at this depth
                n = 0
                for j in range(k):
                    if placed[j]:
                        continue
                    start = n
                    for m in range(depth):
                        i = order[m]
                        for o in range(no[j]):
                            for a in range(nc[i, po[i]]):
                                xr = shp[i, po[i], a, 0] + pr[i]
                                xc = shp[i, po[i], a, 1] + pc[i]
                                for b in range(nc[j, o]):
                                    for dr in range(-d, d + 1):
                                        for dc in range(-d, d + 1):
                                            r = xr + dr - shp[j, o, b, 0]
                                            c = xc + dc - shp[j, o, b, 1]
                                            if n < cap:
                                                cand[depth, n, 0] = j
                                                cand[depth, n, 1] = o
                                                cand[depth, n, 2] = r
                                                cand[depth, n, 3] = c
                                                n += 1
                    # unique per piece
                    if n > start:
                        codes = np.empty(n - start, np.int64)
                        for t in range(start, n):
                            codes[t - start] = (cand[depth, t, 1] * span + cand[depth, t, 2] + off) * span \
                                + cand[depth, t, 3] + off
                        codes = np.unique(codes)
                        for t in range(codes.shape[0]):
                            v = codes[t]
                            cand[depth, start + t, 0] = j
                            cand[depth, start + t, 3] = v % span - off
                            cand[depth, start + t, 2] = (v // span) % span - off
                            cand[depth, start + t, 1] = v // (span * span)
                        n = start + codes.shape[0]
                ncand[depth] = n
                idx[depth] = 0
            if idx[depth] >= ncand[depth]:
                # exhausted: backtrack
                depth -= 1
                if depth >= 1:
                    placed[order[depth]] = False
                continue
            t = idx[depth]
            idx[depth] += 1
            j, o, r, c = cand[depth, t, 0], cand[depth, t, 1], cand[depth, t, 2], cand[depth, t, 3]
            # canonical: for the last step m whose joiner had a higher number than j, no conflict with order[:m]
            lim = 0
            for m in range(1, depth):
                if order[m] > j:
                    lim = m
            ok = True
            for m in range(lim):
                i = order[m]
                if _conflict(j, o, r, c, i, po[i], pr[i], pc[i], shp, nc, d):
                    ok = False
                    break
            if not ok:
                continue
            placed[j] = True
            po[j], pr[j], pc[j] = o, r, c
            order[depth] = j
            if depth + 1 < k:
                depth += 1
                ncand[depth] = -1
                continue
            # a full configuration: its conflict graph and bounding box
            bits = 0
            for a in range(k):
                for b in range(a + 1, k):
                    if _conflict(a, po[a], pr[a], pc[a], b, po[b], pr[b], pc[b], shp, nc, d):
                        bits |= 1 << edge[a, b]
            ph = phis[bits]
            if ph != 0:
                rmin, rmax, cmin, cmax = 1 << 30, -(1 << 30), 1 << 30, -(1 << 30)
                for a in range(k):
                    for e in range(nc[a, po[a]]):
                        rr = shp[a, po[a], e, 0] + pr[a]
                        cc = shp[a, po[a], e, 1] + pc[a]
                        rmin, rmax = min(rmin, rr), max(rmax, rr)
                        cmin, cmax = min(cmin, cc), max(cmax, cc)
                table[rmax - rmin + 1, cmax - cmin + 1] += ph
            placed[j] = False
    return table
