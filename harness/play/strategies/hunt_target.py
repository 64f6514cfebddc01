"""The ``hunt-target`` strategy: random shots until a hit, then the hit's untried side neighbours (a stack), DataGenetics style.

*Hunt*: a random cell among those :meth:`HuntTargetStrategy.hunting` allows (all cells
here; ``parity`` narrows them).  *Target*: every new hit pushes its side neighbours not
shot yet; the next shot is the newest of them still untried.  The stack is kept across
sinks, as in the classic algorithm.
"""

from __future__ import annotations

from harness.play.strategies import Strategy


class HuntTargetStrategy(Strategy):
    name = "hunt-target"

    def start(self, board, rule, rng):
        super().start(board, rule, rng)
        self.stack: list = []
        self.seen: set = set()

    def hunting(self, position) -> list:
        """The cells a hunting shot may take."""
        return position.unknown()

    def shot(self, position):
        for hit in sorted(position.hits - self.seen):
            self.stack.extend(n for n in self.board.grid.sides(hit) if n in self.board.cells)
        self.seen |= position.hits
        done = position.hits | position.misses
        while self.stack:
            cell = self.stack.pop()
            if cell not in done:
                return cell
        cells = self.hunting(position) or position.unknown()
        return cells[int(self.rng.integers(len(cells)))]


__all__ = ["HuntTargetStrategy"]
