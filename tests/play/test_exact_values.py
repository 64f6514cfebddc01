"""Exact strategy values: walked decision trees against closed forms, simulated games and the optimum; costly shots."""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np
import pytest

from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import SQUARE
from harness.play.exact import ScriptedRng, strategy_value
from harness.play.match import play_game
from harness.play.optimal import Beliefs, Search, optimum
from harness.play.sample import game_deployment, sampler_for
from harness.play.strategies import get_strategy

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


def square(rows, cols, ships, touching=True):
    return Deployment(SQUARE, frozenset((r, c) for r in range(rows) for c in range(cols)),
                      tuple(Piece(n, SQUARE.straight(k)) for n, k in ships), touching=touching,
                      name=f"{rows}x{cols}")


B33 = square(3, 3, [("A", 2), ("B", 1)])


@pytest.mark.parametrize("board", [square(2, 3, [("A", 2)]), B33, square(2, 4, [("A", 2), ("B", 1)], False)])
def test_random_walked_over_every_shot_order_is_k_n_plus_1_over_k_plus_1(board):
    beliefs = Beliefs.of(board)
    got = strategy_value(board, "ship", get_strategy("random")(), beliefs=beliefs, closed_form=False)
    k, n = beliefs.ship_cells, len(board.cells)
    assert got.method == "walk" and got.expected == Fraction(k * (n + 1), k + 1)


@pytest.mark.parametrize("rule", ["ship", "sunk", "none"])
@pytest.mark.parametrize("name", ["random", "hunt-target", "parity", "density", "posterior", "lookahead"])
def test_no_strategy_beats_the_optimum_and_its_costly_shots_say_whether_it_loses(name, rule):
    board = square(2, 4, [("A", 2), ("B", 1)])
    beliefs = Beliefs.of(board, rule)
    search = Search(beliefs)
    best = optimum(board, rule, search=search).expected
    got = strategy_value(board, rule, get_strategy(name)(), beliefs=beliefs, search=search, closed_form=False)
    assert got.method == "walk", got.note
    assert got.expected >= best
    assert (got.costly == 0) == (got.expected == best)  # a costly shot met with some chance is lost shots


@pytest.mark.parametrize("name", ["posterior", "lookahead"])
def test_a_deterministic_strategy_played_on_every_deployment_once_averages_its_exact_value(name):
    beliefs = Beliefs.of(B33)
    strategy = get_strategy(name)()
    exact = strategy_value(B33, "ship", strategy, beliefs=beliefs)
    total = 0
    for dep in beliefs.deployments:
        hidden = {ship: tuple(beliefs.cells[i] for i in cells) for ship, cells in zip(beliefs.ships, dep)}
        total += play_game(strategy, B33, hidden, "ship", (0, 0)).shots
    assert exact.method == "walk" and Fraction(total, len(beliefs.deployments)) == exact.expected


@pytest.mark.parametrize("name", ["random", "hunt-target", "parity", "density", "posterior", "lookahead", "thompson"])
def test_simulated_games_lie_within_their_interval_of_the_exact_value(name):
    """Games as the play task plays them (uniform hidden deployments drawn by the sampler, the strategy's own
    seeded generator): the exact value lies in the 99% interval of the mean of 2,000 games (99%: seven strategies
    are tested, so a 95% interval would miss by chance in one run of three), widened by the half-width of a value
    that is itself sampled (thompson, and hunt-target whose tree is too big to walk)."""
    strategy = get_strategy(name)(**({"block": 300} if name == "thompson" else {}))
    beliefs = Beliefs.of(B33)
    exact = strategy_value(B33, "ship", strategy, beliefs=beliefs, budget=300_000)
    sampler = sampler_for(B33)
    shots = [play_game(strategy, B33, game_deployment(sampler, 7, g), "ship", (7, g)).shots for g in range(2000)]
    mean, sd = float(np.mean(shots)), float(np.std(shots, ddof=1))
    half = 2.576 * sd / np.sqrt(len(shots)) + exact.half_width
    assert abs(mean - exact.mean) <= half, (name, exact.method, exact.mean, mean, half)


def test_a_strategy_whose_randomness_is_not_integers_is_sampled_with_an_interval():
    got = strategy_value(B33, "ship", get_strategy("thompson")(block=200), rounds=3)
    assert got.method == "sample" and got.expected is None and got.half_width > 0
    assert "arrays of random numbers" in got.note and got.nodes == 3 * 84


def test_a_tree_over_its_budget_is_sampled_and_a_closed_form_is_used_where_the_walk_is_too_big():
    got = strategy_value(B33, "ship", get_strategy("hunt-target")(), budget=500)
    assert got.method == "sample" and "500" in got.note
    big = square(5, 5, [("A", 3), ("B", 2)])
    form = strategy_value(big, "ship", get_strategy("random")())
    assert form.method == "closed-form" and form.expected == Fraction(5 * 26, 6)


def test_the_scripted_generator_plays_its_script_then_asks_for_a_branch_and_refuses_other_draws():
    from harness.play.exact import NotEnumerable, _Branch

    rng = ScriptedRng([2, 0])
    assert rng.integers(5) == 2 and rng.integers(3, 7) == 3
    with pytest.raises(_Branch) as branch:
        rng.integers(4)
    assert branch.value.n == 4
    with pytest.raises(NotEnumerable, match="arrays"):
        ScriptedRng([]).integers(4, size=10)
    with pytest.raises(NotEnumerable, match="random"):
        ScriptedRng([]).random()


def test_ties_broken_at_random_are_averaged_exactly():
    """density breaks ties at random: its walk averages every tie, so its exact value is a fraction whose
    denominator is not a divisor of the deployments alone."""
    got = strategy_value(B33, "sunk", get_strategy("density")(), beliefs=Beliefs.of(B33, "sunk"))
    assert got.method == "walk" and got.expected == Fraction(1409, 210)
