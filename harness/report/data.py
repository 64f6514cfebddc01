"""Loading a results store for the reports, and the run-level helpers every report shares.

:func:`load` reads ``RESULTS_DIR/results.sqlite`` into the typed frame of
:mod:`harness.store.frame` and adds one column, ``instance_key``: the instance's file
(``instance_path``), which identifies an instance uniquely, whereas ``instance`` is only
its display name (two files may share one).

The conventions every table, plot and check in :mod:`harness.report` follows:

* a run is *solved* when its status is in :data:`SOLVED` (``sat`` or ``unsat``); a
  ``wrong`` run is not solved, nor are ``timeout``, ``memout`` and ``error`` runs;
* a run's *ranking time* (:func:`ranking_time`) is its time in its pair's *measure* when
  solved and its ``time_limit_s`` otherwise: an unsolved run counts at the limit, whatever it
  took;
* a pair's measure (:func:`pair_measures`, the frame's ``measure`` column once
  :func:`with_measures` set it) is ``cpu`` (``cpu_s``: user + system CPU time of the worker's
  process tree) or ``wall`` (``wall_s``).  Asked for ``auto`` (the default), a pair that uses
  one core (:func:`cores`: its ``threads``, ``split`` and race legs) is ranked by CPU time,
  which other work on the machine hardly stretches, and a parallel pair by wall time, the
  time its user waits (its CPU time adds up its cores).  A pair asked to rank by CPU whose
  solved runs lack ``cpu_s`` (a store made before it was recorded) is ranked by wall time;
* an *A/A control* (:func:`is_control`) is a pair's second copy, run interleaved with it
  (label ``PAIR~aa``, :data:`harness.core.task.CONTROL_SUFFIX`): the report measures the
  machine's run-to-run noise from the two and ranks neither copy twice.
* an instance's *family* (:func:`family`) is the directory its file lies in
  (``instances/smoke/tiny_4x4.toml``: ``smoke``, the suite the instances manifest gives it),
  its *size* (:func:`size`) ``rows x cols``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dataclasses import dataclass

import pandas as pd

from harness.core.cores import cores_of as cores
from harness.core.status import STATUS_ORDER
from harness.core.task import CONTROL_SUFFIX, RANK_BY
from harness.errors import InputError
from harness.store import ResultsStore

SOLVED = ("sat", "unsat")
"""The statuses of a solved run."""

STATUSES = STATUS_ORDER
"""Every status :func:`harness.core.status.classify` gives, in report order (``unknown`` shown only where a run
has it: :func:`harness.core.status.shown_statuses`)."""

INSTANCE_KEY = "instance_key"
"""The column that identifies an instance (its file); ``instance`` is the display name."""

MEASURES = ("cpu", "wall")
"""What a pair's times are ranked by: ``cpu`` (``cpu_s``) or ``wall`` (``wall_s``)."""


MEASURE_WORDS = {"cpu": "CPU time", "wall": "wall time"}


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


# -- measures ------------------------------------------------------------------------------

def is_control(pair: str) -> bool:
    """Is ``pair`` an A/A control (a pair's second copy, ``PAIR~aa``)?"""
    return str(pair).endswith(CONTROL_SUFFIX)


def control_of(pair: str) -> str:
    """The pair an A/A control copies (``pair`` itself if it is none)."""
    return str(pair)[: -len(CONTROL_SUFFIX)] if is_control(pair) else str(pair)


@dataclass(frozen=True)
class Measures:
    """What each pair is ranked by: ``by_pair`` (pair -> ``cpu`` or ``wall``), as ``asked`` (:data:`RANK_BY`);
    ``no_cpu``: the pairs asked to rank by CPU time ranked by wall time, their solved runs lacking ``cpu_s``."""

    asked: str
    by_pair: dict[str, str]
    no_cpu: tuple[str, ...] = ()

    @property
    def used(self) -> tuple[str, ...]:
        """The measures some pair is ranked by, in :data:`MEASURES` order."""
        return tuple(m for m in MEASURES if m in self.by_pair.values())

    @property
    def mixed(self) -> bool:
        return len(self.used) > 1


def check_rank_by(rank_by: str, where: str = "rank_by") -> str:
    """``rank_by`` if it is one of :data:`RANK_BY`; else InputError naming it."""
    if rank_by not in RANK_BY:
        raise InputError(f"{where}: must be one of {', '.join(RANK_BY)}, not {rank_by!r}")
    return rank_by


def pair_measures(df: pd.DataFrame, rank_by: str = "auto") -> Measures:
    """Each pair's measure for ``rank_by`` (:data:`RANK_BY`): see the module's conventions.

    An A/A control takes the measure of the pair it copies.
    """
    check_rank_by(rank_by)
    by_pair: dict[str, str] = {}
    no_cpu: list[str] = []
    if df.empty:
        return Measures(rank_by, by_pair)
    pairs = df["pair"].astype(object).map(control_of)
    solved = solved_mask(df).to_numpy(dtype=bool)
    cpu = df["cpu_s"].astype("float64")
    options = df["options"] if "options" in df.columns else pd.Series([None] * len(df), index=df.index)
    for pair in sorted(set(pairs.dropna())):
        mine = (pairs == pair).to_numpy(dtype=bool)
        wanted = rank_by
        if wanted == "auto":
            wanted = "cpu" if max(cores(o) for o in options[mine]) == 1 else "wall"
        if wanted == "cpu" and cpu[mine & solved].isna().any():
            no_cpu.append(pair)
            wanted = "wall"
        by_pair[pair] = wanted
    for label in set(df["pair"].dropna().astype(object)):
        by_pair[label] = by_pair[control_of(label)]
    return Measures(rank_by, dict(sorted(by_pair.items())), tuple(no_cpu))


def stored_config(meta: dict[str, str], where: str = "the store's config") -> dict:
    """The campaign config a store's ``meta`` records, parsed (empty for a store made without one);
    InputError ``WHERE: not valid TOML: ...`` for text that does not parse."""
    import tomllib

    try:
        return tomllib.loads(meta.get("config_text") or "")
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML: {exc}") from None


def configured_rank_by(meta: dict[str, str]) -> str:
    """The ``[report] rank_by`` of the campaign config stored in a store's ``meta`` (``auto`` without one)."""
    try:
        value = stored_config(meta).get("report", {}).get("rank_by", "auto")
    except (InputError, AttributeError):
        return "auto"
    return value if value in RANK_BY else "auto"


def with_measures(df: pd.DataFrame, measures: Measures | str = "auto") -> pd.DataFrame:
    """``df`` with the ``measure`` column (each run its pair's; a new frame), from ``measures`` or a
    :data:`RANK_BY` value."""
    if isinstance(measures, str):
        measures = pair_measures(df, measures)
    return df.assign(measure=df["pair"].astype(object).map(measures.by_pair).fillna("wall").astype(object))


def measure_of(df: pd.DataFrame) -> pd.Series:
    """Per run, its pair's measure: the ``measure`` column, or ``auto``'s (:func:`pair_measures`) without one."""
    if "measure" in df.columns:
        return df["measure"].astype(object)
    return with_measures(df)["measure"]


def measured_time(df: pd.DataFrame) -> pd.Series:
    """Per run, its time in its pair's measure (``cpu_s`` or ``wall_s``), solved or not."""
    by_cpu = (measure_of(df) == "cpu").to_numpy(dtype=bool)
    return df["wall_s"].astype("float64").where(~by_cpu, df["cpu_s"].astype("float64"))


def ranking_time(df: pd.DataFrame) -> pd.Series:
    """Per run: its measured time (:func:`measured_time`) if solved, else its ``time_limit_s`` (seconds)."""
    solved = solved_mask(df)
    limit = df["time_limit_s"].astype("float64")
    return measured_time(df).where(solved, limit).rename("ranking_s")


def penalized_time(df: pd.DataFrame, k: float) -> pd.Series:
    """Per run, for PAR-k: its measured time if solved, else ``k × time_limit_s``."""
    solved = solved_mask(df)
    limit = df["time_limit_s"].astype("float64")
    return measured_time(df).where(solved, k * limit).rename(f"par{k:g}_s")


__all__ = [
    "clean",
    "INSTANCE_KEY", "MEASURES", "MEASURE_WORDS", "Measures", "RANK_BY", "SOLVED", "STATUSES",
    "check_rank_by", "configured_rank_by", "control_of", "cores", "family", "instance_key", "is_control", "load",
    "measure_of", "measured_time", "pair_measures", "stored_config", "penalized_time", "ranking_time", "size", "solved_mask",
    "with_instance_key", "with_measures",
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
