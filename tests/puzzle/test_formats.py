"""Instance formats: round trips (shipped files and random instances), seed-001, errors."""

from __future__ import annotations

import tomllib

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import InstanceFormatError, UsageError
from harness.puzzle.formats import (
    FORMATS, detect_format, format_instance, parse_instance, read_instance, write_instance,
)
from harness.puzzle.instance import Hint, Instance

REPO = Path(__file__).resolve().parents[2]
INSTANCES = REPO / "instances"
SHARED = REPO.parent / "shared"
SHIPPED = sorted(p for p in INSTANCES.glob("*/*.toml") if p.parent.name not in ("deployments", "optimal"))  # counting, play

SEED001 = '''\
ships = '+++++ ++++ ++++ +++ +++ +++ ++ ++ ++ ++ + + + +'
across = '4 4 3 1 5 1 2 6 2 1 1 1 2 1 0'
down   = '1 1 2 4 1 1 2 3 4 1 5 1 3 4 1'
puzzle = """\\
...............
...............
...............
............#>.
..v............
...............
............O..
.......^.......
#...v....O.....
...............
......#........
.^.............
........^......
....v.O........
..............."""
'''


def same(a: Instance, b: Instance) -> bool:
    return a.content_hash() == b.content_hash() and a.name == b.name and dict(a.meta) == dict(b.meta)


def dense(inst: Instance) -> Instance:
    top = max(inst.fleet)
    return inst.replace(fleet={n: inst.fleet.get(n, 0) for n in range(1, top + 1)})


def nonzero(inst: Instance) -> Instance:
    return inst.replace(fleet={n: k for n, k in inst.fleet.items() if k})


# ------------------------------------------------------------------ shipped instances
def test_instances_are_shipped():
    suites = {p.parent.name for p in SHIPPED}
    assert {"smoke", "seeds", "solbat", "variants"} <= suites
    assert len(list((INSTANCES / "solbat").glob("*.toml"))) == 39
    assert len(list((INSTANCES / "variants").glob("*.toml"))) == 12


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_shipped_round_trips(path):
    inst = read_instance(path)
    assert inst.name == path.stem
    assert same(parse_instance(format_instance(inst, "native"), "native"), inst)
    if path.parent.name == "solbat":
        back = parse_instance(format_instance(inst, "dzn"), "dzn", name=inst.name)
        assert back.same_puzzle(inst) and back.meta["planted"] == inst.meta["planted"]
    if path.parent.name == "variants":
        assert parse_instance(format_instance(inst, "jolyonb"), "jolyonb").same_puzzle(inst)
    if path.stem == "seed001_15x15":
        assert parse_instance(format_instance(inst, "ascii"), "ascii").same_puzzle(inst)
    assert "format" in inst.meta and "source" in inst.meta


def test_manifest_lists_every_file():
    import tomllib

    manifest = tomllib.loads((INSTANCES / "MANIFEST.toml").read_text())["instance"]
    assert sorted(e["path"] for e in manifest) == sorted(p.relative_to(INSTANCES).as_posix() for p in SHIPPED)
    by_name = {e["name"]: e for e in manifest}
    assert by_name["sb_13_13_5_5"]["expected_status"] == "unsat"
    assert by_name["sb_12_12_5_0"]["expected_count"] == 51
    assert "expected_status" not in by_name["seed000_6x6"]


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared not present")
def test_imports_match_their_sources():
    for f in (SHARED / "external" / "minizinc-solbat").glob("*.dzn"):
        assert read_instance(f).same_puzzle(read_instance(INSTANCES / "solbat" / f"{f.stem}.toml"))
    for f in (SHARED / "external" / "jolyonb-puzzles").iterdir():
        assert detect_format(f) == "jolyonb"
        assert read_instance(f).same_puzzle(read_instance(INSTANCES / "variants" / f"jolyonb_{f.name}.toml"))


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared not present")
def test_dzn_planted_solution_in_meta():
    inst = read_instance(SHARED / "external" / "minizinc-solbat" / "sb_12_12_5_0.dzn")
    planted = inst.meta["planted"]
    assert planted[0] == "<##>...^..^." and len(planted) == 12
    assert [sum(ch != "." for ch in row) for row in planted] == list(inst.row_clues)
    assert "transposed" in inst.meta["planted_note"]


def test_dzn_planted_as_is():
    text = "height=2;width=3;maxship=2;ship=[1,1];hint=[|0,0,1|0,0,0|];rowsum=[2,1];colsum=[1,1,1];\n% 1 1 . \n% . . 2\n"
    inst = parse_instance(text, "dzn")
    assert inst.meta["planted"] == ["<>.", "..O"] and "planted_note" not in inst.meta
    assert inst.hints == {(0, 2): Hint.WATER}


# ------------------------------------------------------------------ seed-001 and detection
def test_seed001_parses_with_its_clues():
    inst = parse_instance(SEED001, "ascii", name="seed001")
    assert (inst.rows, inst.cols) == (15, 15)
    assert dict(inst.fleet) == {5: 1, 4: 2, 3: 3, 2: 4, 1: 4}
    assert inst.col_clues == (4, 4, 3, 1, 5, 1, 2, 6, 2, 1, 1, 1, 2, 1, 0)  # across = columns
    assert inst.row_clues == (1, 1, 2, 4, 1, 1, 2, 3, 4, 1, 5, 1, 3, 4, 1)  # down = rows
    assert inst.hints[(3, 12)] is Hint.MIDDLE and inst.hints[(3, 13)] is Hint.RIGHT
    assert inst.hints[(8, 0)] is Hint.MIDDLE and len(inst.hints) == 13
    assert inst.same_puzzle(read_instance(INSTANCES / "seeds" / "seed001_15x15.toml"))
    clean = format_instance(inst, "ascii")
    assert '"""' not in clean and parse_instance(clean, "ascii").same_puzzle(inst)


def test_detect_format(tmp_path):
    inst = read_instance(INSTANCES / "smoke" / "tiny_4x4.toml")
    for fmt, name in (("native", "a.toml"), ("dzn", "a.dzn"), ("ascii", "a.txt"), ("jolyonb", "a")):
        write_instance(inst, tmp_path / name)
        assert detect_format(tmp_path / name) == fmt
        assert read_instance(tmp_path / name).same_puzzle(inst)
        (tmp_path / f"{name}.data").write_text(format_instance(inst, fmt))  # unknown extension: sniffed
        assert detect_format(tmp_path / f"{name}.data") == fmt
    with pytest.raises(UsageError):
        format_instance(inst, "xml")
    assert FORMATS == ("native", "dzn", "ascii", "jolyonb")


# ------------------------------------------------------------------ random instances
@st.composite
def instances(draw):
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    fleet = draw(st.dictionaries(st.integers(1, 5), st.integers(0, 3), min_size=1, max_size=4))
    if not any(fleet.values()):
        fleet[min(fleet)] = 1
    clue = lambda cap: st.one_of(st.none(), st.integers(0, cap))  # noqa: E731
    row_clues = draw(st.lists(clue(cols), min_size=rows, max_size=rows))
    col_clues = draw(st.lists(clue(rows), min_size=cols, max_size=cols))
    cells = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    hints = draw(st.dictionaries(cells, st.sampled_from(list(Hint)), max_size=6))
    text = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)
    value = st.one_of(st.integers(-99, 99), st.booleans(), text, st.lists(st.integers(0, 9), max_size=3))
    meta = draw(st.dictionaries(text.filter(lambda k: k != "name"), value, max_size=3))
    return Instance(rows=rows, cols=cols, fleet=fleet, row_clues=row_clues, col_clues=col_clues, hints=hints,
                    touching=draw(st.booleans()), name=draw(text), meta=meta)


def expressible(inst: Instance, fmt: str) -> Instance:
    """The instance restricted to what ``fmt`` can hold (content only)."""
    hints = dict(inst.hints)
    clues = {}
    if fmt == "dzn":
        hints = {c: h for c, h in hints.items() if h is not Hint.SHIP}
        clues = dict(row_clues=[v or 0 for v in inst.row_clues], col_clues=[v or 0 for v in inst.col_clues])
    if fmt == "jolyonb":
        hints = {c: h for c, h in hints.items() if h is not Hint.MIDDLE}
    return inst.replace(hints=hints, touching=False, meta={}, **clues)


def cannot_express(inst: Instance, fmt: str) -> bool:
    x = expressible(inst, fmt)
    return inst.touching or x.hints != inst.hints or (x.row_clues, x.col_clues) != (inst.row_clues, inst.col_clues)


@settings(max_examples=150, deadline=None)
@given(instances())
def test_native_round_trip_random(inst):
    assert same(parse_instance(format_instance(inst, "native"), "native"), inst)


@settings(max_examples=100, deadline=None)
@given(instances(), st.sampled_from(["dzn", "ascii", "jolyonb"]))
def test_other_formats_round_trip_random(inst, fmt):
    if cannot_express(inst, fmt):
        with pytest.raises(InstanceFormatError):
            format_instance(inst, fmt)
        inst = expressible(inst, fmt)
    back = parse_instance(format_instance(inst, fmt), fmt)
    assert back.same_puzzle(nonzero(inst) if fmt == "ascii" else dense(inst))


# ------------------------------------------------------------------ errors
NATIVE = """[size]\nrows = 2\ncols = 3\n[fleet]\n1 = 1\n[clues]\nrows = [1, 0]\ncols = [1, 0, 0]\n"""
JOLYONB = "# Row clues\n1, 0\n# Column clues\n1, 0, 0\n# Ships\n1\n"
DZN = "height = 2;\nwidth = 3;\nmaxship = 1;\nship = [1];\nrowsum = [1,0];\ncolsum = [1,0,0];\n"


@pytest.mark.parametrize("name, text, place, problem", [
    ("clue.toml", NATIVE.replace("rows = [1, 0]", "rows = [9, 0]"), "row-clues[0]", "out of range"),
    ("clue2.toml", NATIVE.replace("rows = [1, 0]", 'rows = [1, "x"]'), "key clues.rows[1]", "clue"),
    ("key.toml", NATIVE + "[rules]\ntouching = false\ncolour = 1\n", "key rules.colour", "unknown key"),
    ("table.toml", NATIVE + "[extra]\n", "key extra", "unknown table"),
    ("fleet.toml", NATIVE.replace("1 = 1", "big = 1"), "key fleet.big", "ship length"),
    ("fleet2.toml", NATIVE.replace("1 = 1", "1 = -2"), "key fleet.1", "number of ships"),
    ("syntax.toml", NATIVE.replace("cols = 3", "cols = = 3"), "line 3 col 8", "invalid TOML"),
    ("board.toml", NATIVE + '[board]\nrows = ["...", ".x."]\n', "row 1 col 1", "unknown board symbol"),
    ("out", JOLYONB + "5, 0, w\n", "line 7", "outside"),
    ("dup", JOLYONB + "0, 0, o\n0, 0, w\n", "hint (0,0)", "conflicting hints"),
    ("fleet", JOLYONB.replace("\n1\n", "\n1, a\n"), "line 6", "expected an integer"),
    ("kind", JOLYONB + "0, 0, m\n", "line 7", "unknown hint kind"),
    ("short", "# only\n1, 0\n", "line 3", "missing"),
    ("int.dzn", DZN.replace("[1,0];\ncolsum", "[1,x];\ncolsum"), "line 5", "expected an integer"),
    ("key.dzn", DZN + "colour = 3;\n", "key colour", "unknown key"),
    ("miss.dzn", DZN.replace("ship = [1];\n", ""), "key ship", "missing"),
    ("code.dzn", DZN + "hint = [| 0, 0, 9 | 0, 0, 0 |];\n", "hint (0,2)", "not in 0..7"),
    ("shape.dzn", DZN + "hint = [| 0, 0 | 0, 0 |];\n", "key hint", "values, expected 3"),
    ("grid.txt", "ships = +\nacross = 1 0\ndown = 1 0\n..\n.q\n", "line 5 col 2", "unknown grid symbol"),
    ("ships.txt", "ships = + +x\nacross = 1\ndown = 1\n.\n", "line 1", "'+'"),
    ("rows.txt", "ships = +\nacross = 1 0\ndown = 1 0\n..\n...\n", "line 5", "cells"),
])
def test_parse_errors_name_file_and_place(tmp_path, name, text, place, problem):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InstanceFormatError) as info:
        read_instance(path, None if "." in name else "jolyonb")
    assert str(info.value).startswith(f"{path}:{place}: "), str(info.value)
    assert problem in info.value.problem


def test_unreadable_and_undetectable(tmp_path):
    with pytest.raises(InstanceFormatError, match=r"^.*missing\.toml: cannot read"):
        read_instance(tmp_path / "missing.toml")
    (tmp_path / "noise").write_text("hello\n")
    with pytest.raises(InstanceFormatError, match="cannot tell"):
        read_instance(tmp_path / "noise")


def test_writing_what_a_format_cannot_express(tmp_path):
    base = Instance(rows=2, cols=3, fleet={1: 1}, row_clues=(1, None), col_clues=(1, 0, 0))
    cases = [
        ("dzn", base, "row-clues[1]"),
        ("dzn", base.replace(row_clues=(1, 0), hints={(0, 0): Hint.SHIP}), "hint (0,0)"),
        ("dzn", base.replace(row_clues=(1, 0), touching=True), "rules touching"),
        ("jolyonb", base.replace(hints={(1, 1): Hint.MIDDLE}), "hint (1,1)"),
        ("ascii", base.replace(touching=True), "rules touching"),
    ]
    for fmt, inst, place in cases:
        with pytest.raises(InstanceFormatError) as info:
            write_instance(inst, tmp_path / "x.out", fmt)
        assert str(info.value).startswith(f"{tmp_path / 'x.out'}:{place}: "), str(info.value)
    with pytest.raises(InstanceFormatError, match="key meta"):
        format_instance(base.replace(meta={"bad": None}), "native")


def test_manifest_hashes_are_those_of_the_files():
    """A stale manifest silently matches nothing in `battlebench check`."""
    manifest = tomllib.loads((INSTANCES / "MANIFEST.toml").read_text())["instance"]
    assert len(manifest) == len(SHIPPED)
    for entry in manifest:
        assert read_instance(INSTANCES / entry["path"]).content_hash() == entry["content_hash"], entry["path"]
