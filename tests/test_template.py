"""examples/*-template: each installed for real, found by its entry point, qualified, compared in a report.

Every plugin family has one: a backend, a counter, a strategy.  Each README's commands,
run as a user would (the package is installed with pip into a folder on PYTHONPATH instead
of the venv, so the test leaves the environment as it was).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BATTLEBENCH = [sys.executable, "-m", "harness.cli"]


@dataclass(frozen=True)
class Template:
    folder: str
    distribution: str
    head: str  # the line of `battlebench backends` that lists its family
    conform: tuple[str, ...]
    checks: int
    results: str
    labels: tuple[str, ...]


TEMPLATES = [
    Template("backend-template", "battlebench-template", "backends (", ("template",), 6,
             "results/template-vs-cpsat", ("template/placement", "cpsat/placement")),
    Template("counter-template", "battlebench-counter-template", "counters (", ("--counter", "template"), 3,
             "results/template-vs-dp", ("template/deployments", "dp/deployments")),
    Template("strategy-template", "battlebench-strategy-template", "strategies (", ("--strategy", "template"), 4,
             "results/template-vs-density", ("template[stride=2]/ship", "density/ship")),
]


@pytest.fixture(scope="module", params=TEMPLATES, ids=[t.folder for t in TEMPLATES])
def installed(request, tmp_path_factory):
    template: Template = request.param
    tmp = tmp_path_factory.mktemp(template.folder)
    (tmp / "examples").mkdir()
    shutil.copytree(ROOT / "examples" / template.folder, tmp / "examples" / "mine",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "results"))
    (tmp / "instances").symlink_to(ROOT / "instances")  # the checkout's suites, above the copy
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp / "site"),
                          str(tmp / "examples" / "mine")], capture_output=True, text=True)
    if pip.returncode != 0:
        pytest.fail(f"pip could not install the template: {pip.stderr[-2000:]}")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp / "site"), str(ROOT)]))
    return template, tmp / "examples" / "mine", env


def _bb(env, *argv, cwd=None):
    return subprocess.run([*BATTLEBENCH, *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd or ROOT)


def test_the_entry_point_makes_template_a_name_of_its_family(installed):
    template, _, env = installed
    out = _bb(env, "backends", "--no-versions")
    assert out.returncode == 0
    family = out.stdout.split(template.head, 1)[1].split("\n  (or any class", 1)[0]
    assert f"template  [entry point ({template.distribution} 0.1.0)]  available" in family


def test_the_template_conforms(installed):
    template, _, env = installed
    out = _bb(env, "conform", *template.conform)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{template.checks} of {template.checks} checks passed" in out.stdout


def test_the_template_runs_beside_a_built_in_into_a_report(installed):
    template, folder, env = installed
    run = _bb(env, "run", folder / "campaign.toml", "--progress", "plain")
    assert run.returncode == 0, run.stdout + run.stderr
    results = folder / template.results
    report = _bb(env, "report", results)
    assert report.returncode == 0, report.stderr
    text = (results / "report" / "summary.md").read_text()
    assert all(label in text for label in template.labels), text
    check = _bb(env, "check", results)
    assert check.returncode == 0, check.stdout
