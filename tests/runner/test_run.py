"""Campaigns end to end with the fake backend: store, resume, broken files, kill -9, Ctrl-C."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.runner.config import load_config
from harness.runner.run import run_campaign
from harness.store import ResultsStore
from harness.store.sqlite import SCHEMA_VERSION
from fakecampaign import FAKE, GOOD, write_config
from procs import SETTLE_S, described
import procs

REPO = Path(__file__).resolve().parents[2]

def quiet_run(cfg: Path, **kw):
    return run_campaign(load_config(cfg), stream=io.StringIO(), live=False, **kw)


def test_a_campaign_stores_one_row_per_run_with_the_right_statuses(tmp_path):
    cfg = write_config(tmp_path, FAKE)
    out = quiet_run(cfg)
    assert out.total == 10 and out.executed == 10 and out.resumed == 0
    with ResultsStore(tmp_path / "out", create=False) as store:
        rows = store.records()
    assert len(rows) == 10 and len({r["run_id"] for r in rows}) == 10
    by = {(r["instance"], r["formulation"]): r for r in rows}
    good = by[("good0", "placement")]
    assert good["status"] == "sat" and good["verdict"] == "ok" and good["answer"] == "sat"
    assert json.loads(good["boards"]) == [GOOD] and good["wall_s"] > 0 and good["pair"] == "fake/placement"
    wrong = by[("wrongboard", "cell")]
    assert wrong["status"] == "wrong" and wrong["verdict"] != "ok" and wrong["answer"] == "sat"
    broken = by[("broken", "placement")]
    assert broken["status"] == "error" and "broken.toml" in broken["error"] and "cols" in broken["error"]
    assert (tmp_path / "out" / "config.toml").read_text() == cfg.read_text()


def test_running_again_resumes_and_fresh_starts_over(tmp_path):
    cfg = write_config(tmp_path, FAKE)
    quiet_run(cfg)
    again = quiet_run(cfg)
    assert again.executed == 0 and again.resumed == 10
    fresh = quiet_run(cfg, fresh=True)
    assert fresh.executed == 10
    with ResultsStore(tmp_path / "out", create=False) as store:
        assert len(store) == 10


def test_a_resumed_campaign_tells_the_progress_which_runs_remain(tmp_path, monkeypatch):
    """The ETA of a resume comes from the remaining runs' pairs and limits, not from the session's rate."""
    import sqlite3

    from harness.runner import run as run_module

    cfg = write_config(tmp_path, FAKE, extra="jobs = 2")
    quiet_run(cfg)
    conn = sqlite3.connect(tmp_path / "out" / "results.sqlite")
    conn.execute("DELETE FROM runs WHERE pair = 'fake/cell'")
    conn.commit()
    conn.close()
    seen: list = []

    class Seen(run_module.Progress):
        def start(self, already_done=0, stored=None, todo=None):
            seen.append((self.jobs, already_done, sorted({r["pair"] for r in stored}), todo))
            super().start(already_done, stored, todo)

    monkeypatch.setattr(run_module, "Progress", Seen)
    assert quiet_run(cfg).executed == 5
    assert seen == [(2, 5, ["fake/placement"], [("fake/cell", 5.0)] * 5)]


def test_a_changed_config_is_refused_unless_fresh(tmp_path):
    cfg = write_config(tmp_path, FAKE)
    quiet_run(cfg)
    cfg.write_text(cfg.read_text().replace("time_s = 5", "time_s = 6"))
    with pytest.raises(InputError, match="--fresh"):
        quiet_run(cfg)
    assert quiet_run(cfg, fresh=True).executed == 10


def test_timeouts_and_memouts_do_not_stop_the_campaign(tmp_path):
    pairs = ('[[pairs]]\nbackend = "fake"\noptions = { mode = "spin", seconds = 30 }\n'
             '[[pairs]]\nbackend = "fake"\nformulation = "cell"\noptions = { mode = "hog", megabytes = 4000 }\n')
    cfg = write_config(tmp_path, pairs, time_s=0.3)
    quiet_run(cfg)
    with ResultsStore(tmp_path / "out", create=False) as store:
        rows = [r for r in store.records() if r["instance"] == "good1"]
    status = {r["formulation"]: r for r in rows}
    assert status["placement"]["status"] == "timeout" and status["placement"]["termination"] == "timeout"
    # ended by the runner: never past the limit and its grace (plus the kill itself), however loaded the machine
    assert status["placement"]["overshoot_s"] >= 0 and status["placement"]["wall_s"] <= 0.3 + 1 + 1.0  # grace_s = 1 (fakecampaign)
    assert status["cell"]["status"] == "memout" and status["cell"]["termination"] == "memout"


def _env(marker: str) -> dict[str, str]:
    env = dict(os.environ, BATTLEBENCH_TEST_MARK=marker)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _marked_processes(marker: str) -> list[int]:
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if f"BATTLEBENCH_TEST_MARK={marker}".encode() in (d / "environ").read_bytes():
                found.append(int(d.name))
        except OSError:
            continue
    return found


def _wait_for_rows(out: Path, n: int, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if (out / "results.sqlite").exists():
            try:
                with ResultsStore(out, create=False) as store:
                    if len(store) >= n:
                        return
            except InputError:  # the runner is creating the store right now
                pass
        time.sleep(0.1)
    raise AssertionError(f"fewer than {n} rows after {timeout} s")


def _slow_campaign(tmp_path: Path) -> Path:
    pairs = '[[pairs]]\nbackend = "fake"\noptions = { mode = "sleep", seconds = 0.4 }\n'
    return write_config(tmp_path, pairs, extra="jobs = 2\n")


@pytest.mark.parametrize("how", ["kill-9", "ctrl-c"])
def test_killing_the_runner_loses_nothing_stored_and_rerunning_completes_it(tmp_path, how):
    cfg = _slow_campaign(tmp_path)
    out = tmp_path / "out"
    marker = uuid.uuid4().hex
    cmd = [sys.executable, "-m", "harness.cli", "run", str(cfg), "--progress", "plain"]
    # SIGINT as a terminal's Ctrl-C gives it, even when these tests run as a background job (which
    # ignores SIGINT, and a child inherits that)
    proc = subprocess.Popen(cmd, env=_env(marker), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        _wait_for_rows(out, 1)
        proc.send_signal(signal.SIGKILL if how == "kill-9" else signal.SIGINT)
        _, err = procs.communicate(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    if how == "ctrl-c":
        assert proc.returncode == 130 and b"run the same command again to resume" in err, err.decode()
    else:
        assert proc.returncode == -signal.SIGKILL
    # workers die with their runner (the parent-death signal, their guard's kill of their session)
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline and _marked_processes(marker):
        time.sleep(0.1)
    left = _marked_processes(marker)
    assert not left, "orphan worker processes: " + "; ".join(described(pid) for pid in left)
    with ResultsStore(out, create=False) as store:
        before = len(store)
    assert 1 <= before < 5
    again = procs.run(cmd, env=_env(marker), capture_output=True, text=True)
    assert again.returncode == 1  # the campaign has a wrong board: exit 1
    assert f"{before} were already stored" in again.stdout
    with ResultsStore(out, create=False) as store:
        rows = store.records()
    assert len(rows) == 5 and len({r["run_id"] for r in rows}) == 5


def test_the_store_records_the_plan_and_each_run_its_cpu_time(tmp_path):
    cfg = write_config(tmp_path, FAKE)
    outcome = quiet_run(cfg)
    with ResultsStore(tmp_path / "out", create=False) as store:
        plan, records = store.plan(), store.records()
    assert len(plan) == outcome.total == 10 and {p["run_id"] for p in plan} == {r["run_id"] for r in records}
    assert {p["pair"] for p in plan} == {"fake/placement", "fake/cell"}
    solved = [r for r in records if r["status"] == "sat"]
    assert solved and all(r["cpu_s"] is not None and 0 <= r["cpu_s"] < 2 for r in solved)
    # the broken file's runs never reached a worker: no CPU time, an error with its message
    broken = [r for r in records if r["instance"] == "broken"]
    assert all(r["status"] == "error" and r["cpu_s"] is None and "broken.toml" in r["error"] for r in broken)
    assert outcome.exit_code == 1  # a wrong board outranks the error runs (3)


def test_error_runs_give_exit_3_and_a_summary_by_message(tmp_path):
    cfg = write_config(tmp_path, '[[pairs]]\nbackend = "fake"\nformulation = "cell"\n')
    (tmp_path / "inst" / "wrongboard.toml").unlink()  # no wrong board: only the broken file fails
    stream = io.StringIO()
    outcome = run_campaign(load_config(cfg), stream=stream, live=False)
    assert outcome.exit_code == 3 and outcome.errors == 1 and outcome.missing == 0
    text = stream.getvalue()
    assert "1 run ended in error or memout, by message" in text
    line = next(x for x in text.splitlines() if "broken.toml" in x)
    assert line.split()[:3] == ["error", "1", "run"] and line.endswith("(e.g. broken × fake/cell)")


def test_the_local_executor_says_what_is_running(tmp_path):
    from harness.runner.campaign import expand
    from harness.runner.local import LocalExecutor

    cfg = write_config(tmp_path, '[[pairs]]\nbackend = "fake"\noptions = { mode = "sleep", seconds = 0.5 }\n',
                       extra="jobs = 2\n")
    specs = [s for s in expand(load_config(cfg)) if s.instance is not None][:2]
    executor = LocalExecutor(jobs=2)
    seen = []
    try:
        for _item in executor.run(specs):
            seen.append(executor.running())
    finally:
        executor.close()
    flights = [f for f in seen if f]
    assert flights, seen
    names = {(inst, pair) for f in flights for inst, pair, secs in f}
    assert names <= {(s.instance_name, s.pair.label) for s in specs}
    assert all(secs >= 0 for f in flights for _, _, secs in f)
    assert executor.running() == []


def test_a_store_from_before_the_plan_gets_one_by_running_its_config_again(tmp_path):
    from damage import as_version_1

    cfg = write_config(tmp_path, FAKE)
    quiet_run(cfg)
    as_version_1(tmp_path / "out" / "results.sqlite")
    with ResultsStore(tmp_path / "out", create=False) as store:
        assert store.plan() is None
    again = quiet_run(cfg)
    assert again.executed == 0 and again.resumed == 10
    with ResultsStore(tmp_path / "out", create=False) as store:
        assert len(store.plan()) == 10 and store.version == SCHEMA_VERSION
