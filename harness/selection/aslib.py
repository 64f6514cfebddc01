"""ASlib scenarios: a campaign written in the Algorithm Selection Library's format, read back and checked.

:func:`write_scenario` writes a :class:`harness.selection.scenario.Scenario` as the files of an ASlib scenario
(the format of ``coseal/aslib_data``, version 4 of its ``description.txt``), each ARFF file through
``liac-arff``:

* ``description.txt`` (YAML): ``scenario_id``, one performance measure ``runtime`` (minimised, of type
  runtime), ``algorithm_cutoff_time`` (the runs' limit) and memory, the feature steps (one per feature
  group, :data:`harness.selection.features.GROUPS` (a count scenario's: ``BOARD_GROUPS``), each listing the features it ``provides``; every step a
  default step), every feature and every algorithm (pair) deterministic -- a pair's seed is part of its
  options --, and where the numbers come from (``battlebench``'s own keys, ignored by ASlib's tools);
* ``algorithm_runs.arff``: one row per run -- ``instance_id`` (the puzzle's file), ``repetition``,
  ``algorithm`` (the pair), ``runtime`` (its time in the scenario's measure) and ``runstatus`` (``ok`` when
  solved, ``timeout``, ``memout``, ``crash``, ``other`` -- a wrong answer is not ``ok``);
* ``feature_values.arff``, ``feature_runstatus.arff`` (every step ``ok``) and ``feature_costs.arff`` (each
  step's CPU seconds) -- one row per instance, repetition 1;
* ``cv.arff``: each instance's fold, instances of one group (a generator seed) in one fold.

:func:`check_scenario` applies the rules of ASlib's format checker (``data_check_tool_python``) that a
scenario written here could break: the required files, the description's keys and lists, the ARFF headers
(first attributes, measures, ``runstatus`` last and its values), every feature declared and provided by a
step, one row per (instance, repetition, algorithm), every instance run by every algorithm, no missing
performance value, folds of one instance agreeing.  :func:`read_scenario` reads a scenario back (checked
first).  Errors are one line naming the file and the place (:class:`ScenarioError`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.selection.features import BOARD_GROUPS, GROUPS

RUNSTATUS = ["ok", "timeout", "memout", "not_applicable", "crash", "other"]
FEATURE_STATUS = ["ok", "timeout", "memout", "presolved", "crash", "other"]
FILES = ("description.txt", "algorithm_runs.arff", "feature_values.arff", "feature_runstatus.arff",
         "feature_costs.arff", "cv.arff")
REQUIRED = FILES[:4]  # what ASlib's checker needs; the costs and the folds are optional there, written here
FOLDS = 10


class ScenarioError(InputError):
    """A scenario folder that breaks ASlib's rules: the file, the place, the problem."""


def _steps(scn: Any) -> dict[str, list[str]]:
    """Feature step (group) -> the features it provides, in :data:`GROUPS` order (a step that gave none: left
    out)."""
    out: dict[str, list[str]] = {}
    order = GROUPS if getattr(scn, "task", "solve") == "solve" else BOARD_GROUPS
    for key in scn.instances:
        f = scn.features[key]
        for group in order:
            for name in f.groups.get(group, []):
                if name not in out.setdefault(group, []):
                    out[group].append(name)
    return {g: out[g] for g in order if out.get(g)}


def folds(groups: dict[str, str], count: int = FOLDS) -> dict[str, int]:
    """Each instance's fold (1..count): the groups in sorted order dealt round-robin, so every instance of a
    group shares its fold; fewer folds when there are fewer groups."""
    names = sorted(set(groups.values()))
    k = max(1, min(count, len(names)))
    fold_of = {g: i % k + 1 for i, g in enumerate(names)}
    return {key: fold_of[g] for key, g in groups.items()}


def write_scenario(scn: Any, out: str | Path) -> dict[str, Path]:
    """The ASlib files of ``scn`` in the folder ``out`` (module docstring); {file name: path}."""
    import arff
    import yaml

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    steps = _steps(scn)
    names = [n for provided in steps.values() for n in provided]
    sid = f"battlebench-{scn.name}"
    description = {
        "scenario_id": sid, "performance_measures": ["runtime"], "maximize": [False],
        "performance_type": ["runtime"], "algorithm_cutoff_time": scn.cutoff_s,
        "algorithm_cutoff_memory": scn.memory_mb if scn.memory_mb is not None else "?",
        "features_cutoff_time": "?", "features_cutoff_memory": "?",
        "features_deterministic": names, "features_stochastic": [],
        "algorithms_deterministic": list(scn.pairs), "algorithms_stochastic": [],
        "number_of_feature_steps": len(steps), "default_steps": list(steps),
        "feature_steps": {g: {"provides": provided} for g, provided in steps.items()},
        "metainfo_algorithms": {p: {"configuration": p, "deterministic": True} for p in scn.pairs},
        "battlebench_measure": f"{scn.measure} seconds ({'user + system CPU of the run' if scn.measure == 'cpu' else 'wall clock'})",
        "battlebench_feature_costs": "CPU seconds of the process computing each step",
    }
    written = {}
    path = folder / "description.txt"
    path.write_text(yaml.safe_dump(description, sort_keys=False))
    written[path.name] = path

    def dump(name: str, relation: str, attributes: list, rows: list) -> None:
        target = folder / name
        with open(target, "w") as fh:
            arff.dump({"relation": f"{relation}_{sid}", "attributes": attributes, "data": rows}, fh)
        written[name] = target

    runs = scn.runs.sort_values(["instance", "pair", "repetition"], kind="mergesort")
    dump("algorithm_runs.arff", "ALGORITHM_RUNS",
         [("instance_id", "STRING"), ("repetition", "NUMERIC"), ("algorithm", "STRING"), ("runtime", "NUMERIC"),
          ("runstatus", RUNSTATUS)],
         [[r.instance, int(r.repetition), r.pair, float(r.time_s) if r.time_s == r.time_s else float(r.limit_s),
           r.status] for r in runs.itertuples()])
    dump("feature_values.arff", "FEATURE_VALUES",
         [("instance_id", "STRING"), ("repetition", "NUMERIC")] + [(n, "NUMERIC") for n in names],
         [[k, 1] + [scn.features[k].values.get(n) for n in names] for k in scn.instances])
    dump("feature_runstatus.arff", "FEATURE_RUNSTATUS",
         [("instance_id", "STRING"), ("repetition", "NUMERIC")] + [(g, FEATURE_STATUS) for g in steps],
         [[k, 1] + ["ok" for _ in steps] for k in scn.instances])
    dump("feature_costs.arff", "FEATURE_COSTS",
         [("instance_id", "STRING"), ("repetition", "NUMERIC")] + [(g, "NUMERIC") for g in steps],
         [[k, 1] + [round(scn.features[k].costs.get(g, 0.0), 6) for g in steps] for k in scn.instances])
    fold_of = folds(scn.groups)
    dump("cv.arff", "CV", [("instance_id", "STRING"), ("repetition", "NUMERIC"), ("fold", "NUMERIC")],
         [[k, 1, fold_of[k]] for k in scn.instances])
    check_scenario(folder)
    return written


def _load(folder: Path, name: str) -> dict:
    import arff

    path = folder / name
    try:
        with open(path) as fh:
            return arff.load(fh)
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot be read ({exc})") from None
    except arff.ArffException as exc:
        raise ScenarioError(f"{path}: not valid ARFF ({exc})") from None


def _heads(path: Path, data: dict, first: list[str]) -> None:
    got = [a[0] for a in data["attributes"]]
    if got[:len(first)] != first:
        raise ScenarioError(f"{path}: its first attributes are {got[:len(first)]}, ASlib needs {first}")


def check_scenario(folder: str | Path) -> dict[str, Any]:
    """The scenario in ``folder`` checked by ASlib's rules (module docstring); its parts, read."""
    import yaml

    folder = Path(folder)
    for name in REQUIRED:
        if not (folder / name).is_file():
            raise ScenarioError(f"{folder / name}: not found (an ASlib scenario needs it)")
    desc_path = folder / "description.txt"
    try:
        desc = yaml.safe_load(desc_path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ScenarioError(f"{desc_path}: not valid YAML ({exc})") from None
    if not isinstance(desc, dict):
        raise ScenarioError(f"{desc_path}: not a mapping of keys")
    for key in ("performance_measures", "maximize", "performance_type"):
        if not isinstance(desc.get(key), list) or not desc[key]:
            raise ScenarioError(f"{desc_path}: {key!r} has to be a non-empty list")
    for key in ("scenario_id", "algorithm_cutoff_time", "feature_steps", "default_steps"):
        if not desc.get(key):
            raise ScenarioError(f"{desc_path}: {key!r} is missing")
    steps = desc["feature_steps"]
    if not isinstance(steps, dict) or any(not isinstance(s, dict) or not isinstance(s.get("provides"), list)
                                          for s in steps.values()):
        raise ScenarioError(f"{desc_path}: 'feature_steps': each step needs a list it 'provides'")
    if set(desc["default_steps"]) - set(steps):
        raise ScenarioError(f"{desc_path}: default steps {sorted(set(desc['default_steps']) - set(steps))} are "
                            "not feature steps")
    algorithms = set(desc.get("algorithms_deterministic") or []) | set(desc.get("algorithms_stochastic") or [])
    declared = set(desc.get("features_deterministic") or []) | set(desc.get("features_stochastic") or [])
    provided = {n for s in steps.values() for n in s["provides"]}

    runs_path = folder / "algorithm_runs.arff"
    runs = _load(folder, "algorithm_runs.arff")
    _heads(runs_path, runs, ["instance_id", "repetition", "algorithm"] + list(desc["performance_measures"]))
    if runs["attributes"][-1][0] != "runstatus" or list(runs["attributes"][-1][1]) != RUNSTATUS:
        raise ScenarioError(f"{runs_path}: the last attribute must be runstatus {{{', '.join(RUNSTATUS)}}}")
    seen: set = set()
    by_instance: dict[str, set] = {}
    for i, row in enumerate(runs["data"], 1):
        key = (row[0], row[1], row[2])
        if key in seen:
            raise ScenarioError(f"{runs_path}: row {i}: ({row[0]}, {row[1]}, {row[2]}) is not unique")
        seen.add(key)
        if any(v is None for v in row[3:-1]):
            raise ScenarioError(f"{runs_path}: row {i}: a performance value is missing (impute it)")
        if row[2] not in algorithms:
            raise ScenarioError(f"{runs_path}: row {i}: algorithm {row[2]!r} is not in description.txt")
        by_instance.setdefault(row[0], set()).add(row[2])
    for inst, algos in sorted(by_instance.items()):
        if algos != algorithms:
            raise ScenarioError(f"{runs_path}: instance {inst!r} has no run of {sorted(algorithms - algos)}")

    values_path = folder / "feature_values.arff"
    values = _load(folder, "feature_values.arff")
    _heads(values_path, values, ["instance_id", "repetition"])
    names = [a[0] for a in values["attributes"][2:]]
    for n in names:
        if n not in declared:
            raise ScenarioError(f"{values_path}: feature {n!r} is not declared deterministic or stochastic")
        if n not in provided:
            raise ScenarioError(f"{values_path}: feature {n!r} is provided by no feature step")
    status_path = folder / "feature_runstatus.arff"
    status = _load(folder, "feature_runstatus.arff")
    _heads(status_path, status, ["instance_id", "repetition"])
    if sorted(a[0] for a in status["attributes"][2:]) != sorted(steps):
        raise ScenarioError(f"{status_path}: its steps are not description.txt's feature steps")
    parts = {"description": desc, "runs": runs, "values": values, "status": status}
    if (folder / "feature_costs.arff").is_file():
        costs = _load(folder, "feature_costs.arff")
        _heads(folder / "feature_costs.arff", costs, ["instance_id", "repetition"])
        missing = set(steps) - {a[0] for a in costs["attributes"][2:]}
        if missing:
            raise ScenarioError(f"{folder / 'feature_costs.arff'}: no cost of step(s) {sorted(missing)}")
        parts["costs"] = costs
    if (folder / "cv.arff").is_file():
        cv = _load(folder, "cv.arff")
        _heads(folder / "cv.arff", cv, ["instance_id", "repetition", "fold"])
        fold_of: dict[str, Any] = {}
        for i, row in enumerate(cv["data"], 1):
            if fold_of.setdefault(row[0], row[2]) != row[2]:
                raise ScenarioError(f"{folder / 'cv.arff'}: row {i}: instance {row[0]!r} in two folds")
        parts["cv"] = cv
    return parts


def read_scenario(folder: str | Path) -> dict[str, Any]:
    """A scenario folder read back as plain tables (checked first): ``runs`` (instance, repetition, algorithm,
    runtime, runstatus), ``features`` (instance -> {name: value}), ``costs`` (instance -> {step: s}),
    ``folds`` (instance -> fold), ``description``."""
    parts = check_scenario(folder)
    names = [a[0] for a in parts["values"]["attributes"][2:]]
    out = {"description": parts["description"],
           "runs": [tuple(r) for r in parts["runs"]["data"]],
           "features": {r[0]: dict(zip(names, r[2:])) for r in parts["values"]["data"]}}
    if "costs" in parts:
        steps = [a[0] for a in parts["costs"]["attributes"][2:]]
        out["costs"] = {r[0]: dict(zip(steps, r[2:])) for r in parts["costs"]["data"]}
    if "cv" in parts:
        out["folds"] = {r[0]: int(r[2]) for r in parts["cv"]["data"]}
    return out


__all__ = ["FEATURE_STATUS", "FILES", "FOLDS", "RUNSTATUS", "ScenarioError", "check_scenario", "folds",
           "read_scenario", "write_scenario"]
