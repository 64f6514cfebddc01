"""The solve task: a puzzle solved, or its distinct boards counted up to K, by backends; every board verified.

Its *question* (:class:`~harness.core.status.Question`) is ``solve`` (one board, or proof
that none exists) or ``count-K`` (distinct boards up to K; K=2 certifies uniqueness, K=0
counts all).  A config names it ``task = "solve"``, ``"count-K"`` or ``{ kind = "count",
k = K }``.  Its pairs are backend x formulation x options (``[[pairs]]`` with ``backend``,
``formulation``, ``options``), or a race of such pairs (``race = [...]``).

A run: the worker builds and enumerates (:func:`harness.solve.execute`); here every board
goes through the independent verifier and ``classify`` gives the status
(:func:`judge_execution`); :meth:`SolveTask.record` fills the record's columns as
``docs/reference/records.md`` documents them for this task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.backends.base import solver_label
from harness.backends.registry import check_pair, get_backend
from harness.core.record import dumps
from harness.core.status import Question, Termination
from harness.core.tables import configured_options, get, toml_type, unknown
from harness.core.task import (RACE, Executed, PairSpec, ReportSection, Request, RunSpec, Subject, TaskSpec,
                               TaskType, WorkerOutcome, base_record, error_record, forms_message, read_subject,
                               worker_key)
from harness.errors import ConfigError, InputError
from harness.solve import Outcome, SolveResult, judge

_PAIR_KEYS = ("backend", "formulation", "options")


@dataclass(frozen=True)
class RunRequest(Request):
    """One run of a backend x formulation on a puzzle, for its worker (picklable)."""

    instance: Any
    backend: str
    formulation: str
    task: Question = Question()
    options: dict[str, Any] = field(default_factory=dict)
    time_limit_s: float | None = None
    memory_mb: int | None = None

    def key(self) -> str:
        return worker_key(self.backend, self.options)

    def execute(self) -> Outcome:
        from harness.solve import execute

        return execute(self.instance, self.backend, self.formulation, self.task, self.options, self.time_limit_s)

    def warm(self) -> dict[str, str]:
        from harness.solve import warm_up

        return warm_up(self.backend)

    def memory_limit_by(self) -> str:
        cls = get_backend(self.backend)
        return cls.memory_limit_by(cls.resolve_options(dict(self.options)))


@dataclass
class Built(WorkerOutcome):
    """What :class:`BuildRequest` sends back: the build's times and model size."""

    sizes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BuildRequest(Request):
    """Only build (abstract model + native model) in the backend's worker: for build-time benchmarks."""

    instance: Any
    backend: str
    formulation: str
    options: dict[str, Any] = field(default_factory=dict)
    time_limit_s: float | None = None
    memory_mb: int | None = None

    def key(self) -> str:
        return worker_key(self.backend, self.options)

    def execute(self) -> Built:
        from harness.solve import build_in_process

        return Built(sizes=build_in_process(self.instance, self.backend, self.formulation, self.options))

    def warm(self) -> dict[str, str]:
        from harness.solve import warm_up

        return warm_up(self.backend)


def judge_execution(request: RunRequest, execution: Any) -> SolveResult:
    """Verify the boards and classify (in the caller's process) an execution the runner measured."""
    termination = {"ok": None, "timeout": Termination.TIMEOUT, "memout": Termination.MEMOUT,
                   "crash": Termination.CRASH}[execution.kind]
    late = execution.outcome if execution.kind == "timeout" else None
    if late is not None and late.hit_limit and not late.failure and \
            not request.task.decided(len(late.boards), late.exhausted):
        # the solver stopped itself on its own limit, just after the runner's: an undecided run
        # either way; keep "solver-limit" (overshoot_s says how late)
        termination = Termination.SOLVER_LIMIT
    result = judge(request.instance, request.backend, request.formulation, request.task, request.options,
                   execution.outcome, termination, execution.error, execution.detail)
    result.times.setdefault("total_s", execution.wall_s)
    result.times["wall_s"] = execution.wall_s
    result.times["cpu_s"] = execution.cpu_s
    if getattr(execution, "warmup_s", None) is not None:
        result.times["warmup_s"] = execution.warmup_s
    return result


def _count_k(kind: str) -> int | None:
    head, _, k = kind.partition("-")
    return int(k) if head == "count" and k.isascii() and k.isdigit() else None


def question_of(spec: TaskSpec) -> Question:
    return Question.of_label(spec.label)


def spec_of(question: Question) -> TaskSpec:
    return TaskSpec("solve", question.label, (("k", question.k),))


class SolveTask(TaskType):
    """The solve task (see the module docstring)."""

    name = "solve"
    kinds = ("solve", "count")
    plugin = "backend"
    variant = "formulation"
    subject = "puzzle instance"
    family = "harness.backends.registry:FAMILY"
    pair_keys = (*_PAIR_KEYS, "race")

    # ------------------------------------------------------------------ config
    @classmethod
    def owns(cls, kind: str) -> bool:
        return kind in cls.kinds or _count_k(kind) is not None

    @classmethod
    def forms(cls) -> list[str]:
        return ["'solve'", "'count-K'", '{ kind = "count", k = K }']

    @classmethod
    def parse(cls, raw: str | dict[str, Any], path: Path) -> TaskSpec:
        if isinstance(raw, str):
            if raw == "solve":
                return spec_of(Question())
            k = _count_k(raw)
            if k is None:
                raise ConfigError(path, "task", forms_message(raw))
            return spec_of(Question.count(k))
        unknown(raw, ("kind", "k"), path, "task.")
        if raw["kind"] == "solve":
            if "k" in raw:
                raise ConfigError(path, "task.k", "only { kind = \"count\" } takes k")
            return spec_of(Question())
        k = get(raw, "k", int, path, required=True, where="task.k")
        if k < 0:
            raise ConfigError(path, "task.k", "must be >= 0 (0 counts all boards)")
        return spec_of(Question.count(k))

    @classmethod
    def parse_pair(cls, entry: dict[str, Any], where: str, path: Path, spec: TaskSpec) -> PairSpec:
        if "race" in entry:
            return _race(entry, path, where)
        return _pair(entry, path, where)

    # ------------------------------------------------------------------ campaign
    @classmethod
    def load(cls, path: Path, shown: str) -> Subject:
        from harness.puzzle.formats import read_instance

        return read_subject(path, read_instance, shown)

    def execute(self, pool: Any, spec: RunSpec) -> Executed:
        if spec.instance is None:
            return Executed(error_record(spec, spec.load_error))
        if spec.pair.legs:
            return self._race(pool, spec)
        request = RunRequest(spec.instance, spec.pair.backend, spec.pair.formulation, question_of(spec.task),
                             spec.options, spec.limits.time_s, spec.limits.memory_mb)
        execution = pool.execute(request)
        result = judge_execution(request, execution)
        return Executed(self.record(spec, execution, result), result)

    def _race(self, pool: Any, spec: RunSpec) -> Executed:
        """A racing portfolio (:mod:`harness.runner.race`): the standing leg's answer, the race's wall time, every
        leg's CPU time; ``detail`` (JSON) names the winner and how each leg ended."""
        from harness.runner.race import race

        requests = []
        for leg in spec.pair.legs:
            options = leg.option_dict
            if spec.seed is not None:
                options["seed"] = spec.seed
            requests.append(RunRequest(spec.instance, leg.backend, leg.formulation, question_of(spec.task), options,
                                       spec.limits.time_s, spec.limits.memory_mb))
        outcome = race(pool, requests, [leg.label for leg in spec.pair.legs], judge_execution)
        standing = requests[outcome.decided_by]
        result = outcome.result
        rec = self.record(spec, outcome.execution, result)
        resolved = get_backend(standing.backend).resolve_options(dict(standing.options))
        rec.update(options=dumps({"race": [leg.label for leg in spec.pair.legs]}),
                   solver_version=solver_label(get_backend(standing.backend), resolved, result.versions or {}),
                   detail=dumps({**outcome.to_detail(), "detail": result.detail or ""}))
        return Executed(rec, outcome)

    @staticmethod
    def record(spec: RunSpec, execution: Any, result: SolveResult) -> dict[str, Any]:
        """The run record of one executed run (``docs/reference/records.md``, the solve task)."""
        rec = base_record(spec, execution)
        inst = spec.instance
        try:
            cls = get_backend(spec.pair.backend)
        except InputError:  # a race: its legs' backends are named in its detail
            cls = None
        resolved = result.options if cls is not None else spec.options  # judge() resolved them
        outcome = execution.outcome
        if outcome is None:
            answer = "none"
        elif outcome.boards:
            answer = "sat"
        elif outcome.exhausted:
            answer = "unsat"
        else:
            answer = "unknown"
        bad = [v for v in result.verdicts if not v.startswith("ok")]
        versions = result.versions or {}
        rec.update(
            rows=inst.rows, cols=inst.cols, options=dumps(resolved), seed=resolved.get("seed", spec.seed),
            status=str(result.status), answer=answer, exhausted=int(bool(outcome and outcome.exhausted)),
            termination=str(result.termination),
            verdict="none" if not result.verdicts else (bad[0] if bad else "ok"), count=result.count,
            complete=int(result.complete), build_s=result.times.get("build_s"), solve_s=result.times.get("solve_s"),
            solver_reported_s=result.solver_reported_s,
            variables=result.model.get("variables"), constraints=result.model.get("constraints"),
            placements=result.model.get("placements"),
            solver_version=solver_label(cls, resolved, versions) if cls is not None else None,
            versions=dumps(versions), boards=dumps([list(b.rows) for b in result.boards]),
            verdicts=dumps(result.verdicts), error=result.error or "", detail=result.detail or "",
        )
        return rec

    # ------------------------------------------------------------------ report
    @classmethod
    def section(cls) -> ReportSection:
        return SolveSection()


def _pair(entry: dict[str, Any], path: Path, where: str) -> PairSpec:
    """One ``[[pairs]]`` table (or one leg of a race) checked against its backend."""
    backend = get(entry, "backend", str, path, required=True, where=f"{where}.backend")
    formulation = get(entry, "formulation", str, path, where=f"{where}.formulation") or "placement"
    options = get(entry, "options", dict, path, where=f"{where}.options") or {}
    try:
        cls = check_pair(backend, formulation)
    except InputError as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(path, where, str(exc)) from None
    return PairSpec(backend, formulation, configured_options(options, cls.declared_options(), cls.resolve_options,
                                                             f"backend {cls.name!r}", path, where, at=where))


def _race(entry: dict[str, Any], path: Path, where: str) -> PairSpec:
    """``race = ["cpsat/placement", { backend = "sat", options = { solver = "glucose4" } }, ...]``: a racing
    portfolio of two or more pairs (labels as strings, or tables as in ``[[pairs]]``)."""
    from harness.runner.race import parse_leg

    if set(entry) != {"race"}:
        raise ConfigError(path, where, "a race pair has only 'race' (its pairs carry backend, formulation, options)")
    raw = get(entry, "race", list, path, where=f"{where}.race")
    legs: list[PairSpec] = []
    for i, item in enumerate(raw):
        place = f"{where}.race[{i}]"
        if isinstance(item, str):
            try:
                backend, formulation, options = parse_leg(item)
            except InputError as exc:
                raise ConfigError(path, place, str(exc)) from None
            item = {"backend": backend, "formulation": formulation, "options": options}
        elif not isinstance(item, dict):
            raise ConfigError(path, place, f"must be a pair's label or table, not {toml_type(item)}")
        else:
            unknown(item, _PAIR_KEYS, path, f"{place}.")
        leg = _pair(item, path, place)
        if any(other.label == leg.label for other in legs):
            raise ConfigError(path, place, f"pair {leg.label} is in the race twice")
        legs.append(leg)
    if len(legs) < 2:
        raise ConfigError(path, f"{where}.race", "a race needs at least two pairs")
    return PairSpec(RACE, RACE, legs=tuple(legs))


class SolveSection(ReportSection):
    """What report and check add for solve runs: agreement of boards and statuses, the verifier run again on
    the stored boards, races, and the recorded solver names checked against the options."""

    title = "Puzzles"

    def problems(self, frame: Any, manifest: dict | None, manifest_path: Any) -> list:
        from harness.report.agreement import check_agreement

        return check_agreement(frame, manifest)

    def agreement(self, frame: Any) -> str:
        return "every board verified, all pairs agree"

    def recheck(self, frame: Any, results: Path) -> Any:
        from harness.report.reverify import reverify

        return reverify(frame, results)

    def notes(self, frame: Any) -> list[str]:
        return [f"metadata: {line}" for line in mislabelled(frame)]

    def prepare(self, frame: Any) -> Any:
        fixed = corrected_solvers(frame)
        if fixed is None:
            return frame
        out = frame.copy()
        out["solver_version"] = fixed
        return out

    def tables(self, frame: Any) -> dict[str, Any]:
        from harness.report.races import is_race, race_table

        return {"races": race_table(frame)} if is_race(frame).any() else {}

    def html(self, tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
        if "races" not in tables:
            return []
        return [("races", "Races: which leg won", f'<p class="sub">{RACE_NOTE}</p>'
                 + html_table(tables["races"].round(3)))]

    def markdown(self, tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
        if "races" not in tables:
            return []
        return ["## Races: which leg won", "", RACE_NOTE, "", markdown_table(tables["races"].round(3)), ""]


RACE_NOTE = ("A race runs its pairs at once, each in its own worker; the first decided answer wins and the others "
             "are killed. Its wall time is the winner's; its CPU time is every leg's together.")


def true_solver(backend: str, options_json: Any, versions_json: Any) -> str | None:
    """What a run's ``solver_version`` should say, from its stored options and versions (None: cannot tell)."""
    import json

    try:
        cls = get_backend(backend)
        options = json.loads(options_json or "{}")
        versions = json.loads(versions_json or "{}")
    except (InputError, TypeError, ValueError):
        return None
    if not isinstance(options, dict) or not isinstance(versions, dict) or "race" in options:
        return None
    return solver_label(cls, options, versions)


def _names_another(stored: str, truth: str, options_json: Any) -> bool:
    """Does a stored ``solver_version`` name another solver than its run's options ran?  A label of an older
    style that names the chosen solver through its driver (``cpmpy 1.1.1 (choco)``) does not."""
    import json

    if stored.split()[0] == truth.split()[0]:
        return False
    try:
        chosen = json.loads(options_json or "{}").get("solver")
    except (TypeError, ValueError, AttributeError):
        chosen = None
    return not (isinstance(chosen, str) and stored.endswith(f"({chosen})"))


def corrected_solvers(frame: Any) -> Any:
    """The ``solver_version`` column with every mislabelled run's value replaced by what its options ran (None
    when no run is mislabelled)."""
    values = list(frame["solver_version"])
    changed = False
    for i, rec in enumerate(frame[["backend", "options", "versions", "solver_version"]].to_dict("records")):
        stored = rec["solver_version"]
        if isinstance(stored, str) and stored:
            truth = true_solver(str(rec["backend"]), rec["options"], rec["versions"])
            if truth is not None and _names_another(stored, truth, rec["options"]):
                values[i], changed = truth, True
    if not changed:
        return None
    import pandas as pd

    return pd.Series(values, index=frame.index, dtype=frame["solver_version"].dtype)


def mislabelled(frame: Any) -> list[str]:
    """One line per pair whose stored ``solver_version`` names another solver than its options ran (stores made
    before each backend named its own solver: ``mip[engine=scip]`` runs recorded HiGHS)."""
    out: dict[str, list] = {}
    for rec in frame[["pair", "backend", "options", "versions", "solver_version"]].to_dict("records"):
        stored = rec["solver_version"]
        if not isinstance(stored, str) or not stored:
            continue
        truth = true_solver(str(rec["backend"]), rec["options"], rec["versions"])
        if truth is not None and _names_another(stored, truth, rec["options"]):
            out.setdefault(str(rec["pair"]), []).append((stored, truth))
    return [f"{len(runs)} runs of {pair} record solver {runs[0][0]!r} but ran {runs[0][1]!r} (by their options "
            "and versions); the report shows the latter" for pair, runs in out.items()]


__all__ = ["BuildRequest", "Built", "RACE_NOTE", "RunRequest", "SolveSection", "SolveTask", "corrected_solvers",
           "judge_execution", "mislabelled", "question_of", "spec_of", "true_solver"]
