"""``battlebench play`` as a user runs it: summaries per strategy, one game watched, bad input refused."""

from __future__ import annotations

import json

from clirun import ROOT, run

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


def test_a_game_that_ends_in_error_makes_play_exit_1_naming_the_shot(capsys, monkeypatch):
    import harness.play.strategies as strategies
    from harness.play.game import ImpossiblePosition
    from harness.play.strategies.random import RandomStrategy

    class GivesUp(RandomStrategy):
        name = "gives-up"

        def shot(self, position):
            if position.shots == 3:
                raise ImpossiblePosition("no deployment fits")
            return super().shot(position)

    real = strategies.get_strategy
    monkeypatch.setattr(strategies, "get_strategy", lambda n: GivesUp if n == "gives-up" else real(n))
    code, out, err = run(capsys, "play", "--strategy", "gives-up", "--strategy", "random", "--games", "2",
                         "--board", SMALL, "--json")
    assert code == 1
    assert "gives-up game 0: shot 4: no deployment fits" in err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["errors"] == 2 and rows[0]["mean_shots"] is None and rows[1]["errors"] == 0
    code, out, _ = run(capsys, "play", "--strategy", "gives-up", "--games", "1", "--board", SMALL)
    assert code == 1 and "none ended" in out and "1 errors" in out
