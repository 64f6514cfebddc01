"""The Dask scheduler killed under a campaign, on a cluster of separate processes: the runs it took are executed
again once a scheduler answers at its address, each stored once; when none answers in time, every run not stored is
stored as ``lost``, and the same command, with a cluster back, executes exactly those.  The lost cluster's workers
close themselves, and no process of their runs is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import daskcluster
import procs
from harness.core.proctree import descendants
from harness.store import ResultsStore

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not daskcluster.DASK.exists(),
                                reason="the dask command is not installed (pip install dask)")


class Cluster:
    """A scheduler at a fixed port and one worker, which a test kills and starts again."""

    def __init__(self, where: Path):
        self.where, self.port = where, daskcluster.free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.started: list[subprocess.Popen] = []

    def start(self) -> int:
        """Start a scheduler and a worker; the worker's process (its nanny's child) once it joined."""
        from distributed import Client

        self.started.append(daskcluster.scheduler(self.where, self.port))
        self.started.append(daskcluster.worker(self.where, self.address))
        with Client(self.address) as client:
            assert daskcluster.joined(client, self.started[-1]), "the worker ended"
            (pid,) = client.run(os.getpid).values()
        return pid

    def stop(self) -> None:
        daskcluster.stop(*self.started)


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()


def _config(tmp_path: Path, address: str, seconds: int = 3) -> Path:
    cfg = tmp_path / "c.toml"
    smoke = REPO / "instances" / "smoke"
    cfg.write_text(f'name = "dask-scheduler-loss"\n'
                   f'instances = ["{smoke / "tiny_4x4.toml"}", "{smoke / "nonsquare_4x6.toml"}"]\n'
                   f'output = "{tmp_path / "out"}"\nexecutor = "dask"\nscheduler = "{address}"\n'
                   "[limits]\ntime_s = 60\n[[pairs]]\nbackend = \"fake\"\n"
                   f'options = {{ mode = "spawn", seconds = {seconds}, pidfile = "{tmp_path / "child.pid"}" }}\n')
    return cfg


def _start_run(cfg: Path, tmp_path: Path, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "harness.cli", "run", str(cfg), "--progress", "plain"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, **env))


def _kill_scheduler_mid_run(cluster: Cluster, worker: int, proc: subprocess.Popen, tmp_path: Path) -> list[int]:
    """Once a run is under way, SIGKILL of the scheduler; the processes that should end with it (its worker and
    nanny, their runs and the runs' children), once they have."""
    pidfile = tmp_path / "child.pid"
    assert procs.wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), proc), proc.communicate()
    taken = descendants(worker) + [worker] + [p.pid for p in cluster.started[1:]]
    assert int(pidfile.read_text()) in taken  # the run is under way in that worker
    pidfile.unlink()
    cluster.started[0].send_signal(signal.SIGKILL)
    cluster.started[0].wait()
    assert procs.gone(*taken), [procs.described(p) for p in taken if procs.alive(p)]
    return taken


def _records(tmp_path: Path) -> list[dict]:
    with ResultsStore(tmp_path / "out", create=False) as store:
        return store.records()


def test_runs_the_lost_scheduler_took_run_again_when_a_scheduler_answers_and_are_stored_once(cluster, tmp_path):
    worker = cluster.start()
    # a window no loaded machine outlasts while the lost workers close and new ones start (60 s by default)
    proc = _start_run(_config(tmp_path, cluster.address), tmp_path, BATTLEBENCH_DASK_RECONNECT_S="900")
    _kill_scheduler_mid_run(cluster, worker, proc, tmp_path)  # its workers closed themselves
    cluster.start()  # a cluster back at the same address, within the window the runner waits
    out, err = procs.communicate(proc)
    assert proc.returncode == 0, err
    records = _records(tmp_path)
    assert len(records) == len({r["run_id"] for r in records}) == 2, records  # each run once
    assert all(r["status"] in ("sat", "unsat") and r["termination"] == "completed" for r in records), records


def test_when_no_scheduler_answers_every_run_not_stored_is_lost_and_the_same_command_runs_them(cluster, tmp_path):
    worker = cluster.start()
    cfg = _config(tmp_path, cluster.address)
    proc = _start_run(cfg, tmp_path, BATTLEBENCH_DASK_RECONNECT_S="2")
    _kill_scheduler_mid_run(cluster, worker, proc, tmp_path)
    out, err = procs.communicate(proc)
    assert proc.returncode == 3, err  # incomplete
    records = _records(tmp_path)
    assert len(records) == 2 and {r["status"] for r in records} == {"lost"}, records
    assert {r["error"] for r in records} == {f"lost: the Dask scheduler at {cluster.address} was lost and did not "
                                             "answer again within 2 s"}, records
    assert "2 lost with their worker or node" in err, err
    cluster.start()
    again = procs.run([sys.executable, "-m", "harness.cli", "run", str(cfg), "--progress", "plain"],
                      capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    records = _records(tmp_path)
    assert len(records) == 2 and {r["status"] for r in records} <= {"sat", "unsat"}, records


def test_a_reconnection_window_that_is_not_a_number_fails_before_any_run(tmp_path):
    cfg = _config(tmp_path, "tcp://127.0.0.1:9")
    done = procs.run([sys.executable, "-m", "harness.cli", "run", str(cfg)], capture_output=True, text=True,
                     cwd=tmp_path, env=dict(os.environ, BATTLEBENCH_DASK_RECONNECT_S="soon"))
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "battlebench: error: BATTLEBENCH_DASK_RECONNECT_S: 'soon' is not a number of seconds >= 0"), done.stderr
    assert not (tmp_path / "out").exists() or not _records(tmp_path)
