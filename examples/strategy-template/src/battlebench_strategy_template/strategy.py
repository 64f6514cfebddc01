"""The ``template`` strategy: hunt on a lattice of every ``stride``-th diagonal, then finish what was hit.

Copy this file and replace :meth:`TemplateStrategy.shot` with your way of shooting.  What
battlebench gives you: the board (``self.board``: its cells, grid, pieces, touching rule),
the announcement rule, your own random generator (``self.rng``: the only randomness you
may use, so that the same seed gives the same shots), the position after every shot
(misses, hits, ships sunk), worker processes, limits, every game replayed against the
hidden deployment, and storage.  What you must do: return a cell not shot yet.
"""

from __future__ import annotations

from typing import Any

from harness.play.strategies import Option, Strategy


class TemplateStrategy(Strategy):
    name = "template"
    options = {"stride": Option(2, int, help="hunt on every stride-th diagonal (1: every cell)", minimum=1)}
    rules = ("ship", "sunk", "none")  # the announcement rules it can play under

    def start(self, board: Any, rule: str, rng: Any) -> None:
        super().start(board, rule, rng)  # refuses a rule not in `rules`
        self.targets: list = []
        self.seen: set = set()

    def shot(self, position: Any) -> Any:
        for hit in sorted(position.hits - self.seen):  # target: the new hits' untried neighbours
            self.targets.extend(n for n in self.board.grid.sides(hit) if n in self.board.cells)
        self.seen |= position.hits
        done = position.hits | position.misses
        while self.targets:
            cell = self.targets.pop()
            if cell not in done:
                return cell
        unknown = position.unknown()
        lattice = [c for c in unknown if sum(c) % self.opts["stride"] == 0] or unknown  # hunt
        return lattice[int(self.rng.integers(len(lattice)))]
