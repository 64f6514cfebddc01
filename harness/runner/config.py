"""Campaign configs: read a TOML file, validate every key before anything runs, resolve instances.

A config names the instances, the pairs, the task, the limits and how to execute::

    name = "smoke"                        # required
    instances = ["../instances/smoke",    # files, directories, globs (relative to this
                 "@seeds"]                # file) or @suite from the instances manifest
                                          # (@deployments/tiny: instances/deployments/MANIFEST.toml)
    task = { kind = "count", k = 2 }      # or "solve", "deployments", "boards", "play"
    repetitions = 1                       # runs of each (instance, pair, seed)
    seeds = [0, 1]                        # optional: each pair runs once per seed
    jobs = 1                              # runs executed in parallel
    pin = false                           # true: each run on physical cores of its own, pinned
                                          # (local and slurm executors; not in the hash)
    executor = "local"                    # or "dask" (with scheduler = "tcp://host:8786"), or "slurm"
    retries = 2                           # dask, slurm: a run lost with its worker or node is executed
                                          # again this often, then stored as lost (status "lost")
    output = "../results/smoke"           # results directory (relative to this file)
    workers = "warm"                      # or "cold": a fresh worker process per run

    [limits]
    time_s = 10                           # wall-clock limit per run
    memory_mb = 4096                      # address-space limit per run
    grace_s = 2                           # after SIGTERM at the limit, SIGKILL
    output_mb = 64                        # stdout + stderr a run's tool processes may write (the default)

    [[pairs]]
    backend = "sat"
    formulation = "placement"
    options = { solver = "cadical195", encoding = "totalizer" }

    [report]                              # optional: how the report ranks
    rank_by = "auto"                      # or "cpu", "wall" (auto: CPU time for one-core pairs)
    controls = ["sat/placement"]          # A/A controls: these pairs run twice, interleaved
    [check]                               # optional: check --baseline's thresholds
    ratio = 2.0                           # (harness.core.thresholds; not in the hash)
    [check.ratio_by_pair]
    "sat/placement" = 3.0

What a ``task`` value means, which keys its ``[[pairs]]`` tables take and its own
top-level keys are the task's (:mod:`harness.core.task`): the count task (``deployments``,
``boards``) takes counters as pairs; the play task takes strategies, the announcement rule
as the formulation, ``games`` per seed (a pair may set its own ``games``) and no
``repetitions``.  This module knows no task: it finds the one that owns the ``task``
value in the registry and hands it its parts.

Every problem is a :class:`ConfigError` whose text is ``FILE: KEY: PROBLEM``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.core.files import read_text
from harness.core.limits import DEFAULT_OUTPUT_MB
from harness.core.paths import check_name
from harness.core.tables import get as _get
from harness.core.tables import is_int as _is_int
from harness.core.tables import positive_int as _positive_int
from harness.core.tables import toml_type as _toml_type
from harness.core.tables import unknown as _unknown
from harness.core.task import (RANK_BY, Limits, PairSpec, TaskSpec, TaskType, forms_message, task_classes, task_for_kind,
                               task_of)
from harness.core.thresholds import Given, parse_check
from harness.errors import ConfigError, InputError, LimitError

_TOP_KEYS = ("name", "instances", "pairs", "task", "limits", "repetitions", "seeds", "jobs",
             "executor", "scheduler", "retries", "output", "workers", "report", "check", "pin")
_LIMIT_KEYS = ("time_s", "memory_mb", "grace_s", "output_mb")
EXECUTORS = ("local", "dask", "slurm")
DEFAULT_RETRIES = 2
"""How often a run lost with its worker or node (a Dask worker killed, a SLURM task cancelled) is executed again
before it is stored as ``lost``."""
"""What runs a campaign: worker processes here, a Dask cluster, a SLURM job array (harness.runner.slurm)."""
_REPORT_KEYS = ("rank_by", "controls")
_MANIFEST = "MANIFEST.toml"
INSTANCE_EXTENSIONS = (".toml", ".dzn", ".txt", ".ascii")  # a directory's instance files: these, or no extension


@dataclass(frozen=True)
class Config:
    """A validated campaign config."""

    name: str
    path: Path
    instance_paths: tuple[Path, ...]
    pairs: tuple[PairSpec, ...]
    task: TaskSpec = TaskSpec("solve", "solve", (("k", 1),))
    limits: Limits = Limits()
    repetitions: int = 1
    seeds: tuple[int, ...] | None = None
    jobs: int = 1
    executor: str = "local"
    scheduler: str | None = None
    retries: int = DEFAULT_RETRIES  # dask, slurm: attempts beyond the first for a run lost with its worker or node
    pin: bool = False  # each run on physical cores of its own, pinned (harness.core.cores; not in the hash)
    output: Path = Path("results")
    workers: str = "warm"
    text: str = field(default="", repr=False)
    patterns: tuple[str, ...] = ()
    params: tuple[tuple[str, Any], ...] = ()  # the task's own top-level settings (play: games)
    rank_by: str = "auto"  # [report] rank_by: what the report ranks pairs by
    controls: tuple[str, ...] = ()  # [report] controls: the labels of the pairs run twice (A/A)
    check: Given = Given()  # the [check] table: check --baseline's thresholds (not in the hash)

    @property
    def task_type(self) -> type[TaskType]:
        return task_of(self.task)

    @property
    def games(self) -> int:
        """The play task's games per seed (0 for other tasks)."""
        return int(dict(self.params).get("games", 0))

    @property
    def hash(self) -> str:
        """What decides the runs' results (not jobs, executor, output or worker reuse)."""
        payload = {
            "name": self.name,
            "instances": list(self.patterns),
            "pairs": [[p.plugin, p.variant, [list(o) for o in p.options], *[v for _, v in p.params],
                       *(["control"] if p.control else [])] for p in self.pairs],
            "task": self.task.label,
            "limits": [self.limits.time_s, self.limits.memory_mb, self.limits.grace_s,
                       # the output cap only when not the default: the hashes of configs that name none stay
                       *([self.limits.output_mb] if self.limits.output_mb != DEFAULT_OUTPUT_MB else [])],
            "repetitions": self.repetitions,
            "seeds": list(self.seeds) if self.seeds is not None else None,
            **dict(self.params),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def load_config(path: str | Path, *, require_instances: bool = True) -> Config:
    """Read and validate a config file; every problem is a ConfigError."""
    path = Path(path)
    try:
        text = read_text(path)
    except (OSError, ValueError) as exc:
        raise ConfigError(path, "", f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"not valid TOML: {exc}") from None
    return parse_config(data, path, text, require_instances=require_instances)


def parse_config(data: dict[str, Any], path: Path, text: str = "", *, require_instances: bool = True) -> Config:
    task_cls, task = _task(data.get("task", "solve"), path)
    for key in data:  # a key another task takes is named as that task's
        owners = [c.name for c in task_classes() if key in c.settings_keys and key not in _TOP_KEYS]
        if owners and task_cls.name not in owners:
            raise ConfigError(path, key, f"only the {' and '.join(owners)} task takes {key}")
    _unknown(data, (*_TOP_KEYS, *task_cls.settings_keys), path, "")
    base = path.parent
    name = _get(data, "name", str, path, required=True)
    if not name.strip():
        raise ConfigError(path, "name", "must not be empty")
    patterns = _get(data, "instances", list, path, required=True)
    if not patterns:
        raise ConfigError(path, "instances", "must list at least one file, directory, glob or @suite")
    for i, p in enumerate(patterns):
        if not isinstance(p, str) or not p.strip():
            raise ConfigError(path, f"instances[{i}]", "must be a non-empty string")
    instance_paths = resolve_instances(patterns, base, path, require=require_instances)
    pairs = _pairs(data, path, task_cls, task)
    rank_by, controls = _report(data.get("report", {}), path, pairs)
    pairs = [q for p in pairs for q in ((p, replace(p, control=True)) if p.label in controls else (p,))]
    limits = _limits(data.get("limits", {}), path)
    repetitions = _positive_int(data, "repetitions", 1, path)
    if not task_cls.repeats and repetitions != 1:
        raise ConfigError(path, "repetitions", f"the {task_cls.name} task repeats by "
                          f"{' and '.join(task_cls.settings_keys) or 'seeds'} (and seeds), not repetitions")
    params = task_cls.settings(data, path, task)
    seeds = None
    if "seeds" in data:
        seeds_raw = _get(data, "seeds", list, path)
        if not seeds_raw or any(not _is_int(s) or s < 0 for s in seeds_raw):
            raise ConfigError(path, "seeds", "must be a non-empty list of integers >= 0")
        if len(set(seeds_raw)) != len(seeds_raw):
            raise ConfigError(path, "seeds", "lists a seed twice")
        for p in pairs:
            if "seed" in p.option_dict:
                raise ConfigError(path, "seeds", f"pair {p.label} also sets option seed; set seeds in one place")
        seeds = tuple(seeds_raw)
    jobs = _positive_int(data, "jobs", 1, path)
    executor = _get(data, "executor", str, path) or "local"
    if executor not in EXECUTORS:
        raise ConfigError(path, "executor", f"must be 'local', 'dask' or 'slurm', not {executor!r}")
    scheduler = _get(data, "scheduler", str, path)
    retries = _get(data, "retries", int, path)
    if retries is not None and retries < 0:
        raise ConfigError(path, "retries", "must be >= 0")
    pin = _get(data, "pin", bool, path)
    if pin and executor == "dask":
        raise ConfigError(path, "pin", "pins runs on this machine or a SLURM node; a Dask worker's runs are not "
                                       "pinned (use executor = \"local\" or \"slurm\", or pin the Dask workers "
                                       "themselves: taskset -c N dask worker ...)")
    workers = _get(data, "workers", str, path) or "warm"
    if workers not in ("warm", "cold"):
        raise ConfigError(path, "workers", f"must be 'warm' or 'cold', not {workers!r}")
    output_raw = _get(data, "output", str, path)
    if output_raw:
        output = Path(os.path.normpath(base / output_raw))
    else:  # the name is the results folder's: one folder inside results/
        output = Path("results") / check_name(name, "the campaign name (the results folder's, with no output)",
                                              f"{path}: name")
    check = parse_check(data.get("check", {}), path, [p.label for p in pairs])
    return Config(
        name=name, path=path, instance_paths=tuple(instance_paths), pairs=tuple(pairs), task=task,
        limits=limits, repetitions=repetitions, seeds=seeds, jobs=jobs, executor=executor,
        scheduler=scheduler, retries=DEFAULT_RETRIES if retries is None else retries, pin=bool(pin), output=output,
        workers=workers, text=text, patterns=tuple(patterns), params=params,
        rank_by=rank_by, controls=controls,
        check=check,
    )


# --------------------------------------------------------------------------- pieces
def _task(raw: Any, path: Path) -> tuple[type[TaskType], TaskSpec]:
    """The task that owns the config's ``task`` value (a string, or a table with ``kind``), and its spec."""
    if isinstance(raw, str):
        kind, where = raw, "task"
    elif isinstance(raw, dict):
        kind, where = _get(raw, "kind", str, path, required=True, where="task.kind"), "task.kind"
    else:
        raise ConfigError(path, "task", f"must be a string or a table, not {_toml_type(raw)}")
    try:
        cls = task_for_kind(kind)
    except InputError as exc:
        raise ConfigError(path, where, str(exc)) from None
    if cls is None:
        raise ConfigError(path, where, forms_message(kind))
    if ":" not in kind:
        return cls, cls.parse(raw, path)
    # a task named as module:Class: its own first kind, and the reference kept to find it again (in workers too)
    own = cls.kinds[0] if isinstance(raw, str) else {**raw, "kind": cls.kinds[0]}
    return cls, replace(cls.parse(own, path), name=kind)


def _pairs(data: dict[str, Any], path: Path, cls: type[TaskType], task: TaskSpec) -> list[PairSpec]:
    """Every ``[[pairs]]`` table, each checked by the task against the plugin it names; no label twice."""
    raw = _get(data, "pairs", list, path, required=True)
    if not raw:
        raise ConfigError(path, "pairs", "must list at least one pair")
    pairs: list[PairSpec] = []
    for i, entry in enumerate(raw):
        where = f"pairs[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(path, where, f"must be a table with {', '.join(cls.pair_keys)}, "
                              f"not {_toml_type(entry)}")
        _unknown(entry, cls.pair_keys, path, f"{where}.")
        pair = cls.parse_pair(entry, where, path, task)
        if any(p.label == pair.label for p in pairs):
            raise ConfigError(path, where, f"pair {pair.label} is listed twice")
        pairs.append(pair)
    pairs = cls.configure_pairs(pairs, data, path)
    cls.check_pairs(pairs, data, path, task)
    return pairs


def _report(raw: Any, path: Path, pairs: list[PairSpec]) -> tuple[str, tuple[str, ...]]:
    """The ``[report]`` table: ``rank_by`` (one of :data:`RANK_BY`) and ``controls`` (labels of configured pairs)."""
    if not isinstance(raw, dict):
        raise ConfigError(path, "report", f"must be a table, not {_toml_type(raw)}")
    _unknown(raw, _REPORT_KEYS, path, "report.")
    rank_by = _get(raw, "rank_by", str, path, where="report.rank_by") or "auto"
    if rank_by not in RANK_BY:
        raise ConfigError(path, "report.rank_by", f"must be one of {', '.join(RANK_BY)}, not {rank_by!r}")
    controls = _get(raw, "controls", list, path, where="report.controls") or []
    labels = [p.label for p in pairs]
    for i, label in enumerate(controls):
        where = f"report.controls[{i}]"
        if not isinstance(label, str):
            raise ConfigError(path, where, f"must be a pair's label (a string), not {_toml_type(label)}")
        if label not in labels:
            raise ConfigError(path, where, f"{label!r} is not a pair of this campaign (its pairs: "
                              f"{', '.join(labels)})")
        if controls.index(label) != i:
            raise ConfigError(path, where, f"{label!r} is listed twice")
    return rank_by, tuple(controls)


def _limits(raw: Any, path: Path) -> Limits:
    if not isinstance(raw, dict):
        raise ConfigError(path, "limits", f"must be a table, not {_toml_type(raw)}")
    _unknown(raw, _LIMIT_KEYS, path, "limits.")
    types = {"time_s": float, "memory_mb": int, "grace_s": float, "output_mb": int}
    given = {key: _get(raw, key, typ, path, where=f"limits.{key}") for key, typ in types.items() if key in raw}
    try:
        return Limits.checked(**given)
    except LimitError as exc:
        raise ConfigError(path, f"limits.{exc.field}", exc.problem) from None


# --------------------------------------------------------------------------- instances
def _is_instance_file(p: Path) -> bool:
    return p.is_file() and p.name not in (_MANIFEST, "README.md") and not p.name.startswith(".")


def _manifest_suite(suite: str, base: Path, path: Path, key: str) -> list[Path]:
    """The files of ``@suite`` in the nearest ``instances/MANIFEST.toml`` above ``base``; ``@sub/suite`` reads
    ``instances/sub/MANIFEST.toml`` instead (``@deployments/tiny``)."""
    sub, _, suite = suite.rpartition("/")
    start = Path(os.path.abspath(base))  # a relative base has no parents above the working directory
    for folder in (start, *start.parents):
        manifest = folder / "instances" / sub / _MANIFEST
        if manifest.is_file():
            if not base.is_absolute():  # keep paths relative when the config's path was
                manifest = Path(os.path.relpath(manifest))
            break
    else:
        where = f"instances/{sub}/" if sub else "instances/"
        raise ConfigError(path, key, f"no {where}{_MANIFEST} found above {base} for suite @{suite}")
    try:
        entries = tomllib.loads(manifest.read_text(encoding="utf-8")).get("instance", [])
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(path, key, f"cannot read {manifest}: {exc}") from None
    files = [manifest.parent / e["path"] for e in entries if e.get("suite") == suite and "path" in e]
    if not files:
        suites = sorted({e.get("suite", "?") for e in entries})
        raise ConfigError(path, key, f"unknown suite @{suite} (the manifest {manifest} has {', '.join(suites)})")
    return files


def resolve_instances(patterns: list[str], base: Path, path: Path, *, require: bool = True) -> list[Path]:
    """Expand files, directories, globs and @suites; each file once, in the order given."""
    out: list[Path] = []
    seen: set[Path] = set()
    for i, pattern in enumerate(patterns):
        key = f"instances[{i}]"
        if pattern.startswith("@"):
            found = _manifest_suite(pattern[1:], base, path, key)
        else:
            expanded = os.path.expanduser(pattern)
            full = Path(expanded)
            full = full if full.is_absolute() else base / full
            if glob.has_magic(expanded):  # only the pattern's own magic: the base is taken literally
                root = "" if Path(expanded).is_absolute() else glob.escape(str(base)) + os.sep
                found = sorted(Path(p) for p in glob.glob(root + expanded, recursive=True))
                found = [p for p in found if _is_instance_file(p)]
            elif full.is_dir():
                found = sorted(p for p in full.iterdir() if _is_instance_file(p)
                               and (p.suffix in INSTANCE_EXTENSIONS or not p.suffix))
            else:
                found = [full]  # a missing file becomes an error run, not a config error
        if not found and require:
            raise ConfigError(path, key, f"{pattern!r} matches no instance file (relative to {base})")
        for p in found:
            key_path = Path(os.path.normpath(p))
            if key_path not in seen:
                seen.add(key_path)
                out.append(key_path)
    return out


__all__ = ["DEFAULT_RETRIES", "EXECUTORS", "Config", "ConfigError", "Limits", "PairSpec", "TaskSpec", "load_config", "parse_config",
           "resolve_instances"]
