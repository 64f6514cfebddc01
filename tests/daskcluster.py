"""A Dask cluster of separate processes for the tests: a ``dask scheduler`` at a given port and ``dask worker``
processes under nannies, started and stopped, so that a test can kill any of them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import procs

DASK = Path(sys.executable).with_name("dask")
ENV = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")  # as the executor's LocalCluster


def free_port() -> int:
    """A TCP port of localhost nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scheduler(where: Path, port: int) -> subprocess.Popen:
    """A scheduler at ``tcp://127.0.0.1:port`` that lets a task meet one dead worker (``allowed-failures`` 0), so
    that each attempt a campaign counts is one loss; returned once it listens."""
    proc = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                             "--dashboard-address", "127.0.0.1:0"], env=ENV, cwd=where,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def listens() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    assert procs.wait_until(listens, proc, every=0.1), "the scheduler ended before it listened"
    return proc


def worker(where: Path, address: str) -> subprocess.Popen:
    """One single-threaded worker under its nanny, connecting to ``address`` (the caller waits for it to join)."""
    return subprocess.Popen([str(DASK), "worker", address, "--nthreads", "1", "--nworkers", "1", "--host",
                             "127.0.0.1", "--no-dashboard", "--memory-limit", "0"], env=ENV, cwd=where,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def joined(client, proc: subprocess.Popen, workers: int = 1) -> bool:
    """Whether ``workers`` workers joined ``client``'s scheduler before ``proc`` (their command) ended; no
    deadline: only a worker that ends, or a cluster that uses no CPU for long, fails the wait."""
    return procs.wait_until(lambda: len(client.nthreads()) >= workers, proc, every=0.2)


def stop(*started: subprocess.Popen) -> None:
    """Stop the processes ``started`` (a worker before its scheduler: pass them in the order started)."""
    for proc in reversed(started):
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
