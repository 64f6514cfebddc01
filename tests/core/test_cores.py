"""Physical cores read from the CPU topology (hyper-thread siblings together), their list notation, runs given
whole cores at a time, and a process pinned with every thread it has and every process it starts."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import procs
from harness.core.cores import Cores, affinity, cores_of, cpu_list, physical_cores, pin, usable_cpus


def fake_topology(root: Path, cpus: dict[int, tuple[int, int]]) -> Path:
    """A /sys/devices/system/cpu of ``cpus`` (cpu -> (package, core))."""
    for cpu, (package, core) in cpus.items():
        topo = root / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{package}\n")
        (topo / "core_id").write_text(f"{core}\n")
    return root


def test_hyper_thread_siblings_are_one_core_and_cores_of_two_packages_apart(tmp_path):
    sys_cpu = fake_topology(tmp_path, {0: (0, 0), 1: (0, 1), 2: (0, 0), 3: (0, 1), 4: (1, 0), 5: (1, 0)})
    assert physical_cores(frozenset(range(6)), sys_cpu) == [{0, 2}, {1, 3}, {4, 5}]
    assert physical_cores(frozenset({1, 3, 4}), sys_cpu) == [{1, 3}, {4}]  # only the CPUs this process may use
    assert physical_cores(frozenset({7}), sys_cpu) == [{7}]  # no topology: a CPU is its own core


def test_this_machines_cores_cover_the_cpus_it_may_use_once_each():
    cores = physical_cores()
    assert cores and frozenset().union(*cores) == usable_cpus()
    assert sum(len(c) for c in cores) == len(usable_cpus())


@pytest.mark.parametrize("cpus, text", [({0}, "0"), ({0, 1}, "0-1"), ({0, 2, 3, 4, 7}, "0,2-4,7"), (set(), "")])
def test_the_kernels_list_notation(cpus, text):
    assert cpu_list(cpus) == text


@pytest.mark.parametrize("options, cores", [({}, 1), ({"threads": 4}, 4), ({"split": 3, "threads": 2}, 3),
                                            ({"race": ["a", "b"]}, 2), ('{"threads": 8}', 8), ("not json", 1),
                                            ({"threads": True}, 1), ({"threads": 0}, 1)])
def test_the_cores_a_pair_asks_for(options, cores):
    assert cores_of(options) == cores


def test_cores_are_taken_all_at_once_and_a_taker_waits_for_enough():
    pool = Cores([frozenset({0}), frozenset({1}), frozenset({2, 3})])
    first = pool.take(2)
    assert first == {0, 1}
    got: list = []
    waiter = threading.Thread(target=lambda: got.append(pool.take(2)))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive() and not got  # one core free of the two it needs: it waits, holding none
    pool.give(first)
    waiter.join()
    assert got == [{0, 1}]  # the two free cores of lowest CPUs
    with pytest.raises(ValueError, match="asks for 4 physical cores and this machine has 3"):
        pool.take(4)
    stop = threading.Event()
    stop.set()
    assert pool.take(3, stop) is None  # not enough free and told to stop: nothing taken


def test_a_pinned_process_and_the_process_it_starts_run_on_those_cpus_only():
    cpu = min(usable_cpus())
    code = "import subprocess, sys, time; p = subprocess.Popen(['sleep', '30']); print(p.pid, flush=True); p.wait()"
    with subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline(); " + code],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as parent:
        _pin_and_look(parent, cpu)
    assert affinity(2 ** 22 + 12345) is None  # no such process
    assert procs.gone(parent.pid)


def _pin_and_look(parent: subprocess.Popen, cpu: int) -> None:
    try:
        pin(parent.pid, frozenset({cpu}))
        assert affinity(parent.pid) == {cpu}
        parent.stdin.write("go\n")
        parent.stdin.flush()
        child = int(parent.stdout.readline())
        try:
            with open(f"/proc/{child}/status") as f:
                allowed = next(line.split(":")[1].strip() for line in f if line.startswith("Cpus_allowed_list"))
        finally:
            os.kill(child, 9)
        assert allowed == str(cpu)
    finally:
        parent.kill()
        parent.wait()
