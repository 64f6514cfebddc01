"""The local executor's jobs: one whose worker pool cannot start says so in one line and ends; the others take its
runs, and when none can start the campaign ends with its runs missing -- it never waits forever."""

from __future__ import annotations

import threading

import pytest

from harness.runner import local


class _Pool:
    def __init__(self, warm: int = 0) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def executor(monkeypatch):
    monkeypatch.setattr(local, "execute_spec", lambda pool, spec: {"run": spec})
    return local.LocalExecutor(jobs=2)


def _run(executor, specs, timeout=30.0):
    got, ended = [], threading.Event()

    def consume() -> None:
        got.extend(r for r in executor.run(specs) if r is not None)
        ended.set()

    threading.Thread(target=consume, daemon=True).start()
    assert ended.wait(timeout), "the executor never ended"
    return got


def test_a_job_whose_pool_cannot_start_leaves_its_runs_to_the_others(executor, monkeypatch, capsys):
    starts = []

    def pool(warm: int = 0):
        starts.append(1)
        if len(starts) == 1:
            raise FileNotFoundError(2, "No such file or directory", "/sys/fs/cgroup/blkio/battlebench-1-0")
        return _Pool()

    monkeypatch.setattr(local, "WorkerPool", pool)
    got = _run(executor, list(range(6)))
    assert sorted(r["run"] for r in got) == list(range(6))
    err = capsys.readouterr().err
    assert "could not start its workers: FileNotFoundError" in err and "Traceback" not in err


def test_when_no_pool_starts_the_campaign_ends_with_its_runs_missing(executor, monkeypatch, capsys):
    def pool(warm: int = 0):
        raise OSError("no cgroups")

    monkeypatch.setattr(local, "WorkerPool", pool)
    assert _run(executor, list(range(4))) == []
    assert capsys.readouterr().err.count("could not start its workers") == 2
