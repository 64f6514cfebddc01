"""One game played to the end: a strategy against a hidden deployment, timed, every shot recorded.

:func:`play_game` asks the strategy for shots until every ship cell is hit.  A shot at a
cell off the board or shot before, or a strategy that finds the position impossible,
ends the game as an error naming the shot; the game's record keeps the shots so far.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from harness.play.game import Game, ImpossiblePosition, labelled


@dataclass
class GameRecord:
    """How one game went: shots fired, hits, the shot sequence, times, and an error if it ended early."""

    shots: int
    hits: int
    sequence: list  # [(cell, hit)]
    wall_s: float
    cpu_s: float
    error: str | None = None
    heats: list = field(default_factory=list)  # per shot, the strategy's heat map (when asked)


def play_game(strategy, board, hidden: dict, rule: str = "ship", seed: tuple = (0,), heat: bool = False,
              max_shots: int | None = None) -> GameRecord:
    """Play ``hidden`` with ``strategy`` on the board's ships (identical copies told apart:
    :func:`~harness.play.game.labelled`).  The strategy's generator is :func:`strategy_rng` of ``seed``: a
    stream apart from the one that drew the hidden deployment."""
    board = labelled(board)
    game = Game(board, hidden, rule)
    limit = max_shots or len(board.cells)
    w0, c0 = time.perf_counter(), time.process_time()
    error = None
    heats = []
    try:
        strategy.start(board, rule, strategy_rng(seed))
        while not game.over:
            if game.position.shots >= limit:
                raise ValueError(f"no end after {limit} shots")
            cell, belief = strategy.decide(game.position, heat)
            if heat:
                heats.append(belief)
            try:
                game.shoot(tuple(cell))
            except ValueError as exc:
                raise ValueError(f"shot {game.position.shots + 1}: {exc}") from None
    except ImpossiblePosition as exc:
        error = f"shot {game.position.shots + 1}: {exc}"
    except ValueError as exc:
        error = str(exc)
    hits = len(game.position.hits)
    return GameRecord(game.position.shots, hits, list(game.sequence), time.perf_counter() - w0,
                      time.process_time() - c0, error, heats)


def strategy_rng(seed: tuple) -> np.random.Generator:
    """The strategy's generator for game ``seed = (campaign seed, game)``: stream ``[*seed, 1]``, never the
    deployment's ``[*seed]`` (a strategy must not share random numbers with the fleet it hunts)."""
    return np.random.default_rng([*seed, 1])


__all__ = ["GameRecord", "play_game", "strategy_rng"]
