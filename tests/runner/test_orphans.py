"""``kill -9`` of a long-running command leaves no process behind (issue 32, finding 6): a census before and after.

Every process a command starts -- workers, their guards, solver binaries (MiniZinc, fzn-gecode), a plugin's
children, the generator's pool -- inherits a marker in its environment; after ``kill -9`` of the command
alone, no process with the marker may be left (each worker dies with its parent, and its guard kills the
worker's whole process group when the command's end closes the guard pipe), nor a scratch folder of a worker
(its guard removes the worker's root after the kill).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import procs
from harness.core import scratch
from procs import SETTLE_S  # how long the survivors get to notice

ROOT = Path(__file__).resolve().parents[2]


def _census(marker: str) -> dict[int, str]:
    """pid -> command name of every process whose environment holds ``marker``."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if marker.encode() not in fh.read():
                    continue
            with open(f"/proc/{entry}/comm") as fh:
                found[int(entry)] = fh.read().strip()
        except OSError:
            continue
    return found


def _start(argv: list[str], cwd: Path) -> tuple[subprocess.Popen, str]:
    marker = f"BB_CENSUS={uuid.uuid4().hex}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), BB_CENSUS=marker.split("=", 1)[1])
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *argv], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, marker


def _wait_for(proc: subprocess.Popen, marker: str, ready) -> dict[int, str]:
    """The census once ``ready`` holds of it: no wall-clock deadline, only a command that ends first or stalls."""
    found: dict[int, str] = {}

    def check() -> bool:
        found.clear()
        found.update(_census(marker))
        return bool(ready(found))

    if not procs.wait_until(check, proc, every=0.1):
        pytest.fail(f"the command ended before it got going: {_census(marker)}")
    return found


def _kill_and_count(proc: subprocess.Popen, marker: str) -> dict[int, str]:
    """``kill -9`` of the command; what is left of it once the survivors have had time to notice: its processes,
    and the scratch roots of its workers (a MiniZinc call's model and data), which their guards remove."""
    roots = [scratch.root(pid) for pid in _census(marker)]
    os.kill(proc.pid, signal.SIGKILL)  # the command alone, as `kill -9 PID` does
    proc.wait()
    deadline = time.monotonic() + SETTLE_S
    left = _census(marker)
    while (left or any(r.exists() for r in roots)) and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _census(marker)
    left.update({-i: f"scratch root {r.name}: {sorted(p.name for p in r.iterdir())}"
                 for i, r in enumerate(roots, 1) if r.exists()})
    return left


def _workers(found: dict[int, str]) -> int:
    return sum(1 for name in found.values() if name.startswith("python"))


@pytest.mark.parametrize("own_group", ["false", "true"], ids=["child in the worker's group", "child in its own"])
def test_run_killed_during_a_plugin_solve_leaves_no_process(tmp_path, own_group):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'name = "orphans"\ninstances = ["{ROOT / "instances" / "smoke" / "tiny_4x4.toml"}"]\n'
                   f'output = "{tmp_path / "out"}"\n[[pairs]]\nbackend = "fake"\n'
                   f'options = {{ mode = "spawn", seconds = 300, pidfile = "{tmp_path / "child.pid"}", '
                   f'own_group = {own_group} }}\n')
    proc, marker = _start(["run", str(cfg), "--progress", "plain"], tmp_path)
    found = _wait_for(proc, marker, lambda f: (tmp_path / "child.pid").exists() and "sleep" in f.values())
    assert "sh" in found.values()  # the worker's guard
    assert _kill_and_count(proc, marker) == {}


@pytest.mark.skipif(shutil.which("minizinc") is None, reason="MiniZinc is not installed (apt-get install minizinc)")
def test_run_killed_during_a_minizinc_solve_leaves_no_minizinc(tmp_path):
    cfg = tmp_path / "c.toml"
    # Gecode finds this 30x20 board's first deployment at once and then searches for a second without a
    # word for minutes: nothing written, so no broken pipe tells MiniZinc that its reader has gone.
    cfg.write_text(f'name = "orphans"\ninstances = ["{ROOT / "instances" / "large" / "large_30x20_h0_s0.toml"}"]\n'
                   f'task = "count-2"\noutput = "{tmp_path / "out"}"\n[limits]\ntime_s = 600\n'
                   '[[pairs]]\nbackend = "minizinc"\n')
    proc, marker = _start(["run", str(cfg), "--progress", "plain"], tmp_path)
    _wait_for(proc, marker, lambda f: "fzn-gecode" in f.values())  # the solver is solving
    time.sleep(3)  # past the first deployment, into the silent search
    assert _kill_and_count(proc, marker) == {}


def test_count_killed_leaves_no_process(tmp_path):
    board = tmp_path / "apart.toml"
    board.write_text('[meta]\nname = "apart"\n[grid]\nrows = 15\ncols = 15\n[rules]\ntouching = false\n[pieces]\n'
                     'Carrier = 5\nBattleship = 4\nSubmarine = 3\nCruiser = 3\nDestroyer = 2\n')
    proc, marker = _start(["count", str(board)], tmp_path)
    _wait_for(proc, marker, lambda f: _workers(f) >= 2)  # the command and its counter's worker
    assert _kill_and_count(proc, marker) == {}


def test_play_killed_leaves_no_process(tmp_path):
    proc, marker = _start(["play", "--strategy", "lookahead", "--games", "1000"], tmp_path)
    _wait_for(proc, marker, lambda f: _workers(f) >= 2)
    assert _kill_and_count(proc, marker) == {}


def test_generate_with_a_pool_killed_leaves_no_process_writing_journals(tmp_path):
    out = tmp_path / "gen"
    proc, marker = _start(["generate", "--rows", "15", "--cols", "15", "--hints", "minimal", "--number", "2",
                           "--jobs", "2", "--out", str(out)], tmp_path)
    partial = out / ".partial"
    _wait_for(proc, marker, lambda f: partial.is_dir() and len(list(partial.glob("*.jsonl"))) == 2)
    assert _kill_and_count(proc, marker) == {}
    sizes = {p: p.stat().st_size for p in partial.glob("*.jsonl")}
    time.sleep(1.0)
    assert {p: p.stat().st_size for p in partial.glob("*.jsonl")} == sizes  # nobody writes them any more
