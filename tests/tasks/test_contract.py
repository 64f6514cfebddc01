"""A new task is one module plus its registration: the toy task of tests/toytask.py, found by its entry point,
runs a real campaign through ``run``, ``check`` and ``report`` -- with no line of battlebench changed for it."""

from __future__ import annotations

import os
import sqlite3
import textwrap
from pathlib import Path

import pytest

from clirun import ROOT, run
from harness.core.task import TASKS, task_for_kind, task_for_label

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture
def registered(tmp_path, monkeypatch):
    """An installed distribution declaring the toy task in the group battlebench.tasks (and the workers see it)."""
    dist = tmp_path / "site" / "bb_toytask-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: bb-toytask\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[battlebench.tasks]\nsquare = toytask:SquareTask\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path / "site"), str(TESTS), str(ROOT)]))
    TASKS.plugin_origins.cache_clear()
    yield tmp_path
    TASKS.plugin_origins.cache_clear()


def _campaign(tmp_path: Path, methods: list[str], numbers: dict[str, str], limit: float = 20) -> Path:
    for name, text in numbers.items():
        (tmp_path / "numbers").mkdir(exist_ok=True)
        (tmp_path / "numbers" / f"{name}.txt").write_text(text)
    cfg = tmp_path / "square.toml"
    pairs = "".join(f'\n[[pairs]]\nmethod = "{m}"\n' for m in methods)
    cfg.write_text(textwrap.dedent(f"""\
        name = "square"
        instances = ["numbers/*.txt"]
        task = "square"
        output = "out"
        [limits]
        time_s = {limit}
        grace_s = 1
        """) + pairs)
    return cfg


def test_the_registry_finds_the_toy_task_by_its_entry_point(registered):
    assert TASKS.origin_of("square").source == "entry point (bb-toytask 1.0)"
    assert task_for_kind("square").__name__ == "SquareTask" and task_for_label("square").name == "square"
    assert task_for_kind("solve").name == "solve" and task_for_label("count-2").name == "solve"
    assert task_for_label("deployments").name == "count" and task_for_label("play").name == "play"


def test_a_toy_task_campaign_runs_checks_and_reports(capsys, registered):
    cfg = _campaign(registered, ["mul", "add"], {"three": "3", "seven": "7", "bad": "x7"})
    code, out, err = run(capsys, "run", cfg, "--progress", "plain")
    assert code == 3, err  # the unreadable number is an error run; the campaign went on
    with sqlite3.connect(registered / "out" / "results.sqlite") as db:
        rows = db.execute("select instance, pair, status, count, task, worker_pid from runs order by instance, "
                          "pair").fetchall()
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [
        ("bad", "add/square", "error", 0, "square"), ("bad", "mul/square", "error", 0, "square"),
        ("seven", "add/square", "sat", 49, "square"), ("seven", "mul/square", "sat", 49, "square"),
        ("three", "add/square", "sat", 9, "square"), ("three", "mul/square", "sat", 9, "square")]
    assert all(r[5] and r[5] != os.getpid() for r in rows if r[2] == "sat")  # executed in workers
    code, out, _ = run(capsys, "check", registered / "out", "--allow-errors")
    assert code == 0 and "6 squares agree" in out and "bad.txt:1: not a whole number" in out, out
    code, _, err = run(capsys, "report", registered / "out")
    assert code == 0, err
    report = registered / "out" / "report"
    assert "## Squares" in (report / "summary.md").read_text()
    assert 'id="squares"' in (report / "index.html").read_text() and (report / "squares.csv").is_file()


def test_the_gate_fails_on_a_toy_method_that_lies(capsys, registered):
    cfg = _campaign(registered, ["mul", "liar"], {"three": "3", "two": "2"})
    code, _, _ = run(capsys, "run", cfg, "--progress", "plain")
    assert code == 1  # the liar's 10 for 3 is wrong
    code, out, _ = run(capsys, "check", registered / "out")
    assert code == 1 and "square-mismatch" in out and "[9, 10]" in out, out


def test_a_toy_run_past_its_limit_is_a_timeout_and_the_campaign_goes_on(capsys, registered):
    cfg = _campaign(registered, ["sleep", "mul"], {"three": "3"}, limit=1)
    code, _, _ = run(capsys, "run", cfg, "--progress", "plain")
    with sqlite3.connect(registered / "out" / "results.sqlite") as db:
        rows = dict(db.execute("select pair, status from runs").fetchall())
    assert rows == {"sleep/square": "timeout", "mul/square": "sat"}


def test_an_unknown_task_or_pair_key_fails_before_any_run(capsys, registered):
    cfg = _campaign(registered, ["mul"], {"three": "3"})
    cfg.write_text(cfg.read_text().replace('task = "square"', 'task = "cube"'))
    code, _, err = run(capsys, "run", cfg)
    assert code == 2 and "task: must be 'solve'" in err and "'square'" in err and "not 'cube'" in err
    cfg.write_text(cfg.read_text().replace('task = "cube"', 'task = "square"').replace('method = "mul"',
                                                                                     'backend = "mul"'))
    code, _, err = run(capsys, "run", cfg)
    assert code == 2 and "pairs[0].backend: unknown key (known: method)" in err
    assert not (registered / "out" / "results.sqlite").exists()


def test_a_task_named_as_module_class_runs_without_registration(capsys, tmp_path, monkeypatch):
    """No entry point: the config names the class; the runs record the task's own label; the report, which
    finds sections through the registry, shows the common tables and says it does not know the task."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), str(ROOT)]))
    cfg = _campaign(tmp_path, ["mul"], {"three": "3"})
    cfg.write_text(cfg.read_text().replace('task = "square"', 'task = "toytask:SquareTask"'))
    code, _, err = run(capsys, "run", cfg, "--progress", "plain")
    assert code == 0, err
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        assert db.execute("select task, status, count from runs").fetchall() == [("square", "sat", 9)]
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0 and "runs of task 'square': no installed task owns them" in out, out
    assert run(capsys, "report", tmp_path / "out")[0] == 0
