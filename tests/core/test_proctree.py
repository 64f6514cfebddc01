"""harness.core.proctree: a process's children and descendants from /proc, the tree's size not the machine's."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from harness.core.proctree import children, descendants

GRANDPARENT = ("import subprocess, sys, time\n"
               "kid = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
               "print(kid.pid, flush=True)\ntime.sleep(60)\n")


def test_the_descendants_of_a_process_are_its_children_and_theirs_parents_first():
    proc = subprocess.Popen([sys.executable, "-c", GRANDPARENT], stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(proc.stdout.readline())
        assert proc.pid in children(os.getpid()) and children(proc.pid) == [grandchild]
        found = descendants(os.getpid())
        assert found.index(proc.pid) < found.index(grandchild)
    finally:
        for pid in (grandchild, proc.pid):
            os.kill(pid, 9)
        proc.wait()
        proc.stdout.close()
    end = time.monotonic() + 30
    while proc.pid in descendants(os.getpid()) and time.monotonic() < end:
        time.sleep(0.05)
    assert proc.pid not in descendants(os.getpid())


def test_a_process_that_is_gone_has_no_children():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert children(proc.pid) == [] and descendants(proc.pid) == []
