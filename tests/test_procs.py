"""tests/procs.py's patient wait: a child slowed down is waited for however long it takes, a hung one is not."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import procs


def test_a_busy_child_is_waited_for_and_its_output_kept():
    code = "import sys; x = sys.stdin.read(); s = sum(range(3 * 10**7)); print(x.upper(), s)"
    done = procs.run([sys.executable, "-c", code], input="hello", capture_output=True, text=True, stalled_s=30)
    assert done.returncode == 0 and done.stdout.split() == ["HELLO", str(sum(range(3 * 10**7)))]


def test_a_child_using_no_cpu_is_killed_as_hung_and_named():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    with pytest.raises(AssertionError, match="used no CPU for 3 s: hung"):
        procs.communicate(proc, stalled_s=3)
    assert proc.poll() is not None


def test_tree_cpu_counts_a_grandchild_at_work():
    code = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
            "'import time\\nend = time.process_time() + 1.5\\nwhile time.process_time() < end: pass'])")
    proc = subprocess.Popen([sys.executable, "-c", code])
    seen = 0.0
    while proc.poll() is None:
        seen = max(seen, procs.tree_cpu_s(proc.pid))
        time.sleep(0.05)
    assert seen > 0.2  # the parent only waits: the CPU is its child's
