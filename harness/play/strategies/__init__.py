"""The strategies: one module per way of choosing the next shot, behind :class:`Strategy`, found by name without importing any.

The contract:

* ``name``; ``options`` (their defaults: a strategy takes only the options it names);
  ``rules`` (the announcement rules it can play under);
* ``start(board, rule, rng)``: a new game on ``board`` (a hint-free deployment) under
  announcement rule ``rule``; ``rng`` is the strategy's own ``numpy`` generator;
* ``shot(position)``: the next cell to fire at, one of ``position.unknown()``;
* ``heat(position)``: optional, per cell the strategy's belief of a ship there (for
  ``--watch`` and ``--strip``), or None; ``decide(position, heat)`` gives the shot and,
  when asked, the heat map it came from (one belief per turn: a sampling strategy draws
  once);
* ``validate()``: called with the options set; raise UsageError on a bad value.

A strategy that finds no deployment fits the position raises
:class:`~harness.play.game.ImpossiblePosition`; the game ends as an ``error``.
"""

from __future__ import annotations

from typing import Any

from harness.core.plugins import load_plugin
from harness.errors import UsageError


class Strategy:
    """Base of every strategy (see the module docstring)."""

    name = "strategy"
    options: dict[str, Any] = {}
    rules: tuple[str, ...] = ("ship", "sunk", "none")

    def __init__(self, **options: Any):
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise UsageError(f"strategy {self.name} has no option {unknown[0]!r}"
                             + (f" (options: {', '.join(self.options)})" if self.options else " (it takes none)"))
        self.opts = {**self.options, **options}
        self.validate()

    def validate(self) -> None:
        """Raise UsageError when an option's value is unusable (names are checked already)."""

    def start(self, board: Any, rule: str, rng: Any) -> None:
        if rule not in self.rules:
            raise ValueError(f"the {self.name} strategy plays under the {' or '.join(self.rules)} rule, not {rule!r}")
        self.board, self.rule, self.rng = board, rule, rng

    def shot(self, position: Any) -> Any:
        raise NotImplementedError

    def heat(self, position: Any) -> dict | None:
        return None

    def decide(self, position: Any, heat: bool = False) -> tuple[Any, dict | None]:
        """(the next shot, the heat map it was chosen from when ``heat``)."""
        return self.shot(position), (self.heat(position) if heat else None)


STRATEGIES: dict[str, str] = {
    "random": "harness.play.strategies.random:RandomStrategy",
    "hunt-target": "harness.play.strategies.hunt_target:HuntTargetStrategy",
    "parity": "harness.play.strategies.parity:ParityStrategy",
    "density": "harness.play.strategies.density:DensityStrategy",
    "thompson": "harness.play.strategies.thompson:ThompsonStrategy",
    "posterior": "harness.play.strategies.posterior:PosteriorStrategy",
    "lookahead": "harness.play.strategies.lookahead:LookaheadStrategy",
}


def get_strategy(name: str) -> type[Strategy]:
    """The strategy class called ``name`` (UsageError if unknown)."""
    return load_plugin(STRATEGIES, name, "strategy")


__all__ = ["STRATEGIES", "Strategy", "get_strategy"]
