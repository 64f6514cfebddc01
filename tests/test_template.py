"""examples/backend-template: installed for real, found by its entry point, qualified, compared in a report.

The README's three commands, run as a user would (the package is installed with pip into
a folder on PYTHONPATH instead of the venv, so the test leaves the environment as it was).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BATTLEBENCH = [sys.executable, "-m", "harness.cli"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("byo")
    shutil.copytree(ROOT / "examples" / "backend-template", tmp / "mysolver",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "results"))
    (tmp / "instances").symlink_to(ROOT / "instances")  # the checkout's suites, above the copy
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp / "site"),
                          str(tmp / "mysolver")], capture_output=True, text=True)
    if pip.returncode != 0:
        pytest.fail(f"pip could not install the template: {pip.stderr[-2000:]}")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp / "site"), str(ROOT)]))
    return tmp, env


def _bb(env, *argv, cwd=None):
    return subprocess.run([*BATTLEBENCH, *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd or ROOT)


def test_the_entry_point_makes_template_a_backend_name(installed):
    _, env = installed
    out = _bb(env, "backends", "--no-versions")
    assert out.returncode == 0 and "template  [entry point (battlebench-template 0.1.0)]  available" in out.stdout


def test_the_template_conforms(installed):
    _, env = installed
    out = _bb(env, "conform", "template")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 of 6 checks passed" in out.stdout


def test_the_template_runs_beside_cpsat_into_a_report(installed):
    tmp, env = installed
    run = _bb(env, "run", tmp / "mysolver" / "campaign.toml", "--progress", "plain")
    assert run.returncode == 0, run.stdout + run.stderr
    results = tmp / "mysolver" / "results" / "template-vs-cpsat"
    report = _bb(env, "report", results)
    assert report.returncode == 0, report.stderr
    text = (results / "report" / "summary.md").read_text()
    assert "template/placement" in text and "cpsat/placement" in text
    assert _bb(env, "check", results).returncode == 0
