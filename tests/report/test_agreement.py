"""Agreement checks on hand-built stores: each planted disagreement is found and named."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from handstore import BAD_BOARD, BOARD_A, BOARD_B, make_store, run
from harness.errors import InputError
from harness.report.agreement import KINDS, Problem, board_id, check_agreement
from harness.report.manifest import find_manifest, load_manifest
from harness.report.problem_text import render_problems
from harness.store import ResultsStore

ROOT = Path(__file__).resolve().parents[2]
BOARD_C = ["O.", "O.", ".."]  # a third board (of some other instance: the verdicts are taken as stored)
SAT, MIP, CP = "sat/cell", "mip/cell", "cpsat[workers=1]/placement"


def frame(tmp_path: Path, runs: list[dict]):
    make_store(tmp_path / "store", runs)
    with ResultsStore(tmp_path / "store", create=False) as store:
        return store.dataframe()


def check(tmp_path: Path, runs: list[dict], manifest=None) -> list[Problem]:
    return check_agreement(frame(tmp_path, runs), manifest)


def digest(instance: str) -> str:  # the instance_hash handstore gives
    return hashlib.sha256(instance.encode()).hexdigest()[:16]


def test_clean_store_has_no_problems(tmp_path):
    runs = [run(inst, pair, "sat", 0.5, repetition=rep) for inst in ("i1", "i2") for pair in (SAT, MIP, CP)
            for rep in (1, 2)]
    runs += [run("i3", pair, "unsat", 0.2) for pair in (SAT, MIP)]
    assert check(tmp_path, runs) == []
    assert render_problems([]).startswith("no problems")


def test_empty_frame(tmp_path):
    assert check(tmp_path, []) == []


def test_board_identity_is_the_ship_cells():
    assert board_id(["<>", ".."]) == board_id(["OO", ".."]) != board_id(["..", "OO"])


def test_wrong_board_is_found_and_rendered_with_the_rule(tmp_path):
    rule = "row-clue at (1,0): row 1 has 1 ship cell, clue 0"
    runs = [run("tiny", SAT, "sat", 0.1), run("tiny", MIP, "wrong", 0.1, boards=[BAD_BOARD], verdicts=[rule])]
    (p,) = check(tmp_path, runs)
    assert p.kind == "wrong-board" and p.instance == "tiny" and p.pairs == (MIP,)
    assert "tiny" in p.message and MIP in p.message and rule in p.message
    assert p.boards == [(MIP, BAD_BOARD, rule)]
    text = render_problems([p])
    lines = text.splitlines()
    assert lines[0].startswith("wrong-board  tiny")
    assert lines[1].strip() == MIP
    assert [ln.strip() for ln in lines[2:5]] == BAD_BOARD
    assert "row-clue" in lines[5]


def test_unsat_vs_sat_names_both_pairs(tmp_path):
    runs = [run("i1", SAT, "sat", 0.1), run("i1", MIP, "unsat", 0.1), run("i2", SAT, "sat", 0.1)]
    (p,) = check(tmp_path, runs)
    assert p.kind == "unsat-vs-sat" and p.instance == "i1"
    assert set(p.pairs) == {SAT, MIP}
    assert "i1" in p.message and SAT in p.message and MIP in p.message
    assert (MIP, [], "unsat") in p.boards and (SAT, BOARD_A, "ok") in p.boards
    assert "(no board)" in render_problems([p])


def test_unique_claim_against_two_found_boards(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1),  # count-2, one board, complete: exactly 1
            run("sb", MIP, "sat", 0.1, boards=[BOARD_A, BOARD_B], complete=0)]
    (p,) = check(tmp_path, runs)
    assert p.kind == "count-mismatch" and p.pairs == (MIP, SAT)
    assert p.message == f"sb: {SAT} says 1 board (complete); {MIP} found 2"
    assert p.boards == [(SAT, BOARD_A, "ok"), (MIP, BOARD_A, "ok"), (MIP, BOARD_B, "ok")]
    lines = render_problems([p]).splitlines()
    assert lines[:6] == [
        f"count-mismatch  sb: {SAT} says 1 board (complete); {MIP} found 2",
        "  sat/cell        mip/cell        mip/cell",
        "  O.              O.              .O",
        "  ..              ..              ..",
        "  .O              .O              O.",
        "  ok              ok              ok",
    ]


def test_unique_claim_against_another_pairs_other_board(tmp_path):
    # mip's solve run found a different board: with sat's "exactly 1" that makes 2
    runs = [run("sb", SAT, "sat", 0.1), run("sb", MIP, "sat", 0.1, boards=[BOARD_B], question="solve")]
    (p,) = check(tmp_path, runs)
    assert p.kind == "count-mismatch" and set(p.pairs) == {SAT, MIP}
    assert SAT in p.message and MIP in p.message and "2 distinct" in p.message


def test_two_unique_claims_with_different_boards(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1), run("sb", MIP, "sat", 0.1, boards=[BOARD_B])]
    (p,) = check(tmp_path, runs)
    assert p.kind == "count-mismatch" and p.pairs == (MIP, SAT)
    assert p.message == f"sb: {MIP}, {SAT} say 1 board (complete); their boards differ (2 distinct in all)"
    assert p.boards == [(MIP, BOARD_B, "ok"), (SAT, BOARD_A, "ok")]


def test_several_pairs_found_more(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1), run("sb", MIP, "sat", 0.1, boards=[BOARD_A, BOARD_B], complete=0),
            run("sb", CP, "sat", 0.1, question="count-0", boards=[BOARD_A, BOARD_B, BOARD_C])]
    (p,) = check(tmp_path, runs)
    assert p.message == f"sb: {SAT} says 1 board (complete); {CP} found 3 (and {MIP} 2)"
    assert p.pairs == tuple(sorted((SAT, MIP, CP)))


def test_complete_counts_differ(tmp_path):
    exact = dict(question="count-0", complete=1, exhausted=1)  # count all, search exhausted
    runs = [run("sb", SAT, "sat", 0.1, boards=[BOARD_A, BOARD_B, BOARD_C], **exact),
            run("sb", MIP, "sat", 0.1, boards=[BOARD_A, BOARD_B], **exact)]
    (p,) = check(tmp_path, runs)
    assert p.kind == "count-mismatch" and f"{MIP} says 2 boards (complete); {SAT} found 3" in p.message


def test_complete_counts_differ_without_boards(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1, question="count-0", boards=[], count=3),
            run("sb", MIP, "sat", 0.1, question="count-0", boards=[], count=4)]
    (p,) = check(tmp_path, runs)
    assert p.kind == "count-mismatch"
    assert p.message == f"sb: {SAT} says 3 boards (complete); {MIP} found 4"


def test_different_boards_at_the_count_limit_agree(tmp_path):
    # count-2 stopped at 2 boards: a lower bound, so different boards are no contradiction
    runs = [run("sb", SAT, "sat", 0.1, boards=[BOARD_A, BOARD_B], complete=0),
            run("sb", MIP, "sat", 0.1, boards=[BOARD_A, BOARD_C], complete=0),
            # handstore's default complete=1 at count == K without an exhausted search: still a bound
            run("sb", CP, "sat", 0.1, boards=[BOARD_C, BOARD_B])]
    assert check(tmp_path, runs) == []


def test_solve_boards_may_differ(tmp_path):
    runs = [run("sb", pair, "sat", 0.1, question="solve", boards=[b]) for pair, b in
            ((SAT, BOARD_A), (MIP, BOARD_B), (CP, BOARD_C))]
    assert check(tmp_path, runs) == []


def test_timeouts_and_errors_are_not_disagreements(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1),  # exactly 1
            run("sb", MIP, "timeout", 10.0, boards=[BOARD_A, BOARD_B], complete=0),  # partial boards
            run("sb", CP, "error", 0.0), run("sb", "sat/placement", "memout", 3.0),
            run("sb", SAT, "timeout", 10.0, repetition=2)]
    assert check(tmp_path, runs) == []


def test_repetitions_disagree_on_status(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1, repetition=1), run("sb", SAT, "unsat", 0.1, repetition=2)]
    (p,) = check(tmp_path, runs)
    assert p.kind == "repetitions-disagree" and p.pairs == (SAT,)
    assert "sb" in p.message and SAT in p.message and "rep 1" in p.message and "rep 2: unsat" in p.message


def test_repetitions_disagree_on_complete_count(tmp_path):
    runs = [run("sb", SAT, "sat", 0.1, repetition=1, question="count-0"),
            run("sb", SAT, "sat", 0.1, repetition=2, question="count-0", boards=[BOARD_A, BOARD_B]),
            run("sb", MIP, "sat", 0.1, question="solve")]
    kinds = [p.kind for p in check(tmp_path, runs)]
    assert kinds == ["repetitions-disagree"]  # one pair against itself: not a cross-pair mismatch


def test_manifest_expected_status_by_content_hash(tmp_path):
    runs = [run("u1", SAT, "sat", 0.1), run("u1", MIP, "timeout", 10.0),
            run("s1", SAT, "unsat", 0.1), run("s1", MIP, "unsat", 0.1), run("ok1", SAT, "sat", 0.1)]
    manifest = {digest("u1"): {"name": "u1", "expected_status": "unsat"},
                digest("s1"): {"name": "s1", "expected_status": "sat"},
                digest("ok1"): {"name": "ok1", "expected_status": "sat"},
                "0000000000000000": {"name": "u1", "expected_status": "sat"}}  # same name, other content
    problems = check(tmp_path, runs, manifest)
    assert [(p.kind, p.instance, p.pairs) for p in problems] == [
        ("expected-status", "s1", (MIP, SAT)), ("expected-status", "u1", (SAT,))]
    assert "expects sat" in problems[0].message and "expects unsat" in problems[1].message
    assert check(tmp_path / "again", runs) == []  # without a manifest nothing is wrong


def test_manifest_expected_count(tmp_path):
    runs = [run("c1", SAT, "sat", 0.1),  # exactly 1, manifest says 2
            run("c1", MIP, "sat", 0.1, boards=[BOARD_A, BOARD_B], complete=0),  # 2: consistent with 2
            run("m1", SAT, "sat", 0.1),  # exactly 1, manifest says many
            run("m2", SAT, "sat", 0.1, question="solve"),  # solve: no claim
            run("t1", CP, "sat", 0.1, boards=[BOARD_A, BOARD_B], complete=0)]  # 2 found, manifest says 1
    manifest = {digest("c1"): {"expected_count": 2}, digest("m1"): {"expected_count": "many"},
                digest("m2"): {"expected_count": "many"}, digest("t1"): {"expected_count": 1}}
    problems = check(tmp_path, runs, manifest)
    found = [(p.kind, p.instance, p.pairs) for p in problems if p.kind == "expected-count"]
    assert found == [("expected-count", "c1", (SAT,)), ("expected-count", "m1", (SAT,)),
                     ("expected-count", "t1", (CP,))]
    by = {p.instance: p for p in problems if p.kind == "expected-count"}
    assert "expects 2 boards" in by["c1"].message and f"{SAT} says 1 board" in by["c1"].message
    assert "at least 2" in by["m1"].message
    assert f"{CP} found 2" in by["t1"].message
    # c1 also has the cross-pair mismatch
    assert ("count-mismatch", "c1") in [(p.kind, p.instance) for p in problems]


def test_order_is_instance_then_kind(tmp_path):
    runs = [run("b", SAT, "sat", 0.1), run("b", MIP, "unsat", 0.1),
            run("b", CP, "wrong", 0.1, boards=[BAD_BOARD]),
            run("a", SAT, "sat", 0.1, repetition=1), run("a", SAT, "unsat", 0.1, repetition=2)]
    problems = check(tmp_path, runs)
    assert [(p.instance, p.kind) for p in problems] == [
        ("a", "repetitions-disagree"), ("b", "wrong-board"), ("b", "unsat-vs-sat")]
    assert all(p.kind in KINDS for p in problems)
    text = render_problems(problems)
    assert text.rstrip().endswith("3 problems")


def test_render_wraps_wide_problems():
    p = Problem("count-mismatch", "x", ("a",), "x: many", [(f"pair{i}", BOARD_A, "ok") for i in range(8)])
    lines = render_problems([p], width=60).splitlines()
    assert max(len(ln) for ln in lines) <= 60
    assert sum(ln.strip().startswith("pair0") or ln.strip().startswith("pair3") for ln in lines) == 2


def test_load_manifest_of_the_repository():
    from harness.puzzle.formats import read_instance

    manifest = load_manifest(ROOT / "instances" / "MANIFEST.toml")
    # the manifest's hashes are those of the files as they are (a stale manifest matches nothing)
    sb = read_instance(ROOT / "instances" / "solbat" / "sb_12_12_5_0.toml").content_hash()
    seed = read_instance(ROOT / "instances" / "seeds" / "seed004_12x12.toml").content_hash()
    unsat = read_instance(ROOT / "instances" / "solbat" / "sb_13_13_5_5.toml").content_hash()
    # two files share this content (seed004_12x12 and sb_12_12_5_0): merged, expectations agree
    assert sb == seed and manifest[sb]["expected_count"] == 51
    assert manifest[unsat]["expected_status"] == "unsat"


def test_load_manifest_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[instance]\n")
    with pytest.raises(InputError, match="not a TOML"):
        load_manifest(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_manifest(tmp_path / "none.toml")
    clash = tmp_path / "clash.toml"
    clash.write_text('[[instance]]\nname = "a"\ncontent_hash = "h"\nexpected_status = "sat"\n'
                     '[[instance]]\nname = "b"\ncontent_hash = "h"\nexpected_status = "unsat"\n')
    with pytest.raises(InputError, match="same content"):
        load_manifest(clash)
    many = tmp_path / "many.toml"
    many.write_text('[[instance]]\nname = "a"\ncontent_hash = "h"\nexpected_count = "many"\n'
                    '[[instance]]\nname = "nohash"\n')
    assert load_manifest(many) == {"h": {"name": "a", "content_hash": "h", "expected_count": "many"}}


def test_find_manifest(tmp_path, monkeypatch):
    (tmp_path / "proj" / "instances").mkdir(parents=True)
    (tmp_path / "proj" / "instances" / "MANIFEST.toml").write_text("")
    deep = tmp_path / "proj" / "results" / "run1"
    deep.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert find_manifest(deep) == (tmp_path / "proj" / "instances" / "MANIFEST.toml").resolve()
    assert find_manifest(elsewhere) is None
    monkeypatch.chdir(tmp_path / "proj")
    assert find_manifest(elsewhere) == (tmp_path / "proj" / "instances" / "MANIFEST.toml").resolve()


def test_the_manifest_names_still_import_from_agreement():
    """The manifest moved to its own module; its public names stay importable from agreement, the same objects."""
    from harness.report import agreement, manifest

    for name in ("find_manifest", "load_manifest", "manifest_coverage", "manifest_sentence"):
        assert name in agreement.__all__ and getattr(agreement, name) is getattr(manifest, name), name
