"""``IsolatedSolver``: solve one instance at a time in warm, limited worker processes.

The facade ``battlebench solve``, the tests and the benchmarks use when they want one
result now rather than a campaign: the same workers and limits as the runner, with
every board verified and classified in the calling process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.backends.registry import check_pair
from harness.core.status import Task
from harness.errors import BackendError
from harness.puzzle.instance import Instance
from harness.runner.process import DEFAULT_GRACE_S, RunRequest, WorkerPool
from harness.solve import SolveResult

if TYPE_CHECKING:
    from harness.runner.race import RaceResult


class IsolatedSolver:
    """One warm worker process per backend; limits enforced from outside."""

    def __init__(self, grace_s: float = DEFAULT_GRACE_S, memory_mb: int | None = None, warm: bool = True):
        self.grace_s = grace_s
        self.memory_mb = memory_mb
        self.pool = WorkerPool(grace_s=grace_s, warm=warm)

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
        cls.resolve_options(dict(options or {}))
        request = RunRequest(instance, backend, formulation, task, dict(options or {}), time_limit_s, self.memory_mb)
        execution = self.pool.execute(request)
        result = execution.judge(request)
        result.times.setdefault("total_s", execution.wall_s)
        result.times["wall_s"] = execution.wall_s
        result.times["cpu_s"] = execution.cpu_s
        return result

    def race(self, instance: Instance, legs: list[tuple[str, str, dict[str, Any]]], task: Task = Task(),
             time_limit_s: float | None = None) -> "RaceResult":
        """Race the legs ``(backend, formulation, options)`` on ``instance`` (:mod:`harness.runner.race`)."""
        from harness.runner.race import leg_label, race

        requests, labels = [], []
        for backend, formulation, options in legs:
            check_pair(backend, formulation).resolve_options(dict(options))  # usage errors before any process
            requests.append(RunRequest(instance, backend, formulation, task, dict(options), time_limit_s,
                                       self.memory_mb))
            labels.append(leg_label(backend, formulation, options))
        return race(self.pool, requests, labels)

    def build(self, instance: Instance, backend: str, formulation: str,
              options: dict[str, Any] | None = None, timeout_s: float = 600) -> dict[str, Any]:
        """Build only, in the backend's worker; raises BackendError if that fails."""
        ex = self.pool.call(backend, "build", (instance, backend, formulation, options), timeout_s)
        if ex.kind != "ok":
            raise BackendError(f"build of {backend}/{formulation} failed: {ex.kind} {ex.error}".strip())
        return ex.outcome  # the build's result dict

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> "IsolatedSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["IsolatedSolver"]
