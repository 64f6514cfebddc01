"""The ``density`` strategy: per ship, count its placements that fit what is known, shoot the cell most of them cover (DataGenetics' probability density).

Each ship afloat is counted on its own (ships are not checked against each other: that
is what ``posterior`` adds).  A placement fits when it avoids every miss and every cell
of a sunk ship whose cells are known (under the ``ship`` rule, a sunk ship whose only
placement through its sinking cell within the hits made up to its sink), and, where ships may not touch,
every cell around such a ship.  While some hit is not explained
by a sunk ship (*target* mode), only placements through such hits count, each weighted
by how many of them it covers; otherwise (*hunt*) every fitting placement counts 1.
Ties are broken at random.
"""

from __future__ import annotations

import numpy as np

from harness.play.strategies import Strategy


class DensityStrategy(Strategy):
    name = "density"
    markov = True

    def start(self, board, rule, rng):
        from harness.counting.placements import layout

        super().start(board, rule, rng)
        lay = layout(board)
        self.cells = lay.cells
        self.index = lay.index
        self.ships = []  # (name, copies, (P, n) 0/1 int64: placement x cell)
        for t in lay.types:
            m = np.zeros((len(t.placements), lay.n), np.int64)
            for j, p in enumerate(t.placements):
                m[j, list(p)] = 1
            self.ships.append((t.name, t.count, m))

    def _vector(self, cells) -> np.ndarray:
        v = np.zeros(len(self.cells), np.int64)
        v[[self.index[c] for c in cells]] = 1
        return v

    def scores(self, position) -> np.ndarray:
        hits = self._vector(position.hits)
        blocked = self._vector(position.misses)
        resolved = np.zeros(len(self.cells), np.int64)
        afloat = []
        for name, copies, m in self.ships:
            if name in position.sunk_at:
                cell = position.sunk_at[name]
                then = self._vector(position.sink_hits[position.sinks.index(cell)])  # hits made up to the sink
                inside = (m[:, self.index[cell]] == 1) & ((m @ (1 - then)) == 0)
                if inside.sum() == 1:
                    resolved |= m[np.flatnonzero(inside)[0]]
                continue
            afloat.append((copies, m))
        open_hits = hits & (1 - resolved)
        blocked = blocked | resolved
        if not self.board.touching and resolved.any():  # no ship lies next to a sunk one
            around = {n for i in np.flatnonzero(resolved) for n in self.board.grid.around(self.cells[i])}
            blocked = blocked | self._vector(n for n in around if n in self.index)
        score = np.zeros(len(self.cells), np.float64)
        target = open_hits.any()
        for copies, m in afloat:
            fits = (m @ blocked) == 0
            w = (m @ open_hits) if target else np.ones(len(m), np.int64)
            score += copies * ((w * fits).astype(np.float64) @ m)
        score[(hits | self._vector(position.misses)) > 0] = -1.0
        return score

    def shot(self, position):
        score = self.scores(position)
        best = np.flatnonzero(score == score.max())
        return self.cells[int(best[self.rng.integers(len(best))])]

    def heat(self, position):
        score = self.scores(position)
        top = score.max()
        return {c: max(0.0, float(s) / top) if top > 0 else 0.0 for c, s in zip(self.cells, score)}


__all__ = ["DensityStrategy"]
