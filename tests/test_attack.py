"""Issue 32's findings, each a test that failed on 5202e80: bad input is one line (exit 2) or the right answer.

The gates (findings 1, 2, 17), the limits (3-6, 15, 16) and the orphans (6) have their own tests beside the
code they test; these are the inputs an attacker tried.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from clirun import ROOT, run

SMALL = ROOT / "instances" / "deployments" / "tiny" / "t5x5_3_2x2.toml"


def _deployment(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'[meta]\nname = "{name}"\n' + textwrap.dedent(body))
    return path


def test_9_a_plugin_that_exits_at_import_is_one_line_naming_it(capsys, tmp_path, monkeypatch):
    import sys

    (tmp_path / "bb_exits.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, err = run(capsys, "solve", ROOT / "instances" / "smoke" / "tiny_4x4.toml", "-b", "bb_exits:X")
    assert code == 2 and err.count("\n") == 1 and "cannot import module 'bb_exits': SystemExit: 3" in err
    code, out, err = run(capsys, "conform", "--counter", "bb_exits:X")
    assert code == 2 and "SystemExit: 3" in err
    sys.modules.pop("bb_exits", None)


def test_10_dp_counts_38_and_more_labelled_pieces(capsys, tmp_path):
    """38 single cells with names of their own on 12 x 12: 144!/106! deployments (it raised IndexError)."""
    import math

    pieces = "".join(f"P{i} = 1\n" for i in range(40))
    path = _deployment(tmp_path, "many", "[grid]\nrows = 12\ncols = 12\n[pieces]\n" + pieces)
    code, out, err = run(capsys, "count", path, "--json")
    assert code == 0, err
    assert json.loads(out)["count"] == math.perm(144, 40)


def test_10_dp_refuses_what_its_state_cannot_hold_in_one_line(capsys, tmp_path):
    shapes = "".join(f"S{i} = {i}\n" for i in range(1, 22))  # 21 kinds of piece: lengths 1 to 21, in one row
    path = _deployment(tmp_path, "kinds", "[grid]\nrows = 1\ncols = 300\n[pieces]\n" + shapes)
    code, out, err = run(capsys, "count", path, "--json")
    row = json.loads(out)
    assert code == 1 and row["status"] == "refused" and "more than its 1,048,576 vectors hold" in row["error"]


def test_11_islands_may_take_a_whole_row(capsys, tmp_path):
    body = """\
        [grid]
        rows = 3
        cols = 3
        islands = [[2, 0], [2, 1], [2, 2]]
        [pieces]
        Destroyer = 2
        [clues]
        rows = [1, 1, {last}]
        """
    for last, count in ((0, 3), (1, 0)):  # a clue on the row of islands: 0 fits, 1 cannot
        path = _deployment(tmp_path, f"island{last}", body.format(last=last))
        for counter in ("dp", "brute", "sat"):
            code, out, err = run(capsys, "count", path, "--counter", counter, "--json")
            assert code == 0 and json.loads(out)["count"] == count, (counter, last, out, err)


@pytest.mark.parametrize("copies", [1_000_000, 2 ** 63 - 1])
def test_12_more_copies_than_cells_gives_0_at_once(capsys, tmp_path, copies):
    path = _deployment(tmp_path, "crowd", f"[grid]\nrows = 10\ncols = 10\n[pieces]\nSub = {{ length = 1, count = "
                                          f"{copies} }}\n")
    code, out, err = run(capsys, "count", path, "--json", "--time-limit", "30")
    row = json.loads(out)
    assert code == 0 and row["count"] == 0 and row["complete"] and row["detail"]["method"] == "precheck", row


def test_minor_convert_of_an_endless_file_is_one_line(capsys, tmp_path):
    code, out, err = run(capsys, "convert", "/dev/zero", tmp_path / "x.toml", "--from", "ascii")
    assert code == 2 and "/dev/zero: cannot read: larger than 64 MiB" in err


def test_minor_count_marginals_into_an_unwritable_folder_still_prints_the_count(capsys, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    code, out, err = run(capsys, "count", ROOT / "instances" / "deployments" / "tiny" / "t6x6_position.toml",
                         "--marginals", "--png-dir", blocker / "pngs")
    assert code == 2 and "t6x6_position: 34 deployments" in out and "cannot write the picture" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["--watch", "--delay", "-1"], "--delay must be >= 0"),
    (["-s", "random", "-s", "random"], "a strategy is named twice"),
])
def test_minor_play_options_are_checked_before_any_game(capsys, argv, message):
    code, out, err = run(capsys, "play", "--board", SMALL, *argv)
    assert code == 2 and message in err and out == ""


def test_4_marginals_run_in_the_worker_under_the_limits(capsys, tmp_path):
    """``count --marginals`` ran in the main process with no limit: a 15 x 15 no-touch board gave no output in
    300 s at ``--time-limit 3``.  Now the whole count, marginals included, is one run in the worker."""
    board = _deployment(tmp_path, "apart", "[grid]\nrows = 15\ncols = 15\n[rules]\ntouching = false\n[pieces]\n"
                                          "Carrier = 5\nBattleship = 4\nSubmarine = 3\nCruiser = 3\nDestroyer = 2\n")
    code, out, err = run(capsys, "count", board, "--marginals", "--time-limit", "3", "--grace", "0", "--json")
    row = json.loads(out)
    assert code == 1 and row["status"] == "timeout" and row["marginals"] is None  # stopped: it takes minutes
    assert "no marginals" in err


def test_7_play_input_is_one_line(capsys, tmp_path):
    cramped = _deployment(tmp_path, "cramped", "[grid]\nrows = 3\ncols = 3\n[pieces]\nCarrier = 5\n")
    for argv, message in ((["--seed", "-1"], "--seed must be >= 0"), (["--board", cramped], "cramped.toml"),
                          (["--strip", tmp_path / "nowhere" / "s.png"], "no folder"),
                          (["--strip", tmp_path / "s.jpg"], "must end in .png")):
        code, out, err = run(capsys, "play", *argv)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and out == "", (argv, err)
