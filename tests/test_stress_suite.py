"""scripts/stress_suite.py: it runs a selection beside N hogs, reports commit, machine, load, times, counts and the
failures by name, and stops its hogs whatever ends the run (a SIGTERM included)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from procs import SETTLE_S, alive, gone

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "stress_suite.py"
DUMMY = '''
import os, time
from pathlib import Path

def test_passes():
    pass

def test_fails():
    assert 1 == 2, "one is not two"

def test_waits_when_told():
    marker = os.environ.get("STRESS_MARKER")
    if marker:
        Path(marker).write_text("in")
        time.sleep(600)
'''


def _hog_pids(line: str) -> list[int]:
    found = re.search(r"(\d+) hogs started \(pids ([\d ]+)\)", line)
    assert found, line
    pids = [int(p) for p in found.group(2).split()]
    assert len(pids) == int(found.group(1))
    return pids


def test_a_stressed_run_reports_its_machine_load_counts_and_failures_by_name(tmp_path):
    (tmp_path / "test_dummy.py").write_text(DUMMY)
    out = tmp_path / "report.md"
    done = subprocess.run([sys.executable, str(SCRIPT), "--hogs", "1", "--interval", "0.2", "--out", str(out), "--",
                           "-q", "-p", "no:cacheprovider", str(tmp_path / "test_dummy.py")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # pytest's: a test failed
    (pid,) = _hog_pids(done.stdout)
    assert gone(pid), "the hog outlived the run"
    report = out.read_text()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert head and head in report
    assert f"| machine | {os.cpu_count()} cores, " in report and " GiB RAM" in report
    assert re.search(r"\| wall time \| \d+\.\d s \|", report) and re.search(r"\| CPU time \| \d+\.\d s ", report)
    assert re.search(r"load average \(1 min\) \| min [\d.]+, mean [\d.]+, max [\d.]+ over [1-9]\d* samples", report)
    assert "| result | 2 passed, 1 failed, 0 errors, 0 skipped; pytest exit code 1 |" in report
    assert re.search(r"- failure `\S*test_dummy\S*::test_fails`: AssertionError: one is not two", report), report


def test_a_sigterm_mid_run_stops_the_hogs_and_the_suite(tmp_path):
    (tmp_path / "test_dummy.py").write_text(DUMMY)
    marker = tmp_path / "marker"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--hogs", "2", "--out", str(tmp_path / "r.md"), "--",
                             "-q", "-p", "no:cacheprovider", str(tmp_path / "test_dummy.py")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "STRESS_MARKER": str(marker)})
    try:
        pids = _hog_pids(proc.stdout.readline())
        assert all(alive(p) for p in pids)
        end = time.monotonic() + 10 * SETTLE_S  # ends as soon as the dummy test runs; long only for a loaded machine
        while not marker.exists():
            assert proc.poll() is None and time.monotonic() < end, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert gone(*pids), "a hog outlived the SIGTERM"
    assert not (tmp_path / "r.md").exists()  # no report of a run that did not finish
