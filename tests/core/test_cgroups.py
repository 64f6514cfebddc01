"""The harness's own cgroups: a dead owner's groups -- sub-groups and what still runs in them included -- are removed
by the sweep a worker pool starts with and by :func:`remove_of` for one owner; a live owner's are left alone."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness.core.cgroups import CGROUP_ROOT, CONTROLLERS, own_name, remove_of
from harness.runner.process import WorkerPool
from procs import gone

usable = os.geteuid() == 0 and all((CGROUP_ROOT / c / "tasks").exists() for c in CONTROLLERS)
pytestmark = pytest.mark.skipif(not usable, reason=f"needs root and cgroup v1 ({', '.join(CONTROLLERS)}) under "
                                                   f"{CGROUP_ROOT}")


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _groups_of(owner: int) -> list:
    """Groups named for ``owner`` with a sub-group each (as BenchExec makes per call) and a sleeper in them; the
    groups and the sleeper's pid."""
    groups = []
    for c in CONTROLLERS:
        g = CGROUP_ROOT / c / own_name(owner)
        (g / "benchexec_run_x").mkdir(parents=True)
        if c == "cpuset":
            for sub in (g, g / "benchexec_run_x"):
                for key in ("cpuset.cpus", "cpuset.mems"):
                    (sub / key).write_text((sub.parent / key).read_text())
        groups.append(g)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    for g in groups:
        (g / "benchexec_run_x" / "cgroup.procs").write_text(str(sleeper.pid))
    return [groups, sleeper]


@pytest.mark.parametrize("how", ["pool start", "remove_of"])
def test_a_dead_owners_groups_go_with_what_runs_in_them(how):
    owner = _dead_pid()
    groups, sleeper = _groups_of(owner)
    owner_alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    live, live_sleeper = _groups_of(owner_alive.pid)  # a live owner's: the sweep leaves them be
    try:
        if how == "pool start":
            with WorkerPool():
                pass
        else:
            remove_of(owner)
        assert not any(g.exists() for g in groups)
        sleeper.wait(10)
        assert gone(sleeper.pid)
        assert all(g.exists() for g in live) and live_sleeper.poll() is None
    finally:
        owner_alive.kill()
        owner_alive.wait()
        remove_of(owner_alive.pid)
        live_sleeper.wait(10)
        remove_of(owner)


def test_sweepers_that_race_both_finish_and_leave_nothing():
    """Each job's pool sweeps as it starts: two at once (two jobs; here four threads) over the same dead owners'
    groups must all finish -- a group another removed first is gone, not an error (it was FileNotFoundError,
    and a campaign whose job thread died of it waited forever)."""
    import threading

    from harness.core.cgroups import sweep

    made = [_groups_of(_dead_pid()) for _ in range(3)]
    for _, sleeper in made:
        sleeper.kill()  # the groups stay behind; rmdir works once they are empty
        sleeper.wait()
    errors = []

    def one() -> None:
        try:
            sweep()
        except Exception as exc:  # noqa: BLE001 - what the test looks for
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and not any(t.is_alive() for t in threads)
    assert not any(g.exists() for groups, _ in made for g in groups)
