"""``battlebench play`` as a user runs it: summaries per strategy, one game watched, bad input refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clirun import ROOT, run
import procs

SMALL = ROOT / "instances" / "deployments" / "tiny" / "t5x5_3_2x2.toml"


def test_play_json_summarises_each_strategy_over_the_same_games(capsys):
    code, out, err = run(capsys, "play", "--strategy", "random", "--strategy", "density", "--games", "30",
                         "--seed", "4", "--board", SMALL, "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["strategy"] for r in rows] == ["random", "density"]
    for r in rows:
        assert {"strategy", "games", "mean_shots", "ci95", "median_shots", "games_per_s"} <= set(r)
        assert r["games"] == 30 and r["ci95"][0] < r["mean_shots"] < r["ci95"][1]
        assert 7 <= r["p5"] <= r["median_shots"] <= r["p95"] <= r["worst"] <= 25
    assert rows[1]["mean_shots"] < rows[0]["mean_shots"]  # density beats random on the same fleets
    assert "paired" not in rows[0]
    p = rows[1]["paired"]  # every game ended: the mean paired difference is the difference of the means
    assert p["against"] == "random" and p["games"] == 30 and p["better"] + p["worse"] <= 30
    assert p["mean_diff"] == pytest.approx(rows[1]["mean_shots"] - rows[0]["mean_shots"])
    assert p["ci95"][0] < p["mean_diff"] < p["ci95"][1] < 0


def test_play_prints_the_paired_difference_of_each_strategy_from_the_first(capsys):
    code, out, err = run(capsys, "play", "-s", "random", "-s", "density", "-s", "parity", "--games", "12",
                         "--seed", "4", "--board", SMALL)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 5 and "paired vs" not in lines[0]
    for k in (2, 4):
        assert lines[k].lstrip().startswith("paired vs random: ") and " on 12 games (fewer shots in " in lines[k]


def test_random_reproduces_the_exact_mean_on_the_standard_board(capsys):
    """Random firing needs K(N+1)/(K+1) shots on average for K ship cells among N: 17*101/18 = 95.39."""
    code, out, err = run(capsys, "play", "--strategy", "random", "--games", "400", "--seed", "1", "--json")
    assert code == 0, err
    row = json.loads(out)
    assert row["ci95"][0] <= 17 * 101 / 18 <= row["ci95"][1]


def test_watch_prints_every_shot_and_the_heat_map(capsys):
    code, out, err = run(capsys, "play", "--strategy", "posterior", "--board", SMALL, "--watch")
    assert code == 0, err
    assert out.count("shot ") >= 7 and "all ships sunk in" in out
    first = out.split("\n\n")[0].splitlines()
    assert len(first) == 6 and "    " in first[1]  # the shot line, then 5 rows: board beside heat map


def test_unknown_strategy_or_option_fails_before_any_game(capsys):
    code, out, err = run(capsys, "play", "--strategy", "nope", "--games", "3")
    assert code == 2 and "unknown strategy 'nope'" in err and out == ""
    code, out, err = run(capsys, "play", "--strategy", "thompson", "--option", "thompson.blok=5", "--games", "3")
    assert code == 2 and "has no option 'blok'" in err and len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "play", "--strategy", "random", "--board", ROOT / "nope.toml")
    assert code == 2 and "nope.toml" in err
    hinted = ROOT / "instances" / "deployments" / "tiny" / "t6x6_position.toml"
    code, out, err = run(capsys, "play", "--board", hinted)
    assert code == 2 and "no hints or clues" in err and out == ""


PLUGINS = """
import os
import time

from harness.play.game import ImpossiblePosition
from harness.play.strategies import Option
from harness.play.strategies.random import RandomStrategy


class GivesUp(RandomStrategy):
    name = "gives-up"

    def shot(self, position):
        if position.shots == 3:
            raise ImpossiblePosition("no deployment fits")
        return super().shot(position)


class Sleepy(RandomStrategy):
    \"\"\"Sleeps at the third shot of the first game it plays on the 5x5 board (a strategy stuck in thought),
    once: the marker file says it did.\"\"\"
    name = "sleepy"
    options = {"seconds": Option(30.0, float), "marker": Option("", str)}

    def shot(self, position):
        marker = self.opts["marker"]
        if len(self.board.cells) == 25 and position.shots == 2 and marker and not os.path.exists(marker):
            open(marker, "w").close()
            time.sleep(self.opts["seconds"])
        return super().shot(position)


class Marker(RandomStrategy):
    \"\"\"Random, writing a line to a file at every game's start (so a test knows games are being played).\"\"\"
    name = "marker"
    options = {"marker": Option("", str)}

    def start(self, board, rule, rng):
        super().start(board, rule, rng)
        if len(board.cells) == 25:  # the games' 5x5 board (not the worker's warm-up game)
            with open(self.opts["marker"], "a") as fh:
                fh.write("game\\n")


class Hog(RandomStrategy):
    name = "hog"

    def shot(self, position):
        self.hoard = bytearray(800 * 1024 * 1024)
        for i in range(0, len(self.hoard), 4096):
            self.hoard[i] = 1
        return super().shot(position)
"""


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A module of strategies on the path of this process and of the workers (module:Class names them)."""
    (tmp_path / "bb_strategies.py").write_text(PLUGINS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT)]))
    yield tmp_path
    sys.modules.pop("bb_strategies", None)


def test_a_game_that_ends_in_error_makes_play_exit_1_naming_the_shot(capsys, plugins):
    code, out, err = run(capsys, "play", "--strategy", "bb_strategies:GivesUp", "--strategy", "random", "--games",
                         "2", "--board", SMALL, "--json")
    assert code == 1
    assert "bb_strategies:GivesUp game 0: error: shot 4: no deployment fits" in err, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["errors"] == 2 and rows[0]["mean_shots"] is None and rows[1]["errors"] == 0
    code, out, _ = run(capsys, "play", "--strategy", "bb_strategies:GivesUp", "--games", "1", "--board", SMALL)
    assert code == 1 and "none ended" in out and "1 errors" in out


def test_play_runs_every_game_in_a_worker_under_the_time_limit(capsys, plugins):
    """A strategy that sleeps in game 0: that game ends as a timeout at the limit, the others go on and end."""
    code, out, err = run(capsys, "play", "--strategy", "bb_strategies:Sleepy", "-o", f"marker={plugins / 'slept'}",
                         "--games", "4", "--board", SMALL, "--time-limit", "2", "--grace", "0", "--json")
    assert code == 1
    row = json.loads(out)
    assert row["games"] == 4 and row["completed"] == 3 and row["errors"] == 1
    assert "game 0: timeout" in err and err.count("battlebench:") == 1, err
    # a timeout, not a game that ended: it was stopped at the limit, not waited for (it sleeps 30 s)


def test_play_holds_the_memory_limit(capsys, plugins):
    code, out, err = run(capsys, "play", "--strategy", "bb_strategies:Hog", "--games", "2", "--board", SMALL,
                         "--memory-mb", "400", "--json")
    assert code == 1
    assert json.loads(out)["errors"] == 2 and "memout" in err


def test_play_with_the_default_board_works_outside_the_checkout(tmp_path):
    """The default board is package data: `battlebench play` from any folder plays the standard game."""
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "play", "--games", "3", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 3


def test_the_shipped_default_board_is_the_standard_game():
    from harness.cli.play import default_board

    assert default_board().read_bytes() == (ROOT / "instances" / "deployments" / "standard_10x10.toml").read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be >= 0, not -1"),
    (["--games", "0"], "--games must be at least 1, not 0"),
    (["--every", "0"], "--every must be at least 1, not 0"),
    (["-s", "thompson", "-o", "block=0"], "option 'block' of strategy thompson must be >= 1, not 0"),
    (["--strip", "/nonexistent-folder/strip.png"], "no folder"),
    (["--strip", "strip.jpg"], "must end in .png"),
    (["--png-dir", "/nonexistent-folder"], "--png-dir /nonexistent-folder: no folder"),
    (["--png-dir", "/tmp", "--strip", "/tmp/s.png"], "--png-dir names the strip's folder and --strip its file"),
    (["--option", "block=5"], "several strategies play"),
])
def test_bad_play_input_is_one_line_before_any_game(capsys, argv, message):
    strategies = ["--strategy", "thompson", "--strategy", "random"] if "block=5" in argv else []
    code, out, err = run(capsys, "play", *strategies, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and out == ""


def test_a_board_where_the_fleet_cannot_fit_is_one_line(capsys, tmp_path):
    board = tmp_path / "cramped.toml"
    board.write_text('[meta]\nname = "cramped"\n[grid]\nrows = 3\ncols = 3\n[pieces]\nCarrier = 5\n')
    code, out, err = run(capsys, "play", "--board", board)
    assert code == 2 and "cramped.toml" in err and len(err.strip().splitlines()) == 1 and out == ""


def test_ctrl_c_keeps_the_games_played(plugins):
    """Finding 14 of issue 32: Ctrl-C on a long ``play`` exited 130 and kept none of its games."""
    import signal

    marker = plugins / "games.txt"
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "play", "--strategy", "bb_strategies:Marker", "-o",
                             f"marker={marker}", "--games", "1000000", "--board", SMALL, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    procs.wait_until(lambda: marker.exists() and marker.read_text().count("game") >= 5, proc)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the whole group
    out, err = procs.communicate(proc)
    assert proc.returncode == 130, err
    row = json.loads(out)
    assert row["interrupted"] and row["games"] >= 4 and row["completed"] == row["games"], row
    assert "interrupted: bb_strategies:Marker played" in err and "Traceback" not in err
