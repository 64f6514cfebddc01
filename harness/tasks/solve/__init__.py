"""The solve task: a puzzle solved, or its distinct boards counted up to K, by backends; every board verified.

Its *question* (:class:`~harness.core.status.Question`) is ``solve`` (one board, or proof
that none exists) or ``count-K`` (distinct boards up to K; K=2 certifies uniqueness, K=0
counts all).  A config names it ``task = "solve"``, ``"count-K"`` or ``{ kind = "count",
k = K }``.  Its pairs are backend x formulation x options (``[[pairs]]`` with ``backend``,
``formulation``, ``options``), or a race of such pairs (``race = [...]``).

A run: its pair is resolved once into a :class:`~harness.tasks.solve.run.ResolvedPair` that
travels with the request (:mod:`harness.tasks.solve.run`, the worker half: build and
enumerate); here every board goes through the independent verifier and ``classify`` gives
the status (:func:`judge_execution`); :meth:`SolveTask.record` fills the record's columns
as ``docs/reference/records.md`` documents them for this task.  A race of pairs is
:mod:`harness.tasks.solve.race`; what report and check add, :mod:`harness.tasks.solve.section`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.backends.base import solver_label
from harness.backends.registry import check_pair, get_backend
from harness.core.record import dumps
from harness.core.status import Question
from harness.core.tables import configured_options, get, toml_type, unknown
from harness.core.task import (RACE, Executed, PairSpec, ReportSection, RunSpec, Subject, TaskSpec, TaskType,
                               base_record, error_record, forms_message, read_subject)
from harness.errors import ConfigError, InputError
from harness.proofs.recheck import PROOFS_DIR
from harness.tasks.solve.run import BuildRequest, Built, RunRequest, ResolvedPair, SolveResult, judge_execution

# A worker unpickles a RunRequest (harness.tasks.solve.run), which imports this package first: the races (and the
# runner's pool they drive) and the report's section are imported where they are used, not here.
_SECTION_NAMES = ("RACE_NOTE", "SolveSection", "corrected_solvers", "mislabelled", "true_solver")


def __getattr__(name: str) -> Any:
    if name in _SECTION_NAMES:
        from harness.tasks.solve import section

        return getattr(section, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_PAIR_KEYS = ("backend", "formulation", "options")


def _count_k(kind: str) -> int | None:
    head, _, k = kind.partition("-")
    return int(k) if head == "count" and k.isascii() and k.isdigit() else None


def question_of(spec: TaskSpec) -> Question:
    """The question of a configured solve task (read once per run, in the parent: it travels in the request's
    :class:`~harness.tasks.solve.run.ResolvedPair`)."""
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
    columns = {  # what the shared record columns hold for this task (the records page)
        "instance": "the puzzle's name",
        "backend": "the backend",
        "formulation": "the formulation",
        "options": "every backend option, defaults filled in (JSON)",
        "question": "solve or count-K",
        "seed": "the solver's seed (0 unless set)",
        "repetition": "which repetition (1, 2, ...)",
        "answer": "sat: boards returned; unsat: none, search exhausted; unknown; none: no answer",
        "exhausted": "the solver says no further board exists",
        "verdict": "ok, or the verifier's first failing verdict; none: no boards",
        "count": "distinct boards returned",
        "complete": "the count is proven exact",
        "shots": "null",
        "build_s": "abstract model + native model, in the worker",
        "solve_s": "enumeration, in the worker",
        "placements": "placements the model kept",
        "solver_version": "the solver the options chose and its version (mip engine=scip: scip)",
        "boards": "every board returned, verified or not (JSON)",
        "detail": "the solver's words; a race's legs (JSON)",
    }
    extra_columns = {  # the claim beyond the boards and how it was established (harness.proofs.claims)
        "claim": ("TEXT", "what a decided, exhausted run says no board shows: unsat | no further board; null: none"),
        "certificate": ("TEXT", "how the claim was established: certified | trusted | rejected | unchecked"),
        "checker": ("TEXT", "NAME VERSION of every checker that judged the claim's proof, comma-separated"),
        "proof_format": ("TEXT", "the logged proof's format: drup | drat"),
        "proof_bytes": ("INTEGER", "the logged proof's size in bytes"),
        "proof_sha256": ("TEXT", "sha256 of the proof; kept as OUTPUT/proofs/SHA.FORMAT.gz"),
        "cnf_sha256": ("TEXT", "sha256 of the exact CNF proven (blocking clauses included); OUTPUT/proofs/SHA.cnf.gz"),
        "check_s": ("REAL", "wall seconds of the proof's checks, in the worker (not in wall_s)"),
        "check_cpu_s": ("REAL", "CPU seconds of the proof's checks (not in cpu_s)"),
        "checks": ("TEXT", "JSON: every check of the proof: checker, outcome, reason, cpu_s, wall_s"),
        "proof_note": ("TEXT", "how the proof file differs from what the solver logged, or why it was not kept"),
    }
    family = "harness.backends.registry:FAMILY"
    pair_keys = (*_PAIR_KEYS, "race")
    settings_keys = ("proof",)

    @classmethod
    def configure_pairs(cls, pairs: list[PairSpec], data: dict[str, Any], path: Path) -> list[PairSpec]:
        """``proof = "check"`` (or ``"check-all"``) at the top of a config: the ``proof`` option of every pair that
        can log a proof with its options and sets none itself; the others' claims stay the solver's word."""
        from harness.proofs.claims import PROOF_MODES

        mode = get(data, "proof", str, path)
        if mode is None:
            return pairs
        if mode not in PROOF_MODES:
            raise ConfigError(path, "proof", f"must be one of {', '.join(PROOF_MODES)}, not {mode!r}")
        out = []
        for pair in pairs:
            if not pair.legs and "proof" not in pair.option_dict:
                solver = get_backend(pair.plugin)
                if "proof" in solver.declared_options() and \
                        solver.proof_format(solver.resolve_options(pair.option_dict)) is not None:
                    pair = replace(pair, options=tuple(sorted({**pair.option_dict, "proof": mode}.items())))
            out.append(pair)
        return out

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
        request = RunRequest.of(spec.instance, spec.pair.plugin, spec.pair.variant, question_of(spec.task),
                                spec.options, spec.limits)
        execution = pool.execute(request)
        result = judge_execution(request, execution)
        kept = {f"{PROOFS_DIR}/{name}": data for name, data in result.proof.files.items()} if result.proof else None
        return Executed(self.record(spec, execution, result), result, kept)

    def _race(self, pool: Any, spec: RunSpec) -> Executed:
        """A racing portfolio (:mod:`harness.tasks.solve.race`): the standing leg's answer, the race's wall time,
        every leg's CPU time; ``detail`` (JSON) names the winner and how each leg ended."""
        from harness.tasks.solve.race import race

        question = question_of(spec.task)
        requests = []
        for leg in spec.pair.legs:
            options = leg.option_dict
            if spec.seed is not None:
                options["seed"] = spec.seed
            requests.append(RunRequest.of(spec.instance, leg.plugin, leg.variant, question, options,
                                          spec.limits))
        outcome = race(pool, requests, [leg.label for leg in spec.pair.legs], judge_execution)
        standing = requests[outcome.decided_by].pair
        result = outcome.result
        rec = self.record(spec, outcome.execution, result)
        rec.update(options=dumps({"race": [leg.label for leg in spec.pair.legs]}),
                   solver_version=solver_label(standing.solver_class, standing.options, result.versions or {}),
                   detail=dumps({**outcome.to_detail(), "detail": result.detail or ""}))
        return Executed(rec, outcome)

    @staticmethod
    def record(spec: RunSpec, execution: Any, result: SolveResult) -> dict[str, Any]:
        """The run record of one executed run (``docs/reference/records.md``, the solve task)."""
        rec = base_record(spec, execution)
        inst = spec.instance
        try:
            cls = get_backend(spec.pair.plugin)
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
            claim=result.claim, certificate=result.certificate,
        )
        if result.certificate == "rejected":
            rec["verdict"] = f"proof rejected: {result.certificate_why}"
        proof = result.proof
        if proof is not None:  # the run's times are the solve's (judge_execution took the proof stage out)
            from dataclasses import asdict

            limit = spec.limits.time_s
            rec.update(wall_s=result.times["wall_s"], cpu_s=result.times["cpu_s"],
                       overshoot_s=max(result.times["wall_s"] - limit, 0.0) if limit is not None else 0.0)

            judged = [c for c in proof.checks if c.outcome != "unfinished"]
            rec.update(checker=", ".join(c.checker for c in judged) or None, proof_format=proof.format,
                       proof_bytes=proof.proof_bytes, proof_sha256=proof.proof_sha256, cnf_sha256=proof.cnf_sha256,
                       check_s=proof.check_wall_s, check_cpu_s=proof.check_cpu_s,
                       checks=dumps([asdict(c) for c in proof.checks]), proof_note=proof.note or None)
        return rec

    # ------------------------------------------------------------------ report
    @classmethod
    def section(cls) -> ReportSection:
        from harness.tasks.solve.section import SolveSection

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
    if set(entry) != {"race"}:
        raise ConfigError(path, where, "a race pair has only 'race' (its pairs carry backend, formulation, options)")
    from harness.tasks.solve.race import parse_leg

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


__all__ = ["BuildRequest", "Built", "RACE_NOTE", "RunRequest", "ResolvedPair", "SolveResult", "SolveSection",
           "SolveTask", "corrected_solvers", "judge_execution", "mislabelled", "question_of", "spec_of",
           "true_solver"]
