"""Exact optimal play: the search against two brute forces, bounds, limits.

The brute forces: Bellman over every cell without pruning; an independent recursion over replayed games."""

from __future__ import annotations

import sys
from fractions import Fraction
from functools import lru_cache

import pytest

from bruteplay import deployments
from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import HEX, SQUARE
from harness.play.game import Game
from harness.play.optimal import Beliefs, CompiledSearch, Search, brute_value, optimum, policy_misses

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
    search = CompiledSearch(Beliefs.of(board), slots=4096, symmetry=False)  # fills once: bounds dropped, values kept
    got = optimum(board, "ship", search=search)
    assert search.compactions == 1 and got.expected == Fraction(269, 42) and got.stopped is None


def test_a_full_memo_table_stops_the_compiled_search_with_a_bound():
    board = square(4, 4, [("A", 2), ("B", 2)])
    got = optimum(board, "ship", search=CompiledSearch(Beliefs.of(board), slots=1024))
    assert got.expected is None and "table is full" in got.stopped and 4 <= got.bound <= Fraction(971, 112)


def _table(search: CompiledSearch):
    """Every state the compiled search's table holds: ``(d, h, exact or -1, lower)``."""
    for slot in range(len(search.used)):
        if search.used[slot]:
            d = sum(int(word) << (64 * j) for j, word in enumerate(search.keys[slot]))
            yield d, int(search.hkeys[slot]), int(search.exact[slot]), int(search.lower[slot])


@pytest.mark.parametrize("rule", ["ship", "sunk", "none"])
@pytest.mark.parametrize("board", [TINY[5], TINY[7], TINY[9], square(3, 4, [("A", 2), ("B", 2)])],
                         ids=["3x3-2-2", "3x3-apart-2-1", "3x4-3-1", "3x4-2-2"])
def test_every_value_and_bound_in_the_compiled_table_is_true(board, rule):
    """The fleet bound (hunt and leaf count) and the symmetric keys are judged state by state: every exact value
    the table keeps equals the plain recursion's, every lower bound is at most it."""
    beliefs = Beliefs.of(board, rule)
    search = CompiledSearch(beliefs)
    optimum(board, rule, search=search)
    memo: dict = {}
    bounded = 0
    for d, h, exact, lower in _table(search):
        true = brute_value(beliefs, d, h, memo)
        if exact >= 0:
            assert exact == true, (d, h)
        assert lower <= true, (d, h)
        bounded += lower > 0
    assert bounded  # the bounds were put to work
    python = Search(beliefs)
    optimum(board, rule, search=python)
    for (d, h), exact in python.exact.items():
        assert exact == brute_value(beliefs, d, h, memo), (d, h)
    for (d, h), lower in python.lower.items():
        assert lower <= brute_value(beliefs, d, h, memo), (d, h)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_certain_hit_inside_a_ship_is_not_shot_at_once(compiled):
    """3x3, ships A and B of 2 cells, misses on the top row and the centre: both bottom corners are certain hits,
    but shooting both first leaves the sinks unable to tell the ships apart (4 misses over the 6 deployments);
    one corner, then the middle of the bottom row, lets the sink announcements do it (2)."""
    board = square(3, 3, [("A", 2), ("B", 2)])
    beliefs = Beliefs.of(board, "ship")
    d = beliefs.full
    for cell in [(0, 0), (0, 1), (0, 2), (1, 1)]:
        d &= ~beliefs.occupied[beliefs.cells.index(cell)]
    assert d.bit_count() == 6
    corners = [beliefs.cells.index(c) for c in [(2, 0), (2, 2)]]
    assert all(d & beliefs.occupied[i] == d and not beliefs.free(d, 0, i) for i in corners)
    search = CompiledSearch(beliefs) if compiled else Search(beliefs)
    assert search.value(d, 0) == brute_value(beliefs, d, 0) == 2
    assert Beliefs.of(board, "none").free(d, 0, corners[0])  # no sink to learn from


def test_symmetric_states_share_one_entry_and_give_the_same_values():
    board = square(3, 4, [("A", 2), ("B", 2)])
    beliefs = Beliefs.of(board, "ship")
    plain, folded = CompiledSearch(beliefs, symmetry=False), CompiledSearch(beliefs)
    assert optimum(board, "ship", search=plain).misses == optimum(board, "ship", search=folded).misses
    assert folded.states * 2 < plain.states
    assert len(beliefs.symmetries()) == 4 and len(Beliefs.of(square(3, 3, [("A", 2)])).symmetries()) == 8
    corner, mirror = beliefs.cells.index((0, 0)), beliefs.cells.index((2, 3))
    memo: dict = {}
    for cell in (corner, mirror):  # a miss at a corner, and at the corner its image under a half turn
        d = beliefs.full & ~beliefs.occupied[cell]
        assert folded.value(d, 0) == brute_value(beliefs, d, 0, memo)
        best = folded.best_of(d, 0)  # stored for one of the two, mapped back for the other
        got = d.bit_count() - (d & beliefs.occupied[best]).bit_count()
        for _, part in beliefs.outcomes(d, 0, best):
            got += brute_value(beliefs, part, 1 << best if part & beliefs.occupied[best] else 0, memo)
        assert got == brute_value(beliefs, d, 0, memo)


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


def test_the_table_grows_to_its_largest_size_even_when_that_is_not_four_times_the_last():
    board = square(4, 4, [("A", 2), ("B", 2)])
    search = CompiledSearch(Beliefs.of(board), memory_mb=25, symmetry=False)  # room for 2**17 slots, not 2**18
    got = optimum(board, "ship", search=search)
    assert search.max_slots == 1 << 17 and len(search.used) == 1 << 17  # grew (it stayed at 2**16 before)
    assert "table is full (131,072 states)" in got.stopped and got.bound <= Fraction(971, 112)


@pytest.mark.parametrize("rule", ["ship", "sunk", "none"])
def test_walking_the_stored_policy_gives_the_optimum_and_a_wrong_best_cell_shows(rule):
    """The independent check of an optimum too large for the brute force: the policy the table holds, walked
    over every deployment with its own arithmetic, misses exactly the optimum's sum; a stored best cell made
    wrong on purpose makes the walk disagree."""
    board = square(3, 3, [("A", 2), ("B", 1)])
    beliefs = Beliefs.of(board, rule)
    for search in (CompiledSearch(beliefs), Search(beliefs)):
        got = optimum(board, rule, search=search)
        assert policy_misses(search) == got.misses
    search = Search(beliefs)
    optimum(board, rule, search=search)
    root = (beliefs.full, 0)
    best = search.best_first[root]
    worst = min(range(len(beliefs.cells)), key=lambda i: beliefs.occupied[i].bit_count())
    assert worst != best
    search.best_first[root] = worst
    with pytest.raises(ValueError):  # the walk reaches states the real policy never stored ...
        policy_misses(search)
    search.exact.clear()
    search.lower.clear()
    search.best_first.clear()
    search.value(beliefs.full, 0, first=[worst])  # ... or, with them solved, misses more than the optimum
    assert policy_misses(search) > got.misses
