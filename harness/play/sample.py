"""Hidden deployments drawn uniformly over all labelled deployments of a board, from a seed.

Every ship (each identical copy on its own, labelled ``Name#2`` ...) takes one of its
placements uniformly and independently; a draw where two ships share a cell (or touch,
where touching is forbidden) is thrown away.  What is kept is uniform over the labelled
deployments: every valid tuple of placements is drawn with the same probability.  Draws
are made in numpy blocks.  Game ``i`` of a campaign with seed ``s`` always gets the same
deployment (``numpy.random.default_rng([s, i])``), whatever plays it: strategies meet the
same fleets game by game (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harness.counting.deployment import Deployment
from harness.counting.placements import layout


@dataclass
class Sampler:
    """A board's ships and their placements as arrays, ready to draw deployments."""

    board: Deployment
    labels: list  # ship labels, one per copy
    placements: list  # per ship: tuple of cell tuples
    cells: np.ndarray  # per ship: (P, n) bool, the placement's cells over the board's cells
    halos: list  # per ship: (P, n) bool, cells around the placement (touching forbidden), else None
    acceptance: float | None = None  # measured share of draws kept, once drawn

    @classmethod
    def of(cls, board: Deployment) -> Sampler:
        lay = layout(board)
        labels, placements, cells, halos = [], [], [], []
        n = lay.n
        for t in lay.types:
            for k in range(t.count):
                labels.append(t.name if t.count == 1 else f"{t.name}#{k + 1}")
                placements.append(tuple(tuple(lay.cells[i] for i in p) for p in t.placements))
                m = np.zeros((len(t.placements), n), np.bool_)
                h = np.zeros((len(t.placements), n), np.bool_) if not board.touching else None
                for j, p in enumerate(t.placements):
                    m[j, list(p)] = True
                    if h is not None:
                        h[j, list(lay.halo.get(p, ()))] = True
                cells.append(m)
                halos.append(h)
        if any(len(m) == 0 for m in cells):
            raise ValueError(f"{board.name}: a ship fits nowhere on the board")
        return cls(board, labels, placements, cells, halos)

    def draw(self, rng: np.random.Generator, block: int = 256, most: int = 4000) -> dict[str, tuple]:
        """One deployment, ``{label: cells}``, uniform over the labelled deployments; ValueError after ``most``
        blocks without one (the fleet hardly fits, if at all)."""
        tried = kept = 0
        for _ in range(most):
            picks = [rng.integers(0, len(m), size=block) for m in self.cells]
            occ = np.zeros((block, self.cells[0].shape[1]), np.int8)
            for m, pick in zip(self.cells, picks):
                occ += m[pick]
            ok = occ.max(axis=1) <= 1
            if not self.board.touching:
                for h, pick in zip(self.halos, picks):
                    ok &= ~np.any(h[pick] & (occ > 0), axis=1)
            tried += block
            good = np.flatnonzero(ok)
            kept += len(good)
            if len(good):
                self.acceptance = kept / tried
                g = good[0]
                return {label: self.placements[k][int(picks[k][g])] for k, label in enumerate(self.labels)}
        raise ValueError(f"{self.board.name}: no deployment in {tried:,} draws: the fleet hardly fits, if at all")


_SAMPLERS: dict[str, Sampler] = {}


def sampler_for(board: Deployment) -> Sampler:
    """The board's sampler, made once per process."""
    key = board.content_hash()
    got = _SAMPLERS.get(key)
    if got is None:
        got = _SAMPLERS[key] = Sampler.of(board)
    return got


def game_deployment(sampler: Sampler, seed: int, game: int) -> dict[str, tuple]:
    """Game ``game``'s hidden deployment under ``seed``: the same for every strategy."""
    return sampler.draw(np.random.default_rng([seed, game]))


__all__ = ["Sampler", "game_deployment", "sampler_for"]
