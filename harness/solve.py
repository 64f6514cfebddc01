"""Solving one instance with one pair: in-process, or in an isolated worker process.

``solve_in_process`` is the whole pipeline of one run: abstract model -> backend
build -> enumerate -> every board through the independent verifier -> ``classify``.
``IsolatedSolver`` runs it in one warm, spawned worker process per backend (OR-Tools
and highspy cannot share a process) and enforces the wall-clock limit from outside:
a worker that overruns ``time_limit + grace`` is killed and the run is a timeout.
"""

from __future__ import annotations

import multiprocessing as mp
import platform
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any

from harness import __version__
from harness.backends.base import Answer
from harness.backends.registry import check_pair
from harness.core.status import Status, Task, Termination, classify
from harness.errors import BackendError, HarnessError
from harness.model import build_model
from harness.puzzle.board import Board
from harness.puzzle.instance import Instance
from harness.puzzle.verify import verify

DEFAULT_GRACE_S = 5.0


@dataclass
class SolveResult:
    """Everything one run produced; ``to_json`` gives the CLI's JSON object."""

    instance: str
    backend: str
    formulation: str
    options: dict[str, Any]
    task: str
    status: Status
    termination: Termination
    count: int = 0
    complete: bool = False
    boards: list[Board] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    times: dict[str, float] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    solver_reported_s: float | None = None
    detail: str = ""
    error: str = ""

    @property
    def decided(self) -> bool:
        return self.status in (Status.SAT, Status.UNSAT)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = str(self.status)
        d["termination"] = str(self.termination)
        # Boards are shown as the answer only when the task was decided with every
        # board verified (status sat).  A wrong run's boards are kept as
        # "rejected_boards" (see "verdicts"); boards found before a limit stopped an
        # undecided run (verified, but not an answer to the task) as "partial_boards".
        d["boards"] = [b.to_json() for b in self.boards] if self.status is Status.SAT else []
        if self.boards and self.status is not Status.SAT:
            key = "rejected_boards" if self.status is Status.WRONG else "partial_boards"
            d[key] = [b.to_json() for b in self.boards]
        for key in ("build_s", "solve_s", "total_s"):
            d["times"].setdefault(key, None)  # null: the run ended before that phase
        d["model"].setdefault("variables", None)
        d["model"].setdefault("constraints", None)
        return d


def _versions(cls: Any) -> dict[str, str]:
    out = {"battlebench": __version__, "python": platform.python_version()}
    try:
        out.update(cls.versions())
    except Exception as exc:  # a version lookup must never fail a run
        out[cls.name] = f"unknown ({exc})"
    return out


def _dedupe(boards: list[Board]) -> list[Board]:
    seen: set[frozenset] = set()
    out = []
    for b in boards:
        if b.cells not in seen:
            seen.add(b.cells)
            out.append(b)
    return out


def solve_in_process(
    instance: Instance,
    backend: str,
    formulation: str,
    task: Task = Task(),
    options: dict[str, Any] | None = None,
    time_limit_s: float | None = None,
) -> SolveResult:
    """Run one pair on one instance in this process (imports the backend's solver)."""
    options = dict(options or {})
    cls = check_pair(backend, formulation)
    resolved = cls.resolve_options(options)
    result = SolveResult(
        instance=instance.name, backend=backend, formulation=formulation, options=resolved,
        task=task.label, status=Status.ERROR, termination=Termination.CRASH,
    )
    t0 = time.perf_counter()
    try:
        model = build_model(instance)
        t_model = time.perf_counter()
        result.model = {
            "variables": None,
            "constraints": None,
            "placements": model.stats["placements_kept"],
            "placements_total": model.stats["placements_total"],
        }
        if model.infeasible is not None:  # no native model is needed to answer
            t_build = time.perf_counter()
            answer = Answer(exhausted=True, detail=f"decided by the model precheck: {model.infeasible}")
        else:
            solver = cls(model, formulation, resolved)
            size = solver.build()
            t_build = time.perf_counter()
            result.model.update(variables=size.variables, constraints=size.constraints)
            remaining = None if time_limit_s is None else max(time_limit_s - (t_build - t0), 0.0)
            answer = solver.enumerate(task.limit, remaining)
        t_solve = time.perf_counter()
    except HarnessError as exc:
        result.error = str(exc)
        result.times = {"total_s": time.perf_counter() - t0}
        result.versions = _versions(cls)
        return result
    except Exception as exc:  # a crash inside a solver library
        result.error = f"{type(exc).__name__}: {exc}"
        result.detail = traceback.format_exc(limit=5)
        result.times = {"total_s": time.perf_counter() - t0}
        result.versions = _versions(cls)
        return result

    boards = _dedupe(answer.boards)
    verdicts = [verify(instance, b) for b in boards]
    result.boards = boards
    result.verdicts = [str(v) for v in verdicts]
    result.count = len(boards)
    result.termination = Termination.SOLVER_LIMIT if answer.hit_limit else Termination.COMPLETED
    result.status = classify(task, result.termination, len(boards), answer.exhausted, all(v.ok for v in verdicts))
    result.complete = answer.exhausted and result.status in (Status.SAT, Status.UNSAT)
    result.solver_reported_s = answer.solver_reported_s
    result.detail = answer.detail
    result.times = {
        "model_s": t_model - t0,
        "build_s": t_build - t0,
        "solve_s": t_solve - t_build,
        "total_s": time.perf_counter() - t0,
    }
    result.versions = _versions(cls)
    return result


def build_in_process(
    instance: Instance, backend: str, formulation: str, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Only build (abstract model + native solver model); for build-time benchmarks."""
    cls = check_pair(backend, formulation)
    t0 = time.perf_counter()
    model = build_model(instance)
    t1 = time.perf_counter()
    size = cls(model, formulation, cls.resolve_options(dict(options or {}))).build()
    t2 = time.perf_counter()
    return {"model_s": t1 - t0, "native_s": t2 - t1, "build_s": t2 - t0,
            "variables": size.variables, "constraints": size.constraints,
            "placements": model.stats["placements_kept"]}


# --------------------------------------------------------------------------- workers
def warm_up(backend: str) -> dict[str, str]:
    """Import the backend's solver library (and the modules its first build and solve
    load lazily) so that no run's build time pays for it."""
    from harness.backends.registry import get_backend

    cls = get_backend(backend)
    tiny = Instance(rows=1, cols=2, fleet={1: 1}, row_clues=(1,), col_clues=(None, None), name="warm-up")
    for formulation in cls.formulations:
        solve_in_process(tiny, backend, formulation, Task.count(0), time_limit_s=60)
    return _versions(cls)


_WORKER_FUNCTIONS = {"solve": solve_in_process, "build": build_in_process, "warm": warm_up}


def _serve(conn: Any) -> None:
    """Worker loop: receive (function, args), send back ("ok", result) or ("err", text)."""
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        fn, args = msg
        try:
            conn.send(("ok", _WORKER_FUNCTIONS[fn](*args)))
        except BaseException as exc:  # noqa: BLE001 - report everything to the parent
            conn.send(("err", f"{type(exc).__name__}: {exc}"))


class _Worker:
    def __init__(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        self.proc.start()
        child.close()

    def call(self, fn: str, args: tuple, timeout: float | None) -> tuple[str, Any]:
        try:
            self.conn.send((fn, args))
        except (OSError, BrokenPipeError):
            self.kill()
            return ("crash", f"worker process died (exit code {self.proc.exitcode})")
        if not self.conn.poll(timeout):
            self.kill()
            return ("timeout", None)
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            code = self.proc.exitcode
            self.kill()
            return ("crash", f"worker process died (exit code {code})")

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def close(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, BrokenPipeError):
            pass
        self.proc.join(2)
        self.kill()


class IsolatedSolver:
    """One warm worker process per backend; limits enforced from outside."""

    def __init__(self, grace_s: float = DEFAULT_GRACE_S):
        self.grace_s = grace_s
        self._workers: dict[str, _Worker] = {}

    def solve(
        self,
        instance: Instance,
        backend: str,
        formulation: str,
        task: Task = Task(),
        options: dict[str, Any] | None = None,
        time_limit_s: float | None = None,
    ) -> SolveResult:
        cls = check_pair(backend, formulation)  # usage errors before any process starts
        resolved = cls.resolve_options(dict(options or {}))
        worker = self._worker(backend)
        hard = None if time_limit_s is None else time_limit_s + self.grace_s
        started = time.perf_counter()
        kind, payload = worker.call("solve", (instance, backend, formulation, task, options, time_limit_s), hard)
        if kind == "ok":
            return payload
        self._workers.pop(backend, None)
        if kind == "err":
            worker.close()
        termination = Termination.TIMEOUT if kind == "timeout" else Termination.CRASH
        status = Status.TIMEOUT if kind == "timeout" else Status.ERROR
        return SolveResult(
            instance=instance.name, backend=backend, formulation=formulation,
            options=resolved, task=task.label,
            status=status, termination=termination,
            error="" if kind == "timeout" else str(payload),
            detail=f"killed after {hard:.1f} s (limit {time_limit_s} s + grace {self.grace_s} s)"
            if kind == "timeout" else "",
            times={"total_s": time.perf_counter() - started},
        )

    def _worker(self, backend: str) -> _Worker:
        worker = self._workers.get(backend)
        if worker is None or not worker.proc.is_alive():
            worker = self._workers[backend] = _Worker()
            kind, _ = worker.call("warm", (backend,), 120)  # imports are not part of any run
            if kind != "ok":  # let the run itself meet and report the problem
                worker.close()
                worker = self._workers[backend] = _Worker()
        return worker

    def build(self, instance: Instance, backend: str, formulation: str,
              options: dict[str, Any] | None = None, timeout_s: float = 600) -> dict[str, Any]:
        """Build only, in the backend's worker; raises BackendError if that fails."""
        kind, payload = self._worker(backend).call("build", (instance, backend, formulation, options), timeout_s)
        if kind != "ok":
            self._workers.pop(backend).close()
            raise BackendError(f"build of {backend}/{formulation} failed: {kind} {payload or ''}")
        return payload

    def close(self) -> None:
        for w in self._workers.values():
            w.close()
        self._workers.clear()

    def __enter__(self) -> "IsolatedSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["SolveResult", "solve_in_process", "build_in_process", "IsolatedSolver"]
