"""The exact posterior of a game position under every announcement rule, against an independent brute force that replays the shots."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from bruteplay import deployments

from harness.counting.brute import brute_count
from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import SQUARE
from harness.play.game import Game, Outcome, Position
from harness.play.strategies.posterior import position_marginals


def _board(rows, cols, ships, touching=True):
    return Deployment(SQUARE, frozenset((r, c) for r in range(rows) for c in range(cols)),
                      tuple(Piece(n, SQUARE.straight(k)) for n, k in ships), touching=touching, name="b")


def _brute(every, board, rule, shots, said):
    """Per cell, how many deployments that announce ``said`` to ``shots`` cover it; and how many there are."""
    fit = []
    for hidden in every:
        game = Game(board, hidden, rule)
        if all(game.shoot(c) == o for c, o in zip(shots, said)):
            fit.append(hidden)
    occupied = {c: sum(1 for d in fit if any(c in cells for cells in d.values())) for c in board.cells}
    return len(fit), occupied


SHIPS_6 = [("Submarine", 3), ("Cruiser", 3), ("Destroyer", 2)]


def test_a_hit_made_after_a_sink_is_not_a_cell_the_sunk_ship_may_take():
    """Issue 33's position: hit, hit that sinks the Destroyer, then a hit beside it (6x6, ships 3, 3, 2)."""
    board = _board(6, 6, SHIPS_6)
    shots = [(3, 1), (3, 2), (3, 3)]
    said = [Outcome(True), Outcome(True, "Destroyer"), Outcome(True)]
    pos = Position(board, "ship")
    for c, o in zip(shots, said):
        pos.record(c, o)
    total, occupied = _brute(deployments(6, 6, SHIPS_6), board, "ship", shots, said)
    m = position_marginals("test", pos)
    assert (m.total, m.occupied) == (total, occupied) == (228, occupied)
    dep = pos.deployment()
    assert dep.sunk_within == {"Destroyer": {(3, 1), (3, 2)}}
    assert brute_count(replace(dep, sunk_within={})) == 410  # the final hits alone: (3, 2)-(3, 3) counted too


@pytest.mark.parametrize("rule", ["ship", "sunk", "none"])
@pytest.mark.parametrize("touching", [True, False])
def test_every_position_of_random_games_has_the_brute_force_posterior(rule, touching):
    """Random hidden fleets shot at in random orders (biased towards hits, so ships sink early and hits come
    after sinks): after every shot, the total and every cell's count equal the replayed brute force."""
    ships = [("A", 3), ("B", 2), ("C", 2)]
    board = _board(4, 5, ships, touching)
    every = deployments(4, 5, ships, touching)
    rng = np.random.default_rng([33, touching, len(rule)])
    checked = 0
    for _ in range(6):
        hidden = every[int(rng.integers(len(every)))]
        games = [Game(board, d, rule) for d in every]
        real = Game(board, hidden, rule)
        ship_cells = [c for cells in hidden.values() for c in cells]
        while not real.over:
            left = real.position.unknown()
            near = [c for c in left if c in ship_cells]
            cell = near[int(rng.integers(len(near)))] if rng.random() < 0.6 else left[int(rng.integers(len(left)))]
            said = real.shoot(cell)
            games = [g for g in games if g.shoot(cell) == said]
            m = position_marginals("test", real.position)
            assert m.total == len(games)
            for c in board.cells:
                assert m.occupied[c] == sum(1 for g in games if c in g.owner), (rule, real.sequence, c)
            checked += 1
    assert checked > 30


def test_the_sunk_rule_names_each_sink_every_possible_way():
    board = _board(4, 5, [("A", 3), ("B", 2), ("C", 2)])
    pos = Position(board, "sunk")
    for c, o in [((0, 0), Outcome(True)), ((0, 1), Outcome(True, "?")), ((2, 2), Outcome(False))]:
        pos.record(c, o)
    named = pos.deployments()
    assert sorted(next(iter(d.sunk_at)) for d in named) == ["B", "C"]  # A (3 cells) cannot lie within 2 hits
    assert all(d.announce_sinks and d.sunk_within == {next(iter(d.sunk_at)): {(0, 0), (0, 1)}} for d in named)
