"""The game engine, the uniform sampler of hidden deployments and every strategy on small boards."""

from __future__ import annotations

import numpy as np
import pytest

from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import SQUARE
from harness.errors import UsageError
from harness.play.game import Game, Position
from harness.play.match import play_game
from harness.play.sample import Sampler, game_deployment
from harness.play.strategies import FAMILY, get_strategy


def board(h=4, w=4, lengths=(("A", 3), ("B", 2)), touching=True):
    return Deployment(SQUARE, frozenset((r, c) for r in range(h) for c in range(w)),
                      tuple(Piece(n, SQUARE.straight(ln)) for n, ln in lengths), touching=touching, name="b")


HIDDEN = {"A": ((0, 0), (0, 1), (0, 2)), "B": ((2, 3), (3, 3))}


@pytest.mark.parametrize("rule, said", [("ship", "B"), ("sunk", "?"), ("none", None)])
def test_a_sinking_shot_is_announced_by_the_rule(rule, said):
    game = Game(board(), HIDDEN, rule)
    assert not game.shoot((1, 1)).hit
    assert game.shoot((2, 3)).sunk is None
    out = game.shoot((3, 3))
    assert out.hit and out.sunk == said
    assert not game.over
    for c in HIDDEN["A"]:
        game.shoot(c)
    assert game.over and game.position.shots == 6


def test_a_shot_off_the_board_or_twice_is_refused():
    game = Game(board(), HIDDEN)
    game.shoot((0, 0))
    with pytest.raises(ValueError, match="shot before"):
        game.shoot((0, 0))
    with pytest.raises(ValueError, match="not on the board"):
        game.shoot((9, 9))


def test_the_position_as_a_deployment_has_the_hints_the_rule_gives():
    game = Game(board(), HIDDEN, "ship")
    for c in ((1, 1), (2, 3), (3, 3)):
        game.shoot(c)
    dep = game.position.deployment()
    assert dep.misses == {(1, 1)} and dep.sunk_at == {"B": (3, 3)} and dep.announce_sinks
    assert dep.sunk_within == {"B": {(2, 3), (3, 3)}}
    anon = Position(board(), "sunk")
    with pytest.raises(ValueError, match="no single deployment form"):
        anon.deployment()


def _support(dep):
    """Every labelled deployment of ``dep`` (brute force), as frozensets of (ship, cells)."""
    from harness.counting.brute import _deployments
    from harness.counting.placements import layout

    lay = layout(dep)
    return [frozenset((lay.types[t].name, tuple(lay.cells[i] for i in p)) for t, p in chosen)
            for chosen, _ in _deployments(dep, lay)]


def _sampled(dep, seed: int, n: int) -> dict:
    """How often each deployment is game 0 .. n-1's hidden one."""
    sampler = Sampler.of(dep)
    freq: dict = {}
    for g in range(n):
        d = frozenset(game_deployment(sampler, seed, g).items())
        freq[d] = freq.get(d, 0) + 1
    return freq


def _chi_square_p(freq: dict, support: list, n: int) -> float:
    from scipy import stats

    expected = n / len(support)
    stat = sum((freq.get(d, 0) - expected) ** 2 / expected for d in support)
    return float(stats.chi2.sf(stat, len(support) - 1))


def test_hidden_deployments_are_uniform_over_the_labelled_deployments():
    dep = board(3, 3, (("A", 3), ("B", 2)))
    support = _support(dep)
    n = 100 * len(support)
    freq = _sampled(dep, 7, n)
    assert set(freq) <= set(support)
    assert _chi_square_p(freq, support, n) > 0.001


def test_the_uniformity_test_catches_a_biased_sampler():
    """First fit (the second ship placed where the first left room, uniformly) is not uniform: the test says so."""
    dep = board(3, 3, (("A", 3), ("B", 2)))
    support = _support(dep)
    sampler = Sampler.of(dep)
    rng = np.random.default_rng(1)
    n = 100 * len(support)
    freq: dict = {}
    for _ in range(n):
        a = sampler.placements[0][rng.integers(len(sampler.placements[0]))]
        room = [p for p in sampler.placements[1] if not set(p) & set(a)]
        b = room[rng.integers(len(room))]
        d = frozenset(zip(sampler.labels, (a, b)))
        freq[d] = freq.get(d, 0) + 1
    assert _chi_square_p(freq, support, n) < 0.001


def test_every_strategy_gets_the_same_deployment_for_a_game():
    sampler = Sampler.of(board())
    assert game_deployment(sampler, 3, 5) == game_deployment(sampler, 3, 5)
    assert len({tuple(sorted(game_deployment(sampler, 3, g).items())) for g in range(20)}) > 5


@pytest.mark.parametrize("touching", [True, False])
@pytest.mark.parametrize("name", FAMILY.names())  # every registered strategy
def test_every_strategy_sinks_every_fleet(name, touching):
    dep = board(5, 5, (("A", 3), ("B", 2), ("C", 2)), touching=touching)
    sampler = Sampler.of(dep)
    cls = get_strategy(name)
    for g in range(4):
        hidden = game_deployment(sampler, 1, g)
        rec = play_game(cls(), dep, hidden, "ship", (1, g))
        assert rec.error is None, rec.error
        assert 7 <= rec.shots <= 25 and rec.hits == 7
        assert {c for c, hit in rec.sequence if hit} == {c for cells in hidden.values() for c in cells}


def test_an_impossible_position_ends_the_game_as_an_error_naming_the_shot():
    dep = board()
    overlapping = {"A": ((0, 0), (0, 1), (0, 2)), "B": ((0, 1), (0, 2))}  # no deployment looks like this
    rec = play_game(get_strategy("posterior")(), dep, overlapping, "ship", (0,))
    assert rec.error is not None and rec.error.startswith("shot ")


def test_unknown_strategies_and_options_are_refused():
    with pytest.raises(UsageError, match="unknown strategy 'nope'"):
        get_strategy("nope")
    with pytest.raises(UsageError, match="has no option 'blocks'"):
        get_strategy("thompson")(blocks=5)


def test_posterior_shoots_a_most_likely_cell_by_brute_force():
    from harness.counting.brute import brute_placement_counts
    from harness.counting.placements import layout

    dep = board(5, 5, (("A", 3), ("B", 2)))
    game = Game(dep, {"A": ((1, 1), (1, 2), (1, 3)), "B": ((3, 0), (4, 0))}, "ship")
    for c in ((0, 0), (1, 2), (2, 2)):
        game.shoot(c)
    pos = game.position
    strategy = get_strategy("posterior")()
    strategy.start(dep, "ship", np.random.default_rng(0))
    shot = strategy.shot(pos)
    base = pos.deployment()
    total, per = brute_placement_counts(base)  # every deployment listed: the independent posterior
    cells = layout(base).cells
    covered = {c: 0 for c in dep.cells}
    for (_, placement), n in per.items():
        for i in placement:
            covered[cells[i]] += n
    best = max(covered[c] for c in pos.unknown())
    assert covered[shot] == best > 0
    heat = strategy.heat(pos)
    assert all(heat[c] == pytest.approx(covered[c] / total) for c in dep.cells)


def test_lookahead_scores_are_the_hit_chance_plus_the_announcements_entropy():
    dep = board(4, 4, (("A", 3), ("B", 2)))
    game = Game(dep, {"A": ((0, 0), (0, 1), (0, 2)), "B": ((2, 3), (3, 3))}, "ship")
    game.shoot((0, 0))
    game.shoot((0, 1))
    la = get_strategy("lookahead")(weight=0.0)
    la.start(dep, "ship", np.random.default_rng(0))
    post = get_strategy("posterior")()
    post.start(dep, "ship", np.random.default_rng(0))
    heat = post.heat(game.position)
    scores = la.scores(game.position)
    assert all(scores[c] == pytest.approx(heat[c]) for c in game.position.unknown())  # weight 0: posterior
    la.opts["weight"] = 1.0
    with_info = la.scores(game.position)
    # a cell that is certain (or certainly water) tells nothing: no bonus there
    for c in game.position.unknown():
        p = heat[c]
        assert with_info[c] >= p - 1e-12
        if p in (0.0, 1.0):
            assert with_info[c] == pytest.approx(p)


def test_the_replay_catches_what_a_worker_could_get_wrong():
    from harness.tasks.play import verify_game

    dep = board()
    seq = [[1, 1, 0], [0, 0, 1], [0, 1, 1], [0, 2, 1], [2, 3, 1], [3, 3, 1]]
    assert verify_game(dep, HIDDEN, seq, True) == "ok"
    assert verify_game(dep, HIDDEN, seq + [[3, 0, 0]], True) == "shot 7: fired after every ship cell was hit"
    assert verify_game(dep, HIDDEN, [[1, 1, 1]], False) == "shot 1: [1, 1] announced as hit"
    assert verify_game(dep, HIDDEN, [[1, 1, 0], [1, 1, 0]], False) == "shot 2: [1, 1] was shot before"
    assert verify_game(dep, HIDDEN, [[7, 7, 0]], False) == "shot 1: [7, 7] is off the board"
    assert verify_game(dep, HIDDEN, seq[:-1], True) == "the game ended with 1 ship cells never hit"


def test_a_strategy_draws_apart_from_the_fleet_it_hunts():
    """Game g's deployment is stream [seed, g]; the strategy's is [seed, g, 1]: random's first shots hit at the
    rate of ship cells, not more."""
    dep = board(10, 10, (("A", 5), ("B", 4), ("C", 3), ("D", 3), ("E", 2)))
    sampler = Sampler.of(dep)
    hits = 0
    n = 2000
    for g in range(n):
        rec = play_game(get_strategy("random")(), dep, game_deployment(sampler, 0, g), "ship", (0, g), max_shots=1)
        hits += rec.sequence[0][1]
    assert abs(hits / n - 0.17) < 3 * (0.17 * 0.83 / n) ** 0.5


def test_hidden_deployments_are_uniform_where_ships_may_not_touch():
    dep = board(4, 4, (("A", 3), ("B", 2)), touching=False)
    support = _support(dep)
    n = 100 * len(support)
    freq = _sampled(dep, 5, n)
    assert set(freq) == set(support)  # never two ships touching, every deployment drawn
    assert _chi_square_p(freq, support, n) > 0.001


def test_density_leaves_the_water_around_a_sunk_ship_alone_where_ships_may_not_touch():
    dep = board(5, 5, (("A", 3), ("B", 2)), touching=False)
    game = Game(dep, {"A": ((4, 2), (4, 3), (4, 4)), "B": ((0, 0), (0, 1))}, "ship")
    game.shoot((0, 0))
    game.shoot((0, 1))  # B sinks: its only placement through (0, 1) within the hits
    density = get_strategy("density")()
    density.start(dep, "ship", np.random.default_rng(0))
    score = dict(zip(density.cells, density.scores(game.position)))
    assert all(score[c] <= 0 for c in ((0, 2), (1, 0), (1, 1), (1, 2)))
    assert density.shot(game.position) not in {(0, 2), (1, 0), (1, 1), (1, 2)}


def test_posterior_memo_forgets_the_least_recently_used_position_first(monkeypatch):
    # the openings every game asks for must survive a long campaign's stream of one-off late positions
    import harness.counting.marginals as marginals_module
    from harness.play.strategies import posterior

    deps = {n: board(h, 4) for n, h in zip("abcde", range(3, 8))}  # five different positions
    which = {d.content_hash(): n for n, d in deps.items()}
    computed = []

    def fake(dep):
        computed.append(which[dep.content_hash()])
        return computed[-1]

    monkeypatch.setattr(marginals_module, "marginals", fake)
    monkeypatch.setattr(posterior, "_MEMO", {})
    monkeypatch.setattr(posterior, "_MEMO_SIZE", 3)
    for name in "abcacdae":  # "a" (the opening) comes back every few positions
        assert posterior.memo_marginals("posterior", deps[name]) == name
    assert computed == ["a", "b", "c", "d", "e"]  # "a" never computed twice; "b" then "c" forgotten
    assert list(posterior._MEMO["posterior"]) == [deps[n].content_hash() for n in "dae"]
    posterior.memo_marginals("posterior", deps["b"])
    assert computed[-1] == "b"
