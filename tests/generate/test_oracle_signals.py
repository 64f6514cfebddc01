"""Ctrl-C during a solver call: the interrupt waits until the native call has returned."""

from __future__ import annotations

import os
import subprocess
import sys
import signal
import threading
import time

import pytest

from harness.generate.oracle import _guarded


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt here even when the suite runs as a background job (SIGINT ignored)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _sigint_after(*delays: float) -> None:
    for d in delays:
        threading.Timer(d, lambda: os.kill(os.getpid(), signal.SIGINT)).start()


def test_results_and_errors_come_back():
    assert _guarded(lambda: 5) == 5
    with pytest.raises(ZeroDivisionError):
        _guarded(lambda: 1 / 0)


def test_ctrl_c_asks_the_call_to_stop_and_waits_for_it():
    stopped = threading.Event()
    stops: list[float] = []
    finished: list[float] = []

    def search():  # a solver that ends soon after it is asked to stop
        stopped.wait(5)
        time.sleep(0.3)
        finished.append(time.monotonic())
        return "unknown"

    def stop():
        stops.append(time.monotonic())
        stopped.set()

    _sigint_after(0.2, 0.35)  # a second Ctrl-C while it winds down changes nothing
    with pytest.raises(KeyboardInterrupt):
        _guarded(search, stop)
    raised = time.monotonic()
    assert finished and finished[0] <= raised  # never while the solver is still running
    assert len(stops) >= 2  # asked again on the way


def test_without_stop_the_call_runs_to_its_end():
    finished: list[float] = []

    def search():
        time.sleep(0.6)
        finished.append(time.monotonic())

    t0 = time.monotonic()
    _sigint_after(0.1)
    with pytest.raises(KeyboardInterrupt):
        _guarded(search)
    assert finished and time.monotonic() - t0 >= 0.6


def test_preload_imports_every_extension_module_the_oracle_loads_lazily():
    """``generate`` preloads them before its signal handlers: an interrupt inside an extension's initialisation
    left it half made ("initialization failed") and once crashed the process at exit (SIGSEGV, CI)."""
    code = ("import sys; from harness.generate.oracle import preload; preload(); "
            "print(' '.join(m for m in ('pysolvers', 'ortools.sat.python.cp_model_helper') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["pysolvers", "ortools.sat.python.cp_model_helper"]
