"""The ``minizinc`` backend's one FlatZinc per run: compile a model once, add clauses to it, run a solver on it.

MiniZinc 2.6 compiles a model and its data for one solver (``minizinc --solver S -c``) and
runs a solver on a FlatZinc file (``minizinc --solver S file.fzn``, the driver's documented
second usage).  The minizinc Python package drives only ``.mzn`` models and compiles them
again on every solve, so this module drives the executable itself, with ``--json-stream``
(one JSON message a line: solutions, statistics, status, errors).  A FlatZinc run prints its
solutions in FlatZinc's output format (``y = array1d(1..N,[true, false, ...]);``, the
``output_array`` variables), which :func:`bool_arrays` reads (MiniZinc 2.6.4 refuses
``--ozn-file`` beside an ``.fzn``).  Every file lives in a temporary folder for one call.
"""

from __future__ import annotations

import json
import re
import signal
import shutil
import subprocess
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from harness.backends.base import ModelSize
from harness.core import scratch
from harness.errors import BackendError

_ARRAY = re.compile(r"^array \[[^\]]*\] of (?:var )?bool: (\w+)\s*::[^=]*output_array[^=]*= \[([^\]]*)\];$", re.M)
_SOLUTION = re.compile(r"(\w+) = array1d\([^,]*,\s*\[([^\]]*)\]\);")


@dataclass
class Flat:
    """One compilation: the FlatZinc text and MiniZinc's ``flatTime`` (None if it said none)."""

    text: str
    flat_s: float | None

    def size(self) -> ModelSize:
        """Variables and constraints: the ``var`` and ``constraint`` items of the FlatZinc.

        (The minizinc package's ``flat()`` statistics come back empty with 0.10 and
        MiniZinc 2.6, which print them as JSON, so the FlatZinc itself is counted.)
        """
        variables = constraints = 0
        for line in self.text.splitlines():
            if line.startswith("var "):
                variables += 1
            elif line.startswith("constraint "):
                constraints += 1
        return ModelSize(variables=variables, constraints=constraints)

    def literals(self, name: str) -> list[str] | None:
        """The entries of output array ``name`` (of ``bool``): FlatZinc identifiers or ``true``/``false``.

        None when the FlatZinc has no such array (the compiler proved the model unsatisfiable).
        """
        for array, body in _ARRAY.findall(self.text):
            if array == name:
                return [x.strip() for x in body.split(",") if x.strip()]
        return None

    def with_clauses(self, clauses: list[list[str]]) -> str:
        """The FlatZinc with ``bool_clause(lits, [])`` (some literal true) for each clause, before the solve item.

        Constant ``false`` literals are left out (an empty clause is unsatisfiable, as it should be).
        """
        extra = []
        for lits in clauses:
            kept = [x for x in lits if x != "false"]
            extra.append(f"constraint bool_clause([{','.join(kept)}],[]);\n")
        head, sep, tail = self.text.rpartition("\nsolve ")
        if not sep:
            raise BackendError("the FlatZinc has no solve item")
        return head + "\n" + "".join(extra) + sep.lstrip("\n") + tail


def bool_arrays(dzn: str) -> dict[str, list[bool]]:
    """The ``name = array1d(1..N,[true, ...]);`` assignments of a FlatZinc solution."""
    return {name: [x.strip() == "true" for x in body.split(",") if x.strip()] for name, body in _SOLUTION.findall(dzn)}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _data_json(data: dict[str, Any]) -> str:
    """MiniZinc's JSON data format: a Python set is ``{"set": [...]}``."""
    return json.dumps(data, default=lambda s: {"set": sorted(s)})


def _messages(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def _errors(messages: list[dict[str, Any]], stderr: str) -> str:
    said = [str(m.get("message", "")).strip() for m in messages if m.get("type") == "error"]
    text = "; ".join(s for s in said if s) or stderr.strip() or "no message"
    return " ".join(text.split())


@contextmanager
def _work_folder():
    """A scratch folder for one MiniZinc call (:mod:`harness.core.scratch`): removed after the call, and with the
    worker's root when the runner kills the worker mid-call."""
    path = scratch.folder("mzn")
    try:
        yield str(path)
    finally:
        shutil.rmtree(path, ignore_errors=True)


def compile_model(exe: str, solver_id: str, model: Path, data: dict[str, Any]) -> Flat:
    """``minizinc --solver ID -c`` of ``model`` with ``data``: its FlatZinc (BackendError if it fails)."""
    with _work_folder() as tmp:
        data_file = Path(tmp) / "data.json"
        data_file.write_text(_data_json(data))
        fzn = Path(tmp) / "model.fzn"
        cmd = [exe, "--solver", solver_id, "-c", "-s", "--json-stream", str(model), str(data_file),
               "--fzn", str(fzn), "--no-output-ozn"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        messages = _messages(out.stdout)
        if out.returncode < 0:
            raise BackendError(f"MiniZinc was ended by {_signal_name(-out.returncode)} while compiling {model.name}")
        if out.returncode != 0 or not fzn.exists():
            raise BackendError(f"MiniZinc could not compile {model.name}: {_errors(messages, out.stderr)}")
        stats: dict[str, Any] = {}
        for m in messages:
            if m.get("type") == "statistics":
                stats.update(m.get("statistics") or {})
        flat_s = stats.get("flatTime")
        return Flat(fzn.read_text(), float(flat_s) if isinstance(flat_s, (int, float)) else None)


@dataclass
class Outcome:
    """One FlatZinc run: MiniZinc's status name, its statistics, and why it was stopped early (``""``: it was not)."""

    status: str
    stats: dict[str, Any] = field(default_factory=dict)
    stopped: str = ""


def run(exe: str, solver_id: str, fzn_text: str, args: list[str], remaining: float | None,
        on_solution: Callable[[str], None]) -> Outcome:
    """``minizinc --solver ID ARGS file.fzn``; ``on_solution(dzn)`` for each solution as it arrives.

    Still running after ``remaining`` seconds, the MiniZinc process is terminated (its solver
    with it; the solutions already read are kept): ``stopped`` is ``"cancelled at the deadline"``.
    Ended by a signal from outside (the runner's SIGTERM to the process group at its wall
    limit): ``"killed by SIGTERM"``.  Any other failure is a BackendError.
    """
    with _work_folder() as tmp:
        fzn = Path(tmp) / "model.fzn"
        fzn.write_text(fzn_text)
        err = Path(tmp) / "stderr"
        cmd = [exe, "--solver", solver_id, "--json-stream", "-s", *args, str(fzn)]
        outcome = Outcome("UNKNOWN")
        messages: list[dict[str, Any]] = []
        solutions = 0
        fired = threading.Event()
        with err.open("w") as err_out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err_out, text=True) as proc:

            def stop() -> None:
                fired.set()
                proc.terminate()

            timer = threading.Timer(remaining, stop) if remaining is not None else None
            if timer is not None:
                timer.daemon = True
                timer.start()
            try:
                assert proc.stdout is not None
                for line in proc.stdout:
                    if not line.startswith("{"):
                        continue
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    kind = msg.get("type")
                    if kind == "solution":
                        solutions += 1
                        on_solution(str((msg.get("output") or {}).get("dzn", "")))
                    elif kind == "statistics":
                        outcome.stats.update(msg.get("statistics") or {})
                    elif kind == "status":
                        outcome.status = str(msg.get("status"))
                    elif kind == "error":
                        messages.append(msg)
            except BaseException:
                proc.terminate()
                raise
            finally:
                if timer is not None:
                    timer.cancel()
            code = proc.wait()
        if outcome.status == "UNKNOWN" and solutions:
            outcome.status = "SATISFIED"
        if fired.is_set():
            outcome.stopped = "cancelled at the deadline"
        elif code < 0:
            outcome.stopped = f"killed by {_signal_name(-code)}"
        elif code != 0 or outcome.status == "ERROR":
            raise BackendError(f"MiniZinc failed: {_errors(messages, err.read_text())}")
        return outcome


__all__ = ["Flat", "Outcome", "bool_arrays", "compile_model", "run"]
