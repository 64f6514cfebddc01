"""The Python API: read instances, solve / count / play one, run a campaign, load its results, write its report.

A small, typed, stable facade over the harness for notebooks and scripts; it only checks
its arguments and delegates to the paths the commands take (``battlebench solve``,
``count``, ``play``, ``run``, ``report``), so a result here is the result there::

    from harness import api

    puzzle = api.read_instance("instances/smoke/tiny_4x4.toml")
    result = api.solve(puzzle, count=0, time_limit_s=10)      # every distinct board, in a worker
    result.status, result.count                               # (Status.SAT, 2)

A run is *isolated* by default: it executes in a worker process under the time limit
(wall-clock seconds, enforced from outside) and memory limit (MB), and is judged in this
process (every board through the verifier, every count against the known count, every
game replayed), exactly as in a campaign.  ``isolated=False`` runs it in this process
(the solver imported here, the time limit only the plugin's own).  Pass a
:class:`WorkerPool` (``with api.WorkerPool() as pool: ...``) as ``pool`` to keep workers
warm across calls.  Every error is of the :mod:`harness.errors` tree: bad input is an
:class:`InputError` (a :class:`UsageError` for an argument, a :class:`ConfigError` for a
config, an :class:`InstanceFormatError` for a file), anything unforeseen a
:class:`HarnessError` with the original as its cause.  Importing this module imports no
solver, pandas or NumPy; the result types below are loaded when first named.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Mapping
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from harness.core.status import Status, Termination
from harness.errors import (BackendError, BackendUnavailable, ConfigError, HarnessError, InputError,
                            InstanceFormatError, StoreDamaged, StoreMismatch, UsageError)

if TYPE_CHECKING:
    import pandas as pd

    from harness.core.status import Question
    from harness.counting.deployment import Deployment
    from harness.puzzle.board import Board
    from harness.puzzle.instance import Instance
    from harness.runner.config import Config
    from harness.runner.process import WorkerPool
    from harness.runner.run import CampaignOutcome
    from harness.tasks.solve.run import SolveResult
    from harness.tasks.count import CountResult
    from harness.tasks.play import PlayResult

PathArg = str | PathLike
_P = ParamSpec("_P")
_R = TypeVar("_R")

_LAZY = {
    "Board": "harness.puzzle.board", "CampaignOutcome": "harness.runner.run", "Config": "harness.runner.config",
    "CountResult": "harness.tasks.count", "Deployment": "harness.counting.deployment",
    "Instance": "harness.puzzle.instance", "PlayResult": "harness.tasks.play", "Question": "harness.core.status",
    "SolveResult": "harness.tasks.solve.run", "WorkerPool": "harness.runner.process",
}
"""The types a user meets, by the module that owns each: imported on first use (PEP 562)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _boundary(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """The facade's edge: a call that does not fit the signature is a UsageError, an OSError an InputError naming
    the file, any other exception not of the harness's tree a HarnessError whose cause is the original."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise UsageError(f"{fn.__name__}(): {exc}") from None
        try:
            return fn(*args, **kwargs)
        except HarnessError:
            raise
        except OSError as exc:
            raise InputError(f"{exc.filename or fn.__name__ + '()'}: {exc.strerror or exc}") from exc
        except Exception as exc:
            raise HarnessError(f"{fn.__name__}(): {type(exc).__name__}: {exc}") from exc

    return call


# --------------------------------------------------------------------------- arguments
def _number(name: str, value: Any, *, low: float, integer: bool = False) -> Any:
    """``value`` (None allowed) checked to be a number (an int where ``integer``) >= ``low``."""
    if value is None:
        return None
    kinds = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value < 1e7:
        what = "an integer" if integer else "a number"
        raise UsageError(f"{name} must be {what} >= {low:g}, not {value!r}")
    return value


def _seconds(name: str, value: Any) -> float | None:
    """``value`` (None allowed) checked to be a number of seconds > 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e7:
        raise UsageError(f"{name} must be a number of seconds > 0, not {value!r}")
    return float(value)


def _options(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise UsageError(f"options must be a dict of option name -> value, not {value!r}")
    return dict(value)


def _limits(time_limit_s: Any, memory_mb: Any, isolated: bool, pool: Any, *, timed_here: bool = True) -> Any:
    """The run's :class:`~harness.core.limits.Limits` (built and range-checked by ``Limits.checked``, as a config's
    and the command line's are); an in-process run takes no memory limit nor pool."""
    from harness.core.limits import Limits
    from harness.errors import LimitError
    from harness.runner.process import WorkerPool

    _seconds("time_limit_s", time_limit_s)
    if memory_mb is not None and (isinstance(memory_mb, bool) or not isinstance(memory_mb, int)):
        raise UsageError(f"memory_mb must be an integer number of MB, not {memory_mb!r}")  # the range: below
    if not isolated:
        if memory_mb is not None or pool is not None:
            raise UsageError("memory_mb and pool are for isolated runs: leave them out with isolated=False")
        if time_limit_s is not None and not timed_here:
            raise UsageError("an in-process game has no time limit (isolated=True enforces one)")
    if pool is not None and not isinstance(pool, WorkerPool):
        raise UsageError(f"pool must be a harness.api.WorkerPool, not {type(pool).__name__}")
    try:
        return Limits.checked(time_s=None if time_limit_s is None else float(time_limit_s), memory_mb=memory_mb,
                              grace_s=pool.grace_s if pool is not None else None)
    except LimitError as exc:
        raise UsageError(f"{_NAMES.get(exc.field, exc.field)} {exc.problem}") from None


_NAMES = {"time_s": "time_limit_s"}  # what this module calls a limit field, where it differs


def _isolated(task: Any, subject: Any, pair: Any, spec: Any, seed: int | None, repetition: int, limits: Any,
              pool: Any, **extra: Any) -> Any:
    """One run through the task's own path (as a campaign's), in ``pool`` or in a pool of its own."""
    from harness.core.task import make_spec
    from harness.runner.process import WorkerPool

    run = make_spec(subject, pair, spec, seed, repetition, limits)
    if pool is not None:
        return task.execute(pool, run, **extra).result
    with WorkerPool() as own:
        return task.execute(own, run, **extra).result


def _subject(value: Any, shown: str) -> Any:
    from harness.core.task import Subject

    return Subject(shown, value, value.name, value.content_hash())


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, PathLike))


# --------------------------------------------------------------------------- instances
@_boundary
def read_instance(path: PathArg, format: str | None = None) -> Instance | Deployment:
    """Read one instance file of any supported format.

    A puzzle (native ``.toml``, ``.dzn``, ASCII ``.txt``/``.ascii``, jolyonb) is an
    :class:`Instance`; a deployment file (``.toml`` with ``[grid]`` and ``[pieces]``) is a
    :class:`Deployment`.  ``format`` (``native``, ``dzn``, ``ascii``, ``jolyonb``) names a
    puzzle format the file name does not tell.  Raises :class:`InstanceFormatError`
    (``FILE:PLACE: PROBLEM``) for a missing or malformed file.
    """
    from harness.core.files import read_text
    from harness.counting.format import is_deployment_text, read_deployment
    from harness.puzzle import formats

    if format is None and Path(path).suffix.lower() == ".toml":
        try:
            text = read_text(Path(path))
        except (OSError, ValueError):
            text = ""  # the puzzle reader says what is wrong with it
        if is_deployment_text(text):
            return read_deployment(path)
    return formats.read_instance(path, format)


@_boundary
def read_deployment(path: PathArg) -> Deployment:
    """Read a deployment file, or any puzzle file as the deployment of its fleet (what ``count`` and ``play`` take).

    Raises :class:`InstanceFormatError` for a missing or malformed file, or a puzzle whose
    piece hints have no deployment form.
    """
    from harness.counting.format import read_deployment as read

    return read(path)


def _puzzle(instance: Instance | PathArg) -> tuple[Instance, str]:
    from harness.counting.deployment import Deployment
    from harness.puzzle.formats import read_instance as read
    from harness.puzzle.instance import Instance

    if _is_path(instance):
        return read(instance), str(instance)
    if isinstance(instance, Deployment):
        raise UsageError(f"{instance.name}: a deployment instance is counted or played, not solved (solve takes a "
                         "puzzle: an Instance, or the path of a puzzle file)")
    if not isinstance(instance, Instance):
        raise UsageError(f"solve takes an Instance or a path, not {type(instance).__name__}")
    return instance, instance.name


def _deployment(instance: Deployment | Instance | PathArg, what: str) -> tuple[Deployment, str]:
    from harness.counting.deployment import Deployment
    from harness.counting.format import from_puzzle, read_deployment
    from harness.puzzle.instance import Instance

    if _is_path(instance):
        return read_deployment(instance), str(instance)
    if isinstance(instance, Instance):
        return from_puzzle(instance), instance.name
    if not isinstance(instance, Deployment):
        raise UsageError(f"{what} takes a Deployment, an Instance or a path, not {type(instance).__name__}")
    return instance, instance.name


# --------------------------------------------------------------------------- one run
@_boundary
def solve(instance: Instance | PathArg, backend: str | None = None, formulation: str | None = None, *,
          count: int | None = None, options: Mapping[str, Any] | None = None, time_limit_s: float | None = None,
          memory_mb: int | None = None, isolated: bool = True, pool: WorkerPool | None = None) -> SolveResult:
    """Solve one puzzle (one board, or proof that none exists) or, with ``count=K``, count its distinct boards
    up to K (2 certifies uniqueness, 0 counts all): ``battlebench solve``.

    ``backend`` defaults to ``cpsat``, ``formulation`` to ``placement``; ``options`` are
    the backend's (``{"solver": "glucose4"}``).  ``time_limit_s``: wall-clock seconds;
    ``memory_mb``: the worker's memory limit in MB (isolated runs only; default none).
    Returns the judged :class:`SolveResult`: ``status`` (``sat``, ``unsat``,
    ``timeout``, ...), ``boards`` (verified), ``count``, ``complete`` (the count is
    exact), ``times`` in seconds.  An unknown backend, formulation or option is a
    :class:`UsageError` before any work.
    """
    from harness.backends.registry import DEFAULT_BACKEND, DEFAULT_FORMULATION, check_pair
    from harness.core.status import Question
    from harness.core.task import PairSpec
    from harness.tasks.solve.run import solve_in_process
    from harness.tasks.solve import SolveTask, spec_of

    backend, formulation = backend or DEFAULT_BACKEND, formulation or DEFAULT_FORMULATION
    opts = _options(options)
    check_pair(backend, formulation).resolve_options(dict(opts))  # unknown names, bad values: before any work
    k = _number("count", count, low=0, integer=True)
    question = Question() if k is None else Question.count(k)
    limits = _limits(time_limit_s, memory_mb, isolated, pool)
    puzzle, shown = _puzzle(instance)
    if not isolated:
        return solve_in_process(puzzle, backend, formulation, question, opts, limits.time_s)
    pair = PairSpec(backend, formulation, tuple(sorted(opts.items())))
    return _isolated(SolveTask(), _subject(puzzle, shown), pair, spec_of(question), None, 1, limits, pool)


@_boundary
def count(instance: Deployment | Instance | PathArg, counter: str | None = None, *, by: str = "deployments",
          options: Mapping[str, Any] | None = None, marginals: bool = False, time_limit_s: float | None = None,
          memory_mb: int | None = None, isolated: bool = True, pool: WorkerPool | None = None) -> CountResult:
    """Count a deployment instance's deployments (``by="deployments"``) or distinct boards (``by="boards"``)
    exactly: ``battlebench count``.  A puzzle (an :class:`Instance` or its file) is counted as its deployment.

    ``counter`` defaults to ``dp``; ``options`` are the counter's (``{"split": 2}``);
    ``marginals`` also computes each cell's exact probability of a ship (the result's
    ``marginals``), within the same limits.  ``time_limit_s``: wall-clock seconds;
    ``memory_mb``: the worker's memory limit in MB (isolated runs only).  Returns the
    judged :class:`CountResult`: ``count`` (an exact int), ``complete``, ``status``,
    ``expected`` (the instance's known count, if any) and ``verdict`` against it.
    """
    from harness.core.task import PairSpec, TaskSpec
    from harness.counting.counters import BY, FAMILY, get_counter
    from harness.tasks.count import CountTask, count_in_process

    counter = counter or FAMILY.default
    if by not in BY:
        raise UsageError(f"by must be one of {', '.join(BY)}, not {by!r}")
    cls = get_counter(counter)
    if by not in cls.by:
        raise UsageError(f"the {counter} counter counts by {' or '.join(cls.by)}, not by {by}")
    configured = _options(options)
    resolved = cls.resolve_options(dict(configured))  # unknown names, bad values: before any work
    missing = cls.available()
    if missing:
        raise UsageError(f"counter {counter!r} is not available here: {missing}")
    limits = _limits(time_limit_s, memory_mb, isolated, pool)
    dep, shown = _deployment(instance, "count")
    chosen = {k: resolved[k] for k in configured}
    if not isolated:
        return count_in_process(dep, counter, by, chosen, limits.time_s, bool(marginals))
    pair = PairSpec(counter, by, tuple(sorted(chosen.items())))
    return _isolated(CountTask(), _subject(dep, shown), pair, TaskSpec("count", by), None, 1, limits, pool,
                     marginals=bool(marginals))


@_boundary
def play(board: Deployment | PathArg, strategy: str | None = None, *, rule: str = "ship", seed: int = 0,
         game: int = 0, options: Mapping[str, Any] | None = None, time_limit_s: float | None = None,
         memory_mb: int | None = None, isolated: bool = True, pool: WorkerPool | None = None) -> PlayResult:
    """Play one game of a strategy on a board (a deployment instance without hints or clues): ``battlebench play``.

    The hidden deployment is game ``game`` of ``seed`` (the same for every strategy);
    ``rule`` is what a shot announces (``ship``, ``sunk``, ``none``); ``strategy``
    defaults to ``random``, ``options`` are its own (``{"block": 2000}``).
    ``time_limit_s``: wall-clock seconds for the game; ``memory_mb``: the worker's memory
    limit in MB (both for isolated games only).  Returns the judged :class:`PlayResult`:
    ``status`` (``sat``: the game ended), ``shots``, ``sequence`` (``[row, col, hit]``
    per shot), ``verdict`` of the replay against the hidden deployment, ``hidden``.
    """
    from harness.core.task import PairSpec, TaskSpec
    from harness.play.game import RULES
    from harness.play.strategies import FAMILY, get_strategy
    from harness.tasks.play import PlayRequest, PlayTask, play_in_process, unfit_board

    strategy = strategy or FAMILY.default
    if rule not in RULES:
        raise UsageError(f"rule must be one of {', '.join(RULES)}, not {rule!r}")
    cls = get_strategy(strategy)
    if rule not in cls.rules:
        raise UsageError(f"strategy {strategy} plays under the {' or '.join(cls.rules)} rule, not {rule!r}")
    configured = _options(options)
    resolved = cls.resolve_options(dict(configured))  # unknown names, bad values: before any game
    chosen = tuple(sorted((k, resolved[k]) for k in configured))
    seed = _number("seed", seed, low=0, integer=True)
    game = _number("game", game, low=0, integer=True)
    limits = _limits(time_limit_s, memory_mb, isolated, pool, timed_here=False)
    dep, shown = _deployment(board, "play")
    why = unfit_board(dep)
    if why:
        raise InputError(f"{shown}: {why}")
    if not isolated:
        return play_in_process(PlayRequest(dep, strategy, chosen, rule, seed, game))
    pair = PairSpec(strategy, rule, chosen)
    return _isolated(PlayTask(), _subject(dep, shown), pair, TaskSpec("play", "play"), seed, game + 1, limits,
                     pool)


# --------------------------------------------------------------------------- campaigns
@_boundary
def load_config(config: PathArg | Mapping[str, Any] | Config, *, base: PathArg = ".") -> Config:
    """A campaign config, validated (every problem a :class:`ConfigError` ``FILE: KEY: PROBLEM``).

    ``config`` is a TOML file's path, a dict of the same keys (its relative paths --
    ``instances``, ``output`` -- are resolved against ``base``, its errors name the file
    ``<dict>``) or a :class:`Config` (returned as it is).  The keys:
    ``docs/reference/config.md``.
    """
    from harness.runner.config import Config, parse_config
    from harness.runner.config import load_config as load

    if isinstance(config, Config):
        return config
    if _is_path(config):
        return load(config)
    if not isinstance(config, Mapping):
        raise UsageError(f"config must be a path, a dict or a Config, not {type(config).__name__}")
    import tomli_w

    where = Path(base) / "<dict>"
    data = dict(config)
    try:
        text = tomli_w.dumps(data)  # kept with the results, as a config file's own text is
    except (TypeError, ValueError) as exc:
        raise ConfigError(where, "", f"not TOML data: {exc}") from None
    return parse_config(data, where, text)


@_boundary
def run_campaign(config: PathArg | Mapping[str, Any] | Config, *, output: PathArg | None = None,
                 jobs: int | None = None, fresh: bool = False, progress: bool = False,
                 base: PathArg = ".") -> CampaignOutcome:
    """Execute every run of a campaign not yet in its results store: ``battlebench run``.

    ``config`` as :func:`load_config` takes it; ``output`` overrides its results
    directory, ``jobs`` its runs in parallel; ``fresh`` discards stored results first.
    Runs already stored are skipped (resume by calling again).  ``progress`` prints
    progress and the closing summary to stderr.  Returns the :class:`CampaignOutcome`:
    ``output``, ``total`` planned, ``executed`` now, ``resumed``, ``statuses`` (status
    -> runs), ``exit_code`` as ``battlebench run`` would exit.
    """
    import io
    import sys

    from harness.runner.run import run_campaign as run
    from harness.runner.run import with_overrides

    parsed = load_config(config, base=base)
    changed = with_overrides(parsed, jobs=_number("jobs", jobs, low=1, integer=True),
                             output=Path(output) if output is not None else None)
    stream = sys.stderr if progress else io.StringIO()
    return run(changed, fresh=bool(fresh), stream=stream, live=None if progress else False, summary=bool(progress))


@_boundary
def load_results(results: PathArg) -> pd.DataFrame:
    """Every run of the results store in directory ``results`` as a typed pandas DataFrame, one row per run.

    The columns and their units per task: ``docs/reference/records.md`` (``wall_s`` and
    ``cpu_s`` in seconds, ``peak_rss_mb`` in MB), plus ``instance_key`` (the instance's
    file).  Raises :class:`InputError` if there is no store, :class:`StoreDamaged` if
    it is damaged.
    """
    from harness.report.data import load

    return load(results)


@_boundary
def write_report(results: PathArg, out: PathArg | None = None, *, shift_s: float = 1.0,
                 manifest: PathArg | None = None) -> dict[str, Path]:
    """Write the report of the results store in ``results``: ``battlebench report``.

    ``out`` defaults to ``RESULTS/report``; it receives ``index.html``, ``summary.md``, a
    CSV per table and a PNG per figure.  ``shift_s`` is the shifted geometric mean's
    shift in seconds; ``manifest`` the instance manifest disagreements are checked
    against (default: the nearest ``instances/MANIFEST.toml``).  Returns ``{file name:
    path}`` of what was written.
    """
    from harness.report.render import write_report as write

    if _number("shift_s", shift_s, low=0) is None:
        raise UsageError("shift_s must be a number >= 0, not None")
    target = Path(out) if out is not None else Path(results) / "report"
    return write(results, target, shift_s=shift_s, manifest=manifest)


__all__ = [
    # reading instances
    "read_instance", "read_deployment",
    # one run
    "solve", "count", "play",
    # campaigns and their results
    "load_config", "run_campaign", "load_results", "write_report",
    # the types a user meets (loaded on first use)
    "Board", "CampaignOutcome", "Config", "CountResult", "Deployment", "Instance", "PlayResult", "Question",
    "SolveResult", "Status", "Termination", "WorkerPool",
    # the errors
    "BackendError", "BackendUnavailable", "ConfigError", "HarnessError", "InputError", "InstanceFormatError",
    "StoreDamaged", "StoreMismatch", "UsageError",
]
