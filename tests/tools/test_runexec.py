"""BenchExec's runexec as the measuring layer of tool processes: the record names the layer, CPU and memory limits
end a tool as timeout and memout, nothing outlives the run, the cgroups the harness made are gone, and where
runexec cannot run the process path measures and the record says so."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Question
from harness.errors import UsageError
from harness.tasks.isolated import IsolatedSolver
from harness.tools import benchexec_version, unusable
from harness.core.cgroups import CGROUP_ROOT, CONTROLLERS, sweep
from harness.tools.runexec import run_measured
from tiny import MANY, assert_sound, truth
from procs import alive as _alive, gone

needs_runexec = pytest.mark.skipif(unusable() is not None, reason=f"runexec cannot run here: {unusable()}")


def _tool(tmp: Path, name: str, body: str) -> Path:
    script = tmp / name
    script.write_text(f"#!{sys.executable}\n{body}")
    script.chmod(0o755)
    entry = tmp / f"{name}.toml"
    entry.write_text(f'[tools.{name}]\nformat = "cnf"\ncommand = ["{script}", "{{file}}"]\n'
                     'output = "sat-competition"\n')
    return entry


def _ours() -> set[str]:
    return {p.name for c in CONTROLLERS for p in (CGROUP_ROOT / c).glob("battlebench-*")}


def test_the_pinned_benchexec_is_the_one_installed():
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert f'"benchexec=={benchexec_version()}"' in text


@needs_runexec
def test_a_builtin_tool_measured_by_runexec_counts_exactly_and_the_record_says_so():
    sweep()
    with IsolatedSolver(grace_s=10.0) as isolated:
        for inst in MANY[:3]:
            res = isolated.solve(inst, "tool", "cell", Question.count(0), {"tool": "cadical", "measure": "runexec"}, 60)
            assert_sound(res, inst)
            assert {b.cells for b in res.boards} == truth(inst.name)
            assert f"measured by runexec (BenchExec {benchexec_version()}" in res.detail
            assert res.versions["benchexec"] == benchexec_version()
        res = isolated.solve(MANY[0], "tool", "cell", Question.count(0), {"tool": "cadical", "measure": "process"}, 60)
        assert "measured by the process path" in res.detail and "runexec" not in res.detail
    # every cgroup the harness made is removed by the call that made it: none is left of a process that is gone
    assert all(os.path.exists(f"/proc/{name.split('-')[1]}") for name in _ours())


@needs_runexec
def test_runexec_ends_a_busy_tool_at_its_cpu_limit_with_its_children(isolated, tmp_path):
    marker, used = tmp_path / "pids", tmp_path / "used"
    entry = _tool(tmp_path, "busy", "import os, subprocess, sys, signal, time\n"
                  "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
                  f"open({str(marker)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
                  "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                  "last = 0.0\n"
                  "while True:\n"
                  "    if (t := time.process_time()) - last > 0.02:\n"  # replaced whole: a kill mid-write leaves
                  f"        open({str(used)!r} + '.new', 'w').write(str(t)); last = t\n"  # the last value, not ''
                  f"        os.replace({str(used)!r} + '.new', {str(used)!r})\n")
    got = run_measured([sys.executable, str(tmp_path / "busy"), "x"], 2.0, 500, tmp_path)
    # the harness stops runexec at the exact limit (reason "killed"); runexec's own whole-second limits are behind it
    assert got.timed_out and got.reason in ("killed", "cputime", "walltime") and got.layer == "runexec"
    # the CPU time BenchExec measured, not the time waited: at least what the tool last said it had used, whatever
    # share of a core the machine's load left it
    assert got.cpu_s >= float(used.read_text()) > 0, got
    for pid in map(int, marker.read_text().split()):
        assert not _alive(pid)
    res = IsolatedSolver(grace_s=10.0)
    with res as solver:
        run = solver.solve(MANY[0], "tool", "placement", Question.count(0),
                           {"tool": "busy", "tool_file": str(entry), "measure": "runexec"}, 2.0)
    assert run.status is Status.TIMEOUT


@needs_runexec
def test_runexec_ends_a_tool_over_the_memory_limit_and_the_run_is_a_memout(tmp_path):
    entry = _tool(tmp_path, "hog", "import time\nblocks = []\n"
                  "while True:\n    blocks.append(bytearray(50 * 1024 * 1024)); time.sleep(0.01)\n")
    got = run_measured([sys.executable, str(tmp_path / "hog"), "x"], 60, 300, tmp_path)
    assert got.memout and got.reason == "memory" and not got.timed_out
    with IsolatedSolver(grace_s=10.0, memory_mb=600) as solver:
        run = solver.solve(MANY[0], "tool", "placement", Question.count(0),
                           {"tool": "hog", "tool_file": str(entry), "measure": "runexec"}, 60)
    assert run.status is Status.MEMOUT, (run.status, run.error)
    assert "went over the memory limit" in run.error and "terminationreason=memory" in run.error


def test_without_runexec_auto_falls_back_to_the_process_path_and_runexec_is_refused(monkeypatch):
    monkeypatch.setenv("BATTLEBENCH_NO_RUNEXEC", "1")
    assert unusable() == "switched off by BATTLEBENCH_NO_RUNEXEC"
    with pytest.raises(UsageError, match="measure=runexec: switched off"):
        get_backend("tool").resolve_options({"measure": "runexec"})
    with IsolatedSolver(grace_s=10.0) as solver:  # a worker started now inherits the switch
        res = solver.solve(MANY[0], "tool", "cell", Question.count(0), {"tool": "cadical"}, 60)
    assert_sound(res, MANY[0])
    assert "measured by the process path" in res.detail


@needs_runexec
def test_runexec_is_stopped_at_the_exact_limit_not_the_whole_second_it_takes(tmp_path):
    """runexec's limits are whole seconds: 1.3 s would be 2 s.  The harness stops it at 1.3 s from before runexec
    started, so its stop comes first whatever the load ("killed": the harness's; runexec's would say cputime or
    walltime), and runexec still reports what the tool used."""
    marker = tmp_path / "pid"
    _tool(tmp_path, "spin", f"import os\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\nwhile True: pass\n")
    got = run_measured([sys.executable, str(tmp_path / "spin"), "x"], 1.3, None, tmp_path)
    assert got.timed_out and got.reason == "killed" and got.layer == "runexec", got
    assert 0.0 < got.cpu_s < 2.0 and got.wall_s < 2.0  # runexec's figures for the tool: under its rounded limit
    assert not _alive(int(marker.read_text()))


@needs_runexec
def test_a_run_killed_mid_call_leaves_no_tool_and_no_cgroup(tmp_path):
    """The worker's session is killed while runexec runs the tool (as the runner kills a worker past its grace):
    the tool must not survive, and the runner that sees it dead removes its cgroups (a runner killed too leaves them
    to the next process's first call or pool)."""
    import signal
    import threading

    marker = tmp_path / "pid"
    entry = _tool(tmp_path, "sleeper", f"import os, time\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\n"
                  "time.sleep(300)\n")
    with IsolatedSolver(grace_s=1.0) as solver:
        got = {}
        call = threading.Thread(target=lambda: got.update(res=solver.solve(
            MANY[0], "tool", "placement", Question.count(0),
            {"tool": "sleeper", "tool_file": str(entry), "measure": "runexec"}, 120.0)))
        call.start()
        deadline = time.monotonic() + 60
        while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        (worker,) = solver.pool._workers.values()
        assert f"battlebench-{worker.pid}-0" in _ours()  # the worker's own groups, the call's inside them
        os.killpg(worker.pid, signal.SIGKILL)
        call.join(60)
        assert f"battlebench-{worker.pid}-0" not in _ours()  # the runner removed them as it replaced the worker
    assert got["res"].status is Status.ERROR or got["res"].status is Status.TIMEOUT, got["res"].status
    assert gone(int(marker.read_text())), "the tool outlived its run"
    assert all(os.path.exists(f"/proc/{name.split('-')[1]}") for name in _ours())  # only live processes' groups


@needs_runexec
def test_a_sigterm_to_the_process_during_a_call_stops_the_tool_as_time_up_and_reaches_the_old_handler(tmp_path):
    """The runner's SIGTERM at the run's limit goes to the worker's process group; the tool, in a group of its own
    (BenchExec's), does not get it: the call stops the tool itself, the record says time is up, and the worker's
    own handler (late answers) still runs and is the handler again after the call."""
    import signal
    import threading

    marker = tmp_path / "pid"
    _tool(tmp_path, "sleeper", f"import os, time\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\n"
          "time.sleep(300)\n")
    seen = []

    def handler(signum, frame):
        seen.append(signum)

    def term_when_started():
        deadline = time.monotonic() + 60
        while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGTERM)

    old = signal.signal(signal.SIGTERM, handler)
    try:
        threading.Thread(target=term_when_started, daemon=True).start()
        got = run_measured([sys.executable, str(tmp_path / "sleeper"), "x"], 120, None, tmp_path)
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, old)
    assert got.timed_out and got.reason == "killed" and got.wall_s < 60, got
    assert seen == [signal.SIGTERM]
    assert gone(int(marker.read_text())), "the tool outlived its call"


@needs_runexec
def test_tool_calls_in_one_process_start_no_runexec_command_and_share_one_run_executor(tmp_path, monkeypatch):
    import logging
    import subprocess

    from harness.tools import runexec

    started = []
    real = subprocess.Popen

    class Recording(real):
        def __init__(self, args, *rest, **kwargs):
            started.append(list(args) if not isinstance(args, (str, bytes)) else [args])
            super().__init__(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", Recording)
    handlers = list(logging.getLogger().handlers)
    executors = set()
    for _ in range(4):
        got = run_measured([sys.executable, "-c", "print('hi')"], 10, 200, tmp_path)
        assert got.returncode == 0 and got.stdout == "hi\n" and got.layer == "runexec", got
        executors.add(id(runexec.executor()))
    assert len(executors) == 1
    assert logging.getLogger().handlers == handlers  # BenchExec's logging configured nothing in this process
    assert [a[0] for a in started] == [sys.executable] * 4  # the tool only: no runexec command line
    assert not any("benchexec.runexecutor" in " ".join(map(str, a)) for a in started)
    own = f"battlebench-{os.getpid()}-0"
    assert own in _ours()
    procs = (CGROUP_ROOT / "cpuacct" / own / "cgroup.procs").read_text().split()
    assert str(os.getpid()) in procs  # this process is in its own group; BenchExec's per-call groups are gone
    assert not [p for p in (CGROUP_ROOT / "cpuacct" / own).iterdir() if p.is_dir()]
    missing = run_measured(["/nonexistent/tool"], 10, None, tmp_path)
    assert missing.returncode == 127 and "No such file or directory" in missing.stderr, missing


@needs_runexec
def test_a_worker_keeps_one_group_and_removes_it_at_exit_and_a_killed_ones_go_at_the_next_start(tmp_path):
    """A process that ends normally removes its groups; one killed (here: ``os._exit``, no clean-up) leaves them,
    and the next process's first call removes them."""
    import subprocess

    call = ("import os, sys; from pathlib import Path; from harness.tools.runexec import run_measured; "
            f"r = run_measured([sys.executable, '-c', 'pass'], 10, None, Path({str(tmp_path)!r})); "
            "assert r.returncode == 0, r; print(os.getpid(), flush=True); ")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    killed = subprocess.run([sys.executable, "-c", call + "os._exit(0)"], env=env, capture_output=True, text=True,
                            check=True)
    left = f"battlebench-{killed.stdout.split()[0]}-0"
    assert left in _ours()
    ended = subprocess.run([sys.executable, "-c", call], env=env, capture_output=True, text=True, check=True)
    assert left not in _ours()
    assert f"battlebench-{ended.stdout.split()[0]}-0" not in _ours()


@needs_runexec
def test_runexec_stops_a_stdout_flood_at_the_output_cap_and_the_run_is_an_error_saying_the_bytes_seen(tmp_path):
    from harness.core.status import Termination

    flood = "import sys\nline = 'x' * 1023 + '\\n'\nwhile True:\n    sys.stdout.write(line)\n"
    entry = _tool(tmp_path, "flood", flood)
    got = run_measured([sys.executable, str(tmp_path / "flood"), "x"], 30, None, tmp_path, 1024 * 1024)
    assert got.output_over is not None and got.output_over > 1024 * 1024 and not got.timed_out, got
    assert (tmp_path / "runexec-output.txt").stat().st_size < 64 * 1024 * 1024  # bounded, not 30 s of flood
    with IsolatedSolver(grace_s=10.0, output_mb=1) as solver:
        run = solver.solve(MANY[0], "tool", "placement", Question.count(0),
                           {"tool": "flood", "tool_file": str(entry), "measure": "runexec"}, 30)
    assert run.status is Status.ERROR and run.termination is Termination.OUTPUT_LIMIT, (run.status, run.error)
    assert "output cap (1 MiB of stdout and stderr): stopped at " in run.error and " bytes seen" in run.detail
