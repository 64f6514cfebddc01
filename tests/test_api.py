"""The Python API (harness.api): each function on shipped instances, with known answers, and its errors.

Isolated runs share one warm pool per module (as a notebook's ``with api.WorkerPool()``);
runs in this process use no solver library (the fake backend, the brute counter, the random
strategy): no test imports one into the pytest process.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness import api
from harness.core.status import Status, Termination
import procs

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "instances" / "smoke" / "tiny_4x4.toml"  # 2 distinct boards
UNSAT = ROOT / "instances" / "smoke" / "unsat_hint_5x5.toml"
SOLBAT = ROOT / "instances" / "solbat" / "sb_12_12_5_0.toml"  # 51 distinct boards
STANDARD = ROOT / "instances" / "deployments" / "standard_10x10.toml"  # 30,093,975,536 deployments
T4X4 = ROOT / "instances" / "deployments" / "tiny" / "t4x4_3_2.toml"  # 264 deployments
POSITION = ROOT / "instances" / "deployments" / "tiny" / "t6x6_position.toml"  # has hints: no board to play on


@pytest.fixture(scope="module")
def pool():
    with api.WorkerPool(grace_s=5.0) as workers:
        yield workers


def _fake(*boards: tuple[str, ...]):
    return api.Instance(rows=3, cols=3, fleet={1: 2}, row_clues=(None,) * 3, col_clues=(None,) * 3, name="fake3",
                        meta={"fake_boards": [list(b) for b in boards]})


# --------------------------------------------------------------------------- the module itself
def test_importing_the_api_loads_no_solver_pandas_numpy_or_task():
    code = ("import sys; import harness.api; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy', 'numba', 'ortools', "
            "'pysat', 'pyomo', 'highspy', 'matplotlib') or m.startswith(('harness.tasks', 'harness.runner', "
            "'harness.backends', 'harness.report'))); assert not bad, bad; print('ok')")
    out = procs.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_every_name_of_all_resolves_and_an_unknown_one_is_an_attribute_error():
    for name in api.__all__:
        assert getattr(api, name) is not None, name
    assert api.SolveResult.__module__ == "harness.tasks.solve.run" and api.Deployment.__name__ == "Deployment"
    assert issubclass(api.UsageError, api.InputError) and issubclass(api.InputError, api.HarnessError)
    with pytest.raises(AttributeError, match="no_such_name"):
        api.no_such_name  # noqa: B018


# --------------------------------------------------------------------------- reading
def test_read_instance_reads_a_puzzle_or_a_deployment_by_its_content(tmp_path):
    from harness.puzzle.formats import format_instance

    puzzle = api.read_instance(TINY)
    assert isinstance(puzzle, api.Instance) and (puzzle.rows, puzzle.cols, puzzle.name) == (4, 4, "tiny_4x4")
    board = api.read_instance(str(STANDARD))
    assert isinstance(board, api.Deployment) and board.name == "standard_10x10"
    solbat = api.read_instance(SOLBAT)
    (tmp_path / "sb.dzn").write_text(format_instance(solbat, "dzn"))
    (tmp_path / "sb").write_text(format_instance(solbat, "dzn"))  # no extension: the format named
    for again in (api.read_instance(tmp_path / "sb.dzn"), api.read_instance(tmp_path / "sb", format="dzn")):
        assert isinstance(again, api.Instance) and again.content_hash() == solbat.content_hash()
    as_deployment = api.read_deployment(TINY)
    assert isinstance(as_deployment, api.Deployment) and as_deployment.name == "tiny_4x4"


def test_a_missing_or_malformed_file_is_an_input_error_naming_it(tmp_path):
    missing = tmp_path / "nope.toml"
    for call in (api.read_instance, api.read_deployment, api.solve, api.count, api.play):
        with pytest.raises(api.InputError, match=f"^{missing}: cannot read"):
            call(missing)
    bad = tmp_path / "bad.toml"
    bad.write_text("[size]\nrows = 4\n")
    with pytest.raises(api.InstanceFormatError, match=f"^{bad}"):
        api.read_instance(bad)
    with pytest.raises(api.UsageError, match="unknown instance format 'xml'"):
        api.read_instance(TINY, format="xml")


# --------------------------------------------------------------------------- solve
def test_solve_counts_the_51_boards_of_a_shipped_puzzle_in_a_worker(pool):
    res = api.solve(SOLBAT, "sat", count=0, time_limit_s=120, pool=pool)
    assert isinstance(res, api.SolveResult)
    assert (res.status, res.count, res.complete, res.task) == (Status.SAT, 51, True, "count-0")
    assert len({b.cells for b in res.boards}) == 51 and all(v.startswith("ok") for v in res.verdicts)
    assert res.times["wall_s"] > 0  # measured around the worker, as a campaign's run is


def test_solve_asks_the_question_it_is_given(pool):
    one = api.solve(TINY, "sat", "cell", time_limit_s=60, pool=pool)
    assert (one.status, one.count, one.task) == (Status.SAT, 1, "solve")
    both = api.solve(api.read_instance(TINY), "sat", "cell", count=2, time_limit_s=60, pool=pool)
    assert (both.status, both.count, both.complete) == (Status.SAT, 2, False)  # not unique: two found, no more sought
    every = api.solve(TINY, "sat", "cell", count=0, time_limit_s=60, pool=pool)
    assert (every.count, every.complete) == (2, True)
    none = api.solve(UNSAT, "sat", "placement", count=2, options={"solver": "glucose4"}, pool=pool)
    assert none.status is Status.UNSAT and none.options["solver"] == "glucose4"


def test_solve_in_its_own_worker_and_in_process():
    own = api.solve(_fake(("O.O", "...", "...")), "fake", time_limit_s=30)  # no pool: one of its own
    here = api.solve(_fake(("O.O", "...", "...")), "fake", isolated=False)
    assert own.status is here.status is Status.SAT and own.boards == here.boards
    assert "wall_s" in own.times and "wall_s" not in here.times  # only a worker's run is measured from outside
    wrong = api.solve(_fake(("OO.", "...", "...")), "fake", isolated=False)  # ships touch: the verifier says no
    assert wrong.status is Status.WRONG


def test_the_limits_reach_the_worker(pool):
    slept = api.solve(_fake(("O.O", "...", "...")), "fake", options={"mode": "sleep", "seconds": 60},
                      time_limit_s=1, pool=pool)
    assert (slept.status, slept.termination) == (Status.TIMEOUT, Termination.TIMEOUT)
    hog = api.solve(_fake(("O.O", "...", "...")), "fake", options={"mode": "hog", "megabytes": 2048},
                    memory_mb=512, time_limit_s=60, pool=pool)
    assert hog.status is Status.MEMOUT


def test_bad_solve_arguments_are_usage_errors_before_any_work():
    puzzle = api.read_instance(TINY)
    cases = [
        (dict(backend="nope"), "unknown backend 'nope'"),
        (dict(backend="sat", formulation="ship-pairs"), "backend 'sat' has no formulation 'ship-pairs'"),
        (dict(backend="sat", options={"bogus": 1}), "backend 'sat' has no option 'bogus'"),
        (dict(backend="sat", options={"solver": "minisat"}), "option 'solver' of backend 'sat' must be one of"),
        (dict(options=["solver"]), "options must be a dict"),
        (dict(count=-1), "count must be an integer >= 0"),
        (dict(count=True), "count must be an integer"),
        (dict(time_limit_s=0), "time_limit_s must be a number of seconds > 0"),
        (dict(time_limit_s="10"), "time_limit_s must be a number of seconds > 0, not '10'"),
        (dict(memory_mb=10), r"memory_mb must be at least 64 \(a Python worker needs that much\), not 10"),
        (dict(memory_mb=512, isolated=False), "memory_mb and pool are for isolated runs"),
        (dict(pool="workers"), "pool must be a harness.api.WorkerPool"),
        (dict(time_limt_s=10), r"solve\(\): got an unexpected keyword argument 'time_limt_s'"),
    ]
    for kwargs, message in cases:
        with pytest.raises(api.UsageError, match=message):
            api.solve(puzzle, **kwargs)
    with pytest.raises(api.UsageError, match="standard_10x10: a deployment instance is counted or played"):
        api.solve(api.read_instance(STANDARD))
    with pytest.raises(api.UsageError, match="solve takes an Instance or a path, not int"):
        api.solve(7)
    with pytest.raises(api.UsageError, match=r"solve\(\): missing a required argument"):
        api.solve()


# --------------------------------------------------------------------------- count
def test_count_gives_a_shipped_deployment_instances_known_count(pool):
    res = api.count(STANDARD, time_limit_s=120, pool=pool)
    assert isinstance(res, api.CountResult)
    assert (res.status, res.count, res.complete) == (Status.SAT, 30_093_975_536, True)
    assert (res.expected, res.verdict) == (30_093_975_536, "ok")


def test_count_in_a_worker_and_in_process_agree(pool):
    isolated = api.count(T4X4, "brute", time_limit_s=60, pool=pool)
    here = api.count(api.read_deployment(T4X4), "brute", isolated=False)
    assert isolated.count == here.count == 264 and here.verdict == isolated.verdict == "ok"
    assert here.times["wall_s"] > 0 and here.times["cpu_s"] is None


def test_count_with_marginals_gives_them_in_the_same_run(pool):
    res = api.count(T4X4, marginals=True, time_limit_s=120, pool=pool)
    assert res.count == res.marginals.total == 264
    assert sum(res.marginals.occupied.values()) == 264 * (3 + 2)  # every deployment covers its 5 ship cells
    assert res.times["marginals_s"] is not None


def test_a_puzzle_is_counted_as_its_deployment_and_by_boards_it_agrees_with_solve(pool):
    boards = api.count(api.read_instance(TINY), "brute", by="boards", isolated=False)
    assert (boards.by, boards.count, boards.complete) == ("boards", 2, True)  # solve --count 0 finds 2


def test_bad_count_arguments_are_usage_errors():
    cases = [
        (dict(counter="nope"), "unknown counter 'nope'"),
        (dict(by="cells"), "by must be one of deployments, boards, not 'cells'"),
        (dict(counter="dp", options={"x": 1}), "counter dp has no option 'x'"),
        (dict(counter="dp", options={"split": "many"}), "option 'split'"),
        (dict(time_limit_s=-5), "time_limit_s must be a number of seconds > 0"),
    ]
    for kwargs, message in cases:
        with pytest.raises(api.UsageError, match=message):
            api.count(T4X4, **kwargs)
    with pytest.raises(api.UsageError, match="count takes a Deployment, an Instance or a path, not dict"):
        api.count({"rows": 4})


# --------------------------------------------------------------------------- play
def test_play_one_game_in_a_worker_and_in_process_replayed_alike(pool):
    board = api.read_deployment(STANDARD)
    game = api.play(board, "random", seed=7, game=2, time_limit_s=60, pool=pool)
    assert isinstance(game, api.PlayResult)
    assert (game.status, game.finished, game.verdict) == (Status.SAT, True, "ok")
    assert game.shots == len(game.sequence) and sum(hit for *_, hit in game.sequence) == 17
    here = api.play(STANDARD, "random", seed=7, game=2, isolated=False)
    assert here.sequence == game.sequence and here.hidden == game.hidden  # game 2 of seed 7, wherever it is played
    other = api.play(STANDARD, "random", seed=7, game=3, isolated=False)
    assert other.hidden != game.hidden


def test_bad_play_arguments_are_errors_of_the_tree():
    with pytest.raises(api.InputError, match=f"^{POSITION}: a board to play on has no hints or clues"):
        api.play(POSITION)
    cases = [
        (dict(strategy="nope"), "unknown strategy 'nope'"),
        (dict(rule="loud"), "rule must be one of"),
        (dict(strategy="random", options={"block": 2}), "has no option 'block'"),
        (dict(seed=-1), "seed must be an integer >= 0"),
        (dict(game=1.5), "game must be an integer"),
        (dict(time_limit_s=5, isolated=False), "an in-process game has no time limit"),
    ]
    for kwargs, message in cases:
        with pytest.raises(api.UsageError, match=message):
            api.play(STANDARD, **kwargs)


# --------------------------------------------------------------------------- campaigns, results, reports
def _config(tmp: Path) -> dict:
    return {"name": "api-test", "instances": [str(TINY), str(UNSAT)], "task": "count-2",
            "limits": {"time_s": 30, "memory_mb": 2048},
            "pairs": [{"backend": "sat", "formulation": "placement"}, {"backend": "sat", "formulation": "cell"}],
            "output": str(tmp / "results")}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("campaign")
    return tmp, api.run_campaign(_config(tmp))


def test_a_campaign_from_a_dict_runs_into_its_store_and_resumes(campaign):
    tmp, outcome = campaign
    assert isinstance(outcome, api.CampaignOutcome)
    assert (outcome.total, outcome.executed, outcome.statuses, outcome.exit_code) == (4, 4, {"sat": 2, "unsat": 2}, 0)
    assert "name = \"api-test\"" in (tmp / "results" / "config.toml").read_text()  # the dict's TOML, kept
    again = api.run_campaign(api.load_config(_config(tmp)))  # a Config: the same campaign, nothing left to run
    assert (again.executed, again.resumed) == (0, 4)


def test_a_campaign_from_a_file_with_relative_paths(tmp_path):
    (tmp_path / "my.toml").write_text(f'name = "file"\ninstances = ["{TINY}"]\ntask = "count-0"\n'
                                      'output = "out"\n[[pairs]]\nbackend = "sat"\nformulation = "cell"\n')
    outcome = api.run_campaign(tmp_path / "my.toml", output=tmp_path / "elsewhere", jobs=1)
    assert outcome.output == tmp_path / "elsewhere" and outcome.statuses == {"sat": 1}
    runs = api.load_results(tmp_path / "elsewhere")
    assert runs["count"].tolist() == [2] and runs["question"].tolist() == ["count-0"] and runs["task"].tolist() == ["solve"]


def test_the_results_come_back_as_a_typed_frame_with_the_expected_rows(campaign):
    tmp, _ = campaign
    runs = api.load_results(tmp / "results")
    assert len(runs) == 4 and "instance_key" in runs.columns
    got = sorted(zip(runs["instance"], runs["pair"], runs["status"], runs["count"].astype(int)))
    assert got == [("tiny_4x4", "sat/cell", "sat", 2), ("tiny_4x4", "sat/placement", "sat", 2),
                   ("unsat_hint_5x5", "sat/cell", "unsat", 0), ("unsat_hint_5x5", "sat/placement", "unsat", 0)]
    assert str(runs["wall_s"].dtype) == "float64" and str(runs["status"].dtype) == "string"


def test_the_report_is_written_where_asked(campaign, tmp_path):
    tmp, _ = campaign
    written = api.write_report(tmp / "results", tmp_path / "report")
    assert written["index.html"] == tmp_path / "report" / "index.html" and written["index.html"].is_file()
    assert "sat/placement" in (tmp_path / "report" / "summary.md").read_text()
    with pytest.raises(api.UsageError, match="shift_s must be a number >= 0"):
        api.write_report(tmp / "results", tmp_path / "r2", shift_s=-1)


def test_config_and_store_problems_are_errors_of_the_tree(tmp_path):
    with pytest.raises(api.ConfigError, match=r"^<dict>: name: "):
        api.load_config({"instances": [str(TINY)], "pairs": [{"backend": "sat"}]})
    with pytest.raises(api.ConfigError, match=r"^<dict>: pairs\[0\]: unknown backend 'nope'"):
        api.run_campaign({**_config(tmp_path), "pairs": [{"backend": "nope", "formulation": "cell"}]})
    with pytest.raises(api.ConfigError, match=r"<dict>: not TOML data"):
        api.load_config({**_config(tmp_path), "instances": [TINY]})  # a Path object is no TOML value
    with pytest.raises(api.ConfigError, match=f"^{tmp_path / 'none.toml'}: cannot read"):
        api.run_campaign(tmp_path / "none.toml")
    with pytest.raises(api.UsageError, match="config must be a path, a dict or a Config, not list"):
        api.load_config([("name", "x")])
    with pytest.raises(api.UsageError, match="jobs must be an integer >= 1"):
        api.run_campaign(_config(tmp_path), jobs=0)
    with pytest.raises(api.InputError, match=f"{tmp_path / 'nothing'}: no such results directory"):
        api.load_results(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(api.InputError, match="empty"):
        api.load_results(tmp_path / "empty")


def test_an_unforeseen_exception_becomes_a_harness_error_with_its_cause(monkeypatch, tmp_path):
    import harness.report.data

    def broken(results):
        raise RuntimeError("a bug")

    monkeypatch.setattr(harness.report.data, "load", broken)
    with pytest.raises(api.HarnessError, match=r"load_results\(\): RuntimeError: a bug") as info:
        api.load_results(tmp_path)
    assert not isinstance(info.value, api.InputError) and isinstance(info.value.__cause__, RuntimeError)

    def denied(results):
        raise PermissionError(13, "Permission denied", str(tmp_path / "results.sqlite"))

    monkeypatch.setattr(harness.report.data, "load", denied)
    with pytest.raises(api.InputError, match=f"^{tmp_path / 'results.sqlite'}: Permission denied$"):
        api.load_results(tmp_path)
