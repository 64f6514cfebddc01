"""The conformance catalogue: tiny instances with brute-force ground truth.

Hand-made cases cover every rule (all hint kinds, unknown clues, touching, non-square
and one-line boards, zero counts, unsat cases), planted ones add variety; the truth is
``harness.puzzle.brute`` (independent of the abstract model).  ``battlebench conform``
and the test suite both use it.
"""

from __future__ import annotations

import functools
import random

from harness.puzzle.brute import enumerate_boards
from harness.puzzle.instance import Hint as H
from harness.puzzle.instance import Instance
from harness.puzzle.plant import instance_from_board, random_board

U = None  # unknown clue


def inst(name, rows, cols, fleet, rc, cc, hints=None, touching=False) -> Instance:
    return Instance(rows, cols, fleet, rc, cc, hints=hints or {}, touching=touching, name=name)


HAND_MADE = [
    inst("one-cell", 1, 1, {1: 1}, (1,), (1,)),
    inst("one-row", 1, 5, {1: 1, 2: 1}, (3,), (U,) * 5),
    inst("one-row-touching", 1, 6, {1: 2, 2: 1}, (U,), (U,) * 6, touching=True),
    inst("one-column", 6, 1, {1: 1, 2: 1}, (U,) * 6, (3,)),
    inst("clued-4x4", 4, 4, {1: 2, 2: 1}, (2, 0, 1, 1), (2, 1, 0, 1)),
    inst("unknown-clues-3x5", 3, 5, {1: 1, 2: 1}, (1, U, U), (U, 1, U, U, 1)),
    inst("open-4x3", 4, 3, {1: 1, 2: 1}, (U,) * 4, (U,) * 3),
    inst("non-square-ship-hint", 3, 5, {1: 1, 3: 1}, (U, 1, U), (1, U, U, U, 1), hints={(0, 2): H.SHIP}),
    inst("zero-count-length", 3, 4, {1: 1, 2: 0, 3: 1}, (U,) * 3, (U,) * 4, hints={(1, 1): H.WATER}),
    inst("subs-3x3", 3, 3, {1: 2}, (U,) * 3, (U,) * 3),
    inst("subs-3x3-touching", 3, 3, {1: 2}, (U,) * 3, (U,) * 3, touching=True),
    inst("touching-clued", 3, 3, {1: 2, 2: 1}, (1, 2, 1), (U, 2, U), touching=True),
    inst("touching-cross", 3, 3, {3: 2}, (U,) * 3, (U,) * 3, touching=True),
    inst("touching-ends", 3, 4, {2: 2}, (U,) * 3, (U,) * 4, hints={(0, 1): H.RIGHT}, touching=True),
    inst("touching-hints", 4, 4, {1: 1, 2: 2}, (U,) * 4, (U,) * 4, hints={(1, 1): H.LEFT, (2, 1): H.SHIP},
         touching=True),
    inst("piece-hints", 5, 5, {1: 1, 2: 1, 3: 1}, (U,) * 5, (U,) * 5,
         hints={(0, 4): H.SUBMARINE, (2, 0): H.LEFT, (4, 4): H.WATER}),
    inst("middle-hint", 4, 4, {1: 1, 3: 1}, (U,) * 4, (U,) * 4, hints={(1, 1): H.MIDDLE, (3, 3): H.SUBMARINE}),
    inst("middle-zero-row", 5, 5, {1: 2, 3: 1}, (U, 0, 3, U, 1), (U,) * 5, hints={(2, 2): H.MIDDLE, (0, 0): H.WATER}),
    inst("vertical-ends", 4, 5, {1: 1, 3: 1}, (U,) * 4, (U,) * 5,
         hints={(0, 2): H.TOP, (3, 4): H.SUBMARINE, (2, 2): H.BOTTOM}),
    inst("right-and-middle", 4, 6, {1: 1, 2: 1, 4: 1}, (U,) * 4, (U,) * 6, hints={(1, 3): H.RIGHT, (3, 2): H.MIDDLE}),
    inst("clued-with-hints", 4, 4, {1: 1, 2: 1, 3: 1}, (3, 0, 2, 1), (1, 2, U, 1),
         hints={(0, 0): H.LEFT, (2, 3): H.WATER}),
    # unsat, found by the abstract model's precheck
    inst("middle-hint-unsat", 4, 4, {1: 2, 2: 1}, (U,) * 4, (U,) * 4, hints={(1, 1): H.MIDDLE}),
    inst("ship-too-long", 3, 3, {1: 1, 5: 1}, (U,) * 3, (U,) * 3),
]
# Unsat, but past every precheck (clue sums fit): the solver itself must prove it.
SOLVER_UNSAT = [
    inst("subs-2x2-unsat", 2, 2, {1: 2}, (U, U), (U, U)),
    inst("clued-3x3-unsat", 3, 3, {1: 2, 2: 1}, (1, 2, 1), (1, 2, 1)),
]


def _planted(n: int = 8) -> list[Instance]:
    out = []
    rng = random.Random(20261121)
    while len(out) < n:
        rows, cols = rng.randint(3, 5), rng.randint(3, 5)
        fleet = {1: rng.randint(1, 2), 2: rng.randint(0, 2), 3: rng.randint(0, 1)}
        touching = len(out) % 4 == 3
        board = random_board(rows, cols, fleet, rng, touching=touching)
        if board is None:
            continue
        out.append(instance_from_board(
            board, fleet, name=f"planted-{len(out)}", touching=touching, hint_cells=rng.randint(0, 3),
            piece_hints=len(out) % 2 == 0, unknown_clue_fraction=rng.choice([0.0, 0.3, 0.6]), rng=rng,
        ))
    return out


TINY = HAND_MADE + SOLVER_UNSAT + _planted()
BY_NAME = {i.name: i for i in TINY}
MANY = [i for i in HAND_MADE if i.name in ("open-4x3", "subs-3x3", "touching-cross", "unknown-clues-3x5")]


@functools.lru_cache(maxsize=None)
def truth(name: str) -> frozenset[frozenset]:
    """The distinct boards (as ship-cell sets) of the catalogue instance ``name``."""
    return frozenset(b.cells for b in enumerate_boards(BY_NAME[name]))


# The limit case: an open 10x10 board with the standard fleet has about 3e10 boards, so
# counting them all must be stopped by the backend's own time limit.
LIMIT_CASE = inst("open-10x10-count-all", 10, 10, {5: 1, 4: 1, 3: 2, 2: 1}, (U,) * 10, (U,) * 10)
