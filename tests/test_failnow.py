"""tests/failnow.py: with -q, under xdist too, a failing test and an erroring fixture are named the moment their report
arrives (before pytest's own sections at the end), and the -ra summary of pyproject's addopts still follows."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import procs

TESTS = Path(__file__).resolve().parent
DUMMY = '''
import pytest

def test_passes():
    pass

def test_fails():
    assert 1 == 2, "one is not two"

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

def test_with_a_broken_fixture(broken):
    pass
'''


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_failures_are_named_as_they_happen(tmp_path, workers):
    (tmp_path / "test_dummy.py").write_text(DUMMY)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    done = procs.run([sys.executable, "-m", "pytest", "-q", "-ra", "-p", "failnow", "-p", "no:cacheprovider",
                      *workers, "test_dummy.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    now = out.index("FAILED test_dummy.py::test_fails - AssertionError: one is not two")
    error = out.index("ERROR at setup of test_dummy.py::test_with_a_broken_fixture - RuntimeError: fixture broke")
    sections = min(out.index("= ERRORS ="), out.index("= FAILURES ="))
    assert max(now, error) < sections, out  # named before pytest's own report at the end
    summary = out.index("short test summary info")
    assert "FAILED test_dummy.py::test_fails" in out[summary:] and "ERROR test_dummy.py::" in out[summary:]


def test_verbose_runs_are_not_named_twice(tmp_path):
    (tmp_path / "test_dummy.py").write_text(DUMMY)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    done = procs.run([sys.executable, "-m", "pytest", "-v", "-p", "failnow", "-p", "no:cacheprovider", "test_dummy.py"],
                     cwd=tmp_path, env=env, capture_output=True, text=True)
    assert "ERROR at setup of test_dummy.py" not in done.stdout and " - AssertionError: one is not two" not in \
        done.stdout.split("short test summary info")[0], done.stdout


def test_a_childs_traceback_is_named_by_its_last_line(tmp_path):
    (tmp_path / "test_child.py").write_text(
        "import subprocess, sys\n\n"
        "def test_child_fails():\n"
        "    done = subprocess.run([sys.executable, '-c', 'import nowhere_to_be_found'], capture_output=True, "
        "text=True)\n"
        "    assert done.returncode == 0, done.stderr\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    done = procs.run([sys.executable, "-m", "pytest", "-q", "-p", "failnow", "-p", "no:cacheprovider", "test_child.py"],
                     cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ("FAILED test_child.py::test_child_fails - ModuleNotFoundError: No module named 'nowhere_to_be_found'"
            in done.stdout), done.stdout
