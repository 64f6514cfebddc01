"""The cell formulation's local rules: stitching everywhere, water only on the board and only without touching."""

from harness.model.cell_rules import local_rules


def test_a_corner_cell_gets_stitching_and_only_on_board_water():
    rules = list(local_rules((0, 0), 3, 3, touching=False))
    assert ("any", "<", (((0, 1), "#>"),)) in rules and ("any", ">", (((0, -1), "<#"),)) in rules
    hashes = [arg for kind, sym, arg in rules if kind == "any" and sym == "#"]
    assert len(hashes) == 4  # (A|C)(A|D)(B|C)(B|D)
    water = {(sym, arg) for kind, sym, arg in rules if kind == "water"}
    assert water == {("<", (1, 0)), (">", (0, 1)), (">", (1, 0)), ("^", (1, 0)), ("^", (0, 1)),
                     ("v", (1, 0)), ("v", (0, 1)), ("O", (0, 1)), ("O", (1, 0))} - {("^", (1, 0))}  # "^" needs no water below
    assert [arg for kind, _, arg in rules if kind == "water-or"] == [((0, 1), (1, 0))]


def test_touching_keeps_stitching_and_drops_every_water_rule():
    rules = list(local_rules((1, 1), 3, 3, touching=True))
    assert {kind for kind, _, _ in rules} == {"any"} and len(rules) == 8
    inner = [r for r in local_rules((1, 1), 3, 3, touching=False) if r[0] != "any"]
    assert len(inner) == 3 + 3 + 3 + 3 + 4 + 4  # every neighbour on the board
