"""The task contract: what one task module gives the config loader, the runner, the CLI and the reports.

A *task* (glossary) says what a run is asked to do: ``solve`` a puzzle, ``count`` a
deployment instance's deployments, ``play`` a game -- or a plugin's own.  Each is one
class behind :class:`TaskType`, registered in :data:`TASKS` (built-ins by name, entry
points of the group ``battlebench.tasks``, ``module:Class``).  The measuring layer knows
only this contract; the calls, in order::

    parse(raw, path) -> TaskSpec              the config's `task = ...`          (parent, before any run)
    parse_pair(entry, where, path, spec)      each [[pairs]] table                (parent, before any run)
    settings(data, path, spec) -> params      the task's own top-level keys
    load(path) -> Subject                     one subject file; a bad one is kept as its error
    expand(config, subjects) -> [RunSpec]     every run of the campaign, in order
    execute(pool, spec) -> Executed           build the request, run it in the pool's worker,
                                              judge it here, build its record
        request.execute()                     in the worker: the part a worker process does
        request.warm()                        in a new worker, before its first run
    section() -> ReportSection | None         what report and check add for its runs

:class:`Request` is what crosses to the worker (pickled): it names the warm worker it
runs in (``key``), its limits, and does its own work there.  :func:`base_record` fills
the columns every task shares; the task fills the rest.  Each task declares what the
shared columns hold for it and the columns it adds of its own (``columns``,
``extra_columns``; :mod:`harness.core.columns` makes the records page of them).

This module holds :class:`TaskType`, the shared record columns and the registry with its look-ups;
the rest of the contract lives beside it, every name re-exported here: the specs and run ids
(:mod:`harness.core.runspec`), the request and what comes back (:mod:`harness.core.request`), the
report section (:mod:`harness.core.section`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

# The contract's parts live in their own modules; every name stays importable from here (users' plugin
# tasks import from harness.core.task).
from harness.core.limits import Limits
from harness.core.node import HOST, node_class
from harness.core.plugins import Family, overridden
from harness.core.record import SCHEMA, SQL_TYPES, dumps, empty_record
from harness.core.request import (TERMINATIONS, Executed, Request, WorkerOutcome, limits_of, now_iso,
                                  termination_of, times_of, worker_key)
from harness.core.runspec import (CONTROL_SUFFIX, RACE, RANK_BY, PairSpec, RunSpec, Subject, TaskSpec,
                                  interleaved, make_spec, read_subject, run_id)
from harness.core.section import ReportSection
from harness.core.status import Status, Termination
from harness.errors import ConfigError, InputError



def base_record(spec: RunSpec, execution: Any = None) -> dict[str, Any]:
    """The columns every task fills the same way: identity, limits, host, and -- given the runner's execution
    -- wall and CPU time, overshoot, peak memory, the worker's pid and the run's start and end."""
    cls = task_of(spec.task)
    rec = empty_record(cls.extra_columns)
    limit = spec.limits.time_s
    rec.update(
        run_id=spec.run_id, campaign=spec.campaign, config_hash=spec.config_hash,
        instance=spec.instance_name, instance_path=spec.instance_path, instance_hash=spec.instance_hash,
        pair=spec.pair.label, backend=spec.pair.plugin, formulation=spec.pair.variant,
        options=dumps(spec.pair.option_dict), task=cls.name, question=spec.task.label, seed=spec.seed, repetition=spec.repetition,
        time_limit_s=limit, memory_limit_mb=spec.limits.memory_mb, host=HOST, node_class=node_class(),
    )
    if execution is not None:
        started, ended = times_of(execution.wall_s)
        rec.update(started_at=started, ended_at=ended, wall_s=execution.wall_s, cpu_s=execution.cpu_s,
                   overshoot_s=max(execution.wall_s - limit, 0.0) if limit is not None else 0.0,
                   peak_rss_mb=execution.peak_rss_mb, worker_pid=execution.pid,
                   warmup_s=getattr(execution, "warmup_s", None), cpus=getattr(execution, "cpus", None))
    return rec


def error_record(spec: RunSpec, error: str, detail: str = "", status: Status = Status.ERROR) -> dict[str, Any]:
    """The record of a run no worker executed: its subject could not be read, or the harness failed (or, with
    ``status`` lost, the run's worker or node was lost on every attempt: :data:`Status.LOST`)."""
    rec = base_record(spec)
    now = now_iso()
    rec.update(started_at=now, ended_at=now, status=str(status), answer="none", exhausted=0,
               termination=str(Termination.CRASH), verdict="none", count=0, complete=0, wall_s=0.0,
               overshoot_s=0.0, boards=dumps([]), verdicts=dumps([]), versions=dumps({}), error=error,
               detail=detail)
    return rec



class TaskType:
    """Base of every task (see the module docstring).  Class attributes name its parts for help and docs:

    ``name`` the registered name; ``kinds`` the values of a config's ``task`` (or its ``kind``) it owns;
    ``plugin`` and ``variant`` what a pair's :attr:`PairSpec.plugin` and :attr:`PairSpec.variant` are for it
    (the record's ``backend`` and ``formulation`` columns); ``subject`` what
    its instance files hold; ``family`` ``"module:FAMILY"`` of its plugin family; ``pair_keys`` the keys
    of its ``[[pairs]]`` tables; ``settings_keys`` its own top-level config keys.

    Its records: ``columns`` says what a shared column (:data:`harness.core.record.SCHEMA`) holds for this
    task, where that says more than the shared meaning (a column it leaves out means what the schema says);
    ``extra_columns`` are the columns it adds of its own, ``name: (SQL type, meaning)``: every record of
    :func:`base_record` has them (null until the task fills them), the store adds them to its table when a
    campaign of the task begins, and other tasks' rows hold null there.
    """

    name: ClassVar[str] = ""
    kinds: ClassVar[tuple[str, ...]] = ()
    plugin: ClassVar[str] = "backend"
    variant: ClassVar[str] = "formulation"
    subject: ClassVar[str] = "instance"
    family: ClassVar[str | None] = None
    pair_keys: ClassVar[tuple[str, ...]] = ("backend", "formulation", "options")
    settings_keys: ClassVar[tuple[str, ...]] = ()
    repeats: ClassVar[bool] = True  # does it take `repetitions`?
    columns: ClassVar[dict[str, str]] = {}
    extra_columns: ClassVar[dict[str, tuple[str, str]]] = {}

    # ------------------------------------------------------------------ config
    @classmethod
    def owns(cls, kind: str) -> bool:
        """Is ``kind`` (a config's ``task`` string, or its ``kind``) this task's?"""
        return kind in cls.kinds

    @classmethod
    def forms(cls) -> list[str]:
        """How a config names this task, for error messages."""
        return [repr(k) for k in cls.kinds]

    @classmethod
    def parse(cls, raw: str | dict[str, Any], path: Path) -> TaskSpec:
        """The config's ``task`` value (a string, or a table with ``kind``), owned by this task."""
        kind = raw if isinstance(raw, str) else raw.get("kind")
        if isinstance(raw, dict):
            extra = [k for k in raw if k != "kind"]
            if extra:
                raise ConfigError(path, f"task.{extra[0]}", f"the {cls.name} task takes no {extra[0]}")
        return TaskSpec(cls.name, str(kind))

    @classmethod
    def settings(cls, data: dict[str, Any], path: Path, spec: TaskSpec) -> tuple[tuple[str, Any], ...]:
        """This task's own top-level config values (``settings_keys``), checked."""
        return ()

    @classmethod
    def parse_pair(cls, entry: dict[str, Any], where: str, path: Path, spec: TaskSpec) -> PairSpec:
        """One ``[[pairs]]`` table (its keys are ``pair_keys``), checked against the plugin it names."""
        raise NotImplementedError

    @classmethod
    def check_pairs(cls, pairs: list[PairSpec], data: dict[str, Any], path: Path, spec: TaskSpec) -> None:
        """A check over all pairs at once (nothing by default)."""

    @classmethod
    def configure_pairs(cls, pairs: list[PairSpec], data: dict[str, Any], path: Path) -> list[PairSpec]:
        """The pairs with what the task's own top-level settings give them (the solve task's ``proof``: the pair
        option of every pair that can log proofs); as parsed by default."""
        return pairs

    # ------------------------------------------------------------------ campaign
    @classmethod
    def load(cls, path: Path, shown: str) -> Subject:
        """One subject file, read in the parent (a file that does not parse is kept with its error)."""
        raise NotImplementedError

    @classmethod
    def expand(cls, config: Any, subjects: list[Subject]) -> list[RunSpec]:
        """Every run of the campaign, in order: repetition, subject, pair, seed."""
        seeds: tuple[int | None, ...] = config.seeds if config.seeds is not None else (None,)
        return [make_spec(subject, pair, config.task, seed, rep, config.limits, config.name, config.hash)
                for rep in range(1, config.repetitions + 1) for i, subject in enumerate(subjects)
                for pair in interleaved(config.pairs, i) for seed in seeds]

    def execute(self, pool: Any, spec: RunSpec) -> Executed:
        """Run ``spec`` in ``pool`` (:class:`harness.runner.process.WorkerPool`), judge it here, build its
        record.  A spec whose subject did not parse is an error record, no worker involved."""
        raise NotImplementedError

    # ------------------------------------------------------------------ report
    @classmethod
    def section(cls) -> Any:
        """What ``report`` and ``check`` add for this task's runs (a :class:`ReportSection`), or None."""
        return None



def _task_contract(cls: type[TaskType]) -> list[str]:
    problems = []
    if not isinstance(cls.name, str) or not cls.name:
        problems.append("its name is not set")
    if not isinstance(cls.kinds, tuple) or not cls.kinds or not all(isinstance(k, str) and k for k in cls.kinds):
        problems.append("kinds must be a non-empty tuple of names")
    for method in ("parse_pair", "load", "execute"):
        if not overridden(cls, TaskType, method):
            problems.append(f"it does not implement {method}()")
    return problems + _column_problems(cls)


def _column_problems(cls: type[TaskType]) -> list[str]:
    """What is wrong with a task's declared record columns (``columns``, ``extra_columns``)."""
    problems = []
    columns, extra = getattr(cls, "columns", {}), getattr(cls, "extra_columns", {})
    if not isinstance(columns, dict) or not all(isinstance(v, str) and v for v in columns.values()):
        problems.append("columns must map column names to what they hold (text)")
    else:
        problems += [f"columns names {c!r}, not a record column" for c in columns if c not in SCHEMA]
    if not isinstance(extra, dict):
        return problems + ["extra_columns must map names to (SQL type, meaning)"]
    for name, declared in extra.items():
        if name in SCHEMA:
            problems.append(f"extra column {name!r} is a shared record column")
        elif not (isinstance(name, str) and name.isidentifier() and name.islower()):
            problems.append(f"extra column {name!r} is not a lower-case identifier")
        elif not (isinstance(declared, tuple) and len(declared) == 2 and declared[0] in SQL_TYPES
                  and isinstance(declared[1], str) and declared[1]):
            problems.append(f"extra column {name!r} must be (one of {', '.join(SQL_TYPES)}, its meaning)")
    return problems


TASK_BUILTINS: dict[str, str] = {
    "solve": "harness.tasks.solve:SolveTask",
    "count": "harness.tasks.count:CountTask",
    "play": "harness.tasks.play:PlayTask",
    "value": "harness.tasks.value:ValueTask",
}
TASKS = Family("task", "battlebench.tasks", TASK_BUILTINS, base="harness.core.task:TaskType",
               check=_task_contract, default="solve")


def task_classes() -> list[type[TaskType]]:
    """Every registered task that loads (built-ins first, then entry points), for looking a kind up."""
    out = []
    for name in TASKS.names():
        try:
            out.append(TASKS.load(name))
        except InputError:
            continue  # a broken plugin task: named when it is asked for
    return out


def task_for_kind(kind: str) -> type[TaskType] | None:
    """The task that owns ``kind`` (a config's ``task`` string or ``kind``; ``module:Class`` names one)."""
    if ":" in kind:
        return TASKS.load(kind)
    for cls in task_classes():
        if cls.owns(kind):
            return cls
    return None


_BY_LABEL: dict[str, type[TaskType] | None] = {}
_BY_LABEL_OF: list[Any] = [None]  # the registry's entry points the cache was filled from


def task_for_label(label: str) -> type[TaskType] | None:
    """The task whose runs carry ``label`` in their ``question`` column (None: no registered task owns it); looked
    up once per label (until the registry's entry points are scanned again)."""
    if ":" in label:
        return None
    origins = TASKS.plugin_origins()
    if _BY_LABEL_OF[0] is not origins:
        _BY_LABEL.clear()
        _BY_LABEL_OF[0] = origins
    if label not in _BY_LABEL:
        _BY_LABEL[label] = task_for_kind(label)
    return _BY_LABEL[label]


def task_name_of_label(label: str) -> str:
    """The name of the task that owns the question ``label``, else ``label`` itself (a task not installed here):
    what the ``task`` column of a store older than the ``question`` column is read as (it held the label)."""
    try:
        cls = task_for_label(label)
    except InputError:
        cls = None
    return cls.name if cls is not None else label


def forms_message(kind: object) -> str:
    """``must be 'solve', ..., or 'play', not KIND``: every way a config can name a task."""
    forms = [form for cls in task_classes() for form in cls.forms()]
    return f"must be {', '.join(forms[:-1])} or {forms[-1]}, not {kind!r}"


def task_of(spec: TaskSpec) -> type[TaskType]:
    """The task class of a configured task (its registered name, or ``module:Class``)."""
    return TASKS.load(spec.name)


__all__ = ["CONTROL_SUFFIX", "Executed", "HOST", "Limits", "PairSpec", "RACE", "RANK_BY", "ReportSection", "Request",
           "RunSpec", "Subject", "TASKS", "TERMINATIONS", "TaskSpec", "TaskType", "WorkerOutcome", "base_record",
           "error_record", "forms_message", "interleaved", "limits_of", "make_spec", "now_iso", "read_subject", "run_id", "task_classes",
           "task_for_kind", "task_for_label", "task_name_of_label", "task_of", "termination_of", "times_of", "worker_key"]
