"""``play --optimal``: text and ``--json`` say the same of a late answer, and the command states where its time went
(issue 49, finding 8)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from clirun import ROOT, run
from harness.runner import process
from latevalue import LatePool, exact_late, stopped_late

BOARDS = ROOT / "instances" / "optimal"


@pytest.fixture
def late_pool(monkeypatch):
    """``play --optimal`` with a pool whose runs answer late (the task's own tests' fake)."""
    def use(outcome):
        class Pool(LatePool):
            def __init__(self, *args, **kwargs):
                super().__init__(outcome)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return None

        monkeypatch.setattr(process, "WorkerPool", Pool)

    return use


def _both(capsys):
    code, text, _ = run(capsys, "play", "--optimal", BOARDS / "r3x3_s2_s1.toml", "-t", "3")
    jcode, out, _ = run(capsys, "play", "--optimal", BOARDS / "r3x3_s2_s1.toml", "-t", "3", "--json")
    return code, text.splitlines(), jcode, json.loads(out.splitlines()[0])


def test_text_and_json_agree_on_a_late_bound(capsys, late_pool):
    late_pool(stopped_late())
    code, text, jcode, got = _both(capsys)
    assert code == jcode == 1 and got["status"] == "timeout" and got["lower"] == "20/3"
    assert "proved at least 6.6667 shots" in text[0] and "after 3.40 s, past the 3 s limit" in text[0], text
    assert got["late"]["after_s"] == 3.4


def test_text_and_json_agree_on_a_late_exact_value(capsys, late_pool):
    late_pool(exact_late())
    code, text, jcode, got = _both(capsys)
    assert code == jcode == 1 and got["lower"] == got["upper"] == "269/42" and got["expected"] is None
    assert "exactly 6.4048 shots (269/42), kept as a bound" in text[0], text
    assert text[-1].startswith("time: start-up") and "judging" in text[-1]


def test_the_command_states_where_its_time_went(tmp_path):
    """The recorded phases (start-up, the worker's warm-up, the run, the judging) are disjoint parts of the
    command's elapsed time, and together they account for nearly all of it: the total is the limit plus the
    overhead stated (asserted on the record's consistency, not on any wall-clock threshold)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "play", "--optimal", str(BOARDS / "r2x3_s2.toml"),
                           "-t", "30", "--json"], capture_output=True, text=True, env=env, cwd=tmp_path)
    outside = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    phases, command = got["phases"], got["command"]
    assert got["wall_s"] == phases["run"]["wall_s"] and got["status"] == "sat"
    assert got["late"] is None and got["upper"] is None  # in time: nothing late, the keys there all the same
    assert phases["warmup"] is not None and phases["warmup"]["cpu_s"] > 0  # a new worker: its warm-up is stated
    stated = command["startup"]["wall_s"] + sum(phases[p]["wall_s"] for p in ("warmup", "run", "judge"))
    tick = 0.05  # /proc's start time and uptime are in clock ticks
    assert stated <= command["elapsed_s"] + tick <= outside + 2 * tick, (stated, command, outside)
    assert command["elapsed_s"] - stated <= 0.25 * command["elapsed_s"] + 1.0, (stated, command)
    assert command["cpu_s"] >= phases["warmup"]["cpu_s"] + phases["run"]["cpu_s"]


def test_the_text_ends_with_the_time_of_each_phase(capsys):
    code, out, err = run(capsys, "play", "--optimal", BOARDS / "r2x3_s2.toml", "-t", "30")
    assert code == 0, err
    last = out.splitlines()[-1]
    assert re.match(r"time: start-up [\d.]+ s \(CPU [\d.]+ s\); warm-up \(worker start, imports, compiling\) "
                    r"[\d.]+ s \(CPU [\d.]+ s\); values [\d.]+ s .*judging .* in all, CPU [\d.]+ s "
                    r"\(the limit, 30 s, is per value\)$", last), last
