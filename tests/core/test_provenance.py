"""Each `battlebench run` session records what it was measured on, and every value is what the machine says."""

from __future__ import annotations

import os
import platform
import subprocess

from fakecampaign import FAKE, write_config
from harness.cli import main
from harness.core.provenance import SOURCE, describe, harness_commit, machine
from harness.store import ResultsStore


def test_the_facts_are_the_machines():
    got = machine()
    assert got["cores"] == os.cpu_count() and got["kernel"] == platform.release()
    assert len(got["load_avg"]) == 3 and all(x >= 0 for x in got["load_avg"])
    with open("/proc/cpuinfo") as f:
        models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
    if models:
        assert got["cpu"] == models[0]
    head = subprocess.run(["git", "-C", str(SOURCE), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert got["commit"].split("+")[0] == head.stdout.strip()
        dirty = subprocess.run(["git", "-C", str(SOURCE), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        assert got["commit"].endswith("+dirty") == bool(dirty)
    else:
        assert got["commit"] is None and harness_commit() is None


def test_every_session_of_a_campaign_is_recorded_and_reported(tmp_path, capsys):
    cfg = write_config(tmp_path, FAKE)
    out = tmp_path / "out"
    for _ in range(2):  # a run, then a resume
        main(["run", str(cfg), "--progress", "plain", "--output", str(out)])
    sessions = ResultsStore(out).sessions()
    assert len(sessions) == 2 and sessions[0]["started_at"] <= sessions[1]["started_at"]
    assert {s["cores"] for s in sessions} == {os.cpu_count()}
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) in (0, 1)
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "Measured on" in summary and describe(sessions[1]) in summary
    assert describe(sessions[0]) in (tmp_path / "report" / "index.html").read_text()
