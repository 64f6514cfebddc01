"""The ``thompson`` strategy: seed-002's Thompson sampling; a block of random fleets compatible with what was seen, shoot the cell most often a ship in it.

As seed-002 builds it: each ship keeps what is known of it alone — a miss is water for
every ship; the cell where a ship sank is that ship's and no other's.  A block of
``block`` fleets is drawn, each ship uniformly among its placements that fit its own
knowledge; fleets whose ships overlap (or touch, where they may not) or that leave a
known hit uncovered are dropped (approximate Bayesian computation), and blocks are drawn
until one keeps a fleet.  The next shot is the cell not shot yet that most kept fleets
cover (the first in the layout's cell order on a tie: row-major on square boards).  Cells are bits of two 64-bit words per
placement (boards up to 128 cells), so a block is a few vector operations.
"""

from __future__ import annotations

import numpy as np

from harness.play.game import ImpossiblePosition
from harness.play.strategies import Option, Strategy

MAX_BLOCKS = 2000


class ThompsonStrategy(Strategy):
    name = "thompson"
    markov = True
    options = {"block": Option(10_000, int, help="fleets drawn per block", minimum=1)}

    def start(self, board, rule, rng):
        from harness.counting.placements import layout

        super().start(board, rule, rng)
        lay = layout(board)
        if lay.n > 128:
            raise ValueError("the thompson strategy keeps boards of at most 128 cells")
        self.cells = lay.cells
        self.index = lay.index
        self.names, self.masks, self.halos = [], [], []
        for t in lay.types:
            for _ in range(t.count):
                self.names.append(t.name)
                self.masks.append(np.array([_words(p) for p in t.placements], np.uint64).reshape(-1, 2))
                self.halos.append(np.array([_words(lay.halo.get(p, ())) for p in t.placements],
                                           np.uint64).reshape(-1, 2))

    def _allowed(self, position) -> list[np.ndarray]:
        """Per ship, the indices of its placements that fit its own knowledge (seed-002's per-ship reveal)."""
        water = [self.index[c] for c in position.misses]
        out = []
        for name, m in zip(self.names, self.masks):
            others = [self.index[c] for n, c in position.sunk_at.items() if n != name]
            avoid = _words(water + others)
            ok = ((m[:, 0] & np.uint64(avoid[0])) == 0) & ((m[:, 1] & np.uint64(avoid[1])) == 0)
            if name in position.sunk_at:
                own = _words([self.index[position.sunk_at[name]]])
                ok &= ((m[:, 0] & np.uint64(own[0])) | (m[:, 1] & np.uint64(own[1]))) != 0
            idx = np.flatnonzero(ok)
            if len(idx) == 0:
                raise ImpossiblePosition(f"no placement of {name} fits what was seen")
            out.append(idx)
        return out

    def sample(self, position) -> np.ndarray:
        """Per cell (layout order), how many fleets of the kept block cover it; at least one fleet is kept."""
        allowed = self._allowed(position)
        hits = _words(self.index[c] for c in position.hits)
        block = int(self.opts["block"])
        for _ in range(MAX_BLOCKS):
            lo = np.zeros(block, np.uint64)
            hi = np.zeros(block, np.uint64)
            ok = np.ones(block, np.bool_)
            picks = []
            for idx, m in zip(allowed, self.masks):
                pick = idx[self.rng.integers(0, len(idx), size=block)]
                picks.append(pick)
                ok &= ((lo & m[pick, 0]) == 0) & ((hi & m[pick, 1]) == 0)
                lo |= m[pick, 0]
                hi |= m[pick, 1]
            if not self.board.touching:
                for pick, h in zip(picks, self.halos):
                    ok &= ((lo & h[pick, 0]) == 0) & ((hi & h[pick, 1]) == 0)
            ok &= ((lo & np.uint64(hits[0])) == np.uint64(hits[0])) & ((hi & np.uint64(hits[1])) == np.uint64(hits[1]))
            if ok.any():
                return _bit_counts(lo[ok], hi[ok], len(self.cells))
        raise ImpossiblePosition(f"no compatible fleet in {MAX_BLOCKS} blocks of {block}")

    def shot(self, position):
        return self.decide(position)[0]

    def heat(self, position):
        return self.decide(position, True)[1]

    def decide(self, position, heat=False):
        counts = self.sample(position)  # one block per turn: the shot and its heat map
        done = position.hits | position.misses
        best, where = -1, None
        for i, c in enumerate(self.cells):
            if c not in done and counts[i] > best:
                best, where = counts[i], c
        top = max(1, int(counts.max()))
        return where, ({c: float(counts[i]) / top for i, c in enumerate(self.cells)} if heat else None)


def _words(indices) -> tuple[int, int]:
    lo = hi = 0
    for i in indices:
        if i < 64:
            lo |= 1 << i
        else:
            hi |= 1 << (i - 64)
    return lo, hi


def _bit_counts(lo: np.ndarray, hi: np.ndarray, n: int) -> np.ndarray:
    """Per bit position 0..n-1, how many of the words have it set."""
    out = np.zeros(n, np.int64)
    for i in range(min(n, 64)):
        out[i] = np.count_nonzero(lo & np.uint64(1 << i))
    for i in range(64, n):
        out[i] = np.count_nonzero(hi & np.uint64(1 << (i - 64)))
    return out


__all__ = ["ThompsonStrategy"]
