"""Issue 32's findings, each a test that failed on 5202e80: bad input is one line (exit 2) or the right answer.

The gates (findings 1, 2, 17), the limits (3-6, 15, 16) and the orphans (6) have their own tests beside the
code they test; these are the inputs an attacker tried.
"""

from __future__ import annotations

import os
import sys
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


@pytest.mark.parametrize("counter", ["dp", "frontier", "brute", "cluster"])
def test_16_a_counter_past_its_limit_is_stopped_a_second_after_sigterm_not_at_the_grace(capsys, tmp_path, counter):
    """dp, frontier, brute and cluster ignored SIGTERM and ran on until limit + grace; now the worker ends a run
    that has not answered a second after SIGTERM (a grace of 60 s here: it is not waited for)."""
    body = ("[grid]\nrows = 15\ncols = 15\n[rules]\ntouching = false\n[pieces]\nCarrier = 5\nBattleship = 4\n"
            "Submarine = 3\nCruiser = 3\nDestroyer = 2\n")
    if counter == "cluster":  # the cluster expansion is slow on a cold table cache for pieces apart: a fresh one
        (tmp_path / "cache").mkdir()
        os.environ["BATTLEBENCH_CACHE"], old = str(tmp_path / "cache"), os.environ.get("BATTLEBENCH_CACHE")
    try:
        code, out, err = run(capsys, "count", _deployment(tmp_path, "apart", body), "--counter", counter,
                             "--time-limit", "2", "--grace", "60", "--json")
    finally:
        if counter == "cluster":
            os.environ["BATTLEBENCH_CACHE"] = old or ""
    row = json.loads(out)
    if row["status"] == "sat":  # the table was cached after all: an exact count is no failure to stop
        return
    assert code == 1 and row["status"] == "timeout", row
    assert "no answer within a second of SIGTERM, the worker ended the run" in row["detail"]["runner"], row


def test_15_the_first_count_does_not_pay_for_compilation_the_warm_up_does(tmp_path):
    """With a cold numba cache the first dp count paid the compilation inside its time limit (74 s, a timeout
    at 30 s).  Now the new worker's warm-up compiles, outside the run's limit, and the record says what it took."""
    import subprocess
    import sys

    board = ROOT / "instances" / "deployments" / "tiny" / "t5x5_notouch.toml"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "count", str(board), "--json"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    times = json.loads(proc.stdout)["times"]
    assert times["warmup_s"] > times["count_s"]  # compiled in the warm-up, not in the count


PLUGIN = '''
import os
import time

from harness.backends import Answer, Backend, ModelSize


class Plugin(Backend):
    """A plugin whose every build (its warm-up's too: a tiny solve) does what the test says."""
    name = "plugin"
    formulations = ("placement",)

    @classmethod
    def versions(cls):
        return {"plugin": "1"}

    def build(self):
        {build}
        return ModelSize(0, 0)

    def enumerate(self, limit, time_limit_s):
        return Answer(exhausted=True)
'''


def _plugin_campaign(capsys, tmp_path, monkeypatch, build: str, instances: list[str], limits: str) -> tuple[list, str]:
    """Run a campaign of a plugin whose build is ``build``; the (status, warmup_s) of its runs and stderr."""
    import sqlite3

    module = f"bb_plugin_{tmp_path.name}"
    (tmp_path / f"{module}.py").write_text(PLUGIN.replace("{build}", build))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT)]))
    cfg = tmp_path / "c.toml"
    paths = ", ".join(f'"{ROOT / "instances" / "smoke" / name}"' for name in instances)
    cfg.write_text(f'name = "plugin"\ninstances = [{paths}]\noutput = "{tmp_path / "out"}"\n[limits]\n{limits}\n'
                   f'[[pairs]]\nbackend = "{module}:Plugin"\n')
    try:
        _, _, err = run(capsys, "run", cfg, "--progress", "plain")
    finally:
        sys.modules.pop(module, None)
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        return db.execute("select status, warmup_s from runs").fetchall(), err


def test_3_a_plugins_warm_up_is_accounted_in_the_store(capsys, tmp_path, monkeypatch):
    """A sleeping plugin's campaign took 628 s while its store recorded 6 s a run: the warm-ups of the workers
    that replaced killed ones were nowhere.  Each run's record now says what its worker's warm-up took."""
    rows, err = _plugin_campaign(capsys, tmp_path, monkeypatch, "time.sleep(2.0)",
                                 ["tiny_4x4.toml", "nonsquare_4x6.toml"], "time_s = 1\ngrace_s = 0\nmemory_mb = 1024")
    assert [status for status, _ in rows] == ["timeout", "timeout"], err
    assert all(warm is not None and warm >= 2.0 for _, warm in rows)  # each run's new worker warmed (and slept)


def test_3_a_plugins_warm_up_runs_under_the_memory_limit(capsys, tmp_path, monkeypatch):
    """A plugin that allocated in its warm-up reached 6.9 GB resident under ``--memory-mb 500``: the warm-up had no
    memory limit.  Now it has the run's: no build anywhere gets its 1.5 GB, and the runs are memouts."""
    mark = tmp_path / "allocated"
    monkeypatch.setenv("BB_HOG_MARK", str(mark))
    hog = ("hog = bytearray(1536 * 1024 * 1024); hog[::4096] = b'x' * len(range(0, len(hog), 4096)); "
           "open(os.environ['BB_HOG_MARK'], 'a').write(str(os.getpid()))")
    rows, err = _plugin_campaign(capsys, tmp_path, monkeypatch, hog, ["tiny_4x4.toml"], "time_s = 20\nmemory_mb = 500")
    assert [status for status, _ in rows] == ["memout"], err
    assert rows[0][1] is not None  # its worker warmed up (and failed to) before the run
    assert not mark.exists(), f"a build got its 1.5 GB in process {mark.read_text()}"


def test_5_a_huge_board_is_timed_from_the_hand_over_and_stopped_a_second_after_its_limit(capsys, tmp_path):
    """A 1000 x 1000 board at ``--time-limit 5`` recorded 25-35 s.  The deadline runs from the moment the request
    is handed to the worker (its pickling included), and the worker ends the run a second after SIGTERM.  Seven
    pieces, so that the cluster expansion (at most six, answering in moments) leaves it to the row programme."""
    board = _deployment(tmp_path, "kilo", "[grid]\nrows = 1000\ncols = 1000\n[pieces]\nCarrier = 5\nBattleship = 4\n"
                                          "Submarine = 3\nCruiser = 3\nDestroyer = 2\nPatrol = 2\nScout = 1\n")
    code, out, err = run(capsys, "count", board, "--time-limit", "2", "--grace", "60", "--json")
    row = json.loads(out)
    assert code == 1 and row["status"] == "timeout", row
    assert "the worker ended the run" in row["detail"]["runner"]  # not killed at 2 + 60 s
