"""Worker processes under limits, driven by the fake backend: timeout, memout, crash, wrong."""

from __future__ import annotations

import os
import time

import pytest

from harness.core.limits import Limits
from harness.core.status import Question, Status, Termination
from harness.puzzle.instance import Instance
from harness.runner.process import WorkerPool
from harness.tasks.solve import RunRequest, judge_execution
from procs import SETTLE_S, alive as _alive, gone
import procs

GOOD = ["O.", "..", ".O"]  # two submarines on a 3x2 board, not touching
TOUCHING = ["O.", "O.", ".."]


def tiny(boards=(GOOD,)) -> Instance:
    return Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1),
                    name="tiny", meta={"fake_boards": [list(b) for b in boards]})


def request(mode="answer", inst=None, time_limit_s=10.0, memory_mb=None, grace_s=1.0, **opts) -> RunRequest:
    return RunRequest.of(inst or tiny(), "fake", "placement", Question(), {"mode": mode, **opts},
                         Limits(time_limit_s, memory_mb, grace_s))


@pytest.fixture
def pool():
    with WorkerPool() as p:
        yield p


def run(pool, req):
    ex = pool.execute(req)
    return ex, judge_execution(req, ex)


def test_an_answer_is_verified_and_classified_in_the_runner(pool):
    ex, res = run(pool, request())
    assert ex.kind == "ok" and res.status is Status.SAT and res.verdicts == ["ok"]
    assert ex.wall_s >= res.times["solve_s"] + res.times["build_s"]
    assert ex.peak_rss_mb and ex.peak_rss_mb > 5
    ex, res = run(pool, request(inst=tiny((TOUCHING,))))
    assert res.status is Status.WRONG and not res.verdicts[0].startswith("ok")


@pytest.mark.parametrize("mode", ["spin", "sleep"])
def test_running_past_the_limit_is_a_timeout_within_limit_plus_grace(pool, mode):
    start = time.perf_counter()
    ex, res = run(pool, request(mode, time_limit_s=0.5, seconds=600))
    took = time.perf_counter() - start
    assert ex.kind == "timeout" and res.status is Status.TIMEOUT and res.termination is Termination.TIMEOUT
    # killed after its limit and grace, not waited out (600 s): the bounds are hang detectors, far from what a
    # loaded machine's scheduling adds to the 1.5 s
    assert 0.5 <= ex.wall_s < 300 and took < 300
    assert "wall-clock limit" in res.detail
    assert run(pool, request())[1].status is Status.SAT  # the worker was replaced


def test_a_worker_that_ignores_sigterm_is_killed_after_the_grace(pool):
    ex, res = run(pool, request("stubborn", time_limit_s=0.3, seconds=60))
    assert res.status is Status.TIMEOUT
    assert 0.3 + 1.0 <= ex.wall_s <= 0.3 + 1.0 + 1.0  # SIGTERM ignored: SIGKILL at limit + grace


def test_a_late_answer_is_detail_and_the_status_is_timeout(pool):
    ex, res = run(pool, request("stubborn", time_limit_s=0.3, seconds=0.6))
    assert ex.kind == "timeout" and ex.outcome is not None
    assert res.status is Status.TIMEOUT and not res.complete
    assert "late answer" in res.detail
    assert 0.6 <= ex.wall_s < 0.3 + 1.0


@pytest.mark.parametrize("own_group", [False, True], ids=["in the worker's group", "in a group of its own"])
def test_every_process_the_worker_started_is_killed(pool, tmp_path, own_group):
    pidfile = tmp_path / "grandchild.pid"
    ex, res = run(pool, request("spawn", time_limit_s=0.5, seconds=60, pidfile=str(pidfile), own_group=own_group))
    assert res.status is Status.TIMEOUT
    assert gone(int(pidfile.read_text())), "the grandchild survived its worker"


def test_a_backend_limited_by_rss_runs_without_rlimit_as_and_is_killed_over_its_resident_limit(pool):
    """For solvers that reserve huge address space (pychoco's GraalVM isolate): no RLIMIT_AS, RSS sampled."""
    ex, res = run(pool, request("hog", memory_mb=400, megabytes=800, hold=5.0, memory_by="rss"))
    assert ex.kind == "memout" and res.status is Status.MEMOUT and "resident memory" in res.error
    assert ex.wall_s < 4.0  # killed when a sample saw it, not after holding
    # under the same limit the address-space mode stops the allocation itself
    ex, res = run(pool, request("hog", memory_mb=400, megabytes=800, memory_by="address-space"))
    assert res.status is Status.MEMOUT and "resident memory" not in res.error
    # below its limit an rss-limited run answers, though its address space may be larger than the limit
    ex, res = run(pool, request("hog", memory_mb=400, megabytes=100, memory_by="rss"))
    assert res.status is Status.SAT


def test_allocating_past_the_memory_limit_is_a_memout_and_the_runner_carries_on(pool):
    ex, res = run(pool, request("hog", memory_mb=400, megabytes=800))
    assert ex.kind == "memout" and res.status is Status.MEMOUT and res.termination is Termination.MEMOUT
    assert "memory" in res.error.lower()
    ex, res = run(pool, request("hog", memory_mb=800, megabytes=200))
    assert res.status is Status.SAT and ex.peak_rss_mb >= 200  # within the limit; the peak is measured
    ex, res = run(pool, request("answer", memory_mb=800))
    assert res.status is Status.SAT and ex.peak_rss_mb < 200  # the peak is per run, not per worker


@pytest.mark.parametrize("mode, text", [("crash", "SIGABRT"), ("segfault", "SIGSEGV"), ("exit", "exit code 3"),
                                        ("raise", "fake backend raised"),
                                        ("import", "No module named 'battlebench_no_such_solver'")])
def test_a_crash_is_an_error_with_its_message_kept(pool, mode, text):
    ex, res = run(pool, request(mode))
    assert res.status is Status.ERROR and res.termination is Termination.CRASH
    assert text in res.error
    assert run(pool, request())[1].status is Status.SAT


def test_cold_workers_are_fresh_processes_and_warm_ones_are_reused():
    with WorkerPool(warm=False) as cold:
        pids = {cold.execute(request()).pid for _ in range(3)}
        assert len(pids) == 3
    with WorkerPool(warm=True) as warm:
        pids = {warm.execute(request()).pid for _ in range(3)}
        assert len(pids) == 1
        assert os.getpid() not in pids


# ---- CPU time ------------------------------------------------------------------------


def test_cpu_time_is_the_work_done_not_the_time_waited(pool):
    spin, _ = run(pool, request("spin", seconds=0.4))
    assert spin.kind == "ok" and 0.4 <= spin.cpu_s <= spin.wall_s + 0.05  # busy for 0.4 CPU seconds: CPU ~ wall
    nap, _ = run(pool, request("sleep", seconds=0.4))
    assert nap.kind == "ok" and nap.wall_s >= 0.4 and nap.cpu_s < 0.3  # waiting costs no CPU (the rest: the call's own)


def test_a_killed_run_still_has_its_cpu_time_from_outside(pool):
    ex, res = run(pool, request("spin", time_limit_s=1.0, seconds=30))
    # read from /proc before the kill: what the run got of a core in its second (two busy processes beside it
    # on two cores leave it well over 0.1 s)
    assert ex.kind == "timeout" and 0.1 <= ex.cpu_s <= ex.wall_s + 0.05
    ex, res = run(pool, request("crash"))
    assert ex.kind == "crash" and ex.cpu_s is not None and ex.cpu_s < 1.0


def test_cpu_time_counts_the_children_of_the_worker():
    from harness.runner.worker import tree_cpu_s
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time\nt=time.process_time()\n"
                              "while time.process_time() - t < 0.3: pass\nimport sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        deadline = time.time() + SETTLE_S  # ends as soon as it has
        while time.time() < deadline and (tree_cpu_s(child.pid) or 0) < 0.3:  # the child spins 0.3 s
            time.sleep(0.05)
        own = tree_cpu_s(child.pid)
        assert own is not None and own >= 0.25
        assert tree_cpu_s(os.getpid()) >= own  # the child's time is in its parent's tree
    finally:
        child.stdin.close()
        child.wait()
    assert tree_cpu_s(child.pid) is None  # gone


@pytest.mark.parametrize("wait", [True, False])
def test_cpu_time_includes_child_processes_reaped_or_not(pool, wait):
    ex, res = run(pool, request("child-spin", seconds=0.5, wait=wait))
    # the child's 0.5 CPU seconds and no more than its interpreter's start (which a loaded machine makes dearer)
    assert res.status is Status.SAT and 0.5 <= ex.cpu_s <= 0.5 + 1.0, ex.cpu_s


def test_a_run_that_fails_as_the_limit_stops_it_is_a_timeout_that_says_so():
    """Finding 18 of issue 32: MiniZinc, compiling under load when the limit's SIGTERM ended it, was stored as
    "could not compile the cell model"; the run was stopped at its limit, and its record must say that.  (A pool
    that waits 5 s for the failing answer: with two busy processes beside it, a second was not always enough.)"""
    from harness.runner.process import WorkerPool

    req = request("child-fails", seconds=30, time_limit_s=1.0, grace_s=10.0)
    with WorkerPool(honour_s=5.0) as pool:
        ex, res = run(pool, req)
    assert ex.kind == "timeout" and str(res.status) == "timeout" and str(res.termination) == "timeout"
    assert res.error == ""
    assert res.detail.startswith("killed at the wall-clock limit (1 s")
    assert "it failed as it was stopped: the solver could not compile the model" in res.detail


def test_a_pool_keeps_at_most_max_warm_workers_closing_the_least_recently_used():
    from harness.runner.process import WorkerPool

    with WorkerPool(max_warm=2) as pool:
        seen = {}
        for seconds in (0.01, 0.02, 0.01, 0.03):  # options make the key: three keys, the first used again
            ex = pool.execute(request("sleep", seconds=seconds, grace_s=5.0))
            assert ex.kind == "ok"
            seen[seconds] = ex.pid
        assert len(pool._workers) == 2
        kept = {pid for pid in (w.pid for w in pool._workers.values())}
        assert kept == {seen[0.01], seen[0.03]}  # 0.02 was the least recently used when 0.03 came
        assert not _alive(seen[0.02])  # closed, not left behind


@pytest.mark.parametrize("told, ends", [("parent", False), ("another", True), (None, False)])
def test_a_worker_whose_parent_died_before_it_could_ask_for_the_death_signal_ends_at_once(told, ends):
    """The worker compares its parent with the pid the runner gave it: an orphan's new parent need not be
    pid 1 (a container's init or a subreaper), so an orphan at birth must not be taken for a child."""
    import sys

    code = ("import os, sys; from harness.runner.worker import die_with_parent; "
            "die_with_parent(); sys.stdout.write('alive'); sys.stdout.flush()")
    env = dict(os.environ)
    env.pop("BATTLEBENCH_PARENT_PID", None)
    if told == "parent":
        env["BATTLEBENCH_PARENT_PID"] = str(os.getpid())
    elif told == "another":  # as if the runner that started it had died and it had a new parent
        env["BATTLEBENCH_PARENT_PID"] = str(os.getppid())
    done = procs.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == ((1, "") if ends else (0, "alive")), done.stderr


def test_execute_many_runs_at_once_and_kills_the_rest_once_one_is_decided(pool):
    """The pool's primitive for a race knows no task: it asks ``decided`` of each run as it ends."""
    asked = []

    def decided(i, ex):
        asked.append(i)
        return ex.kind == "ok"

    many = pool.execute_many([request("sleep", seconds=60), request("crash"), request("sleep", seconds=0.3)],
                             decided)
    assert many.first == 2 and sorted(asked) == [1, 2] and many.stopped == [True, False, False]
    assert many.executions[1].kind == "crash" and many.executions[2].kind == "ok"
    assert many.executions[0].kind == "crash" and "SIGKILL" in many.executions[0].error
    assert gone(many.executions[0].pid)
    assert 0 < many.wall_s < 60


def test_execute_many_with_nothing_decided_waits_for_every_run(pool):
    many = pool.execute_many([request("crash"), request("spin", seconds=30, time_limit_s=0.5)], lambda i, ex: False)
    assert many.first is None and many.stopped == [False, False]
    assert [ex.kind for ex in many.executions] == ["crash", "timeout"]
