"""Campaign configs: read a TOML file, validate every key before anything runs, resolve instances.

A config names the instances, the pairs, the task, the limits and how to execute::

    name = "smoke"                        # required
    instances = ["../instances/smoke",    # files, directories, globs (relative to this
                 "@seeds"]                # file) or @suite from the instances manifest
    task = { kind = "count", k = 2 }      # or "solve", "deployments", "boards", "play"
    repetitions = 1                       # runs of each (instance, pair, seed)
    seeds = [0, 1]                        # optional: each pair runs once per seed
    jobs = 1                              # runs executed in parallel
    executor = "local"                    # or "dask" (with scheduler = "tcp://host:8786")
    output = "../results/smoke"           # results directory (relative to this file)
    workers = "warm"                      # or "cold": a fresh worker process per run

    [limits]
    time_s = 10                           # wall-clock limit per run
    memory_mb = 4096                      # address-space limit per run
    grace_s = 2                           # after SIGTERM at the limit, SIGKILL

    [[pairs]]
    backend = "sat"
    formulation = "placement"
    options = { solver = "cadical195", encoding = "totalizer" }

The counting task (``deployments``, ``boards``) takes counters as pairs; the play task
takes strategies, the announcement rule as the formulation, ``games`` per seed (a pair
may set its own ``games``) and no ``repetitions``.

Every problem is a :class:`ConfigError` whose text is ``FILE: KEY: PROBLEM``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterator
from typing import Any

from harness.backends.registry import check_pair
from harness.core.status import COUNTING, PLAY, Task
from harness.errors import InputError
from harness.puzzle.formats import EXTENSIONS

DEFAULTS = {"time_s": 60.0, "memory_mb": 4096, "grace_s": 5.0}
_TOP_KEYS = ("name", "instances", "pairs", "task", "limits", "repetitions", "seeds", "jobs",
             "executor", "scheduler", "output", "workers", "games")
DEFAULT_GAMES = 100
_PAIR_KEYS = ("backend", "formulation", "options")
_LIMIT_KEYS = ("time_s", "memory_mb", "grace_s")
_MANIFEST = "MANIFEST.toml"


class ConfigError(InputError):
    """A campaign config is invalid: ``FILE: KEY: PROBLEM``."""

    def __init__(self, file: str | Path, key: str, problem: str):
        self.file, self.key, self.problem = str(file), key, problem
        super().__init__(f"{file}: {key}: {problem}" if key else f"{file}: {problem}")


@dataclass(frozen=True)
class Limits:
    time_s: float = DEFAULTS["time_s"]
    memory_mb: int | None = DEFAULTS["memory_mb"]
    grace_s: float = DEFAULTS["grace_s"]


@dataclass(frozen=True)
class PairSpec:
    """backend x formulation x options, with its deterministic label."""

    backend: str
    formulation: str
    options: tuple[tuple[str, Any], ...] = ()  # as configured (not the defaults), sorted
    games: int | None = None  # the play task: this pair's games per seed (None: the config's games)
    legs: tuple["PairSpec", ...] = ()  # a race (backend = formulation = "race"): its pairs, in order

    @property
    def label(self) -> str:
        if self.legs:
            return "race[" + ",".join(leg.label for leg in self.legs) + "]"
        opts = ",".join(f"{k}={_text(v)}" for k, v in self.options)
        return f"{self.backend}[{opts}]/{self.formulation}" if opts else f"{self.backend}/{self.formulation}"

    @property
    def option_dict(self) -> dict[str, Any]:
        return dict(self.options)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Config:
    """A validated campaign config."""

    name: str
    path: Path
    instance_paths: tuple[Path, ...]
    pairs: tuple[PairSpec, ...]
    task: Task = Task()
    limits: Limits = Limits()
    repetitions: int = 1
    seeds: tuple[int, ...] | None = None
    jobs: int = 1
    executor: str = "local"
    scheduler: str | None = None
    output: Path = Path("results")
    workers: str = "warm"
    text: str = field(default="", repr=False)
    patterns: tuple[str, ...] = ()
    games: int = 0  # the play task: games per seed (each a run) of the pairs that do not set their own

    @property
    def hash(self) -> str:
        """What decides the runs' results (not jobs, executor, output or worker reuse)."""
        payload = {
            "name": self.name,
            "instances": list(self.patterns),
            "pairs": [[p.backend, p.formulation, [list(o) for o in p.options], *([p.games] if p.games else [])]
                      for p in self.pairs],
            "task": self.task.label,
            "limits": [self.limits.time_s, self.limits.memory_mb, self.limits.grace_s],
            "repetitions": self.repetitions,
            "seeds": list(self.seeds) if self.seeds is not None else None,
            **({"games": self.games} if self.games else {}),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def load_config(path: str | Path, *, require_instances: bool = True) -> Config:
    """Read and validate a config file; every problem is a ConfigError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"not valid TOML: {exc}") from None
    return parse_config(data, path, text, require_instances=require_instances)


def parse_config(data: dict[str, Any], path: Path, text: str = "", *, require_instances: bool = True) -> Config:
    _unknown(data, _TOP_KEYS, path, "")
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
    task = _task(data.get("task", "solve"), path)
    if task.play:
        pairs = _play_pairs(data, path)
    else:
        pairs = _count_pairs(data, path, task) if task.counting else _pairs(data, path)
    limits = _limits(data.get("limits", {}), path)
    repetitions = _positive_int(data, "repetitions", 1, path)
    games = 0
    if task.play:
        games = _positive_int(data, "games", DEFAULT_GAMES, path)
        if repetitions != 1:
            raise ConfigError(path, "repetitions", "the play task repeats by games (and seeds), not repetitions")
    elif "games" in data:
        raise ConfigError(path, "games", "only the play task takes games")
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
    if executor not in ("local", "dask"):
        raise ConfigError(path, "executor", f"must be 'local' or 'dask', not {executor!r}")
    scheduler = _get(data, "scheduler", str, path)
    workers = _get(data, "workers", str, path) or "warm"
    if workers not in ("warm", "cold"):
        raise ConfigError(path, "workers", f"must be 'warm' or 'cold', not {workers!r}")
    output_raw = _get(data, "output", str, path)
    output = Path(os.path.normpath(base / output_raw)) if output_raw else Path("results") / name
    return Config(
        name=name, path=path, instance_paths=tuple(instance_paths), pairs=tuple(pairs), task=task,
        limits=limits, repetitions=repetitions, seeds=seeds, jobs=jobs, executor=executor,
        scheduler=scheduler, output=output, workers=workers, text=text, patterns=tuple(patterns), games=games,
    )


# --------------------------------------------------------------------------- pieces
def _unknown(table: dict[str, Any], known: tuple[str, ...], path: Path, prefix: str) -> None:
    for key in table:
        if key not in known:
            where = f"{prefix}{key if key and key.isprintable() else repr(key)}"  # one line
            raise ConfigError(path, where, f"unknown key (known: {', '.join(known)})")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _get(table: dict[str, Any], key: str, typ: type, path: Path, *, required: bool = False,
         where: str | None = None) -> Any:
    where = where or key
    if key not in table:
        if required:
            raise ConfigError(path, where, "missing")
        return None
    value = table[key]
    if typ is float and _is_int(value):
        value = float(value)
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        names = {str: "a string", list: "a list", dict: "a table", int: "an integer", float: "a number"}
        raise ConfigError(path, where, f"must be {names.get(typ, typ.__name__)}, not {_toml_type(value)}")
    return value


def _toml_type(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _positive_int(table: dict[str, Any], key: str, default: int, path: Path) -> int:
    value = _get(table, key, int, path)
    if value is None:
        return default
    if value < 1:
        raise ConfigError(path, key, "must be >= 1")
    return value


def _pair_tables(data: dict[str, Any], path: Path, keys: tuple[str, ...]) -> Iterator[tuple[str, dict]]:
    """(place, table) of every ``[[pairs]]`` entry, checked to be a table of known keys."""
    raw = _get(data, "pairs", list, path, required=True)
    if not raw:
        raise ConfigError(path, "pairs", "must list at least one pair")
    for i, entry in enumerate(raw):
        where = f"pairs[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(path, where, f"must be a table with {', '.join(keys)}, not {_toml_type(entry)}")
        _unknown(entry, keys, path, f"{where}.")
        yield where, entry


def _add_pair(pairs: list[PairSpec], pair: PairSpec, path: Path, where: str) -> None:
    if any(p.label == pair.label for p in pairs):
        raise ConfigError(path, where, f"pair {pair.label} is listed twice")
    pairs.append(pair)


def _pairs(data: dict[str, Any], path: Path) -> list[PairSpec]:
    pairs: list[PairSpec] = []
    for where, entry in _pair_tables(data, path, (*_PAIR_KEYS, "race")):
        if "race" in entry:
            _add_pair(pairs, _race(entry, path, where), path, where)
            continue
        _add_pair(pairs, _pair(entry, path, where), path, where)
    return pairs


def _pair(entry: dict[str, Any], path: Path, where: str) -> PairSpec:
    """One ``[[pairs]]`` table (or one leg of a race) checked against its backend."""
    backend = _get(entry, "backend", str, path, required=True, where=f"{where}.backend")
    formulation = _get(entry, "formulation", str, path, where=f"{where}.formulation") or "placement"
    options = _get(entry, "options", dict, path, where=f"{where}.options") or {}
    try:
        cls = check_pair(backend, formulation)
        _option_types(cls, options, path, where)
        resolved = cls.resolve_options(options)
    except InputError as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(path, where, str(exc)) from None
    # keep the configured values, converted to their declared types
    return PairSpec(backend, formulation, tuple(sorted((k, resolved[k]) for k in options)))


def _race(entry: dict[str, Any], path: Path, where: str) -> PairSpec:
    """``race = ["cpsat/placement", { backend = "sat", options = { solver = "glucose4" } }, ...]``: a racing
    portfolio of two or more pairs (labels as strings, or tables as in ``[[pairs]]``)."""
    from harness.runner.race import RACE, parse_leg

    if set(entry) != {"race"}:
        raise ConfigError(path, where, "a race pair has only 'race' (its pairs carry backend, formulation, options)")
    raw = _get(entry, "race", list, path, where=f"{where}.race")
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
            raise ConfigError(path, place, f"must be a pair's label or table, not {_toml_type(item)}")
        else:
            _unknown(item, _PAIR_KEYS, path, f"{place}.")
        leg = _pair(item, path, place)
        if any(other.label == leg.label for other in legs):
            raise ConfigError(path, place, f"pair {leg.label} is in the race twice")
        legs.append(leg)
    if len(legs) < 2:
        raise ConfigError(path, f"{where}.race", "a race needs at least two pairs")
    return PairSpec(RACE, RACE, legs=tuple(legs))


def _count_pairs(data: dict[str, Any], path: Path, task: Task) -> list[PairSpec]:
    """Pairs of the counting task: a counter each (``backend``), counting what the task counts."""
    from harness.counting.counters import get_counter

    pairs: list[PairSpec] = []
    for where, entry in _pair_tables(data, path, ("backend", "formulation")):
        backend = _get(entry, "backend", str, path, required=True, where=f"{where}.backend")
        try:
            cls = get_counter(backend)
        except InputError as exc:
            raise ConfigError(path, f"{where}.backend", str(exc)) from None
        formulation = _get(entry, "formulation", str, path, where=f"{where}.formulation") or task.kind
        if formulation != task.kind:
            raise ConfigError(path, f"{where}.formulation", f"the task counts {task.kind}: leave formulation out "
                              f"or set it to {task.kind!r}, not {formulation!r}")
        if task.kind not in cls.by:
            raise ConfigError(path, f"{where}.backend", f"the {backend} counter counts by {' or '.join(cls.by)}, "
                              f"not by {task.kind}")
        _add_pair(pairs, PairSpec(backend, task.kind, ()), path, where)
    return pairs


def _play_pairs(data: dict[str, Any], path: Path) -> list[PairSpec]:
    """Pairs of the play task: a strategy each (``backend``) with its options, under an announcement rule
    (``formulation``: ship, sunk or none; default ship)."""
    from harness.play.game import RULES
    from harness.play.strategies import get_strategy

    pairs: list[PairSpec] = []
    for where, entry in _pair_tables(data, path, (*_PAIR_KEYS, "games")):
        backend = _get(entry, "backend", str, path, required=True, where=f"{where}.backend")
        games = _get(entry, "games", int, path, where=f"{where}.games")
        if games is not None and games < 1:
            raise ConfigError(path, f"{where}.games", "must be >= 1")
        try:
            cls = get_strategy(backend)
        except InputError as exc:
            raise ConfigError(path, f"{where}.backend", str(exc)) from None
        rule = _get(entry, "formulation", str, path, where=f"{where}.formulation") or "ship"
        if rule not in RULES:
            raise ConfigError(path, f"{where}.formulation", f"the play task's formulation is the announcement "
                              f"rule: one of {', '.join(RULES)}, not {rule!r}")
        options = _get(entry, "options", dict, path, where=f"{where}.options") or {}
        try:
            cls(**options)
        except InputError as exc:
            raise ConfigError(path, f"{where}.options", str(exc)) from None
        if rule not in cls.rules:
            raise ConfigError(path, f"{where}.formulation", f"the {backend} strategy plays under the "
                              f"{' or '.join(cls.rules)} rule, not {rule!r}")
        _add_pair(pairs, PairSpec(backend, rule, tuple(sorted(options.items())), games), path, where)
    return pairs


def _option_types(cls: Any, options: dict[str, Any], path: Path, where: str) -> None:
    """A TOML value must fit the option's declared type (strings are converted as on the command line)."""
    declared = cls.declared_options()
    for key, value in options.items():
        opt = declared.get(key)
        if opt is None or isinstance(value, str):
            continue  # unknown names and strings: resolve_options judges them
        if opt.type is bool:
            fits = isinstance(value, bool)
        elif opt.type in (int, float):
            fits = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            fits = False
        if not fits:
            raise ConfigError(path, f"{where}.options.{key}",
                              f"option {key!r} of backend {cls.name!r} must be {opt.type.__name__}, "
                              f"not {_toml_type(value)}")


def _task(raw: Any, path: Path) -> Task:
    if isinstance(raw, str):
        if raw == "solve":
            return Task()
        if raw in (*COUNTING, PLAY):
            return Task(raw, 0)
        if raw.startswith("count-") and raw[6:].isascii() and raw[6:].isdigit():
            return Task.count(int(raw[6:]))
        raise ConfigError(path, "task", f"must be 'solve', 'count-K', 'deployments', 'boards', 'play' or "
                          f"{{ kind = \"count\", k = K }}, not {raw!r}")
    if not isinstance(raw, dict):
        raise ConfigError(path, "task", f"must be a string or a table, not {_toml_type(raw)}")
    _unknown(raw, ("kind", "k"), path, "task.")
    kind = _get(raw, "kind", str, path, required=True, where="task.kind")
    if kind == "solve":
        if "k" in raw:
            raise ConfigError(path, "task.k", "only the count task takes k")
        return Task()
    if kind in (*COUNTING, PLAY):
        if "k" in raw:
            raise ConfigError(path, "task.k", "only the count task takes k")
        return Task(kind, 0)
    if kind != "count":
        raise ConfigError(path, "task.kind", f"must be 'solve', 'count', 'deployments', 'boards' or 'play', "
                          f"not {kind!r}")
    k = _get(raw, "k", int, path, required=True, where="task.k")
    if k < 0:
        raise ConfigError(path, "task.k", "must be >= 0 (0 counts all boards)")
    return Task.count(k)


def _limits(raw: Any, path: Path) -> Limits:
    if not isinstance(raw, dict):
        raise ConfigError(path, "limits", f"must be a table, not {_toml_type(raw)}")
    _unknown(raw, _LIMIT_KEYS, path, "limits.")
    time_s = _get(raw, "time_s", float, path, where="limits.time_s")
    grace_s = _get(raw, "grace_s", float, path, where="limits.grace_s")
    memory_mb = _get(raw, "memory_mb", int, path, where="limits.memory_mb")
    if time_s is not None and not 0 < time_s < 1e7:
        raise ConfigError(path, "limits.time_s", "must be > 0 seconds")
    if grace_s is not None and not 0 <= grace_s < 1e5:
        raise ConfigError(path, "limits.grace_s", "must be >= 0 seconds")
    if memory_mb is not None and memory_mb < 64:
        raise ConfigError(path, "limits.memory_mb", "must be at least 64 (a Python worker needs that much)")
    return Limits(
        time_s=DEFAULTS["time_s"] if time_s is None else time_s,
        memory_mb=DEFAULTS["memory_mb"] if memory_mb is None else memory_mb,
        grace_s=DEFAULTS["grace_s"] if grace_s is None else grace_s,
    )


# --------------------------------------------------------------------------- instances
def _is_instance_file(p: Path) -> bool:
    return p.is_file() and p.name not in (_MANIFEST, "README.md") and not p.name.startswith(".")


def _manifest_suite(suite: str, base: Path, path: Path, key: str) -> list[Path]:
    start = Path(os.path.abspath(base))  # a relative base has no parents above the working directory
    for folder in (start, *start.parents):
        manifest = folder / "instances" / _MANIFEST
        if manifest.is_file():
            if not base.is_absolute():  # keep paths relative when the config's path was
                manifest = Path(os.path.relpath(manifest))
            break
    else:
        raise ConfigError(path, key, f"no instances/{_MANIFEST} found above {base} for suite @{suite}")
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
                               and (p.suffix in EXTENSIONS or not p.suffix))
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


__all__ = ["Config", "ConfigError", "Limits", "PairSpec", "load_config", "parse_config", "resolve_instances"]
