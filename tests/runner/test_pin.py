"""``pin = true``: each run on physical cores no other run has while it executes, its worker and what it starts
pinned to them; every record says which CPUs its worker could run on, read from the kernel.  A campaign that
asks for more cores than the machine lets it use is refused before any run, in one line."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from fakecampaign import write_config
from harness.cli import main
from harness.core.cores import cpu_list, physical_cores, usable_cpus
from harness.store import ResultsStore

CORES = physical_cores()
SLEEP = '[[pairs]]\nbackend = "fake"\noptions = { mode = "sleep", seconds = 1.0 }\n'


def _records(out: Path) -> list[dict]:
    with ResultsStore(out, create=False) as store:
        return store.records()


def _span(rec: dict) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(rec["started_at"]), datetime.fromisoformat(rec["ended_at"])


@pytest.mark.skipif(len(CORES) < 2, reason="needs two physical cores this process may use")
def test_runs_at_once_are_pinned_to_cores_of_their_own(tmp_path):
    cfg = write_config(tmp_path, SLEEP, extra="jobs = 2\npin = true\nrepetitions = 2\n")
    assert main(["run", str(cfg), "--progress", "plain"]) in (0, 1, 3)  # the fake suite holds a broken file
    records = [r for r in _records(tmp_path / "out") if r["status"] in ("sat", "wrong")]
    one_core = {cpu_list(c) for c in CORES[:2]}
    assert len(records) >= 6 and {r["cpus"] for r in records} <= one_core, {r["cpus"] for r in records}
    overlapping = [(a, b) for i, a in enumerate(records) for b in records[i + 1:]
                   if _span(a)[0] < _span(b)[1] and _span(b)[0] < _span(a)[1]]
    assert overlapping, "no two runs were executed at once: nothing was shown"
    assert all(a["cpus"] != b["cpus"] for a, b in overlapping), overlapping


def test_unpinned_records_name_every_cpu_the_worker_could_use(tmp_path):
    cfg = write_config(tmp_path, SLEEP.replace("1.0", "0.1"))
    main(["run", str(cfg), "--progress", "plain"])
    records = [r for r in _records(tmp_path / "out") if r["worker_pid"]]
    assert records and {r["cpus"] for r in records} == {cpu_list(usable_cpus())}


def test_a_pinned_runs_child_processes_run_on_its_core(tmp_path):
    pidfile = tmp_path / "child.pid"
    pairs = f'[[pairs]]\nbackend = "fake"\noptions = {{ mode = "spawn", seconds = 2, pidfile = "{pidfile}" }}\n'
    cfg = write_config(tmp_path, pairs, extra="pin = true\n")
    seen: list[str] = []

    def watch() -> None:  # the first run's grandchild, as the kernel allows it to run
        while not seen:
            try:
                with open(f"/proc/{int(pidfile.read_text())}/status") as f:
                    seen.append(next(line.split(":")[1].strip() for line in f if line.startswith("Cpus_allowed")
                                     and "list" in line))
            except (OSError, ValueError, StopIteration):
                time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    main(["run", str(cfg), "--progress", "plain"])
    watcher.join(5)
    records = [r for r in _records(tmp_path / "out") if r["worker_pid"]]
    assert seen and seen[0] in {r["cpus"] for r in records} and seen[0] in {cpu_list(c) for c in CORES}, seen


def test_more_jobs_than_cores_and_a_pair_wanting_more_cores_are_refused_before_any_run(tmp_path, capsys):
    cfg = write_config(tmp_path, SLEEP, extra=f"jobs = {len(CORES) + 1}\npin = true\n")
    assert main(["run", str(cfg), "--progress", "plain"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"battlebench: error: pin = true gives each run physical cores of its own: jobs = {len(CORES) + 1}, "
                       f"and this machine lets this process use {len(CORES)} physical "
                       f"core{'s' if len(CORES) != 1 else ''}"), err
    wide = f'[[pairs]]\nbackend = "cpsat"\noptions = {{ threads = {len(CORES) + 1} }}\n'
    cfg = write_config(tmp_path / "wide", wide, extra="pin = true\n")
    assert main(["run", str(cfg), "--progress", "plain"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"battlebench: error: pin = true: a pair asks for {len(CORES) + 1} physical cores"), err
    assert not _records(tmp_path / "wide" / "out")  # nothing ran


def test_pin_is_a_boolean_and_is_refused_with_dask(tmp_path, capsys):
    for extra, problem in (('pin = "yes"\n', "pin: must be"), ('pin = true\nexecutor = "dask"\n', "pin: pins runs")):
        cfg = write_config(tmp_path, SLEEP, extra=extra)
        assert main(["run", str(cfg)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and problem in err[0], err
