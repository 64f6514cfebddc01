"""Exact optimal play: the search against two brute forces (Bellman over every cell without pruning; an independent recursion over replayed games), bounds, limits."""

from __future__ import annotations

import sys
from fractions import Fraction
from functools import lru_cache

import pytest

from bruteplay import deployments
from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import HEX, SQUARE
from harness.play.game import Game
from harness.play.optimal import Beliefs, CompiledSearch, Search, brute_value, optimum

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


def square(rows, cols, ships, touching=True):
    return Deployment(SQUARE, frozenset((r, c) for r in range(rows) for c in range(cols)),
                      tuple(Piece(n, SQUARE.straight(k)) for n, k in ships), touching=touching,
                      name=f"{rows}x{cols}")


def hexagon(radius, ships):
    cells = frozenset((x, y, -x - y) for x in range(-radius, radius + 1) for y in range(-radius, radius + 1)
                      if abs(x + y) <= radius)
    return Deployment(HEX, cells, tuple(Piece(n, HEX.straight(k)) for n, k in ships), name=f"hex{radius}")


TINY = [
    square(2, 2, [("A", 2)]), square(2, 3, [("A", 2)]), square(3, 3, [("A", 2)]), square(3, 3, [("A", 3)]),
    square(3, 3, [("A", 2), ("B", 1)]), square(3, 3, [("A", 2), ("B", 2)]), square(2, 4, [("A", 2), ("B", 2)]),
    square(3, 3, [("A", 2), ("B", 1)], touching=False), square(2, 5, [("A", 2), ("B", 1)], touching=False),
    square(3, 4, [("A", 3), ("B", 1)]), hexagon(1, [("A", 2), ("B", 1)]),
]


@pytest.mark.parametrize("rule", ["ship", "sunk", "none"])
@pytest.mark.parametrize("board", TINY, ids=lambda b: f"{b.name}-{'touch' if b.touching else 'apart'}-"
                         f"{'-'.join(str(p.size) for p in b.pieces)}")
def test_the_search_equals_the_bellman_recursion_over_every_cell(board, rule):
    """Branch and bound, certain hits first, symmetry at the first shot, bounds: none changes the optimum, in
    the Python search or the compiled one (which ``optimum`` picks)."""
    beliefs = Beliefs.of(board, rule)
    got = optimum(board, rule)
    assert optimum(board, rule, search=Search(beliefs)).misses == got.misses
    assert got.misses == brute_value(beliefs)
    assert got.expected == Fraction(beliefs.ship_cells) + Fraction(got.misses, len(beliefs.deployments))
    assert got.lower == got.misses and got.stopped is None


def _replayed_optimum(rows, cols, ships, rule, touching=True) -> Fraction:
    """Expected shots of optimal play by plain recursion over games: every unshot cell, every deployment that
    announced the same, no shared code with the search (the deployments listed by tests/bruteplay, announcements
    by the game engine)."""
    board = square(rows, cols, ships, touching)
    every = deployments(rows, cols, ships, touching)
    cells = sorted(board.cells)

    @lru_cache(maxsize=None)
    def value(alive: frozenset, shot: frozenset) -> Fraction:
        games = [every[j] for j in sorted(alive)]
        if all(all(c in shot for cells_ in d.values() for c in cells_) for d in games):
            return Fraction(0)
        best = None
        for cell in cells:
            if cell in shot:
                continue
            parts: dict = {}
            for j in alive:
                game = Game(board, every[j], rule)
                for c in sorted(shot):
                    game.shoot(c)
                parts.setdefault(game.shoot(cell), set()).add(j)
            total = sum(Fraction(len(p), len(alive)) * value(frozenset(p), shot | {cell}) for p in parts.values())
            best = total if best is None else min(best, total)
        return 1 + best

    return value(frozenset(range(len(every))), frozenset())


@pytest.mark.parametrize("rows, cols, ships, rule", [
    (2, 2, [("A", 2)], "ship"), (2, 3, [("A", 2)], "ship"), (2, 3, [("A", 2), ("B", 1)], "ship"),
    (2, 3, [("A", 2), ("B", 1)], "sunk"), (2, 3, [("A", 2), ("B", 1)], "none"), (3, 3, [("A", 3)], "ship"),
])
def test_the_search_equals_an_independent_recursion_over_replayed_games(rows, cols, ships, rule):
    assert optimum(square(rows, cols, ships), rule).expected == _replayed_optimum(rows, cols, ships, rule)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_stopped_search_says_so_and_keeps_a_true_lower_bound(compiled):
    board = square(4, 4, [("A", 2), ("B", 2)])
    make = CompiledSearch if compiled else Search
    stopped = optimum(board, "ship", budget=500, search=make(Beliefs.of(board)))
    assert stopped.misses is None and stopped.expected is None and "budget" in stopped.stopped
    assert 4 <= stopped.bound  # at least the ship cells
    small = square(3, 3, [("A", 2), ("B", 1)])
    cut = optimum(small, "ship", budget=50, search=make(Beliefs.of(small)))
    full = optimum(small, "ship")
    assert cut.stopped and cut.bound <= full.expected


def test_a_full_memo_table_keeps_its_exact_values_and_the_search_goes_on():
    board = square(3, 3, [("A", 2), ("B", 1)])
    search = CompiledSearch(Beliefs.of(board), slots=4096)  # fills once: the bounds are dropped, the values kept
    got = optimum(board, "ship", search=search)
    assert search.compactions == 1 and got.expected == Fraction(269, 42) and got.stopped is None


def test_a_full_memo_table_stops_the_compiled_search_with_a_bound():
    board = square(4, 4, [("A", 2), ("B", 2)])
    got = optimum(board, "ship", search=CompiledSearch(Beliefs.of(board), slots=1024))
    assert got.expected is None and "table is full" in got.stopped and 4 <= got.bound <= Fraction(971, 112)


def test_the_first_shot_is_tried_once_per_orbit_of_the_boards_symmetries():
    assert len(Beliefs.of(square(3, 3, [("A", 2)])).symmetric_cells()) == 3  # corner, side, centre
    assert len(Beliefs.of(square(3, 4, [("A", 2)])).symmetric_cells()) == 4
    assert len(Beliefs.of(hexagon(1, [("A", 2)])).symmetric_cells()) == 7  # no symmetry used on hex boards


def test_more_information_never_costs_shots():
    """The optimum under the ship rule is at most the sunk rule's, which is at most the none rule's."""
    for board in TINY[4:8]:
        ship, sunk, none = (optimum(board, rule).expected for rule in ("ship", "sunk", "none"))
        assert ship <= sunk <= none


@pytest.mark.parametrize("compiled", [True, False])
def test_the_search_memoises_states_and_reports_them(compiled):
    board = square(3, 4, [("A", 2), ("B", 2)])
    search = (CompiledSearch if compiled else Search)(Beliefs.of(board, "ship"))
    got = optimum(board, "ship", search=search)
    assert got.states > 0 and got.first is not None
    assert got.expected == Fraction(745, 102)  # 7.3039...: the value this search has given since it was written
