"""The process path (``measure=process``) contains, measures and limits a tool's whole tree: a child that left the
session and ignores SIGTERM dies with the call, the tree's memory is summed and its limit is a memout, the output
cap stops a flood, and no work folder outlives the run, whatever ends it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.core import scratch
from harness.core.status import Question, Status, Termination
from harness.runner.process import WorkerPool
from harness.tasks.isolated import IsolatedSolver
from harness.tools.process import run_tool
from procs import alive, gone
from tiny import MANY

PROCESS = {"measure": "process"}


def _tool(tmp: Path, name: str, body: str) -> dict:
    """A fake tool (a Python script) in a user tool file: the options that run it on the process path."""
    script = tmp / name
    script.write_text(f"#!{sys.executable}\n{body}")
    script.chmod(0o755)
    entry = tmp / f"{name}.toml"
    entry.write_text(f'[tools.{name}]\nformat = "cnf"\ncommand = ["{script}", "{{file}}"]\noutput = "sat-competition"\n')
    return {**PROCESS, "tool": name, "tool_file": str(entry)}


def _wait_for(path: Path, within: float = 60.0) -> str:
    end = time.monotonic() + within
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < end, f"{path} was never written"
        time.sleep(0.05)
    return path.read_text()


# a child that calls setsid() (a session of its own, out of the tool's group) and ignores SIGTERM
ESCAPEE = ("import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nos.setsid()\n"
           "open({marker!r}, 'w').write(str(os.getpid()))\ntime.sleep(300)\n")


def test_a_setsid_child_that_ignores_sigterm_does_not_outlive_a_run_at_its_limit(isolated, tmp_path):
    marker = tmp_path / "escapee"
    options = _tool(tmp_path, "forker", "import subprocess, sys, time\n"
                    f"subprocess.Popen([sys.executable, '-c', {ESCAPEE.format(marker=str(marker))!r}])\n"
                    "time.sleep(300)\n")
    res = isolated.solve(MANY[0], "tool", "placement", Question.count(0), options, 4.0)
    assert res.status is Status.TIMEOUT, (res.status, res.error)
    pid = int(_wait_for(marker))
    assert gone(pid), "the setsid() child outlived the run"


def test_a_daemon_left_by_a_tool_that_exits_at_once_is_gone_after_the_call(isolated, tmp_path):
    marker = tmp_path / "daemon"
    # the classic double fork: the daemon's parent exits, the tool answers and exits at once
    options = _tool(tmp_path, "leaver", "import os, sys, time\n"
                    "if os.fork() == 0:\n"
                    "    os.setsid()\n"
                    "    if os.fork() == 0:\n"
                    f"        exec({ESCAPEE.format(marker=str(marker))!r})\n"
                    "    os._exit(0)\n"
                    "os.wait()\n"
                    f"while not os.path.exists({str(marker)!r}): time.sleep(0.01)\n"
                    "print('s UNSATISFIABLE'); sys.exit(20)\n")
    res = isolated.solve(MANY[0], "tool", "placement", Question.count(0), options, 30.0)
    assert res.status is Status.UNSAT, (res.status, res.error)  # what it said: the daemon is no part of the answer
    pid = int(_wait_for(marker))
    assert gone(pid), "the daemon the tool left outlived the call"


# each child touches 250 MB, 10 MB at a time: under RLIMIT_AS (per process) each is far below 400 MB
CHILD = ("import time\nblocks = []\nfor _ in range(25):\n    blocks.append(bytearray(10 * 1024 * 1024))\n"
         "    time.sleep(0.02)\ntime.sleep(300)\n")


def _peak(error: str) -> float:
    return float(error.split("peak ")[1].split(" MB")[0])


def test_four_children_under_the_limit_each_but_over_it_together_are_a_memout_with_the_trees_peak(tmp_path):
    options = _tool(tmp_path, "quad", "import subprocess, sys, time\n"
                    f"kids = [subprocess.Popen([sys.executable, '-c', {CHILD!r}]) for _ in range(4)]\n"
                    "time.sleep(300)\n")
    with IsolatedSolver(grace_s=10.0, memory_mb=400) as solver:
        res = solver.solve(MANY[0], "tool", "placement", Question.count(0), options, 60.0)
    assert res.status is Status.MEMOUT, (res.status, res.error)
    assert "the tree's summed RSS" in res.error and _peak(res.error) >= 400, res.error


def test_one_tool_over_the_limit_is_a_memout_not_an_error(tmp_path):
    options = _tool(tmp_path, "hog", "import time\nblocks = []\n"
                    "while True:\n    blocks.append(bytearray(20 * 1024 * 1024)); time.sleep(0.01)\n")
    with IsolatedSolver(grace_s=10.0, memory_mb=300) as solver:
        res = solver.solve(MANY[0], "tool", "placement", Question.count(0), options, 60.0)
    assert res.status is Status.MEMOUT, (res.status, res.error)
    assert "went over the memory limit (300 MB; process path" in res.error, res.error


FLOOD = "import sys\nline = 'x' * 1023 + '\\n'\nwhile True:\n    sys.stdout.write(line)\n"


def test_a_stdout_flood_is_an_error_at_the_output_cap_with_the_bytes_seen(tmp_path):
    options = _tool(tmp_path, "flood", FLOOD)
    with IsolatedSolver(grace_s=10.0, output_mb=1) as solver:
        res = solver.solve(MANY[0], "tool", "placement", Question.count(0), options, 30.0)
    assert res.status is Status.ERROR and res.termination is Termination.OUTPUT_LIMIT, (res.status, res.error)
    seen = int(res.error.split("stopped at ")[1].split(" bytes")[0].replace(",", ""))
    assert seen > 1024 * 1024 and "output cap (1 MiB" in res.error and f"{seen:,} bytes seen" in res.detail


def test_the_output_cap_bounds_the_file_on_disk(tmp_path):
    script = tmp_path / "flood"
    script.write_text(FLOOD)
    ran = run_tool([sys.executable, str(script)], 30.0, tmp_path, output_bytes=1024 * 1024)
    assert ran.output_over is not None and ran.output_over > 1024 * 1024 and not ran.timed_out
    # sampled every 20 ms: a Python flood writes a few MB in that time, nothing like what 30 s would hold
    assert (tmp_path / "stdout.txt").stat().st_size < 64 * 1024 * 1024


def test_a_run_whose_worker_is_killed_mid_call_leaves_no_work_folder(tmp_path):
    marker = tmp_path / "cwd"
    options = _tool(tmp_path, "sleeper", f"import os, time\nopen({str(marker)!r}, 'w').write(os.getcwd())\n"
                    "time.sleep(300)\n")
    with IsolatedSolver(grace_s=1.0) as solver:
        got = {}
        call = threading.Thread(target=lambda: got.update(res=solver.solve(
            MANY[0], "tool", "placement", Question.count(0), options, 120.0)))
        call.start()
        work = Path(_wait_for(marker))
        (worker,) = solver.pool._workers.values()
        os.killpg(worker.pid, signal.SIGKILL)  # as the runner ends a worker past its grace: no finally runs
        call.join(60)
    assert got["res"].status in (Status.ERROR, Status.TIMEOUT), got["res"].status
    assert not work.exists(), f"{work} outlived its run"
    assert scratch.root(worker.pid).name.startswith(scratch.PREFIX) and not scratch.root(worker.pid).exists()


def test_a_dead_owners_folders_are_swept_when_a_runner_starts_and_a_live_ones_kept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert not alive(dead.pid)
    left = scratch.root(dead.pid) / "cadical-abc"
    left.mkdir(parents=True)
    (left / "input.cnf").write_text("p cnf 1 1\n1 0\n")
    mine = scratch.folder("qax/../../elsewhere/OUTSIDE")  # a name that would escape: it stays in its root
    assert mine.parent == scratch.root() and mine.name.startswith("qax%2F..%2F..%2Felsewhere%2FOUTSIDE-")
    with WorkerPool():  # what a campaign's run and resume start with
        pass
    assert not scratch.root(dead.pid).exists() and mine.exists()
    scratch.remove_root(os.getpid())


@pytest.mark.parametrize("name", ["cadical", "a/b", "../x y", "é/€", ""])
def test_a_tool_name_cannot_put_its_folder_outside_its_root(name):
    made = scratch.folder(name)
    try:
        assert made.parent == scratch.root() and made.is_dir()
    finally:
        scratch.remove_root(os.getpid())
