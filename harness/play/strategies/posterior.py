"""The ``posterior`` strategy: the exact posterior of every cell from the dp's marginals; shoot the most likely cell not shot yet.

The position (misses, hits, the ships sunk and where, sinks announced) is a deployment
with hints; :func:`harness.counting.marginals.marginals` counts, for every cell, the
deployments that put a ship there.  Every labelled deployment that fits is equally
likely (the hidden one was drawn uniformly), so count / total is the exact probability.
Ties go to the first cell in board order.  Positions recur across games (the first
shots especially), so the marginals are memoised by position, per strategy.  Rules ``ship`` and
``none`` only: the ``sunk`` rule has no deployment form.
"""

from __future__ import annotations

from harness.play.game import ImpossiblePosition
from harness.play.strategies import Strategy


_MEMO: dict = {}  # strategy name -> {position's content hash: marginals}
_MEMO_SIZE = 4096


def _marginals(owner: str, dep):
    """The marginals of ``dep``, memoised per strategy (one strategy never reuses another's work)."""
    from harness.counting.marginals import marginals

    memo = _MEMO.setdefault(owner, {})
    key = dep.content_hash()
    got = memo.get(key)
    if got is None:
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        got = memo[key] = marginals(dep)
    return got


class PosteriorStrategy(Strategy):
    name = "posterior"
    rules = ("ship", "none")  # the 'sunk' rule (sinks without names) has no deployment form

    def marginals(self, position):
        m = _marginals(self.name, position.deployment())
        if m.total == 0:
            raise ImpossiblePosition(f"no deployment fits the position after {position.shots} shots")
        return m

    def shot(self, position):
        m = self.marginals(position)
        return max(position.unknown(), key=lambda c: m.occupied[c])

    def heat(self, position):
        m = self.marginals(position)
        return {c: m.occupied[c] / m.total for c in self.board.cells}


__all__ = ["PosteriorStrategy"]
