"""``IsolatedSolver``: solve one puzzle at a time in warm, limited worker processes.

The facade the conformance suite, the generator, the tests and the benchmarks use when
they want one result now rather than a campaign: the solve task's own path
(:meth:`harness.tasks.solve.SolveTask.execute`: the same workers and limits as the
runner, every board verified and classified in the calling process).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.backends.registry import check_pair
from harness.core.status import Question
from harness.core.task import Limits, PairSpec, Subject, make_spec
from harness.errors import BackendError
from harness.puzzle.instance import Instance
from harness.runner.process import DEFAULT_GRACE_S, DEFAULT_HONOUR_S, WorkerPool
from harness.solve import SolveResult
from harness.tasks.solve import BuildRequest, RunRequest, SolveTask, judge_execution, spec_of

if TYPE_CHECKING:
    from harness.runner.race import RaceResult


class IsolatedSolver:
    """One warm worker process per backend; limits enforced from outside."""

    def __init__(self, grace_s: float = DEFAULT_GRACE_S, memory_mb: int | None = None, warm: bool = True,
                 honour_s: float = DEFAULT_HONOUR_S, max_warm: int | None = None):
        self.grace_s = grace_s
        self.memory_mb = memory_mb
        self.pool = WorkerPool(grace_s=grace_s, warm=warm, honour_s=honour_s, max_warm=max_warm)

    def solve(
        self,
        instance: Instance,
        backend: str,
        formulation: str,
        task: Question = Question(),
        options: dict[str, Any] | None = None,
        time_limit_s: float | None = None,
    ) -> SolveResult:
        cls = check_pair(backend, formulation)  # usage errors before any process starts
        cls.resolve_options(dict(options or {}))
        options = dict(options or {})
        subject = Subject(instance.name, instance, instance.name, instance.content_hash())
        pair = PairSpec(backend, formulation, tuple(sorted(options.items())))
        spec = make_spec(subject, pair, spec_of(task), None, 1, Limits(time_limit_s, self.memory_mb, self.grace_s))
        return SolveTask().execute(self.pool, spec).result

    def race(self, instance: Instance, legs: list[tuple[str, str, dict[str, Any]]], task: Question = Question(),
             time_limit_s: float | None = None) -> "RaceResult":
        """Race the legs ``(backend, formulation, options)`` on ``instance`` (:mod:`harness.runner.race`)."""
        from harness.runner.race import leg_label, race

        requests, labels = [], []
        for backend, formulation, options in legs:
            check_pair(backend, formulation).resolve_options(dict(options))  # usage errors before any process
            requests.append(RunRequest(instance, backend, formulation, task, dict(options), time_limit_s,
                                       self.memory_mb))
            labels.append(leg_label(backend, formulation, options))
        return race(self.pool, requests, labels, judge_execution)

    def build(self, instance: Instance, backend: str, formulation: str,
              options: dict[str, Any] | None = None, timeout_s: float = 600) -> dict[str, Any]:
        """Build only, in the backend's worker; raises BackendError if that fails."""
        ex = self.pool.execute(BuildRequest(instance, backend, formulation, dict(options or {}), timeout_s,
                                            self.memory_mb))
        if ex.kind != "ok" or ex.outcome.failure:
            raise BackendError(f"build of {backend}/{formulation} failed: {ex.kind} {ex.error}".strip())
        return ex.outcome.sizes  # the build's result dict

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> "IsolatedSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["IsolatedSolver"]
