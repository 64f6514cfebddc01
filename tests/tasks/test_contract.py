"""A new task is one module plus its registration: the toy task of tests/toytask.py, found by its entry point,
runs a real campaign through ``run``, ``check`` and ``report`` -- with no line of battlebench changed for it."""

from __future__ import annotations

import os
import sqlite3
import textwrap
from pathlib import Path

import pytest

import pandas as pd

from clirun import ROOT, run
from harness.core.columns import builtin_tasks, records_markdown
from harness.core.task import TASKS, task_for_kind, task_for_label
from harness.store import ResultsStore

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
        rows = db.execute("select instance, pair, status, count, task, question, digits, worker_pid from runs "
                          "order by instance, pair").fetchall()
    assert [r[:7] for r in rows] == [
        ("bad", "add/square", "error", 0, "square", "square", None),
        ("bad", "mul/square", "error", 0, "square", "square", None),
        ("seven", "add/square", "sat", 49, "square", "square", 2), ("seven", "mul/square", "sat", 49, "square",
                                                                    "square", 2),
        ("three", "add/square", "sat", 9, "square", "square", 1), ("three", "mul/square", "sat", 9, "square",
                                                                   "square", 1)]
    assert all(r[7] and r[7] != os.getpid() for r in rows if r[2] == "sat")  # executed in workers
    code, out, _ = run(capsys, "check", registered / "out", "--allow-errors")
    assert code == 0 and "6 squares agree" in out and "bad.txt:1: not a whole number" in out, out
    code, _, err = run(capsys, "report", registered / "out")
    assert code == 0, err
    report = registered / "out" / "report"
    assert "## Squares" in (report / "summary.md").read_text()
    assert 'id="squares"' in (report / "index.html").read_text() and (report / "squares.csv").is_file()
    squares = pd.read_csv(report / "squares.csv")  # the task's own column, read back from the store by its section
    assert sorted(zip(squares["instance"], squares["digits"].fillna(0).astype(int))) == [
        ("bad", 0), ("bad", 0), ("seven", 2), ("seven", 2), ("three", 1), ("three", 1)]


def test_the_toy_tasks_own_column_is_stored_read_back_and_resumed(capsys, registered):
    cfg = _campaign(registered, ["mul"], {"three": "3", "twelve": "12"})
    assert run(capsys, "run", cfg, "--progress", "plain")[0] == 0
    with ResultsStore(registered / "out", create=False) as store:
        assert store.extra == {"digits": "INTEGER"}
        assert sorted((r["instance"], r["question"], r["digits"]) for r in store.records()) == [
            ("three", "square", 1), ("twelve", "square", 3)]
        df = store.dataframe()
        assert list(df.columns)[-1] == "digits" and str(df["digits"].dtype) == "Int64"
    (registered / "numbers" / "ten.txt").write_text("10")  # resumed: the column is there, the new run fills it
    code, _, err = run(capsys, "run", cfg, "--progress", "plain")
    assert code == 0 and "2 already stored" in err, err
    with ResultsStore(registered / "out", create=False) as store:
        assert sorted((r["instance"], r["digits"]) for r in store.records()) == [
            ("ten", 3), ("three", 1), ("twelve", 3)]


def test_the_records_page_shows_a_registered_plugin_tasks_columns(registered):
    page = records_markdown()
    lines = page.splitlines()
    assert lines[0] == "| column | type | solve | count | play | value | square |"
    row = {line.split(" | ")[0].strip("| `"): line for line in lines[2:]}
    assert row["task"].endswith("| solve | count | play | value | square |")
    assert row["question"].endswith("| play | value | square |")  # its declared meaning, in its own cell
    assert row["backend"].endswith("| the method |") and row["count"].endswith("| the square |")
    assert row["shots"].endswith("| shots fired |")  # not declared: the shared meaning
    assert row["digits"] == ("| `digits` | INTEGER | null | null | null | null | "
                             "decimal digits of the square (null: no square) |")
    assert "square" not in records_markdown(builtin_tasks()).splitlines()[0]  # the docs page: built-ins only


def test_a_task_declaring_bad_columns_breaks_the_contract():
    from toytask import SquareTask

    bad = type("Bad", (SquareTask,), {"columns": {"colour": "red"},
                                      "extra_columns": {"status": ("TEXT", "x"), "Big": ("TEXT", "x"),
                                                        "blob": ("BLOB", "x")}})
    problems = TASKS.contract_problems(bad)
    assert "columns names 'colour', not a record column" in problems
    assert "extra column 'status' is a shared record column" in problems
    assert "extra column 'Big' is not a lower-case identifier" in problems
    assert any(p.startswith("extra column 'blob' must be (one of TEXT, INTEGER, REAL") for p in problems)
    assert TASKS.contract_problems(SquareTask) == []


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
