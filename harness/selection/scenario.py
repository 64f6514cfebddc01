"""An algorithm-selection scenario read from a solve (or count) campaign's store: instances, features, pairs' times.

:func:`scenario` gathers what ASlib calls a scenario (:mod:`harness.selection.aslib` writes it, the selector of
:mod:`harness.selection.selector` learns from it) out of one results store:

* the *algorithms* are the campaign's ranked pairs (A/A controls left out) measured by one *measure*: the
  pairs' own (:func:`harness.report.data.pair_measures`) when they share one, else the one asked for --
  a CPU second and a wall second are not one cost;
* the *instances* are the puzzles every pair has results on (the report's ranked runs), named by their
  file (``instance_key``), each found again and checked against its content hash
  (:mod:`harness.report.locate`); its *group* is its generator seed (``meta.seed``) when it has one, so
  that the puzzles one seed made fall into one fold, else the puzzle itself;
* every run keeps its repetition, time in the measure and status (``ok`` when solved);
* the *features* of each instance are :func:`harness.selection.features.cached_features` of the puzzle
  (nothing of its solution, no run), with each group's CPU cost;
* a store with no solve runs but count runs is a scenario of its counters (its pairs) on its deployments, whose
  features are :func:`harness.selection.features.board_features` (the count task's ``task``).

Errors are one line (:class:`harness.errors.InputError`): no solve runs, fewer than two pairs, a measure
that is not the pairs', a puzzle file not found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import InputError
from harness.selection.features import Features, board_features, cached_features

STATUS_OF = {"sat": "ok", "unsat": "ok", "timeout": "timeout", "memout": "memout", "error": "crash",
             "crash": "crash"}
"""A run's status as ASlib's ``runstatus`` (anything else -- ``wrong``, ``unknown`` -- is ``other``)."""


@dataclass
class Scenario:
    """One campaign as an algorithm-selection scenario (module docstring)."""

    name: str
    measure: str  # "cpu" or "wall"
    cutoff_s: float  # the runs' time limit
    memory_mb: float | None
    pairs: list[str]
    instances: list[str]  # instance keys, sorted
    names: dict[str, str]  # instance key -> display name
    groups: dict[str, str]  # instance key -> its fold group
    runs: pd.DataFrame  # instance, pair, repetition, time_s, status (ASlib's), solved
    par10: pd.DataFrame  # instances x pairs: the cell's PAR-10 (median over repetitions)
    solved: pd.DataFrame  # instances x pairs: bool
    features: dict[str, Features] = field(default_factory=dict)  # instance key -> its features
    task: str = "solve"  # the runs' task: solve (puzzles) or count (deployments)

    def feature_names(self) -> list[str]:
        """Every feature's name, in a stable order (the first instance's, then any others')."""
        names: list[str] = []
        for key in self.instances:
            names += [n for n in self.features[key].values if n not in names]
        return names

    def feature_matrix(self) -> pd.DataFrame:
        """instances x features (a feature an instance lacks: NaN)."""
        return pd.DataFrame([self.features[k].values for k in self.instances], index=self.instances,
                            columns=self.feature_names(), dtype="float64")

    def feature_cost(self) -> pd.Series:
        """Per instance, the CPU seconds all feature groups cost."""
        return pd.Series({k: sum(self.features[k].costs.values()) for k in self.instances}, dtype="float64")


def _group(inst: Any, key: str) -> str:
    seed = inst.meta.get("seed") if inst is not None else None
    return f"seed {seed}" if seed is not None else f"instance {key}"


def scenario(results_dir: str | Path, measure: str | None = None, node_class: str | None = None) -> Scenario:
    """The scenario of the solve runs in the store at ``results_dir`` (module docstring)."""
    from harness.counting.format import read_deployment
    from harness.puzzle.formats import read_instance
    from harness.report.completeness import load_campaign
    from harness.report.data import INSTANCE_KEY, configured_rank_by, is_control, pair_measures, \
        stored_config, with_measures
    from harness.report.locate import locator_of
    from harness.report.metrics import instance_times

    campaign = load_campaign(results_dir, node_class)
    df = campaign.ranked
    tasks = set(df["task"].astype(str)) if "task" in df.columns else {"solve"}
    task = "solve" if "solve" in tasks or "count" not in tasks else "count"
    df = df[(df["task"].astype(object) == task).to_numpy(dtype=bool)] if "task" in df.columns else df
    df = df[~df["pair"].astype(str).map(is_control).to_numpy(dtype=bool)]
    if df.empty:
        raise InputError(f"{results_dir}: no solve or count runs on instances every pair has results on")
    measures = pair_measures(df, configured_rank_by(campaign.meta))
    used = sorted(set(measures.by_pair.values()))
    if measure is None:
        if len(used) > 1:
            raise InputError(f"{results_dir}: its pairs are ranked by {' and '.join(used)} time: choose one "
                             "with --measure (a CPU second and a wall second are not one cost)")
        measure = used[0]
    elif measure not in ("cpu", "wall"):
        raise InputError(f"--measure {measure!r}: must be cpu or wall")
    df = with_measures(df, measure)
    cells = instance_times(df)
    pairs = sorted(cells["pair"].astype(str).unique())
    if len(pairs) < 2:
        raise InputError(f"{results_dir}: {len(pairs)} pair ranked; a selector chooses among two or more")
    located = locator_of(results_dir)
    names, groups, features = {}, {}, {}
    firsts = df.drop_duplicates(INSTANCE_KEY)
    for rec in firsts[[INSTANCE_KEY, "instance", "instance_path", "instance_hash"]].to_dict("records"):
        key = str(rec[INSTANCE_KEY])
        reader, featured = (read_instance, cached_features) if task == "solve" else (read_deployment, board_features)
        inst = located.find(str(rec["instance_path"]), str(rec["instance_hash"]), reader)
        if inst is None:
            raise InputError(f"{results_dir}: instance {rec['instance_path']}: its file was not found (or has "
                             "changed since its runs); features are computed from the instance")
        names[key], groups[key], features[key] = str(rec["instance"]), _group(inst, key), featured(inst)
    instances = sorted(names)
    par10 = cells.pivot(index="instance_key", columns="pair", values="par10_s").reindex(index=instances,
                                                                                         columns=pairs)
    solved = cells.pivot(index="instance_key", columns="pair", values="solved").reindex(index=instances,
                                                                                         columns=pairs)
    time_col = "cpu_s" if measure == "cpu" else "wall_s"
    runs = pd.DataFrame({
        "instance": df[INSTANCE_KEY].astype(str).to_numpy(), "pair": df["pair"].astype(str).to_numpy(),
        "time_s": df[time_col].astype("float64").to_numpy(),
        "status": df["status"].astype(str).map(lambda s: STATUS_OF.get(s, "other")).to_numpy(),
        "limit_s": df["time_limit_s"].astype("float64").to_numpy()})
    runs = runs.sort_values(["instance", "pair"], kind="mergesort").reset_index(drop=True)
    runs["repetition"] = runs.groupby(["instance", "pair"]).cumcount() + 1
    runs["solved"] = runs["status"] == "ok"
    limits = stored_config(campaign.meta).get("limits", {})
    memory = limits.get("memory_mb") if isinstance(limits, dict) else None
    name = str(campaign.meta.get("campaign") or Path(results_dir).name)
    return Scenario(name, measure, float(runs["limit_s"].max()), memory, pairs, instances, names, groups, runs,
                    par10.astype("float64"), solved.fillna(False).astype(bool), features, task)


__all__ = ["STATUS_OF", "Scenario", "scenario"]
