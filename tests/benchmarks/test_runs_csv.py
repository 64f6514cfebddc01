"""benchmarks/runs_csv.py: a benchmark's runs.csv is resumed, checked, and never overwritten."""

from __future__ import annotations

import csv

import pytest

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from runs_csv import RunsFile, earlier_runs, resumed  # noqa: E402 - benchmarks/ is scripts, not a package

FIELDS = ["instance", "variant", "wall_s", "cpu_s"]


def _write(path, text):
    path.write_text(text)
    return path


def test_no_file_yet_is_no_runs(tmp_path):
    assert earlier_runs(tmp_path / "runs.csv", FIELDS, "bench", resume=False) == []
    assert earlier_runs(tmp_path / "runs.csv", FIELDS, "bench", resume=True) == []


def test_an_existing_file_without_resume_is_refused_and_kept(tmp_path):
    path = _write(tmp_path / "runs.csv", "instance,variant,wall_s,cpu_s\na,lf,1,1\n")
    with pytest.raises(SystemExit, match=r"^bench: .*runs.csv exists: --resume goes on from it"):
        earlier_runs(path, FIELDS, "bench", resume=False)
    assert path.read_text() == "instance,variant,wall_s,cpu_s\na,lf,1,1\n"


def test_rows_come_back_with_their_times_as_numbers(tmp_path):
    path = _write(tmp_path / "runs.csv", "instance,variant,wall_s,cpu_s\na,lf,1.5,1.25\nb,lf,150,\n")
    rows = earlier_runs(path, FIELDS, "bench", resume=True)
    assert rows == [{"instance": "a", "variant": "lf", "wall_s": 1.5, "cpu_s": 1.25},
                    {"instance": "b", "variant": "lf", "wall_s": 150.0, "cpu_s": ""}]


@pytest.mark.parametrize("text, problem", [
    ("", "line 1: not this script's header"),
    ("instance,variant\na,lf\n", "line 1: not this script's header"),
    ("instance,variant,wall_s,cpu_s\na,lf,1,1\na,runs,fast,1\n", "line 3: wall_s/cpu_s are not numbers"),
    ("instance,variant,wall_s,cpu_s\na,lf,1,1\n\na,runs,fast,1\n", "line 4: wall_s/cpu_s are not numbers"),
    ("instance,variant,wall_s,cpu_s\na,lf,1\n", "line 2: fewer fields than the header"),  # a cut-off line
    ("instance,variant,wall_s,cpu_s\na,lf,1,1,extra\n", "line 2: more fields than the header"),
    ("instance,variant,wall_s,cpu_s\na,??,1,1\n", "line 2: unknown variant '\\?\\?'"),
    ('instance,variant,wall_s,cpu_s\na,"lf\n2",1,1\nb,??,1,1\n', "line 4: unknown variant"),
])
def test_a_file_that_is_not_the_scripts_is_a_one_line_error_naming_file_and_line(tmp_path, text, problem):
    path = _write(tmp_path / "runs.csv", text)

    def check(row):
        return f"unknown variant {row['variant']!r}" if row["variant"] == "??" else None
    with pytest.raises(SystemExit, match=problem) as err:
        earlier_runs(path, FIELDS, "bench", resume=True, check=check)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    assert path.read_text() == text


def test_a_file_that_is_not_text_is_a_one_line_error(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_bytes(b"instance,variant,wall_s,cpu_s\n\xff\xfe,lf,1,1\n")
    with pytest.raises(SystemExit, match=r"runs.csv: not a CSV file this script can read") as err:
        earlier_runs(path, FIELDS, "bench", resume=True)
    assert "\n" not in str(err.value)


def test_a_resumed_group_lacking_something_runs_again_and_keeps_what_it_does_not_run():
    rows = [{"instance": "a", "variant": "lf"}, {"instance": "a", "variant": "runs"},
            {"instance": "b", "variant": "lf"}, {"instance": "b", "variant": "clause"}, {"instance": "z", "variant": "lf"}]
    kept, again = resumed(rows, "instance", {"a": {"lf", "runs"}, "b": {"lf", "runs"}, "c": {"lf"}}, "variant")
    assert again == {"b", "c"}
    # b runs lf and runs again; its clause row (not asked for now) and every row of a and z stay
    assert kept == [rows[0], rows[1], rows[3], rows[4]]
    assert resumed(rows, "instance", {"a": set()}, "variant") == (rows, set())


def test_the_file_holds_the_kept_rows_then_each_new_row_as_it_comes(tmp_path):
    path = _write(tmp_path / "runs.csv", "instance,variant,wall_s,cpu_s\nold,lf,9,9\ncut,lf,1,1\n")
    kept = [r for r in earlier_runs(path, FIELDS, "bench", resume=True) if r["instance"] != "cut"]
    with RunsFile(path, FIELDS, kept) as runs:
        runs.add([{"instance": "new", "variant": "lf", "wall_s": 2.0, "cpu_s": 1.0}])
        with open(path) as fh:  # flushed: readable while the script goes on
            assert [r["instance"] for r in csv.DictReader(fh)] == ["old", "new"]
    assert not (tmp_path / "runs.csv.new").exists()
