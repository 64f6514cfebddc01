"""Loading a results store for the reports, and the run-level helpers every report shares.

:func:`load` reads ``RESULTS_DIR/results.sqlite`` into the typed frame of
:mod:`harness.store.frame` and adds one column, ``instance_key``: the instance's file
(``instance_path``), which identifies an instance uniquely, whereas ``instance`` is only
its display name (two files may share one).

The conventions every table, plot and check in :mod:`harness.report` follows:

* a run is *solved* when its status is in :data:`SOLVED` (``sat`` or ``unsat``); a
  ``wrong`` run is not solved, nor are ``timeout``, ``memout`` and ``error`` runs;
* a run's *ranking time* (:func:`ranking_time`) is its ``wall_s`` when solved and its
  ``time_limit_s`` otherwise: an unsolved run counts at the limit, whatever it took;
* an instance's *family* (:func:`family`) is the directory its file lies in
  (``instances/smoke/tiny_4x4.toml``: ``smoke``, the suite the instances manifest gives it),
  its *size* (:func:`size`) ``rows x cols``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import InputError
from harness.store import ResultsStore

SOLVED = ("sat", "unsat")
"""The statuses of a solved run."""

STATUSES = ("sat", "unsat", "timeout", "memout", "error", "wrong")
"""Every status :func:`harness.core.status.classify` gives, in report order."""

INSTANCE_KEY = "instance_key"
"""The column that identifies an instance (its file); ``instance`` is the display name."""


def load(results_dir: str | Path) -> pd.DataFrame:
    """Every run of the store in ``results_dir``, typed, with the ``instance_key`` column.

    Raises :class:`InputError` if the directory holds no results store.
    """
    directory = Path(results_dir)
    if not directory.is_dir():
        raise InputError(f"{results_dir}: no such results directory")
    with ResultsStore(directory, create=False) as store:
        df = store.dataframe()
    return with_instance_key(df)


def instance_key(df: pd.DataFrame) -> pd.Series:
    """Each run's instance key: ``instance_path``, or the display name where the path is null."""
    if INSTANCE_KEY in df.columns:
        return df[INSTANCE_KEY]
    return df["instance_path"].fillna(df["instance"]).rename(INSTANCE_KEY)


def with_instance_key(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the ``instance_key`` column (a new frame; ``df`` is not changed)."""
    if INSTANCE_KEY in df.columns:
        return df
    return df.assign(**{INSTANCE_KEY: instance_key(df)})


def family(df: pd.DataFrame) -> pd.Series:
    """Each run's instance family: the name of the directory of ``instance_path`` ("" where it has none)."""
    paths = df["instance_path"].astype(object)
    return pd.Series([Path(str(p)).parent.name if clean(p) is not None else "" for p in paths],
                     index=df.index, dtype=object, name="family")


def size(df: pd.DataFrame) -> pd.Series:
    """Each run's board size, ``"10x10"`` (rows x cols), "" where the store has no rows or cols."""
    return pd.Series([f"{int(r)}x{int(c)}" if clean(r) is not None and clean(c) is not None else ""
                      for r, c in zip(df["rows"], df["cols"])], index=df.index, dtype=object, name="size")


def solved_mask(df: pd.DataFrame) -> pd.Series:
    """Plain bool per run: is its status ``sat`` or ``unsat``? (null status: False)."""
    return df["status"].isin(SOLVED).astype(bool)


def ranking_time(df: pd.DataFrame) -> pd.Series:
    """Per run: ``wall_s`` if solved, else the run's ``time_limit_s`` (float seconds)."""
    solved = solved_mask(df)
    wall = df["wall_s"].astype("float64")
    limit = df["time_limit_s"].astype("float64")
    return wall.where(solved, limit).rename("ranking_s")


def penalized_time(df: pd.DataFrame, k: float) -> pd.Series:
    """Per run, for PAR-k: ``wall_s`` if solved, else ``k × time_limit_s``."""
    solved = solved_mask(df)
    wall = df["wall_s"].astype("float64")
    limit = df["time_limit_s"].astype("float64")
    return wall.where(solved, k * limit).rename(f"par{k:g}_s")


__all__ = [
    "clean",
    "INSTANCE_KEY", "SOLVED", "STATUSES", "family", "instance_key", "load", "penalized_time",
    "ranking_time", "size", "solved_mask", "with_instance_key",
]


def clean(value: Any) -> Any:
    """None for a pandas / NumPy null, the value otherwise."""
    if value is None:
        return None
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value
