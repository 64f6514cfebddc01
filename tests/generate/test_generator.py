"""The generator: claims checked against brute force on small boards (never against the oracle)."""

from __future__ import annotations

import random

import pytest

from harness.generate.certify import Certifier
from harness.generate.generator import (UNSAT_CAUSES, GenerationError, Settings, generate, minimal_hints,
                                        unique_hints)
from harness.generate.oracle import RETRY_EVERY, SKIP_AFTER, Undecided, UniquenessOracle
from harness.puzzle.brute import count_boards, enumerate_boards
from harness.puzzle.plant import instance_from_board, random_board

FLEET = {1: 2, 2: 1, 3: 1}


@pytest.fixture(scope="module")
def certifier():
    with Certifier("sat/cell", limit_s=60) as c:
        yield c


def without(inst, cell):
    hints = dict(inst.hints)
    del hints[cell]
    return inst.replace(hints=hints)


def assert_unique_planted(made):
    boards = enumerate_boards(made.instance, limit=2)
    assert len(boards) == 1
    assert boards[0].cells == made.planted.cells


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("piece_hints", [False, True])
def test_minimal_is_unique_and_no_hint_can_go(certifier, seed, piece_hints):
    made = generate(Settings(6, 6, fleet=FLEET, hints="minimal", piece_hints=piece_hints,
                             certify="sat/cell"), seed, certifier)
    assert_unique_planted(made)
    for cell in made.instance.hints:
        assert count_boards(without(made.instance, cell), limit=2) == 2, f"hint at {cell} is not needed"
    meta = made.instance.meta
    assert meta["expected_status"] == "sat" and meta["expected_count"] == 1
    assert meta["certificate"]["pair"] == "sat/cell" and meta["certificate"]["count"] == 1
    assert meta["seed"] == seed and meta["planted"] == list(made.planted.rows)


@pytest.mark.parametrize("seed", range(4))
def test_unique_mode_gives_the_planted_board_only(certifier, seed):
    made = generate(Settings(7, 7, fleet=FLEET, hints="unique", certify="sat/cell"), seed, certifier)
    assert_unique_planted(made)


def _planted(seed, size=7, fleet=FLEET):
    rng = random.Random(seed)
    planted = random_board(size, size, fleet, rng)
    return planted, instance_from_board(planted, fleet, rng=rng)


BIG_FLEET = {1: 3, 2: 2, 3: 2, 4: 1}  # 10x10: enough questions for the large-board paths


def _with_hints(base, planted, cells):
    from harness.puzzle.instance import Hint

    return base.replace(hints={c: Hint.SHIP if c in planted.cells else Hint.WATER for c in cells})


@pytest.mark.parametrize("piece_hints", [False, True])
def test_minimal_when_sat_never_decides_uses_cpsat_and_stays_minimal(monkeypatch, piece_hints):
    planted, base = _planted(5)
    oracle = UniquenessOracle(base, planted, piece_hints=piece_hints)

    def undecided(assumptions, skippable=False):
        oracle.stats.sat_undecided += 1
        raise Undecided()

    monkeypatch.setattr(oracle, "_solve", undecided)
    try:
        cells = minimal_hints(oracle, random.Random(0))
    finally:
        oracle.close()
    assert oracle.stats.fallback_calls == oracle.stats.sat_undecided > 0  # every question went to CP-SAT
    inst = base.replace(hints={c: oracle.hint(c) for c in cells})
    assert count_boards(inst, limit=2) == 1
    for cell in cells:
        assert count_boards(without(inst, cell), limit=2) == 2


def test_large_boards_skip_a_failing_sat_solver_without_changing_the_answer(monkeypatch):
    planted, base = _planted(5, 10, BIG_FLEET)
    reference = UniquenessOracle(base, planted)
    try:
        want = minimal_hints(reference, random.Random(0))
    finally:
        reference.close()
    oracle = UniquenessOracle(base, planted)
    monkeypatch.setattr(oracle.solver, "solve_limited", lambda **kw: None)  # CaDiCaL's budget always runs out
    oracle.large = True  # as on a board of more than LARGE_CELLS cells
    try:
        cells = minimal_hints(oracle, random.Random(0))
    finally:
        oracle.close()
    st = oracle.stats
    assert st.sat_skipped > 0 and st.fallback_calls == st.sat_undecided + st.sat_skipped  # CP-SAT answered all
    # skipping starts after SKIP_AFTER failures, and CaDiCaL is retried on every RETRY_EVERY-th question
    assert st.sat_undecided >= SKIP_AFTER
    assert st.sat_skipped <= (RETRY_EVERY - 1) * (st.sat_calls - SKIP_AFTER + 1)
    assert sorted(cells) == sorted(want)  # complete answers either way: the same puzzle


def _greedy_one_by_one(base, planted, oracle, order):
    """The specification of minimal_hints, by brute force: hint i goes iff the planted
    board stays unique with the hints kept before it and all the hints after it."""
    kept = list(order)
    for cell in order:
        trial = [c for c in kept if c != cell]
        if count_boards(base.replace(hints={c: oracle.hint(c) for c in trial}), limit=2) == 1:
            kept = trial
    return sorted(kept)


@pytest.mark.parametrize("seed", range(3))
def test_minimal_equals_dropping_hints_one_by_one_and_reuses_boards(seed):
    planted, base = _planted(seed, 8, BIG_FLEET)
    oracle = UniquenessOracle(base, planted)
    try:
        order = random.Random(seed).sample(oracle.candidates(), len(oracle.candidates()))
        cells = minimal_hints(oracle, random.Random(seed))
    finally:
        oracle.close()
    assert sorted(cells) == _greedy_one_by_one(base, planted, oracle, order)
    assert oracle.stats.boards_reused > 0  # some questions were answered by a board found earlier


def test_unique_mode_survives_undecided_rounds(monkeypatch):
    planted, base = _planted(3)
    oracle = UniquenessOracle(base, planted, fallback=False)
    real, calls = oracle._solve, []

    def flaky(assumptions, skippable=False):
        calls.append(1)
        if len(calls) <= 3:
            raise Undecided()
        return real(assumptions)

    monkeypatch.setattr(oracle, "_solve", flaky)
    try:
        cells = unique_hints(oracle, random.Random(0))
    finally:
        oracle.close()
    assert len(cells) >= 3 * max(1, len(oracle.candidates()) // 10)  # three random batches revealed
    assert count_boards(_with_hints(base, planted, cells), limit=2) == 1


@pytest.mark.parametrize("hints", [0, 3])
def test_random_hints_claim_matches_brute_force(certifier, hints):
    made = generate(Settings(6, 6, fleet=FLEET, hints=hints, certify="sat/cell"), 1, certifier)
    assert len(made.instance.hints) == hints
    n = count_boards(made.instance, limit=2)
    assert made.instance.meta["expected_count"] == (1 if n == 1 else "many")


@pytest.mark.parametrize("cause", UNSAT_CAUSES)
def test_unsat_causes_are_unsat(certifier, cause):
    fleet = {1: 2, 2: 2, 3: 1}
    try:
        made = generate(Settings(7, 7, fleet=fleet, hints="unique", unsat=cause, certify="sat/cell"), 2, certifier)
    except GenerationError as exc:  # allowed only with the reason stated
        assert "does not apply" in str(exc) or "left the puzzle solvable" in str(exc)
        pytest.fail(f"{cause}: {exc}")
    assert count_boards(made.instance, limit=1) == 0
    meta = made.instance.meta
    assert meta["expected_status"] == "unsat" and meta["unsat"]["cause"] == cause
    assert meta["certificate"]["status"] == "unsat"


def test_unknown_clues_and_determinism(certifier):
    s = Settings(6, 6, fleet=FLEET, hints="minimal", unknown_clues=0.25, certify="sat/cell")
    a, b = generate(s, 7, certifier), generate(s, 7, certifier)
    assert sum(v is None for v in a.instance.row_clues + a.instance.col_clues) == 3
    assert a.instance.content_hash() == b.instance.content_hash()
    assert_unique_planted(a)


def test_bad_settings_are_usage_errors():
    from harness.errors import UsageError

    for kwargs in ({"rows": 0}, {"hints": "some"}, {"unknown_clues": 2.0}, {"unsat": "nope"},
                   {"fleet": {0: 1}}, {"density": 1.5}):
        with pytest.raises(UsageError):
            Settings(**{"rows": 6, "cols": 6, **kwargs})


def test_impossible_fleet_is_a_generation_error(certifier):
    with pytest.raises(GenerationError, match="cannot place the fleet"):
        generate(Settings(3, 3, fleet={3: 3}, certify="sat/cell"), 0, certifier)


@pytest.mark.parametrize("seed", range(3))
def test_touching_minimal_is_unique_and_minimal(certifier, seed):
    made = generate(Settings(6, 6, fleet=FLEET, hints="minimal", touching=True, certify="sat/cell"), seed, certifier)
    assert made.instance.touching
    assert_unique_planted(made)
    for cell in made.instance.hints:
        assert count_boards(without(made.instance, cell), limit=2) == 2


@pytest.mark.parametrize("seed", [1, 2])
def test_guiding_cpsat_from_the_planted_board_never_changes_the_hints(seed):
    """The solution hint only changes which board answers a question, so the minimal set is the same."""
    from harness.generate import oracle as oracle_mod
    from harness.generate.generator import Settings, minimal_hints, planted_puzzle

    results = []
    for guide in (False, True):
        planted, base, rng = planted_puzzle(Settings(8, 8, hints="minimal"), seed)
        oracle = oracle_mod.UniquenessOracle(base, planted, budget=1)  # every question goes to CP-SAT
        oracle.guide = guide
        try:
            results.append(minimal_hints(oracle, rng))
            assert oracle.stats.fallback_calls > 0
        finally:
            oracle.close()
    assert results[0] == results[1]
