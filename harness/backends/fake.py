"""A scripted backend for testing the harness itself: answer, sleep, spin, crash, hog, ...

It has no solver: ``mode`` says what to do.  ``answer`` returns the boards listed in
the instance's ``meta["fake_boards"]`` (or ``meta["planted"]``) as they are, right or
wrong, so the verifier and ``classify`` can be tested; ``work`` does a fixed amount of
CPU work first (for CPU-time measurements); ``limit`` searches until its time limit
(``late`` seconds past it, and ``build_s`` makes the build slow, for the conformance
suite's limit check); the environment variable :data:`STALL_ENV` (``FORMULATION=SECONDS,...``)
makes every run of those formulations sleep that long after its work, as a machine busy
with other work stalls a process: wall time without CPU time, the same pair's label (for
testing that a report ranked by CPU time names the same winner quiet and loaded); the
other modes misbehave on purpose so
that limits and crash handling can be tested: ``stubborn`` blocks SIGTERM
(like a solver deep in C code) and answers late, ``spawn`` leaves a grandchild
process behind (for the process-group kill), ``child-fails`` fails when the limit's
SIGTERM ends its child process (as MiniZinc compiling under load did).
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time
from typing import ClassVar

from harness.backends.base import Answer, Backend, ModelSize, Option
from harness.errors import BackendError
from harness.puzzle.board import Board


STALL_ENV = "BATTLEBENCH_FAKE_STALL"
"""``FORMULATION=SECONDS,...``: after its work, a run of a listed formulation sleeps that long."""


def stall_s(formulation: str) -> float:
    """The seconds :data:`STALL_ENV` stalls a run of ``formulation`` (0 when it names none)."""
    for entry in os.environ.get(STALL_ENV, "").split(","):
        name, _, seconds = entry.partition("=")
        if name.strip() == formulation and seconds.strip():
            return float(seconds)
    return 0.0


class FakeBackend(Backend):
    name: ClassVar[str] = "fake"
    formulations: ClassVar[tuple[str, ...]] = ("placement", "cell")
    options: ClassVar[dict[str, Option]] = {
        "mode": Option("answer", str, ("answer", "sleep", "spin", "work", "child-spin", "crash", "raise", "exit",
                                      "hog", "stubborn", "spawn", "segfault", "import", "limit", "child-fails")),
        "seconds": Option(1.0, float, help="how long to sleep or spin"),
        "iterations": Option(1_000_000, int, help="mode work: a fixed amount of CPU work (loop iterations)"),
        "megabytes": Option(0, int, help="how much memory to allocate (mode hog)"),
        "hold": Option(0.0, float, help="mode hog: seconds to hold the memory before answering"),
        "memory_by": Option("address-space", str, ("address-space", "rss"), help="how the runner limits memory"),
        "exhausted": Option(True, bool, help="claim the search was exhausted"),
        "pidfile": Option("", str, help="mode spawn: write the grandchild's pid here"),
        "own_group": Option(False, bool, help="mode spawn: start the grandchild in a process group of its own "
                                              "(as MiniZinc starts fzn-gecode)"),
        "wait": Option(True, bool, help="mode child-spin: wait for the child (else answer while it still spins)"),
        "build_s": Option(0.0, float, help="seconds build() takes (a slow model build or solver import)"),
        "late": Option(0.0, float, help="mode limit: seconds past its time limit it stops"),
    }

    @classmethod
    def versions(cls) -> dict[str, str]:
        return {"fake": "1"}

    @classmethod
    def memory_limit_by(cls, opts):
        return opts["memory_by"]

    def build(self) -> ModelSize:
        time.sleep(self.opts["build_s"])
        return ModelSize(variables=len(self.model.placements), constraints=0)

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        mode = self.opts["mode"]
        if mode == "sleep":
            time.sleep(self.opts["seconds"])  # ignores its time limit on purpose
        elif mode == "spin":  # busy for ``seconds`` of CPU time (a loaded machine stretches the wall time)
            end = time.process_time() + self.opts["seconds"]
            while time.process_time() < end:
                pass
        elif mode == "child-spin":  # CPU spent in a child process, as a solver binary would
            code = (f"import sys, time\nt = time.process_time()\nwhile time.process_time() - t < {self.opts['seconds']}:"
                    " pass\nprint(flush=True)\nif sys.argv[1] == 'linger': time.sleep(5)")
            child = subprocess.Popen([sys.executable, "-c", code, "exit" if self.opts["wait"] else "linger"],
                                     stdout=subprocess.PIPE)
            child.stdout.readline()  # its CPU seconds are spent, however loaded the machine
            if self.opts["wait"]:
                child.wait()
            # else: answer while the child is still there, unreaped (the worker's guard ends it with the run)
        elif mode == "work":  # the same CPU time however busy the machine is; wall time varies
            x = 0
            for i in range(self.opts["iterations"]):
                x ^= i
        elif mode == "limit":  # searches until its time limit (plus ``late``), then stops undecided
            time.sleep(max(time_limit_s or 0.0, 0.0) + self.opts["late"])
            return Answer(boards=[], exhausted=False, hit_limit=True, solver_reported_s=0.0, detail="fake:limit")
        elif mode == "raise":
            raise BackendError("fake backend raised on request")
        elif mode == "child-fails":  # a solver process (MiniZinc compiling) that the limit's SIGTERM ends
            child = subprocess.run(["sleep", str(self.opts["seconds"])])
            if child.returncode != 0:
                raise BackendError(f"the solver could not compile the model (it ended with {child.returncode})")
        elif mode == "crash":
            os.abort()
        elif mode == "segfault":
            import ctypes

            ctypes.string_at(0)  # SIGSEGV, as a solver's C code might
        elif mode == "import":
            importlib.import_module("battlebench_no_such_solver")  # an import failure, on purpose
        elif mode == "exit":
            os._exit(3)
        elif mode == "stubborn":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            time.sleep(self.opts["seconds"])
        elif mode == "spawn":
            child = subprocess.Popen(["sleep", "300"], process_group=0 if self.opts["own_group"] else None)
            with open(self.opts["pidfile"], "w") as fh:
                fh.write(str(child.pid))
            time.sleep(self.opts["seconds"])
        elif mode == "hog":
            hog = bytearray(self.opts["megabytes"] * 1024 * 1024)
            for i in range(0, len(hog), 4096):
                hog[i] = 1
            time.sleep(self.opts["hold"])
        time.sleep(stall_s(self.formulation))
        meta = self.model.instance.meta
        rows = meta.get("fake_boards") or ([meta["planted"]] if "planted" in meta else [])
        boards = [Board(tuple(b)) for b in rows]
        if limit is not None:
            boards = boards[:limit]
        return Answer(boards=boards, exhausted=self.opts["exhausted"], solver_reported_s=0.0, detail=f"fake:{mode}")
