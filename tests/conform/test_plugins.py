"""``battlebench conform --counter`` and ``--strategy``: every registered counter and strategy passes its suite; a
lying one of each fails it, naming the case."""

from __future__ import annotations

import json
import os
import sys

import pytest

from clirun import ROOT, run
from harness.counting.counters import FAMILY as COUNTERS
from harness.play.strategies import FAMILY as STRATEGIES

LIARS = '''
import random as _random

from harness.core.options import Option
from harness.counting.counters import CountAnswer, Counter, Unsupported
from harness.counting.counters.brute import BruteCounter
from harness.play.strategies import Strategy
from harness.play.strategies.random import RandomStrategy


class OffByOne(BruteCounter):
    """Counts one deployment too many on boards with a hit."""
    name = "off-by-one"

    def count(self, dep, by="deployments", deadline=None):
        answer = super().count(dep, by, deadline)
        return CountAnswer(answer.count + (1 if dep.hits else 0), answer.complete, answer.detail)


class Nudged(BruteCounter):
    """Counts ``off`` deployments too many: right with its default option, wrong with another."""
    name = "nudged"
    options = {"off": Option(0, int)}

    def count(self, dep, by="deployments", deadline=None):
        answer = super().count(dep, by, deadline)
        return CountAnswer(answer.count + self.opts["off"], answer.complete, answer.detail)


class ShyOfHex(BruteCounter):
    """Says it takes every board, then refuses hex boards."""
    name = "shy"

    def count(self, dep, by="deployments", deadline=None):
        if dep.grid.kind == "hex":
            raise Unsupported("no hex here")
        return super().count(dep, by, deadline)


class ClaimsHex(BruteCounter):
    """Says it declines hex boards, then counts them anyway."""
    name = "claims"

    @classmethod
    def refuses(cls, dep, by="deployments"):
        return "no hex" if dep.grid.kind == "hex" else super().refuses(dep, by)


class Hasty(BruteCounter):
    """Stops at its deadline and calls what it has complete."""
    name = "hasty"

    def count(self, dep, by="deployments", deadline=None):
        if len(dep.cells) > 100:
            return CountAnswer(12345, True, {})
        return super().count(dep, by, deadline)


class Repeats(RandomStrategy):
    """Shoots its first shot again after a hit."""
    name = "repeats"

    def shot(self, position):
        if position.hits:
            return sorted(position.hits)[0]
        return super().shot(position)


class OffBoard(RandomStrategy):
    name = "off-board"

    def shot(self, position):
        return (99, 99) if position.shots == 4 else super().shot(position)


class GlobalDice(Strategy):
    """Uses the process's global random numbers, not its own generator."""
    name = "global-dice"

    def shot(self, position):
        return _random.choice(position.unknown())


class AnyRule(RandomStrategy):
    """Declares the ship rule only, but plays under any."""
    name = "any-rule"
    rules = ("ship",)

    def start(self, board, rule, rng):
        self.board, self.rule, self.rng = board, rule, rng


class SlowStart(RandomStrategy):
    """Takes 12 s (a compilation) before the first shot of its worker's first game past the warm-up's; fast after."""
    name = "slow-start"
    rules = ("ship",)
    started = []

    def start(self, board, rule, rng):
        super().start(board, rule, rng)
        import time

        if not SlowStart.started and board.name != "warm":  # the warm-up's tiny board compiles what it takes
            SlowStart.started.append(board.name)
            time.sleep(12.0)


class Quits(RandomStrategy):
    """Stops shooting after 5 shots (a game that never ends)."""
    name = "quits"

    def shot(self, position):
        if position.shots >= 5:
            raise ValueError("tired")
        return super().shot(position)
'''


@pytest.fixture
def liars(tmp_path, monkeypatch):
    (tmp_path / "bb_liars.py").write_text(LIARS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT)]))
    yield tmp_path
    sys.modules.pop("bb_liars", None)


def _conform(capsys, *argv):
    code, out, err = run(capsys, "conform", *argv, "--json")
    return code, (json.loads(out) if out.strip() else None), err


@pytest.mark.parametrize("counter", COUNTERS.names())
def test_every_registered_counter_conforms(capsys, counter):
    code, report, err = _conform(capsys, "--counter", counter)
    assert code == 0, json.dumps(report, indent=1) + err
    assert [c["check"] for c in report["checks"]] == ["count", "refuses", "limit"]
    assert report["checks"][0]["cases"] > 0


def test_the_cpsat_counter_split_in_cubes_conforms(capsys):
    code, report, err = _conform(capsys, "--counter", "cpsat", "-o", "split=2")
    assert code == 0, json.dumps(report, indent=1) + err
    assert report["options"] == {"split": "2"} and report["checks"][0]["cases"] > 0


@pytest.mark.parametrize("strategy", STRATEGIES.names())
def test_every_registered_strategy_conforms(capsys, strategy):
    options = ["-o", "block=500"] if strategy == "thompson" else []
    code, report, err = _conform(capsys, "--strategy", strategy, *options)
    assert code == 0, json.dumps(report, indent=1) + err
    assert [c["check"] for c in report["checks"]] == ["legal", "sinks", "repeatable", "rules"]


@pytest.mark.parametrize("liar, check, said", [
    ("OffByOne", "count", "brute force has"),
    ("ShyOfHex", "count", "refused though its refuses() takes it"),
    ("ClaimsHex", "refuses", "its refuses() declines it"),
    ("Hasty", "limit", "counted 12,345, the count is 85,700,116,176"),
])
def test_a_lying_counter_fails_the_check_its_lie_breaks(capsys, liars, liar, check, said):
    code, report, err = _conform(capsys, "--counter", f"bb_liars:{liar}", "--check", check)
    assert code == 1, err
    (row,) = report["checks"]
    assert row["check"] == check and not row["passed"] and said in row["detail"], row


def test_a_strategy_that_compiles_in_its_first_game_on_a_board_conforms(capsys, liars, monkeypatch):
    """Finding 11 of issue 49: the posterior compiles its dp for ships apart and for hex boards in the first game
    there (20 s of CPU cold), and at load 7 that game ran past the 60-s game limit: "the fleet was not sunk
    (timeout)".  The first game on a board and rule has the long limit; the others keep the short one (here 10 s,
    against a 12-s start and the milliseconds of a warm game; 600 s for the first game)."""
    from harness.conform import strategies

    monkeypatch.setattr(strategies, "GAME_LIMIT_S", 10.0)
    monkeypatch.setattr(strategies, "FIRST_GAME_LIMIT_S", 600.0, raising=False)
    code, report, err = _conform(capsys, "--strategy", "bb_liars:SlowStart", "--check", "sinks", "--grace", "0")
    assert code == 0, json.dumps(report, indent=1) + err
    monkeypatch.setattr(strategies, "FIRST_GAME_LIMIT_S", 10.0)  # as before: the first game's start is in its limit
    code, report, err = _conform(capsys, "--strategy", "bb_liars:SlowStart", "--check", "sinks", "--grace", "0")
    assert code == 1 and "the fleet was not sunk (timeout" in report["checks"][0]["detail"], report


def test_a_counters_options_reach_the_runs_conform_makes(capsys, liars):
    """The same counter passes with its default option and fails with the option that makes it lie: the
    options are the runs' (a pair ``nudged[off=1]``), not dropped on the way to the worker."""
    code, report, err = _conform(capsys, "--counter", "bb_liars:Nudged", "--check", "count")
    assert code == 0 and report["checks"][0]["passed"], err
    code, report, err = _conform(capsys, "--counter", "bb_liars:Nudged", "-o", "off=1", "--check", "count")
    assert code == 1 and "brute force has" in report["checks"][0]["detail"] and report["options"] == {"off": "1"}


@pytest.mark.parametrize("liar, check, said", [
    ("Repeats", "legal", "was shot before"),
    ("OffBoard", "legal", "not on the board"),
    ("Quits", "sinks", "the fleet was not sunk"),
    ("GlobalDice", "repeatable", "the shots differ"),
    ("AnyRule", "rules", "but played under 'sunk'"),
])
def test_a_lying_strategy_fails_the_check_its_lie_breaks(capsys, liars, liar, check, said):
    code, report, err = _conform(capsys, "--strategy", f"bb_liars:{liar}", "--check", check)
    assert code == 1, err
    (row,) = report["checks"]
    assert row["check"] == check and not row["passed"] and said in row["detail"], row


@pytest.mark.parametrize("argv, message", [
    ([], "name one plugin"),
    (["cpsat", "--counter", "dp"], "name one plugin"),
    (["--counter", "nope"], "unknown counter 'nope'"),
    (["--strategy", "thompson", "-o", "blok=3"], "has no option 'blok'"),
    (["--counter", "dp", "--check", "legal"], "unknown check 'legal' for a counter"),
    (["--counter", "dp", "-o", "x=1"], "counter dp has no option 'x' (known: split)"),
    (["--counter", "cpsat", "-o", "split=0"], "option 'split' of counter cpsat must be >= 1"),
    (["--counter", "dp", "--grace", "-1"], "--grace must be a number of seconds >= 0, not -1"),  # as every command's
])
def test_bad_conform_input_is_one_line(capsys, argv, message):
    code, out, err = run(capsys, "conform", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
