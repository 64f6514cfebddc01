"""harness/backends/cubes.py: split enumeration -- cubes disjoint and exhaustive, counts as brute force.

The cube tests run without ortools (a stand-in backend with the model only); every solve
goes through the ``isolated`` worker, as in campaigns.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness.backends.cubes import CUBES_PER_SEARCH, constraints, cubes, ship_order, split
from harness.core.status import Status, Question, Termination
from harness.model import build_model
from tiny import MANY, TINY, assert_sound, inst, truth

FORMULATIONS = ("placement", "cell")


def _chosen(model, board_cells) -> set[int]:
    """The placements of the board with these ship cells (no touching: its maximal runs)."""
    left, ships = set(board_cells), set()
    while left:  # 4-connected components: the ships, since they do not touch
        todo, ship = [left.pop()], set()
        while todo:
            r, c = todo.pop()
            ship.add((r, c))
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in left:
                    left.remove(n)
                    todo.append(n)
        ships.add(frozenset(ship))
    return {i for i, p in enumerate(model.placements) if frozenset(p.cells) in ships}


def _holds(cube, chosen: set[int]) -> bool:
    for kind, ids in cube:
        if kind == "some" and not chosen.intersection(ids):
            return False
        if kind == "none" and chosen.intersection(ids):
            return False
        if kind == "all" and not chosen.issuperset(ids):
            return False
    return True


def _cuttable():
    """(instance, model) of the tiny puzzles with boards, no touching, past the model's precheck."""
    for instance in TINY:
        if instance.touching or not truth(instance.name):
            continue
        model = build_model(instance)
        if model.infeasible is None:
            yield instance, model


@pytest.mark.parametrize("count", [2, 3, 8])
def test_every_board_is_in_exactly_one_cube(count):
    checked = 0
    for instance, model in _cuttable():
        backend = SimpleNamespace(model=model, cp_y=list(range(len(model.placements))))
        cut = cubes(backend, count)
        assert 1 <= len(cut) <= max(count, 2), instance.name
        for cells in truth(instance.name):
            chosen = _chosen(model, cells)
            assert sum(_holds(c, chosen) for c in cut) == 1, (instance.name, sorted(cells))
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("parts", [2, 3])
def test_cubes_cut_again_and_again_still_hold_every_board_exactly_once(parts):
    import random

    rng = random.Random(parts)
    checked = several = 0
    for instance, model in _cuttable():
        several += any(n > 1 for n in model.fleet.values())
        leaves = split(model, (), parts)
        for _ in range(40):  # cut a random cube again, to any depth
            path = rng.choice(leaves)
            cut = split(model, path, parts)
            if cut is not None:
                assert 1 <= len(cut) <= parts, (instance.name, path)
                leaves = [p for p in leaves if p != path] + cut
        boards = [_chosen(model, cells) for cells in truth(instance.name)]
        for chosen in boards:
            assert sum(_holds(constraints(model, p), chosen) for p in leaves) == 1, (instance.name, sorted(chosen))
            checked += 1
        path = ()  # down one branch: every ship fixed at one placement, then nothing to cut
        while (cut := split(model, path, parts)) is not None:
            path = next((p for p in cut if p[-1]), cut[0])
        assert len(path) == len(ship_order(model)) or not path[-1]
    assert checked >= 10 and several >= 3


def test_the_first_cut_of_a_path_is_the_dealt_cut():
    one_long = build_model(inst("one-long", 5, 5, {3: 1, 1: 1}, [None] * 5, [None] * 5))
    backend = SimpleNamespace(model=one_long, cp_y=list(range(len(one_long.placements))))
    assert ship_order(one_long) == [3, 1]
    assert [constraints(one_long, p) for p in split(one_long, (), 4)] == cubes(backend, 4)
    pairs = build_model(inst("pairs", 4, 4, {1: 2}, [1, 0, 1, 0], [1, 0, 1, 0]))
    first, second = split(pairs, (), 8)[0], None  # runs of the lowest 1-ship's placements, then the next one's
    while len(first[-1]) > 1:
        first = split(pairs, first, 2)[0]
    second = split(pairs, first, 2)
    assert len(second[0]) == 2 and min(second[0][1]) > first[0][0]
    assert constraints(pairs, second[1])[2][0] == "none"  # no 1-ship between the first and this run


def test_both_ways_of_cutting_are_used():
    one_long = build_model(inst("one-long", 5, 5, {3: 1, 1: 1}, [None] * 5, [None] * 5))
    pairs = build_model(inst("pairs", 4, 4, {1: 2}, [1, 0, 1, 0], [1, 0, 1, 0]))
    dealt = cubes(SimpleNamespace(model=one_long, cp_y=list(range(len(one_long.placements)))), 4)
    assert dealt and all(len(c) == 1 and c[0][0] == "some" for c in dealt)
    assert all(one_long.placements[i].length == 3 for c in dealt for i in c[0][1])
    chain = cubes(SimpleNamespace(model=pairs, cp_y=list(range(len(pairs.placements)))), 4)
    assert [k for k, _ in chain[0]] == ["none", "all"] and chain[-1][0][0] == "none"


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_split_counts_like_brute_force(isolated, formulation):
    for opts in ({"split": 2}, {"split": 3, "branching": "long-first", "lazy_lp": False}):
        for instance in TINY:
            res = isolated.solve(instance, "cpsat", formulation, Question.count(0), opts, 60)
            assert_sound(res, instance)
            assert res.complete and {b.cells for b in res.boards} == truth(instance.name), instance.name


def test_split_stops_at_the_count_asked(isolated):
    for instance in MANY:
        res = isolated.solve(instance, "cpsat", "placement", Question.count(2), {"split": 2}, 60)
        assert res.status is Status.SAT and len(res.boards) == 2 and not res.complete, instance.name


def test_split_passes_conformance(isolated):
    from harness.conform import conform

    results = conform(isolated, "cpsat", list(FORMULATIONS), {"split": 2})
    failed = [f"{r.formulation} {r.check}: {r.detail}" for r in results if not r.passed]
    assert results and not failed, failed


def test_a_split_search_out_of_time_is_a_timeout_not_a_proof(isolated):
    from pathlib import Path

    from harness.puzzle.formats import read_instance

    hard = read_instance(Path(__file__).resolve().parents[2] / "instances" / "large" / "large_30x20_minimal_s508.toml")
    res = isolated.solve(hard, "cpsat", "placement", Question.count(2), {"split": 2}, 2)
    assert res.status is Status.TIMEOUT and not res.complete
    assert res.termination in (Termination.SOLVER_LIMIT, Termination.TIMEOUT)


def test_the_split_is_declared():
    from harness.backends.registry import get_backend
    from harness.errors import UsageError

    cls = get_backend("cpsat")
    assert cls.resolve_options({})["split"] == 1 and cls.resolve_options({"split": "2"})["split"] == 2
    with pytest.raises(UsageError):
        cls.resolve_options({"split": 0})
    assert CUBES_PER_SEARCH >= 2
