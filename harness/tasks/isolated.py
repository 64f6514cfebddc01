"""``IsolatedSolver``: solve one puzzle at a time in warm, limited worker processes.

The facade the conformance suite, the generator, the tests and the benchmarks use when
they want one result now rather than a campaign: the solve task's own path
(:meth:`harness.tasks.solve.SolveTask.execute`: the same workers and limits as the
runner, every board verified and classified in the calling process).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from harness.core.limits import DEFAULT_OUTPUT_MB, Limits
from harness.core.status import Question
from harness.core.task import PairSpec, Subject, make_spec
from harness.errors import BackendError
from harness.puzzle.instance import Instance
from harness.runner.process import DEFAULT_HONOUR_S, WorkerPool
from harness.tasks.solve import BuildRequest, RunRequest, SolveResult, SolveTask, spec_of

if TYPE_CHECKING:
    from harness.tasks.solve.race import RaceResult


class IsolatedSolver:
    """One warm worker process per backend; limits enforced from outside (``memory_mb``, ``grace_s`` and the
    output cap ``output_mb`` for every run, the time limit per call)."""

    def __init__(self, grace_s: float | None = None, memory_mb: int | None = None, warm: bool = True,
                 honour_s: float = DEFAULT_HONOUR_S, max_warm: int | None = None,
                 output_mb: int | None = DEFAULT_OUTPUT_MB):
        self.limits = Limits.checked(time_s=None, memory_mb=memory_mb, grace_s=grace_s, output_mb=output_mb)
        self.pool = WorkerPool(warm=warm, honour_s=honour_s, max_warm=max_warm)

    def _limits(self, time_s: float | None) -> Limits:
        return replace(self.limits, time_s=time_s)

    def solve(
        self,
        instance: Instance,
        backend: str,
        formulation: str,
        task: Question = Question(),
        options: dict[str, Any] | None = None,
        time_limit_s: float | None = None,
    ) -> SolveResult:
        options = dict(options or {})  # an unknown backend or option: a UsageError before any process starts
        subject = Subject(instance.name, instance, instance.name, instance.content_hash())
        pair = PairSpec(backend, formulation, tuple(sorted(options.items())))
        spec = make_spec(subject, pair, spec_of(task), None, 1, self._limits(time_limit_s))
        return SolveTask().execute(self.pool, spec).result

    def race(self, instance: Instance, legs: list[tuple[str, str, dict[str, Any]]], task: Question = Question(),
             time_limit_s: float | None = None) -> "RaceResult":
        """Race the legs ``(backend, formulation, options)`` on ``instance`` (:mod:`harness.tasks.solve.race`)."""
        from harness.tasks.solve.race import leg_label, race

        limits = self._limits(time_limit_s)
        requests = [RunRequest.of(instance, backend, formulation, task, dict(options), limits)  # usage errors here
                    for backend, formulation, options in legs]
        return race(self.pool, requests, [leg_label(b, f, o) for b, f, o in legs])

    def build(self, instance: Instance, backend: str, formulation: str,
              options: dict[str, Any] | None = None, timeout_s: float = 600) -> dict[str, Any]:
        """Build only, in the backend's worker; raises BackendError if that fails."""
        ex = self.pool.execute(BuildRequest.of(instance, backend, formulation, options, self._limits(timeout_s)))
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
