"""A Dask worker killed under a run, on a cluster of separate processes (``dask scheduler``, ``dask worker``): the run
is executed again and stored once; with no retries left it is stored as ``lost``, ``check`` fails on it, and the
same command executes it again in its place.  No process of the killed worker's runs is left."""

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


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and one single-threaded worker under a nanny, as processes of their own
    (:mod:`daskcluster`)."""
    from distributed import Client

    where = tmp_path_factory.mktemp("dask")
    port = daskcluster.free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = [daskcluster.scheduler(where, port)]
    started.append(daskcluster.worker(where, address))
    client = Client(address)
    assert daskcluster.joined(client, started[1]), "the worker ended"
    try:
        yield client, address
    finally:
        client.close()
        daskcluster.stop(*started)


def _config(tmp_path: Path, client, retries: int | None) -> Path:
    cfg = tmp_path / "c.toml"
    smoke = REPO / "instances" / "smoke"
    cfg.write_text(f'name = "dask-faults"\ninstances = ["{smoke / "tiny_4x4.toml"}", "{smoke / "nonsquare_4x6.toml"}"]\n'
                   f'output = "{tmp_path / "out"}"\nexecutor = "dask"\n'
                   f'scheduler = "{client.scheduler.address}"\n'
                   + (f"retries = {retries}\n" if retries is not None else "")
                   + "[limits]\ntime_s = 60\n[[pairs]]\nbackend = \"fake\"\n"
                   f'options = {{ mode = "spawn", seconds = 3, pidfile = "{tmp_path / "child.pid"}" }}\n')
    return cfg


def _run_killing_its_worker(cfg: Path, client, tmp_path: Path) -> tuple[subprocess.CompletedProcess, list[int]]:
    """``battlebench run`` of ``cfg``; once its first run is under way, SIGKILL of the Dask worker running it (once).
    The completed command, and the processes the kill should have taken (the worker's runs, their children)."""
    pidfile = tmp_path / "child.pid"
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "run", str(cfg), "--progress", "plain"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert procs.wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), proc), proc.communicate()
    (worker,) = client.run(os.getpid).values()  # the Dask worker process (its nanny's child)
    taken = descendants(worker)
    assert int(pidfile.read_text()) in taken  # the run's own child: the run is under way in that worker
    pidfile.unlink()
    os.kill(worker, signal.SIGKILL)
    out, err = procs.communicate(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), taken


def _records(tmp_path: Path) -> list[dict]:
    with ResultsStore(tmp_path / "out", create=False) as store:
        return store.records()


def test_a_run_whose_dask_worker_is_killed_runs_again_and_is_stored_once(cluster, tmp_path):
    client, _ = cluster
    done, taken = _run_killing_its_worker(_config(tmp_path, client, None), client, tmp_path)
    assert done.returncode == 0, done.stderr
    records = _records(tmp_path)
    assert len(records) == len({r["run_id"] for r in records}) == 2  # each run once
    assert all(r["status"] in ("sat", "unsat") and r["termination"] == "completed" for r in records), records
    assert procs.gone(*taken), [procs.described(p) for p in taken if procs.alive(p)]


def test_with_no_retries_left_the_run_is_stored_lost_checked_as_missing_and_executed_again(cluster, tmp_path):
    client, _ = cluster
    cfg = _config(tmp_path, client, 0)
    done, taken = _run_killing_its_worker(cfg, client, tmp_path)
    assert done.returncode == 3, done.stderr  # incomplete
    assert "1 lost with their worker or node" in done.stderr, done.stderr
    lost, measured = sorted(_records(tmp_path), key=lambda r: r["status"] != "lost")
    assert measured["status"] != "lost" and lost["status"] == "lost" and lost["error"].startswith(
        "lost: its Dask worker died on each of its 1 attempt (retries = 0); the last was tcp://127.0.0.1:"), lost
    assert procs.gone(*taken), [procs.described(p) for p in taken if procs.alive(p)]
    check = procs.run([sys.executable, "-m", "harness.cli", "check", str(tmp_path / "out")], capture_output=True,
                      text=True, cwd=tmp_path)
    assert check.returncode == 1, check.stdout
    assert ("completeness: 1 of 2 planned runs are missing (fake[mode=spawn" in check.stdout
            and "1 of them lost with their worker or node on every attempt" in check.stdout), check.stdout
    again = procs.run([sys.executable, "-m", "harness.cli", "run", str(cfg), "--progress", "plain"],
                      capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    records = _records(tmp_path)  # the measured record in the lost one's place, the other kept
    assert len(records) == 2 and "lost" not in {r["status"] for r in records}, records
    assert measured in records
    check = procs.run([sys.executable, "-m", "harness.cli", "check", str(tmp_path / "out")], capture_output=True,
                      text=True, cwd=tmp_path)
    assert "completeness: all 2 planned runs are stored" in check.stdout, check.stdout
