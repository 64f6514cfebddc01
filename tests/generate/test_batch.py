"""``battlebench generate --jobs N`` and ``--executor dask``: the same puzzles as one at a time, resumable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from harness.cli import main
from harness.generate.batch import SeedResult
from harness.generate.generator import journal_path
from harness.generate.journal import PARTIAL_DIR
from harness.puzzle.formats import read_instance
import procs

SMALL = ["generate", "--rows", "7", "--cols", "7", "--fleet", "1:2,2:1,3:1", "--hints", "minimal", "--number", "4",
         "--seed", "20", "--certify", "sat/cell"]


def _made(out):
    return {f.name: (read_instance(f).content_hash(), read_instance(f).hints) for f in sorted(out.glob("*.toml"))}


def test_jobs_2_makes_the_same_puzzles_as_jobs_1_with_a_progress_line(tmp_path, capsys):
    assert main([*SMALL, "--out", str(tmp_path / "one")]) == 0
    capsys.readouterr()
    assert main([*SMALL, "--jobs", "2", "--out", str(tmp_path / "two")]) == 0
    captured = capsys.readouterr()
    one, two = _made(tmp_path / "one"), _made(tmp_path / "two")
    assert len(one) == 4 and one == two
    assert sorted(line.split()[1] for line in captured.out.splitlines()) == \
        sorted(str(tmp_path / "two" / name) for name in two)
    err = captured.err.splitlines()
    assert err[0] == "generate: 4 seeds, 0 already made, 4 to execute"
    assert err[-1].startswith("[4/4 100%] solved 4")
    assert not (tmp_path / "two" / PARTIAL_DIR).exists()


def test_keep_existing_with_jobs_counts_the_kept_seeds_as_made(tmp_path, capsys):
    out = tmp_path / "k"
    assert main([*SMALL, "--number", "2", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main([*SMALL, "--jobs", "2", "--keep-existing", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert sum(line.startswith("kept ") for line in captured.out.splitlines()) == 2
    assert sum(line.startswith("wrote ") for line in captured.out.splitlines()) == 2
    assert captured.err.splitlines()[0] == "generate: 4 seeds, 2 already made, 2 to execute"


def test_a_failing_seed_in_a_worker_is_reported_and_the_others_kept(tmp_path, capsys):
    out = tmp_path / "f"
    code = main(["generate", "--rows", "3", "--cols", "3", "--fleet", "3:3", "--number", "2", "--jobs", "2",
                 "--certify", "sat/cell", "--out", str(out)])
    assert code == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("battlebench: error:")]
    assert len(err) == 2 and all("cannot place the fleet" in line for line in err)


def test_dask_local_cluster_makes_the_same_puzzles(tmp_path, capsys):
    pytest.importorskip("distributed")
    assert main([*SMALL, "--number", "3", "--out", str(tmp_path / "one")]) == 0
    assert main([*SMALL, "--number", "3", "--executor", "dask", "--scheduler", "local", "--jobs", "2",
                 "--out", str(tmp_path / "dask")]) == 0
    assert _made(tmp_path / "one") == _made(tmp_path / "dask")


@pytest.mark.parametrize("argv,needle", [
    (["--jobs", "0"], "--jobs must be >= 1, not 0"),
    (["--executor", "local", "--scheduler", "tcp://x:1"], "--scheduler"),
    (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
])
def test_bad_executor_arguments_are_one_line(tmp_path, capsys, argv, needle):
    if "dask" in argv:
        pytest.importorskip("distributed")
    out = tmp_path / "x"
    assert main([*SMALL, "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0]
    assert not list(out.glob("*.toml"))


def _stopped_once_journaled(cmd, journals):
    """Run ``cmd``; once every journal holds a few answers, SIGTERM it; (return code, stderr)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    procs.wait_until(lambda: all(j.exists() and len(j.read_text().splitlines()) > 3 for j in journals), proc)
    if proc.poll() is not None:
        pytest.fail(f"generation ended before it could be interrupted: {proc.communicate()}")
    os.kill(proc.pid, signal.SIGTERM)
    _, err = procs.communicate(proc)
    return proc.returncode, err


def test_sigterm_stops_every_seed_in_flight_with_its_journal_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "out"
    argv = ["generate", "--rows", "15", "--cols", "15", "--hints", "minimal", "--seed", "2", "--number", "2",
            "--jobs", "2", "--out", str(out)]
    cmd = [sys.executable, "-m", "harness.cli", *argv]
    journals = [out / PARTIAL_DIR / f"gen_15x15_minimal_s{s}.jsonl" for s in (2, 3)]
    code, err = _stopped_once_journaled(cmd, journals)
    assert code == 130, err
    assert err.count("interrupted; the oracle's answers so far are kept") == 2, err
    assert "Traceback" not in err
    assert all(j.exists() for j in journals) and not list(out.glob("*.toml"))
    done = procs.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("resuming from") == 2
    assert main(["generate", "--rows", "15", "--cols", "15", "--hints", "minimal", "--seed", "2", "--number", "2",
                 "--out", str(tmp_path / "ref")]) == 0  # uninterrupted, one at a time
    assert _made(out) == _made(tmp_path / "ref")
    assert not (out / PARTIAL_DIR).exists()


class _WaitsInALock:
    """A runner whose one seed never ends and whose ``wait`` gets SIGTERM while it sits in ``Condition.wait``."""

    def __init__(self):
        import threading

        self.futures, self.waits, self.interrupted = {}, 0, False
        self.cond = threading.Condition()

    def submit(self, task):
        from concurrent.futures import Future

        future = Future()
        self.futures[future] = task
        return future

    def wait(self, pending, timeout):
        import threading

        self.waits += 1
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM)).start()  # arrives inside the wait below
        with self.cond:
            self.cond.wait(0.3)
        return set(), pending

    def interrupt(self):
        self.interrupted = True
        for future, task in self.futures.items():
            future.set_result(SeedResult(task.seed, task.name, "interrupted", f"seed {task.seed}: interrupted"))

    def close(self):
        pass


def test_sigterm_during_the_parents_wait_stops_at_the_next_wait_and_restores_the_handler(tmp_path, monkeypatch, capsys):
    """CI once exited 1: the handler raised inside ``Condition.wait`` ("release unlocked lock")."""
    import harness.generate.batch as batch
    from harness.generate.generator import Settings

    runner = _WaitsInALock()
    monkeypatch.setattr(batch, "_Pool", lambda jobs: runner)
    before = signal.getsignal(signal.SIGTERM)
    with batch.stop_on_signals():  # the command's own handler, which raises KeyboardInterrupt
        raising = signal.getsignal(signal.SIGTERM)
        code = batch.make_all([batch.SeedTask(Settings(7, 7), 1, str(tmp_path), 60.0)], jobs=2)
        assert signal.getsignal(signal.SIGTERM) is raising  # put back after the pool's wait
    assert signal.getsignal(signal.SIGTERM) is before
    assert code == 130 and runner.interrupted and runner.waits == 1
    assert "seed 1: interrupted" in capsys.readouterr().err


class _BreaksWhenStopped(_WaitsInALock):
    """A pool whose worker dies as it is stopped: every pending future gets BrokenProcessPool (CI, under load)."""

    def wait(self, pending, timeout):
        self.waits += 1
        os.kill(os.getpid(), signal.SIGTERM)  # the stop, set by the handler and seen after this wait
        return set(), pending

    def interrupt(self):
        from concurrent.futures.process import BrokenProcessPool

        self.interrupted = True
        for future in self.futures:
            future.set_exception(BrokenProcessPool("A process in the process pool was terminated abruptly"))


def test_seeds_whose_worker_died_as_it_was_stopped_are_still_reported_with_their_journals(tmp_path, monkeypatch,
                                                                                          capsys):
    """CI: a pool worker ended as SIGTERM stopped it and the pool broke; the two seeds in flight were not named."""
    import harness.generate.batch as batch
    from harness.generate.generator import Settings

    runner = _BreaksWhenStopped()
    monkeypatch.setattr(batch, "_Pool", lambda jobs: runner)
    tasks = [batch.SeedTask(Settings(7, 7, hints="minimal"), seed, str(tmp_path), 60.0) for seed in (1, 2)]
    journal = journal_path(tasks[0].settings, 1, tmp_path / PARTIAL_DIR)
    journal.parent.mkdir(parents=True)
    journal.write_text("{}\n")  # seed 1 had answers on disk, seed 2 none yet
    with batch.stop_on_signals():
        code = batch.make_all(tasks, jobs=2)
    err = capsys.readouterr().err
    assert code == 130 and runner.interrupted
    assert (f"seed 1: interrupted; the oracle's answers so far are kept in {journal}: the same command resumes "
            "from them (its worker ended as it was stopped (BrokenProcessPool))") in err, err
    assert "seed 2: interrupted (its worker ended as it was stopped (BrokenProcessPool))" in err, err


def test_an_error_an_interrupt_causes_inside_an_extension_still_means_interrupted(tmp_path, monkeypatch):
    """CI: SIGTERM during the import of CP-SAT's helper became ImportError("initialization failed")."""
    import harness.generate.batch as batch
    from harness.errors import BackendUnavailable
    from harness.generate.generator import Settings

    stop = []

    def broken(*args, **kwargs):
        try:
            if stop:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
        except KeyboardInterrupt:  # what pybind11 does with an interrupt during a module's initialisation
            pass
        raise BackendUnavailable("cannot import ortools' CP-SAT helper module: initialization failed")

    monkeypatch.setattr(batch, "generate", broken)
    task = batch.SeedTask(Settings(7, 7), 1, str(tmp_path), 60.0)
    with batch.stop_on_signals():
        with pytest.raises(BackendUnavailable):  # not stopped: the error is the seed's own
            batch.make_seed(task, certifier=object())
        stop.append(True)
        result = batch.make_seed(task, certifier=object())
        assert result.outcome == "interrupted" and result.message == "seed 1: interrupted"
        assert batch.make_seed(task, certifier=object()).outcome == "not started"  # the process is stopping
    stop.clear()
    with pytest.raises(BackendUnavailable):  # the next command in this process starts afresh
        batch.make_seed(task, certifier=object())


def test_certify_by_a_race_records_the_winner_and_the_command_reproduces(tmp_path, capsys):
    import shlex

    race = "cpsat/placement,sat[solver=glucose4]/placement"
    argv = ["generate", "--rows", "7", "--cols", "7", "--fleet", "1:2,2:1,3:1", "--hints", "minimal", "--seed", "4",
            "--certify", race]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert "certified by" in capsys.readouterr().out
    inst = read_instance(tmp_path / "a" / "gen_7x7_minimal_s4.toml")
    cert = inst.meta["certificate"]
    assert cert["pair"] == race and cert["won_by"] in ("cpsat/placement", "sat[solver=glucose4]/placement")
    assert [leg["pair"] for leg in cert["race"]] == ["cpsat/placement", "sat[solver=glucose4]/placement"]
    assert cert["count"] == 1 and cert["complete"] and f"winning the race {race}" in inst.meta["expected_evidence"]
    again = shlex.split(inst.meta["command"].replace("--out DIR", f"--out {tmp_path / 'b'}"))[1:]
    assert again[again.index("--certify") + 1] == race
    assert main(again) == 0
    assert read_instance(tmp_path / "b" / "gen_7x7_minimal_s4.toml").content_hash() == inst.content_hash()
    for bad, needle in (("cpsat/placement,cpsat/placement", "twice"), ("cpsat/placement,sat[solver]/placement",
                                                                        "KEY=VALUE")):
        assert main([*argv[:-1], bad, "--out", str(tmp_path / "c")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0]


def test_a_seed_in_hand_shows_how_many_answers_its_journal_holds(tmp_path):
    from harness.generate.batch import SeedTask, phase
    from harness.generate.generator import Settings, journal_path

    task = SeedTask(Settings(7, 7, hints="minimal"), 3, str(tmp_path), 60.0)
    assert phase(task) == "generate"  # no journal yet (planting, or a seed without a search)
    path = journal_path(task.settings, task.seed, tmp_path / PARTIAL_DIR)
    path.parent.mkdir(parents=True)
    path.write_text('{"journal":1,"key":"k"}\n')
    assert phase(task) == "generate"  # a header, no answer
    path.write_text('{"journal":1,"key":"k"}\n{"q":"a","a":"none","s":0.1}\n{"q":"b","a":[[0,1]],"s":2.0}\n')
    assert phase(task) == "generate, 2 answers"


def test_the_pool_names_no_more_seeds_running_than_it_has_workers(tmp_path):
    """ProcessPoolExecutor marks one queued task more than its workers as running; the line must not."""
    from harness.generate.batch import SeedTask, _Pool
    from harness.generate.generator import Settings

    settings = Settings(7, 7, fleet={1: 2, 2: 1, 3: 1}, hints="minimal", certify="sat/cell")
    pool = _Pool(1)
    try:
        futures = [pool.submit(SeedTask(settings, seed, str(tmp_path), 60.0)) for seed in range(30, 34)]
        seen = []
        while not all(f.done() for f in futures):
            seen.append(pool.running())
            time.sleep(0.02)
        assert all(len(names) <= 1 for names in seen)
        assert any(names for names in seen)
        assert [f.result().outcome for f in futures] == ["wrote"] * 4
    finally:
        pool.close()


def test_sigterm_starts_none_of_the_seeds_queued_behind_the_ones_in_flight(tmp_path):
    """The pool queues a task beyond its workers; once stopped, no worker may start it (or any other)."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "harness.cli", "generate", "--rows", "15", "--cols", "15", "--hints", "minimal",
           "--seed", "2", "--number", "5", "--jobs", "2", "--out", str(out)]
    in_flight = [out / PARTIAL_DIR / f"gen_15x15_minimal_s{s}.jsonl" for s in (2, 3)]
    code, err = _stopped_once_journaled(cmd, in_flight)
    assert code == 130, err
    assert err.count("interrupted; the oracle's answers so far are kept") == 2, err
    assert "not started" not in err and "Traceback" not in err
    assert sorted(p.name for p in (out / PARTIAL_DIR).iterdir()) == sorted(j.name for j in in_flight)
    assert not list(out.glob("*.toml"))


def test_a_journal_that_cannot_be_written_fails_its_seed_in_one_line(tmp_path, capsys, monkeypatch):
    """Finding 8 of issue 32: a full disk under the journal ended ``generate`` in a traceback."""
    import errno

    from harness.generate.journal import Journal

    def full(self, qid, answer, seconds):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path))

    monkeypatch.setattr(Journal, "record", full)
    code = main(["generate", "--rows", "8", "--cols", "8", "--hints", "minimal", "--seed", "5", "--certify",
                 "sat/placement", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    assert "seed 5: cannot write" in out + err and "No space left on device" in out + err


def test_after_an_interrupt_the_seeds_queued_run_as_not_started_and_no_future_is_cancelled(tmp_path):
    """The cause of a flaky SIGTERM test (CPython 3.11.7): cancelled futures made the pool keep two tables of pending
    work, and a worker that died then failed its manager thread in ``terminate_broken`` with InvalidStateError.
    Nothing is cancelled now: the worker that got SIGTERM ends its seed and runs those queued behind it as "not
    started"; every future ends with a result and no thread of the pool raises."""
    import threading

    from harness.generate.batch import SeedTask, _Pool
    from harness.generate.generator import Settings
    from procs import busy_seed

    raised = []
    hook, threading.excepthook = threading.excepthook, lambda args: raised.append(args.exc_value)
    try:
        pool = _Pool(1)
        marker = tmp_path / "in-hand"
        busy = pool.pool.submit(busy_seed, str(marker))
        queued = [pool.submit(SeedTask(Settings(7, 7, hints="minimal"), seed, str(tmp_path), 60.0))
                  for seed in range(3)]
        while not marker.exists() and not busy.done():  # in hand, its worker's SIGTERM handler set
            time.sleep(0.05)
        manager = pool.pool._executor_manager_thread
        pool.interrupt()
        pool.close(grace_s=procs.SETTLE_S)
        manager.join(procs.SETTLE_S)
    finally:
        threading.excepthook = hook
    assert not manager.is_alive() and raised == []
    assert not any(f.cancelled() for f in [busy, *queued])
    assert busy.result() == "interrupted"
    assert [f.result().outcome for f in queued] == ["not started"] * 3
    # the queued tasks are real seeds: none made
    assert not list(tmp_path.glob("*.toml"))


def test_after_an_interrupt_a_worker_that_does_not_end_is_killed_not_waited_on():
    """``generate`` must exit after SIGTERM even when a worker never returns (or the pool's manager thread died:
    CPython 3.11 can lose it to a cancelled future): the pool is shut down without waiting, and a worker still
    alive after the grace is killed.  Waiting on it, as ``shutdown(wait=True)`` does, hangs for ever."""
    import threading

    from harness.generate.batch import _Pool
    from procs import gone, stubborn

    pool = _Pool(1)
    future = pool.pool.submit(stubborn)
    pool.futures[future] = None
    deadline = time.monotonic() + 120
    while not future.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the task is in hand and its SIGTERM ignored
    processes = list(pool.pool._processes.values())
    assert processes and all(p.is_alive() for p in processes)
    pool.interrupt()
    closer = threading.Thread(target=pool.close, kwargs={"grace_s": 1.0}, daemon=True)
    closer.start()
    closer.join(120)  # a hang detector, not a time limit: the grace is 1 s
    assert not closer.is_alive(), "close() waited on a worker that does not end"
    # gone by its pid, not by Process.is_alive(): the pool's own thread may have reaped the killed worker while
    # not yet noting its exit code, and is_alive() then says True (the CPython 3.11 race CI met once)
    assert gone(*(p.pid for p in processes))
