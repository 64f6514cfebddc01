"""The independent verifier: one hand-made board per rule, the rule order, the cell named."""

from __future__ import annotations

import pytest

from harness.puzzle.board import Board
from harness.puzzle.instance import Hint, Instance
from harness.puzzle.verify import RULES, Verdict, verify, verify_all

# A valid 5x5 board of fleet {3:1, 2:1, 1:3}.
GOOD = (
    "<#>.O",
    ".....",
    "^...O",
    "v....",
    "..O..",
)
FLEET = {3: 1, 2: 1, 1: 3}
ROWS = (4, 0, 2, 1, 1)
COLS = (3, 1, 2, 0, 2)


def make(rows=5, cols=5, fleet=None, row_clues=ROWS, col_clues=COLS, hints=None, touching=False):
    return Instance(
        rows, cols, FLEET if fleet is None else fleet,
        (None,) * rows if row_clues is None else row_clues,
        (None,) * cols if col_clues is None else col_clues,
        hints or {}, touching,
    )


def edit(board, *changes):
    grid = [list(line) for line in board]
    for (r, c), ch in changes:
        grid[r][c] = ch
    return tuple("".join(line) for line in grid)


BLIND = make(row_clues=None, col_clues=None)  # clues unknown: only board rules apply


def test_good_board_is_ok():
    assert verify(make(), Board(GOOD)) is Verdict.OK
    assert verify(make(), GOOD).ok  # plain row strings are accepted too
    assert str(Verdict.OK) == "ok"


CASES = [
    # (id, instance, board, rule, cell)
    ("too few rows", make(), GOOD[:-1], "size", None),
    ("ragged row", make(), GOOD[:2] + ("^...O.",) + GOOD[3:], "size", None),
    ("bad symbol", make(), edit(GOOD, ((1, 2), "x")), "symbol", (1, 2)),
    ("symbol before shape", make(), edit(GOOD, ((0, 2), "#"), ((3, 3), "*")), "symbol", (3, 3)),
    ("open run", make(), edit(GOOD, ((0, 2), ".")), "shape", (0, 0)),
    ("end made middle", make(), edit(GOOD, ((0, 2), "#")), "shape", (0, 0)),
    ("stray middle", make(), edit(GOOD, ((1, 2), "#")), "shape", (1, 2)),
    ("stray right end", make(), edit(GOOD, ((4, 4), ">")), "shape", (4, 4)),
    ("stray bottom end", make(), edit(GOOD, ((1, 2), "v")), "shape", (1, 2)),
    ("vertical run off the board", make(), edit(GOOD, ((3, 0), "#"), ((4, 0), "#")), "shape", (2, 0)),
    ("start then start", make(), edit(GOOD, ((1, 1), "<"), ((1, 2), "<"), ((1, 3), ">")), "shape", (1, 1)),
    ("missing ship", make(), edit(GOOD, ((4, 2), ".")), "fleet", None),
    ("extra submarine", make(), edit(GOOD, ((1, 2), "O")), "fleet", (0, 4)),
    ("wrong length", make(), edit(GOOD, ((0, 1), ">"), ((0, 2), ".")), "fleet", (0, 0)),
    ("length not in fleet", BLIND, edit(GOOD, ((4, 0), "<"), ((4, 1), "#"), ((4, 2), "#"), ((4, 3), ">")), "fleet", (4, 0)),
    ("fleet before touch", BLIND, edit(GOOD, ((1, 1), "O")), "fleet", (0, 4)),
    ("row clue", make(row_clues=(4, 0, 1, 1, 1)), GOOD, "row-clue", (2, 0)),
    ("col clue", make(col_clues=(3, 1, 2, 1, 2)), GOOD, "col-clue", (0, 3)),
    ("row clues before col clues", make(row_clues=(4, 1, 2, 1, 1), col_clues=(3, 1, 2, 1, 2)), GOOD, "row-clue", (1, 0)),
    ("moved ship breaks clues first", make(), edit(GOOD, ((4, 2), "."), ((4, 1), "O")), "col-clue", (0, 1)),
    ("water hint", make(hints={(0, 0): Hint.WATER}), GOOD, "hint", (0, 0)),
    ("ship hint", make(hints={(1, 1): Hint.SHIP}), GOOD, "hint", (1, 1)),
    ("piece hint", make(hints={(0, 0): Hint.LEFT, (2, 0): Hint.BOTTOM}), GOOD, "hint", (2, 0)),
    ("submarine hint on a ship end", make(hints={(0, 2): Hint.SUBMARINE}), GOOD, "hint", (0, 2)),
    ("clue before hint", make(row_clues=(4, 0, 2, 1, 0), hints={(0, 0): Hint.WATER}), GOOD, "row-clue", (4, 0)),
    ("diagonal touch", BLIND, edit(GOOD, ((4, 2), "."), ((4, 1), "O")), "touch", (3, 0)),
    ("orthogonal touch", BLIND, edit(GOOD, ((4, 2), "."), ((1, 4), "O"), ((2, 4), "."), ((4, 4), "O")), "touch", (0, 4)),
    ("end to end", make(1, 4, {2: 1, 1: 1}, None, None), ("<>O.",), "touch", (0, 1)),
    ("crossing ships", make(3, 3, {3: 2}, None, None, touching=True), (".^.", "<#>", ".v."), "shape", (1, 1)),
]


@pytest.mark.parametrize("instance,board,rule,cell", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_first_violation(instance, board, rule, cell):
    v = verify(instance, Board(board))
    assert not v.ok
    assert (v.rule, v.cell) == (rule, cell), str(v)
    assert v.rule in RULES and v.message


def test_touching_instance_accepts_contact():
    inst = make(2, 4, {2: 1, 1: 2}, None, None, touching=True)
    assert verify(inst, ("<>O.", "..O.")).ok
    assert verify(inst, ("^O..", "vO..")).ok
    assert verify(make(1, 4, {2: 1, 1: 1}, None, None, touching=True), ("<>O.",)).ok


def test_touching_instance_still_checks_other_rules():
    inst = make(2, 4, {2: 1, 1: 2}, (3, 1), None, touching=True)
    assert verify(inst, ("<>O.", "..O.")).ok
    assert verify(inst, ("<>O.", ".O..")).ok
    assert verify(inst, ("<#O.", "..O.")).rule == "shape"
    assert verify(inst, ("<>OO", "..O.")).rule == "fleet"
    assert verify(inst, ("<>OO", "....")).rule == "row-clue"


def test_messages_and_str():
    v = verify(BLIND, edit(GOOD, ((4, 2), "."), ((4, 1), "O")))
    assert str(v) == "touch at (3,0): ships touch diagonally"
    v = verify(make(), edit(GOOD, ((4, 2), ".")))
    assert str(v) == "fleet: expected 3 ship(s) of length 1, found 2"
    v = verify(make(), edit(GOOD, ((0, 2), ".")))
    assert "'<'" in v.message and "(0,0)" in str(v)
    assert verify(make(), GOOD[:-1]).message == "board has 4 rows, instance has 5"
    assert v.to_dict() == {"ok": False, "rule": "shape", "cell": [0, 0], "message": v.message}
    assert Verdict.OK.to_dict()["ok"] is True


def test_zero_count_lengths_are_not_required():
    inst = make(1, 3, {1: 1, 2: 0}, None, None)
    assert verify(inst, ("O..",)).ok
    v = verify(inst, ("<>.",))
    assert (v.rule, v.cell) == ("fleet", (0, 0))


def test_verdict_rejects_unknown_rule():
    with pytest.raises(ValueError):
        Verdict.fail("nonsense", None, "x")


def test_verify_all_keeps_order():
    boards = [Board(GOOD), Board(GOOD[:-1]), Board(edit(GOOD, ((1, 2), "x")))]
    assert [v.rule for v in verify_all(make(), boards)] == [None, "size", "symbol"]


def test_oracle_shares_no_code_with_the_model():
    import harness.puzzle.brute as brute
    import harness.puzzle.verify as verifier

    for module in (verifier, brute):
        with open(module.__file__, encoding="utf-8") as f:
            source = f.read()
        assert "from harness.model" not in source and "import harness.model" not in source
