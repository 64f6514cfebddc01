"""The solve task's run of one pair on one instance, in this process: the pair resolved, execute, then judge.

A :class:`ResolvedPair` is the pair resolved once, in the parent: the backend's name, the
formulation, every option with its default filled in, the question it is asked and how the
memory limit holds; it travels with the request to the worker and back to the judge.
``execute`` is the part a worker process does: abstract model -> backend build ->
enumerate, timed, with failures caught (it imports the backend's solver library).
``judge`` is the part the caller does: every board through the independent verifier,
then ``classify``.  ``solve_in_process`` is both in one process; the runner
(:mod:`harness.runner`) executes in isolated, limited worker processes and judges in
the parent, so a solver's own claim is never trusted.
"""

from __future__ import annotations

import functools
import json
import time
import traceback
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from harness import __version__
from harness.backends.base import Answer
from harness.backends.registry import check_pair, get_backend
from harness.core.options import Resolved
from harness.core.limits import NO_LIMITS, Limits
from harness.core.status import Question, Status, Termination, classify
from harness.core.request import Request, WorkerOutcome, termination_of, worker_key
from harness.errors import HarnessError, OutputLimitError
from harness.model import build_model
from harness.puzzle.board import Board
from harness.puzzle.instance import Instance
from harness.puzzle.verify import verify

@dataclass(frozen=True)
class ResolvedPair:
    """One pair of the solve task on one question, resolved once (:meth:`of`, in the parent): the backend's
    registered name, the formulation, the options (every one, defaults filled in, checked), the question and
    how the worker holds the memory limit (the backend's ``memory_limit_by``)."""

    backend: str
    formulation: str
    options: Resolved
    question: Question = Question()
    memory_limit_by: str = "address-space"

    @classmethod
    def of(cls, backend: str, formulation: str, options: dict[str, Any] | None = None,
           question: Question = Question()) -> "ResolvedPair":
        """A pair as configured, resolved (UsageError: an unknown backend, formulation or option)."""
        solver = check_pair(backend, formulation)
        resolved = Resolved(solver.resolve_options(dict(options or {})))
        return cls(backend, formulation, resolved, question, solver.memory_limit_by(resolved))

    @property
    def solver_class(self) -> Any:
        """The backend class (a registry look-up; the options are not resolved again)."""
        return get_backend(self.backend)


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
    claim: str | None = None  # what the run says beyond its boards (harness.proofs.claims): unsat, no further board
    certificate: str | None = None  # how the claim was established: certified, trusted, rejected, unchecked
    certificate_why: str = ""
    proof: Any = None  # the ProofReport of the claim's proof, when one was logged

    @property
    def decided(self) -> bool:
        return self.status in (Status.SAT, Status.UNSAT)

    @property
    def unique(self) -> bool | None:
        """Does the puzzle have exactly one board?  True: one board and an exhausted search; False: two or
        more boards; None when the question cannot tell (solve, count-1, no board, or not sat)."""
        if self.status is not Status.SAT or not self.task.startswith("count") or self.task == "count-1":
            return None
        if self.count >= 2:
            return False
        return True if self.complete and self.count == 1 else None

    def to_json(self) -> dict[str, Any]:
        proof, self.proof = self.proof, None  # its compressed files are not the CLI's to show
        try:
            d = asdict(self)
        finally:
            self.proof = proof
        if proof is not None:
            d["proof"] = {"format": proof.format, "proof_bytes": proof.proof_bytes,
                          "proof_sha256": proof.proof_sha256, "cnf_sha256": proof.cnf_sha256,
                          "checks": [asdict(c) for c in proof.checks], "note": proof.note}
        d["unique"] = self.unique
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


@functools.lru_cache(maxsize=None)
def _library_versions(cls: Any, opts: str | None) -> tuple[tuple[str, str], ...]:
    import platform  # its import compiles regexes: paid where versions are read, not by every parent

    out = {"battlebench": __version__, "python": platform.python_version()}
    try:
        out.update(cls.versions() if opts is None else cls.run_versions(json.loads(opts)))
    except Exception as exc:  # a version lookup must never fail a run
        out[cls.name] = f"unknown ({exc})"
    return tuple(out.items())


def _versions(cls: Any, opts: dict[str, Any] | None = None) -> dict[str, str]:
    """What a run records as its versions (``opts``: its resolved options; None: the backend's whole list)."""
    return dict(_library_versions(cls, None if opts is None else json.dumps(opts, sort_keys=True, default=str)))


def _dedupe(boards: list[Board]) -> list[Board]:
    seen: set[frozenset] = set()
    out = []
    for b in boards:
        if b.cells not in seen:
            seen.add(b.cells)
            out.append(b)
    return out


@dataclass
class Outcome(WorkerOutcome):
    """What one execution in a worker produced, before anyone judged it.

    ``boards`` are as the solver returned them (deduplicated, not verified);
    ``failure`` is ``""``, ``"crash"`` (an exception), ``"memout"`` (MemoryError) or ``"output-limit"`` (a tool past
    the output cap).
    """

    boards: list[Board] = field(default_factory=list)
    exhausted: bool = False
    hit_limit: bool = False
    solver_reported_s: float | None = None
    detail: str = ""
    error: str = ""
    times: dict[str, float] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    proof: Any = None  # the proof stage's ProofReport (harness.proofs.stage), when a proof was logged

    def summary(self) -> str:
        return f"{len(self.boards)} board(s), exhausted={self.exhausted}"


def proving(pair: ResolvedPair) -> bool:
    """Whether the pair logs and checks a proof of its claims (its ``proof`` option is on)."""
    return pair.options.get("proof", "off") != "off"


def execute(instance: Instance, pair: ResolvedPair, time_s: float | None = None,
            memory_mb: int | None = None) -> Outcome:
    """Build and enumerate in this process (imports the backend's solver); no verification.  ``time_s`` is the
    run's time limit: the backend gets what remains of it after the build.  With ``proof`` on, the proof of an
    exhausted search is checked after it (:func:`harness.proofs.stage.prove`, within ``time_s`` again and
    ``memory_mb``); the model's precheck does not answer for the solver then (its claim would have no proof)."""
    cls = pair.solver_class
    out = Outcome()
    t0 = time.perf_counter()
    try:
        model = build_model(instance)
        t_model = time.perf_counter()
        out.model = {
            "variables": None,
            "constraints": None,
            "placements": model.stats["placements_kept"],
            "placements_total": model.stats["placements_total"],
        }
        if model.infeasible is not None and not proving(pair):  # no native model is needed to answer
            t_build = time.perf_counter()
            answer = Answer(exhausted=True, detail=f"decided by the model precheck: {model.infeasible}")
        else:
            solver = cls(model, pair.formulation, pair.options)
            size = solver.build()
            t_build = time.perf_counter()
            out.model.update(variables=size.variables, constraints=size.constraints)
            remaining = None if time_s is None else max(time_s - (t_build - t0), 0.0)
            answer = solver.enumerate(pair.question.limit, remaining)
        t_solve = time.perf_counter()
        if answer.proof is not None:
            from harness.proofs.stage import prove

            out.proof = prove(answer.proof, pair.options["proof"], time_s, memory_mb)
    except MemoryError as exc:  # its own message when it has one (a tool's measuring layer says what ended it)
        out.failure, out.error = "memout", f"MemoryError: {exc or 'the run went over its memory limit'}"
        out.times = {"total_s": time.perf_counter() - t0}
    except OutputLimitError as exc:  # the tool wrote more than the run's output cap: stopped, an error
        out.failure, out.error, out.detail = "output-limit", str(exc), str(exc)
        out.times = {"total_s": time.perf_counter() - t0}
    except HarnessError as exc:
        out.failure, out.error = "crash", str(exc)
        out.times = {"total_s": time.perf_counter() - t0}
    except Exception as exc:  # a crash inside a solver library
        out.failure, out.error = "crash", f"{type(exc).__name__}: {exc}"
        out.detail = traceback.format_exc(limit=5)
        out.times = {"total_s": time.perf_counter() - t0}
    else:
        out.boards = _dedupe(answer.boards)
        out.exhausted, out.hit_limit = answer.exhausted, answer.hit_limit
        out.solver_reported_s, out.detail = answer.solver_reported_s, answer.detail
        out.times = {
            "model_s": t_model - t0,
            "build_s": t_build - t0,
            "solve_s": t_solve - t_build,
            "total_s": time.perf_counter() - t0 - (out.proof.wall_s if out.proof is not None else 0.0),
        }
    out.versions = _versions(cls, pair.options)
    return out


def judge(
    instance: Instance,
    pair: ResolvedPair,
    outcome: Outcome | None,
    termination: Termination | None = None,
    error: str = "",
    detail: str = "",
) -> SolveResult:
    """Every board through the independent verifier, then ``classify``.  Runs in the caller.

    ``termination`` overrides the one the outcome implies (the runner's kill at the wall
    limit); ``outcome`` is None when no answer came back at all.  An answer that
    arrived after the wall limit is kept as detail, never as the answer.
    """
    task = pair.question
    result = SolveResult(
        instance=instance.name, backend=pair.backend, formulation=pair.formulation, options=dict(pair.options),
        task=task.label, status=Status.ERROR, termination=Termination.CRASH, error=error, detail=detail,
    )
    if outcome is None:
        result.termination = termination or Termination.CRASH
        result.status = classify(task, result.termination, 0, False, True)
        return result
    result.times, result.model, result.versions = outcome.times, outcome.model, outcome.versions
    result.solver_reported_s = outcome.solver_reported_s
    if termination is not Termination.TIMEOUT:  # a late answer's error is not the run's
        result.error = result.error or outcome.error
    result.detail = "\n".join(d for d in (detail, outcome.detail) if d)
    if termination is None:
        if outcome.failure == "memout":
            termination = Termination.MEMOUT
        elif outcome.failure == "output-limit":
            termination = Termination.OUTPUT_LIMIT
        elif outcome.failure:
            termination = Termination.CRASH
        else:
            termination = Termination.SOLVER_LIMIT if outcome.hit_limit else Termination.COMPLETED
    result.termination = termination
    verdicts = [verify(instance, b) for b in outcome.boards]
    result.boards = list(outcome.boards)
    result.verdicts = [str(v) for v in verdicts]
    result.count = len(outcome.boards)
    late = termination in (Termination.TIMEOUT, Termination.MEMOUT, Termination.CRASH, Termination.OUTPUT_LIMIT)
    result.status = classify(task, termination, result.count, outcome.exhausted and not late,
                             all(v.ok for v in verdicts))
    result.complete = outcome.exhausted and not late and result.status in (Status.SAT, Status.UNSAT)
    if result.complete:
        _certify(result, pair, outcome)
    return result


def _certify(result: SolveResult, pair: ResolvedPair, outcome: Outcome) -> None:
    """The claim of a decided, exhausted run and how it was established (:mod:`harness.proofs.claims`); a proof a
    checker refused makes the run wrong."""
    from harness.proofs.claims import certificate_of, claim_of

    result.claim = claim_of(result.count, True)
    result.proof = outcome.proof
    if outcome.proof is not None:
        result.certificate, result.certificate_why = certificate_of(outcome.proof.checks, True)
    elif proving(pair):
        result.certificate, result.certificate_why = "trusted", "proof on, but the backend logged no proof"
    else:
        result.certificate, result.certificate_why = certificate_of((), False)
    if result.certificate == "rejected":
        result.status, result.complete = Status.WRONG, False
        result.error = result.error or f"the claim {result.claim!r} is wrong: {result.certificate_why}"


def solve_in_process(
    instance: Instance,
    backend: str,
    formulation: str,
    task: Question = Question(),
    options: dict[str, Any] | None = None,
    time_limit_s: float | None = None,
) -> SolveResult:
    """Run one pair on one instance in this process (imports the backend's solver)."""
    pair = ResolvedPair.of(backend, formulation, options, task)
    return judge(instance, pair, execute(instance, pair, time_limit_s))


def build_in_process(instance: Instance, pair: ResolvedPair) -> dict[str, Any]:
    """Only build (abstract model + native solver model); for build-time benchmarks."""
    t0 = time.perf_counter()
    model = build_model(instance)
    t1 = time.perf_counter()
    size = pair.solver_class(model, pair.formulation, pair.options).build()
    t2 = time.perf_counter()
    return {"model_s": t1 - t0, "native_s": t2 - t1, "build_s": t2 - t0,
            "variables": size.variables, "constraints": size.constraints,
            "placements": model.stats["placements_kept"]}


def warm_up(backend: str, formulation: str | None = None) -> dict[str, str]:
    """Import the backend's solver library (and the modules its first build and solve
    load lazily) so that no run's build time pays for it: a count of a two-cell puzzle in
    ``formulation`` (the first run's: the solver library is the same for every formulation),
    or in every formulation when none is named.  With the backend's default options, never
    the run's: a run's tool or option may hang or fail, and the warm-up has no run's limits."""
    cls = get_backend(backend)
    tiny = Instance(rows=1, cols=2, fleet={1: 1}, row_clues=(1,), col_clues=(None, None), name="warm-up")
    for name in (formulation,) if formulation else cls.formulations:
        solve_in_process(tiny, backend, name, Question.count(0), time_limit_s=60)
    return _versions(cls)


@dataclass(frozen=True)
class RunRequest(Request):
    """One run of a pair on a puzzle, for its worker (picklable): the pair, the run's limits and the warm worker
    it runs in (``worker``: the backend with its options as configured)."""

    instance: Any
    pair: ResolvedPair
    limits: Limits = NO_LIMITS
    worker: str = ""

    @classmethod
    def of(cls, instance: Any, backend: str, formulation: str, question: Question = Question(),
           options: dict[str, Any] | None = None, limits: Limits = NO_LIMITS) -> "RunRequest":
        """The request of a pair as configured (resolved here, once)."""
        given = dict(options or {})
        return cls(instance, ResolvedPair.of(backend, formulation, given, question), limits, worker_key(backend, given))

    def key(self) -> str:
        return self.worker or worker_key(self.pair.backend, dict(self.pair.options))

    def execute(self) -> Outcome:
        return execute(self.instance, self.pair, self.limits.time_s, self.limits.memory_mb)

    def budget(self) -> Limits:
        """With ``proof`` on, the runner waits for the proof's check too: the time limit again after the solve's."""
        if not proving(self.pair) or self.limits.time_s is None:
            return self.limits
        return replace(self.limits, time_s=2 * self.limits.time_s)

    def warm(self) -> dict[str, str]:
        return warm_up(self.pair.backend, self.pair.formulation)

    def memory_limit_by(self) -> str:
        return self.pair.memory_limit_by


@dataclass
class Built(WorkerOutcome):
    """What :class:`BuildRequest` sends back: the build's times and model size."""

    sizes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildRequest(Request):
    """Only build (abstract model + native model) in the backend's worker: for build-time benchmarks."""

    instance: Any
    pair: ResolvedPair
    limits: Limits = NO_LIMITS
    worker: str = ""

    @classmethod
    def of(cls, instance: Any, backend: str, formulation: str, options: dict[str, Any] | None = None,
           limits: Limits = NO_LIMITS) -> "BuildRequest":
        given = dict(options or {})
        return cls(instance, ResolvedPair.of(backend, formulation, given), limits, worker_key(backend, given))

    def key(self) -> str:
        return self.worker or worker_key(self.pair.backend, dict(self.pair.options))

    def execute(self) -> Built:
        return Built(sizes=build_in_process(self.instance, self.pair))

    def warm(self) -> dict[str, str]:
        return warm_up(self.pair.backend, self.pair.formulation)

    def memory_limit_by(self) -> str:
        return self.pair.memory_limit_by


def judge_execution(request: RunRequest, execution: Any) -> SolveResult:
    """Verify the boards and classify (in the caller's process) an execution the runner measured."""
    termination = None if execution.kind == "ok" else termination_of(execution.kind)
    late = execution.outcome if execution.kind == "timeout" else None
    if late is not None and late.hit_limit and not late.failure and \
            not request.pair.question.decided(len(late.boards), late.exhausted):
        # the solver stopped itself on its own limit, just after the runner's: an undecided run
        # either way; keep "solver-limit" (overshoot_s says how late)
        termination = Termination.SOLVER_LIMIT
    wall_s, cpu_s = execution.wall_s, execution.cpu_s
    proof = getattr(execution.outcome, "proof", None)
    if proof is not None:  # the run's times are the solve's: the proof stage is recorded apart
        wall_s = max(wall_s - proof.wall_s, 0.0)
        cpu_s = None if cpu_s is None else max(cpu_s - proof.cpu_s, 0.0)
        time_s = request.limits.time_s
        if termination is None and time_s is not None and wall_s > time_s:
            termination = Termination.TIMEOUT  # the answer came after the limit (the proof's time kept it alive)
    result = judge(request.instance, request.pair, execution.outcome, termination, execution.error,
                   execution.detail)
    result.times.setdefault("total_s", wall_s)
    result.times["wall_s"] = wall_s
    result.times["cpu_s"] = cpu_s
    if getattr(execution, "warmup_s", None) is not None:
        result.times["warmup_s"] = execution.warmup_s
    return result


__all__ = ["BuildRequest", "Built", "Outcome", "RunRequest", "ResolvedPair", "SolveResult", "build_in_process",
           "execute", "judge", "judge_execution", "proving", "solve_in_process", "warm_up"]
