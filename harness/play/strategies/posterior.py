"""The ``posterior`` strategy: the exact posterior of every cell from the dp's marginals; shoot the most likely cell not shot yet.

The position (misses, hits, the ships sunk, where and within which hits, sinks announced)
is a deployment with hints; :func:`harness.counting.marginals.marginals` counts, for every
cell, the deployments that put a ship there.  Under the ``sunk`` rule (sinks without
names) the position is one deployment per way of naming the sunk ships
(:meth:`~harness.play.game.Position.deployments`) and the marginals are their sums.
Every labelled deployment that fits is equally likely (the hidden one was drawn
uniformly), so count / total is the exact probability.  Ties go to the first cell in
board order.  Positions recur across games (the first shots especially: the strategy shoots
the same cells until its first hit, and the few positions after it recur in every game
that hit there), so the marginals are memoised by position, per strategy, the least
recently used forgotten first: the openings every game asks for stay, and those are the
expensive ones (the empty 10x10 no-touch board: about 0.45 s; a position after 30 shots:
a few ms).  Every rule.
"""

from __future__ import annotations

from collections import OrderedDict

from harness.play.game import ImpossiblePosition
from harness.play.strategies import Strategy

_MEMO: dict = {}  # strategy name -> OrderedDict {position's content hash: marginals}, least recently used first
_MEMO_SIZE = 4096


def memo_marginals(owner: str, dep):
    """The marginals of ``dep``, memoised per strategy (one strategy never reuses another's work)."""
    from harness.counting.marginals import marginals

    memo = _MEMO.setdefault(owner, OrderedDict())
    key = dep.content_hash()
    got = memo.get(key)
    if got is None:
        while len(memo) >= _MEMO_SIZE:
            memo.popitem(last=False)
        got = memo[key] = marginals(dep)
    else:
        memo.move_to_end(key)
    return got


def position_marginals(owner: str, position):
    """The exact marginals of a game position under any rule: those of each of its deployments, summed."""
    from harness.counting.marginals import Marginals

    parts = [memo_marginals(owner, dep) for dep in position.deployments()]
    if len(parts) == 1:
        return parts[0]
    out = Marginals(0, {c: 0 for c in position.board.cells}, {p.name: {} for p in position.board.pieces}, {})
    for m in parts:
        out.total += m.total
        for c, n in m.occupied.items():
            out.occupied[c] += n
        for name, per in m.by_piece.items():
            for c, n in per.items():
                out.by_piece[name][c] = out.by_piece[name].get(c, 0) + n
        for key, n in m.placements.items():
            out.placements[key] = out.placements.get(key, 0) + n
    return out


class PosteriorStrategy(Strategy):
    name = "posterior"
    markov = True

    @classmethod
    def kernels(cls, board):
        """The dp's programme that gives the board's marginals (its positions add hints, which it takes too)."""
        from harness.counting.counters.dp import KERNELS, marginals_engine

        return (KERNELS[marginals_engine(board)],)

    def marginals(self, position):
        m = position_marginals(self.name, position)
        if m.total == 0:
            raise ImpossiblePosition(f"no deployment fits the position after {position.shots} shots")
        return m

    def shot(self, position):
        m = self.marginals(position)
        return max(position.unknown(), key=lambda c: m.occupied[c])

    def heat(self, position):
        m = self.marginals(position)
        return {c: m.occupied[c] / m.total for c in self.board.cells}


__all__ = ["PosteriorStrategy", "memo_marginals", "position_marginals"]
