"""The racing portfolio (harness.tasks.solve.race): the first decided answer wins, losers are killed through the
pool, wrong answers are not hidden."""

from __future__ import annotations

import json
import time

import pytest

from clirun import run as cli_run
from harness.core.limits import Limits
from harness.core.status import Question, Status
from harness.errors import UsageError
from harness.puzzle.instance import Instance
from harness.runner.process import WorkerPool
from harness.tasks.solve import RunRequest, judge_execution
from harness.tasks.solve.race import parse_leg, race, split_pairs

GOOD = ["O.", "..", ".O"]
WRONG = ["O.", "O.", ".."]  # ships touching: the verifier rejects it


def tiny(boards=(GOOD,)) -> Instance:
    return Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1),
                    name="tiny", meta={"fake_boards": [list(b) for b in boards]})


def leg(mode="answer", inst=None, limit=20.0, backend="fake", **opts) -> RunRequest:
    options = {"mode": mode, **opts} if backend == "fake" else opts
    return RunRequest.of(inst or tiny(), backend, "placement", Question(), options, Limits(limit, None, 1.0))


@pytest.fixture
def pool():
    with WorkerPool() as p:
        yield p


def test_the_first_decided_answer_wins_and_the_slow_leg_is_killed(pool):
    t0 = time.perf_counter()
    out = race(pool, [leg("sleep", seconds=600), leg()], ["slow", "fast"], judge_execution)
    assert time.perf_counter() - t0 < 300  # not the slow leg's 600 s: a hang detector (start-up takes seconds)
    assert out.winner == 1 and out.winner_label == "fast"
    assert out.result.status is Status.SAT and out.result.verdicts == ["ok"]
    slow, fast = out.legs
    assert slow.killed and not fast.killed
    assert out.to_detail()["race"]["legs"][0]["status"] == "killed"
    assert out.execution.cpu_s == pytest.approx(sum(x.execution.cpu_s for x in out.legs))
    assert "race won by fast" in out.describe()
    # the pool goes on: the killed leg's worker was replaced, the next race runs
    again = race(pool, [leg("sleep", seconds=30), leg()], ["slow", "fast"], judge_execution)
    assert again.winner == 1


def test_a_leg_that_crashes_first_does_not_end_the_race(pool):
    out = race(pool, [leg("crash"), leg("sleep", seconds=1.0)], ["crash", "late"], judge_execution)
    assert out.winner == 1 and out.result.status is Status.SAT
    assert out.legs[0].result.status is Status.ERROR


def test_a_wrong_answer_first_makes_the_race_wrong(pool):
    out = race(pool, [leg(inst=tiny((WRONG,))), leg("sleep", seconds=30, inst=tiny((WRONG,)))], ["liar", "slow"], judge_execution)
    assert out.winner == 0 and out.result.status is Status.WRONG
    assert out.legs[1].killed


def test_no_leg_decides_the_race_is_a_timeout(pool):
    out = race(pool, [leg("crash"), leg("spin", seconds=30, limit=1.0)], ["crash", "spinner"], judge_execution)
    assert out.winner is None and out.result.status is Status.TIMEOUT and out.decided_by == 1
    assert out.to_detail()["race"]["winner"] is None and "no leg decided" in out.describe()


def test_a_race_of_real_solvers_counts_what_brute_force_counts(pool):
    from harness.conform.cases import TINY
    from harness.puzzle.brute import count_boards

    for inst in TINY[:6]:
        requests = [RunRequest.of(inst, b, "placement", Question.count(0), {}, Limits(20.0, None, 1.0))
                    for b in ("cpsat", "sat")]
        out = race(pool, requests, ["cpsat/placement", "sat/placement"], judge_execution)
        expected = count_boards(inst)
        assert out.result.count == expected, inst.name
        assert out.result.status is (Status.SAT if expected else Status.UNSAT)


@pytest.mark.parametrize("text,legs", [
    ("cpsat/placement,sat/cell", ["cpsat/placement", "sat/cell"]),
    ("sat[solver=glucose4,encoding=totalizer]/placement, cpsat/cell",
     ["sat[solver=glucose4,encoding=totalizer]/placement", "cpsat/cell"]),
])
def test_split_pairs_keeps_options_together(text, legs):
    assert split_pairs(text) == legs


def test_parse_leg():
    assert parse_leg("sat[solver=glucose4,encoding=totalizer]/placement") == (
        "sat", "placement", {"solver": "glucose4", "encoding": "totalizer"})
    for bad in ("sat", "sat[solver]/placement", "sat[solver=x/placement", "/placement"):
        with pytest.raises(UsageError):
            parse_leg(bad)


def test_solve_race_from_the_command_line(capsys):
    path = "instances/smoke/tiny_4x4.toml"

    def cli(*argv):
        code, out, err = cli_run(capsys, *argv)
        return type("Done", (), {"returncode": code, "stdout": out, "stderr": err})
    done = cli("solve", path, "--race", "cpsat/placement,sat[solver=glucose4]/placement", "-k", "2", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["status"] == "sat" and out["race"]["winner"] in ("cpsat/placement", "sat[solver=glucose4]/placement")
    assert [x["pair"] for x in out["race"]["legs"]] == ["cpsat/placement", "sat[solver=glucose4]/placement"]
    text = cli("solve", path, "--race", "cpsat/placement,sat/placement")
    assert text.returncode == 0 and "race won by" in text.stdout
    for argv, needle in ((["--race", "cpsat/placement"], "at least two"),
                         (["--race", "cpsat/placement,cpsat/placement"], "named twice"),
                         (["--race", "cpsat/placement,sat/nope"], "nope"),
                         (["--race", "cpsat/placement,sat/cell", "-b", "sat"], "--race names its pairs")):
        bad = cli("solve", path, *argv)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and needle in bad.stderr, bad.stderr


# --------------------------------------------------------------------------- races in campaigns
RACE_CONFIG = """\
name = "race"
instances = ["{smoke}"]
task = {{ kind = "count", k = 2 }}
output = "out"
[limits]
time_s = 20
[[pairs]]
backend = "sat"
[[pairs]]
race = ["cpsat/placement", {{ backend = "sat", options = {{ solver = "glucose4" }} }}]
"""


def _config(tmp_path, text):
    from pathlib import Path

    smoke = Path(__file__).resolve().parents[2] / "instances" / "smoke"
    path = tmp_path / "race.toml"
    path.write_text(text.format(smoke=smoke))
    return path


def test_a_campaign_races_records_the_winner_and_reports_it(tmp_path, capsys):
    import io

    from harness.runner.config import load_config
    from harness.runner.run import run_campaign
    from harness.store import ResultsStore

    cfg = _config(tmp_path, RACE_CONFIG)
    config = load_config(cfg)
    assert [p.label for p in config.pairs] == ["sat/placement",
                                               "race[cpsat/placement,sat[solver=glucose4]/placement]"]
    run_campaign(config, stream=io.StringIO(), live=False)
    with ResultsStore(tmp_path / "out") as store:
        races = [r for r in store.records() if r["backend"] == "race"]
    assert len(races) == 4
    for rec in races:
        detail = json.loads(rec["detail"])["race"]
        assert detail["winner"] in ("cpsat/placement", "sat[solver=glucose4]/placement")
        assert rec["cpu_s"] == pytest.approx(sum(x["cpu_s"] for x in detail["legs"]), abs=0.02)
        assert rec["status"] in ("sat", "unsat") and rec["verdict"] in ("ok", "none")
    code, out, err = cli_run(capsys, "report", tmp_path / "out")
    assert code == 0 and "## Races: which leg won" in (tmp_path / "out" / "report" / "summary.md").read_text()
    import pandas as pd

    table = pd.read_csv(tmp_path / "out" / "report" / "races.csv")
    assert table["won"].sum() == 4 and set(table["runs"]) == {4}
    assert cli_run(capsys, "check", tmp_path / "out")[0] == 0


@pytest.mark.parametrize("pairs,key,needle", [
    ('race = ["cpsat/placement"]', "pairs[0].race", "at least two"),
    ('race = ["cpsat/placement", "cpsat/placement"]', "pairs[0].race[1]", "twice"),
    ('race = ["cpsat/placement", "sat/nope"]', "pairs[0].race[1]", "nope"),
    ('race = ["cpsat/placement", 3]', "pairs[0].race[1]", "label or table"),
    ('race = ["cpsat/placement", { backend = "sat", colour = 1 }]', "pairs[0].race[1].colour", ""),
    ('race = ["cpsat/placement", "sat/cell"]\nbackend = "sat"', "pairs[0]", "only 'race'"),
])
def test_a_bad_race_in_a_config_is_one_line_before_any_run(tmp_path, pairs, key, needle):
    from harness.runner.config import ConfigError, load_config

    text = RACE_CONFIG.split("[[pairs]]")[0] + "[[pairs]]\n" + pairs.replace("{", "{{").replace("}", "}}") + "\n"
    with pytest.raises(ConfigError) as info:
        load_config(_config(tmp_path, text))
    msg = str(info.value)
    assert "\n" not in msg and f": {key}: " in msg and needle in msg, msg
    assert not (tmp_path / "out").exists()


def test_the_losing_leg_is_killed_through_the_pool_and_the_winners_worker_stays_warm(pool):
    from procs import gone

    out = race(pool, [leg("sleep", seconds=60), leg()], ["slow", "fast"])  # the solve task's judge by default
    slow, fast = out.legs
    assert slow.killed and slow.execution.kind == "crash" and "SIGKILL" in slow.execution.error
    assert gone(slow.execution.pid)  # the loser's worker process is gone, not left running
    assert pool.execute(leg()).pid == fast.execution.pid  # the winner's worker was given back warm


def test_two_legs_of_one_worker_key_run_in_two_processes_at_once(pool):
    # sat/placement and sat/cell share the pool's worker key "sat": the second leg gets a worker of its own
    requests = [RunRequest.of(tiny(), "fake", f, Question(), {"mode": "sleep", "seconds": 0.5},
                              Limits(20.0, None, 1.0)) for f in ("placement", "cell")]
    out = race(pool, requests, ["fake/placement", "fake/cell"])
    pids = {x.execution.pid for x in out.legs}
    assert out.winner is not None and len(pids) == 2
