"""The CI gate (docs/tutorials/ci-gate.md) is a gate that can fail: run configs/ci.toml, check it against reports/ci-baseline.

Finding 17 of issue 32: the recipe used to set the noise floor above every baseline run, so no
slowdown could ever be flagged, yet it printed "regression: none".  Now a check that could time
nothing fails and says so, and the recipe's own campaign, deliberately slowed, fails it.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ("--baseline", str(ROOT / "reports" / "ci-baseline"), "--ratio", "3", "--floor", "0.2")


def _bb(*argv):
    return subprocess.run([sys.executable, "-m", "harness.cli", *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT)


@pytest.fixture(scope="module")
def ci_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ci") / "ci"
    ran = _bb("run", ROOT / "configs" / "ci.toml", "--out", out, "--progress", "plain")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return out


def test_the_recipe_passes_on_the_campaign_as_it_is(ci_run):
    checked = _bb("check", ci_run, *RECIPE)
    assert checked.returncode == 0, checked.stdout
    assert "regression: 6 of the baseline's 6 instance × pairs compared" in checked.stdout
    assert "regression: 6 of them timed" in checked.stdout


def test_the_recipe_fails_on_a_deliberately_slowed_backend(ci_run, tmp_path):
    slowed = tmp_path / "slowed"
    shutil.copytree(ci_run, slowed)
    with sqlite3.connect(slowed / "results.sqlite") as db:  # cpsat five times slower in every run
        assert db.execute("update runs set cpu_s = cpu_s * 5, wall_s = wall_s * 5 "
                          "where pair = 'cpsat/placement'").rowcount == 9
    checked = _bb("check", slowed, *RECIPE)
    assert checked.returncode == 1, checked.stdout
    assert checked.stdout.count("slowdown") == 3 and "cpsat/placement" in checked.stdout
    assert "check: FAILED: 3 regressions" in checked.stdout


def test_a_check_that_could_time_nothing_fails_and_says_so(ci_run):
    """The old recipe's floor (0.5 s) over the old smoke baseline (no run above 0.04 s): nothing to time."""
    smoke = _bb("check", ROOT / "reports" / "smoke-baseline", "--baseline", ROOT / "reports" / "smoke-baseline",
                "--ratio", "3", "--floor", "0.5")
    assert smoke.returncode == 1
    assert "no match has a cpu time at or above the floor of 0.5 s: no slowdown could be judged" in smoke.stdout
    assert "no time compared with the baseline" in smoke.stdout


def test_compare_shows_the_slowed_backend_match_by_match(ci_run, tmp_path):
    """The tutorial's `battlebench compare` of the slowed copy: cpsat's 3 matches slower, sat's the same; exit 0."""
    import pandas as pd

    slowed = tmp_path / "slowed"
    shutil.copytree(ci_run, slowed)
    with sqlite3.connect(slowed / "results.sqlite") as db:
        db.execute("update runs set cpu_s = cpu_s * 5, wall_s = wall_s * 5 where pair = 'cpsat/placement'")
    compared = _bb("compare", slowed, *RECIPE[1:], "--out", tmp_path / "cmp")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    rows = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    changes = dict(zip(zip(rows["pair"], rows["instance"]), rows["change"]))
    assert sorted(changes.values()) == ["same"] * 3 + ["slower"] * 3, changes
    assert all(c == "slower" for (pair, _), c in changes.items() if pair == "cpsat/placement")
