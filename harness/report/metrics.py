"""The report's numbers: per-pair scores, virtual best, pivots and best-of tables, headline.

Pure functions of the run frame (:func:`harness.report.data.load`); nothing is rounded,
every table has a plain RangeIndex (write it with ``index=False``) and a deterministic
row order.  Conventions (see :mod:`harness.report.data`): a run is solved when its status
is ``sat`` or ``unsat`` (``wrong`` is not solved); an unsolved run counts at its time limit.

Repetitions: every run of one pair on one instance (several repetitions, or seeds) is
collapsed into one *cell* (:func:`instance_times`): its time is the median over the runs
of the ranking time, its PAR-k score the median of the penalized times, and the cell is
*solved* when more than half of its runs are.  Per-pair scores that rank pairs (solved,
PAR-k, shifted geometric mean, VBS gap, unique solves) are over cells, so a pair that was
repeated more often does not weigh more; descriptive columns (status counts, mean_s,
median_s, shares, model size, memory, overshoot) are over runs.

Measures: every time here is in its pair's *measure* (the frame's ``measure`` column,
:func:`harness.report.data.pair_measures`): ``cpu_s`` for a pair ranked by CPU time,
``wall_s`` for one ranked by wall time.  A campaign whose pairs use both is ranked in two
*groups*, CPU first: each group has its own winner, ratios, ties and virtual best, since a
CPU second and a wall second are not the same thing.  ``mean_s``, ``median_s`` (wall) and
``cpu_median_s``, ``cpu_total_s`` (CPU) stay in the table whatever the measure.

A/A controls (:func:`harness.report.data.is_control`) are left out of every ranked table:
:func:`control_table` compares each with the pair it copies, and the noise floor it
measures (:func:`noise_floors`) widens the tie rule of the pairs ranked by that measure.

Definitions (t = a cell's time in its measure, L = the time limit):

* PAR-k: mean over cells of (t if solved else k × L);
* shifted geometric mean ``sgm_s``: exp(mean(log(t + shift_s))) − shift_s;
* virtual best (VBS) of an instance: the smallest t over pairs; ``vbs_gap_s`` of a pair:
  mean over its instances of (its t − the VBS t);
* ``unique_solves``: instances this pair solved and no other pair did;
* ``sgm_lo``, ``sgm_hi``: the 95 % bootstrap interval of ``sgm_s`` over instances;
  ``sgm_ratio``: sgm_s / the winner's (the first row's) sgm_s, with ``ratio_lo``,
  ``ratio_hi`` its paired bootstrap interval and ``tie`` = ``noise`` / ``resolution`` /
  ``machine`` when the pair cannot be told apart from its group's winner
  (:mod:`harness.report.noise`);
* ``cpu_median_s``: the median ``cpu_s`` of solved runs; ``cpu_total_s``: the sum over
  every run (user + system CPU of the worker's process tree).

The caller decides which runs are ranked: the report and the check pass only the runs on
the instances every pair has results on (:mod:`harness.report.completeness`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from harness.core.status import shown_statuses
from harness.report import noise
from harness.report.data import INSTANCE_KEY, MEASURES, STATUSES, control_of, is_control, measure_of, \
    penalized_time, ranking_time, solved_mask, with_instance_key

PAIR_COLUMNS = [
    "pair", "backend", "formulation", "measure", "runs", "instances", "solved", "sat", "unsat", "timeout",
    "memout", "error", "wrong", "par2_s", "par10_s", "sgm_s", "sgm_lo", "sgm_hi", "sgm_ratio",
    "ratio_lo", "ratio_hi", "tie", "mean_s", "median_s", "cpu_median_s", "cpu_total_s",
    "vbs_gap_s", "unique_solves", "build_share", "solve_share", "median_variables",
    "median_constraints", "median_peak_rss_mb", "median_overshoot_s", "max_overshoot_s",
]
CELL_COLUMNS = [
    "pair", "backend", "formulation", "measure", "instance", INSTANCE_KEY, "repetitions", "solved_runs",
    "solved", "time_s", "par2_s", "par10_s",
]
VBS_COLUMNS = ["instance", "measure", "best_pair", "best_s", "solved_by"]
CONTROL_COLUMNS = ["control", "pair", "measure", "instances", "pair_sgm_s", "control_sgm_s", "ratio", "ratio_lo",
                   "ratio_hi", "floor"]
REPETITION_COLUMNS = ["pair", "instance", "repetitions", "statuses", "median_s", "min_s", "max_s",
                      "spread"]
BEST_FORMULATION_COLUMNS = ["backend", "best_formulation", "sgm_s", "runner_up", "ratio"]
BEST_BACKEND_COLUMNS = ["formulation", "best_backend", "sgm_s", "runner_up", "ratio"]
TABLES = ("pairs", "virtual_best", "pivot_sgm", "pivot_solved", "best_formulation_per_backend",
          "best_backend_per_formulation", "repetitions", "controls")
"""The keys of :func:`all_tables`, in report order (the report's CSV files are named after them)."""

NAN = float("nan")


# -- helpers -------------------------------------------------------------------------------

def _check_shift(shift_s: float) -> float:
    shift = float(shift_s)
    if not math.isfinite(shift) or shift < 0:
        raise ValueError(f"shift_s must be a finite number >= 0, not {shift_s!r}")
    return shift


def shifted_geomean(values: Iterable[float], shift_s: float = 1.0) -> float:
    """exp(mean(log(v + shift_s))) − shift_s over the non-NaN values (NaN if there are none)."""
    shift = _check_shift(shift_s)
    arr = np.asarray([float(v) for v in values], dtype="float64")
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return NAN
    with np.errstate(divide="ignore"):  # log(0) with shift 0: -inf, the geometric mean is 0
        return float(np.exp(np.mean(np.log(arr + shift))) - shift)


def _ratio(a: float, b: float) -> float:
    """a / b, NaN when either is NaN or b is not positive."""
    if math.isnan(a) or math.isnan(b) or b <= 0:
        return NAN
    return a / b


def _median(series: pd.Series) -> float:
    values = series.astype("float64").dropna()
    return float(values.median()) if len(values) else NAN


def _max(series: pd.Series) -> float:
    values = series.astype("float64").dropna()
    return float(values.max()) if len(values) else NAN


def _min(series: pd.Series) -> float:
    values = series.astype("float64").dropna()
    return float(values.min()) if len(values) else NAN


def _runs(df: pd.DataFrame) -> pd.DataFrame:
    """The columns the metrics need, one row per run, with plain dtypes."""
    df = with_instance_key(df)
    return pd.DataFrame({
        "pair": df["pair"].astype(object),
        "backend": df["backend"].astype(object),
        "formulation": df["formulation"].astype(object),
        "measure": measure_of(df),
        "instance": df["instance"].astype(object),
        INSTANCE_KEY: df[INSTANCE_KEY].astype(object),
        "status": df["status"].astype(object),
        "solved": solved_mask(df),
        "time_s": ranking_time(df),
        "par2_s": penalized_time(df, 2),
        "par10_s": penalized_time(df, 10),
        "wall_s": df["wall_s"].astype("float64"),
        "cpu_s": df["cpu_s"].astype("float64"),
        "build_s": df["build_s"].astype("float64"),
        "solve_s": df["solve_s"].astype("float64"),
        "overshoot_s": df["overshoot_s"].astype("float64"),
        "peak_rss_mb": df["peak_rss_mb"].astype("float64"),
        "variables": df["variables"].astype("float64"),
        "constraints": df["constraints"].astype("float64"),
    }).reset_index(drop=True)


def _cells(runs: pd.DataFrame) -> pd.DataFrame:
    if runs.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in CELL_COLUMNS})
    cells = (
        runs.groupby(["pair", INSTANCE_KEY], sort=True)
        .agg(backend=("backend", "first"), formulation=("formulation", "first"),
             measure=("measure", "first"), instance=("instance", "first"), repetitions=("solved", "size"),
             solved_runs=("solved", "sum"), time_s=("time_s", "median"),
             par2_s=("par2_s", "median"), par10_s=("par10_s", "median"))
        .reset_index()
    )
    cells["repetitions"] = cells["repetitions"].astype("int64")
    cells["solved_runs"] = cells["solved_runs"].astype("int64")
    cells["solved"] = (2 * cells["solved_runs"] > cells["repetitions"]).astype(bool)
    return cells[CELL_COLUMNS]


def instance_times(df: pd.DataFrame) -> pd.DataFrame:
    """One row (a *cell*) per pair × instance, repetitions collapsed; ordered by pair, instance_key.

    Columns: ``pair, backend, formulation, measure, instance, instance_key, repetitions``
    (runs in the cell), ``solved_runs``, ``solved`` (more than half of the runs solved),
    ``time_s`` (median ranking time in the pair's measure: unsolved runs at the limit),
    ``par2_s``, ``par10_s`` (median of the penalized times).  A/A controls are left out.
    """
    return _cells(_split(_runs(df))[0])


def _vbs(cells: pd.DataFrame) -> pd.DataFrame:
    """Per measure × instance_key (as index): instance, best_pair, best_s, solved_by (of that measure's pairs)."""
    if cells.empty:
        out = pd.DataFrame({c: pd.Series(dtype=object) for c in VBS_COLUMNS})
        return out.set_index(pd.MultiIndex.from_arrays([[], []], names=["measure", INSTANCE_KEY]))
    order = cells.assign(_unsolved=~cells["solved"]).sort_values(
        ["measure", INSTANCE_KEY, "time_s", "_unsolved", "pair"], na_position="last", kind="mergesort")
    best = order.drop_duplicates(["measure", INSTANCE_KEY], keep="first").set_index(["measure", INSTANCE_KEY])
    solved_by = cells.groupby(["measure", INSTANCE_KEY], sort=True)["solved"].sum().astype("int64")
    solved_by = solved_by.reindex(best.index)
    return pd.DataFrame({
        "instance": best["instance"],
        "best_pair": best["pair"].where(solved_by > 0, None),
        "best_s": best["time_s"].astype("float64"),
        "solved_by": solved_by,
    })


def _group_order(measure: object) -> int:
    return MEASURES.index(measure) if measure in MEASURES else len(MEASURES)


def pair_columns(statuses: tuple[str, ...]) -> list[str]:
    """The pairs table's columns for runs of these statuses: :data:`PAIR_COLUMNS`, with each status shown only
    where a run has it (``unknown``) in its place among the statuses."""
    first, always = PAIR_COLUMNS.index("sat"), shown_statuses(())
    return PAIR_COLUMNS[:first] + list(statuses) + PAIR_COLUMNS[first + len(always):]


def _pair_table(runs: pd.DataFrame, cells: pd.DataFrame, vbs: pd.DataFrame, shift: float,
                floors: dict[str, float] | None = None) -> pd.DataFrame:
    shown = shown_statuses(runs["status"])
    columns = pair_columns(shown)
    if runs.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    solved_by = cells.groupby(INSTANCE_KEY, sort=True)["solved"].sum().astype("int64").rename("solved_by")
    cells = cells.join(vbs[["best_s"]], on=["measure", INSTANCE_KEY]).join(solved_by, on=INSTANCE_KEY)
    rows = []
    cells_by_pair = dict(list(cells.groupby("pair", sort=True)))
    for pair, r in runs.groupby("pair", sort=True):
        c = cells_by_pair[pair]
        status = r["status"].value_counts()
        solved_runs = r[r["solved"]]
        timeouts = r[r["status"] == "timeout"]
        timed = solved_runs.dropna(subset=["build_s", "solve_s"])
        total = float(timed["build_s"].sum() + timed["solve_s"].sum())
        build_share = float(timed["build_s"].sum()) / total if total > 0 else NAN
        sgm_lo, sgm_hi = noise.sgm_interval(c["time_s"], shift)
        cpu = r["cpu_s"].dropna()
        rows.append({
            "pair": pair,
            "backend": r["backend"].iloc[0],
            "formulation": r["formulation"].iloc[0],
            "measure": r["measure"].iloc[0],
            "runs": len(r),
            "instances": len(c),
            "solved": int(c["solved"].sum()),
            **{s: int(status.get(s, 0)) for s in shown},
            "par2_s": float(c["par2_s"].mean()),
            "par10_s": float(c["par10_s"].mean()),
            "sgm_s": shifted_geomean(c["time_s"], shift),
            "sgm_lo": sgm_lo,
            "sgm_hi": sgm_hi,
            "sgm_ratio": NAN,  # below, once the winner is known
            "ratio_lo": NAN,
            "ratio_hi": NAN,
            "tie": "",
            "mean_s": float(solved_runs["wall_s"].mean()) if len(solved_runs) else NAN,
            "median_s": _median(solved_runs["wall_s"]),
            "cpu_median_s": _median(solved_runs["cpu_s"]),
            "cpu_total_s": float(cpu.sum()) if len(cpu) else NAN,
            "vbs_gap_s": float((c["time_s"] - c["best_s"]).mean()),
            "unique_solves": int((c["solved"] & (c["solved_by"] == 1)).sum()),
            "build_share": build_share,
            "solve_share": 1.0 - build_share,
            "median_variables": _median(r["variables"]),
            "median_constraints": _median(r["constraints"]),
            "median_peak_rss_mb": _median(r["peak_rss_mb"]),
            "median_overshoot_s": _median(timeouts["overshoot_s"]),
            "max_overshoot_s": _max(timeouts["overshoot_s"]),
        })
    table = pd.DataFrame(rows, columns=columns)
    table = table.assign(_group=table["measure"].map(_group_order)).sort_values(
        ["_group", "solved", "sgm_s", "pair"], ascending=[True, False, True, True], na_position="last",
        kind="mergesort", ignore_index=True).drop(columns="_group")
    _against_winner(table, cells, shift, floors or {})
    return table


def _against_winner(table: pd.DataFrame, cells: pd.DataFrame, shift: float, floors: dict[str, float]) -> None:
    """Fill sgm_ratio, its paired interval and the tie column, relative to the first row of each measure."""
    times = cells.pivot_table(index=INSTANCE_KEY, columns="pair", values="time_s", aggfunc="first")
    winners = table.drop_duplicates("measure", keep="first").set_index("measure")
    ratios, los, his, ties = [], [], [], []
    for _, r in table.iterrows():
        winner = winners.loc[r["measure"]]
        base = times[winner["pair"]] if winner["pair"] in times.columns else None
        ratio = _ratio(float(r["sgm_s"]), float(winner["sgm_s"]))
        lo = hi = NAN
        if r["pair"] == winner["pair"]:
            lo = hi = 1.0 if not math.isnan(ratio) else NAN
        elif base is not None and r["pair"] in times.columns:
            lo, hi = noise.ratio_interval(times[r["pair"]], base, shift)
        same = int(r["solved"]) == int(winner["solved"]) and r["pair"] != winner["pair"]
        ties.append(noise.tie(float(winner["sgm_s"]), float(r["sgm_s"]), lo, hi,
                              floor=floors.get(str(r["measure"]))) if same else "")
        ratios.append(ratio)
        los.append(lo)
        his.append(hi)
    table["sgm_ratio"], table["ratio_lo"], table["ratio_hi"], table["tie"] = ratios, los, his, ties


def _split(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the ranked runs, the A/A controls' runs)."""
    control = runs["pair"].map(is_control).astype(bool).to_numpy() if len(runs) else np.zeros(0, dtype=bool)
    return runs[~control].reset_index(drop=True), runs[control].reset_index(drop=True)


def _control_table(ranked_cells: pd.DataFrame, control_cells: pd.DataFrame, shift: float) -> pd.DataFrame:
    rows = []
    for control, c in control_cells.groupby("pair", sort=True):
        pair = control_of(control)
        mine = ranked_cells[ranked_cells["pair"] == pair]
        both = mine.merge(c, on=INSTANCE_KEY, suffixes=("", "_aa"))
        both = both[both["solved"] & both["solved_aa"]]
        a, b = both["time_s"].astype("float64"), both["time_s_aa"].astype("float64")
        sgm_a, sgm_b = shifted_geomean(a, shift), shifted_geomean(b, shift)
        ratio = _ratio(sgm_b, sgm_a)
        lo, hi = noise.ratio_interval(b, a, shift)
        rows.append({"control": control, "pair": pair, "measure": c["measure"].iloc[0], "instances": len(both),
                     "pair_sgm_s": sgm_a, "control_sgm_s": sgm_b, "ratio": ratio, "ratio_lo": lo,
                     "ratio_hi": hi, "floor": noise.floor_of(ratio, lo, hi)})
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in CONTROL_COLUMNS})
    return pd.DataFrame(rows, columns=CONTROL_COLUMNS)


def noise_floors(controls: pd.DataFrame) -> dict[str, float]:
    """Per measure, the machine's noise floor: the largest ``floor`` of that measure's A/A controls
    (:func:`control_table`; a control with fewer than 2 instances solved by both copies measures nothing)."""
    floors: dict[str, float] = {}
    for _, r in controls.iterrows():
        f = float(r["floor"])
        if int(r["instances"]) >= 2 and math.isfinite(f):
            floors[str(r["measure"])] = max(f, floors.get(str(r["measure"]), 1.0))
    return floors


# -- public tables -------------------------------------------------------------------------

def _scored(df: pd.DataFrame, shift: float) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(ranked runs' cells, their virtual best, the control table, the pairs table) of ``df``."""
    ranked, controls = _split(_runs(df))
    cells = _cells(ranked)
    vbs = _vbs(cells)
    control = _control_table(cells, _cells(controls), shift)
    return cells, vbs, control, _pair_table(ranked, cells, vbs, shift, noise_floors(control))


def pair_table(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """One row per ranked pair, best first: by measure group (CPU first), then more solved, then smaller
    ``sgm_s``, then pair label.  A/A controls are left out (:func:`control_table`).

    Columns :data:`PAIR_COLUMNS` (and ``unknown`` after ``timeout`` where a run is: :func:`pair_columns`):
    ``measure`` is what the pair's times are (``cpu`` or ``wall``); ``runs`` and the status counts (``sat`` … ``wrong``, which add up to
    ``runs``) count runs; ``instances`` and ``solved`` count instances (cells).
    ``par2_s``, ``par10_s``, ``sgm_s`` (shift ``shift_s``), ``vbs_gap_s`` are over cells
    in the pair's measure, ``unique_solves`` over cells; ``sgm_ratio`` is sgm_s / the
    sgm_s of its group's winner (the group's first row).  ``mean_s``, ``median_s``: solved
    runs' wall_s (NaN if none); ``cpu_median_s``: their cpu_s; ``build_share`` =
    Σ build_s / Σ (build_s + solve_s) over solved runs, ``solve_share`` = 1 − that;
    ``median_variables``, ``median_constraints``, ``median_peak_rss_mb`` over all runs;
    the overshoot columns over ``timeout`` runs (NaN if none).
    """
    return _scored(df, _check_shift(shift_s))[3]


def ranked_tables(df: pd.DataFrame, shift_s: float = 1.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(:func:`pair_table`, :func:`control_table`) of ``df``, scored once."""
    _, _, controls, pairs = _scored(df, _check_shift(shift_s))
    return pairs, controls


def control_table(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """One row per A/A control (columns :data:`CONTROL_COLUMNS`): the pair it copies, the measure, the
    instances both copies solved, both shifted geometric means over them, ``ratio`` = control / pair with
    its paired 95 % interval, and ``floor`` (:func:`harness.report.noise.floor_of`): how far apart the
    machine put two runs of the same pair."""
    return _scored(df, _check_shift(shift_s))[2]


def virtual_best(df: pd.DataFrame) -> pd.DataFrame:
    """Per instance and measure (ordered by display name, then file): ``instance, measure, best_pair,
    best_s, solved_by``.

    ``best_s`` is the smallest cell time over the pairs of that measure (the time limit if
    none solved the instance; then ``best_pair`` is null); ties go to a solved cell, then
    to the smallest pair label.  ``solved_by`` counts that measure's pairs that solved it.
    A campaign ranked by one measure has one row per instance.
    """
    return _vbs_table(_vbs(_cells(_split(_runs(df))[0])))


def _vbs_table(vbs: pd.DataFrame) -> pd.DataFrame:
    if vbs.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in VBS_COLUMNS})
    out = vbs.reset_index()
    out = out.assign(_group=out["measure"].map(_group_order)).sort_values(
        ["instance", INSTANCE_KEY, "_group"], kind="mergesort")
    out = out[VBS_COLUMNS].reset_index(drop=True)
    return out.astype({"instance": "str", "best_pair": "str"})


def repetition_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per pair × instance with more than one run, ordered by pair, instance, file.

    Columns: ``pair, instance, repetitions`` (runs), ``statuses`` (e.g. ``"sat×2, memout×1"``,
    in the order of :data:`harness.report.data.STATUSES`), ``median_s, min_s, max_s`` of
    the ranking time (unsolved runs at the limit) and ``spread`` = (max − min) / median
    (NaN if the median is 0).
    """
    runs = _runs(df)
    rows = []
    if not runs.empty:
        for (pair, key), r in runs.groupby(["pair", INSTANCE_KEY], sort=True):
            if len(r) < 2:
                continue
            counts = r["status"].fillna("none").value_counts()
            order = [s for s in STATUSES if s in counts.index] + sorted(
                s for s in counts.index if s not in STATUSES)
            median, low, high = _median(r["time_s"]), _min(r["time_s"]), _max(r["time_s"])
            rows.append({
                "pair": pair, "instance": r["instance"].iloc[0], "_key": key,
                "repetitions": len(r),
                "statuses": ", ".join(f"{s}×{int(counts[s])}" for s in order),
                "median_s": median, "min_s": low, "max_s": high,
                "spread": _ratio(high - low, median),
            })
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in REPETITION_COLUMNS})
    table = pd.DataFrame(rows).sort_values(["pair", "instance", "_key"], kind="mergesort")
    return table[REPETITION_COLUMNS].reset_index(drop=True)


def across_groups(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs in rank order across measure groups: more solved first (instances solved compare whatever the
    measure), then the group (CPU first), then the group's own order."""
    if pairs.empty:
        return pairs
    order = pairs.assign(_solved=-pairs["solved"].astype("int64"), _group=pairs["measure"].map(_group_order),
                         _rank=range(len(pairs)))
    return order.sort_values(["_solved", "_group", "_rank"], kind="mergesort").drop(
        columns=["_solved", "_group", "_rank"])


def _best_per_cell(pairs: pd.DataFrame) -> pd.DataFrame:
    """The best pair of each backend × formulation (the first of :func:`_across_groups`)."""
    return across_groups(pairs).drop_duplicates(["backend", "formulation"], keep="first")


def _pivot(pairs: pd.DataFrame, value: str, dtype: str) -> pd.DataFrame:
    if pairs.empty:
        return pd.DataFrame({"formulation": pd.Series(dtype=object)})
    best = _best_per_cell(pairs)
    lookup = {(f, b): v for f, b, v in zip(best["formulation"], best["backend"], best[value])}
    forms = sorted(set(best["formulation"]))
    backends = sorted(set(best["backend"]))
    data: dict[str, object] = {"formulation": forms}
    for b in backends:
        data[b] = pd.array([lookup.get((f, b)) for f in forms], dtype=dtype)
    return pd.DataFrame(data)


def pivot_sgm(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """Formulations as rows (column ``formulation``, sorted) × backends as columns: ``sgm_s``.

    Where several pairs share a backend and formulation (other options), the cell is the
    best of them (the first in :func:`pair_table` order); NaN where a backend lacks the
    formulation.
    """
    return _pivot(pair_table(df, shift_s), "sgm_s", "float64")


def pivot_solved(df: pd.DataFrame) -> pd.DataFrame:
    """As :func:`pivot_sgm`, of ``solved`` (instances; nullable Int64, <NA> where absent)."""
    return _pivot(pair_table(df), "solved", "Int64")


def _plain(row: pd.Series, name: str) -> str:
    """The name (formulation or backend) of the winning pair; its whole label if it has options."""
    return row[name] if row["pair"] == f"{row['backend']}/{row['formulation']}" else row["pair"]


def _best_of(pairs: pd.DataFrame, group: str, other: str, columns: list[str]) -> pd.DataFrame:
    rows = []
    if not pairs.empty:
        for value in sorted(set(pairs[group])):
            entries = across_groups(pairs[pairs[group] == value])
            win = entries.iloc[0]
            runner = entries.iloc[1] if len(entries) > 1 else None
            comparable = runner is not None and runner["measure"] == win["measure"]  # not CPU against wall
            rows.append({
                columns[0]: value,
                columns[1]: _plain(win, other),
                "sgm_s": float(win["sgm_s"]),
                "runner_up": None if runner is None else runner["pair"],
                "ratio": _ratio(float(runner["sgm_s"]), float(win["sgm_s"])) if comparable else NAN,
            })
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    return pd.DataFrame(rows, columns=columns)


def best_formulation_per_backend(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """Per backend (sorted): ``backend, best_formulation, sgm_s, runner_up, ratio``.

    Each pair of the backend is an entry, ranked as in :func:`pair_table` (more solved,
    then smaller sgm_s).  ``best_formulation`` is the winner's formulation, or its whole
    pair label when the pair has options; ``runner_up`` is the second entry's pair label
    (null if there is none); ``ratio`` = runner-up sgm_s / winner sgm_s (NaN if none).
    """
    return _best_of(pair_table(df, shift_s), "backend", "formulation", BEST_FORMULATION_COLUMNS)


def best_backend_per_formulation(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """Per formulation (sorted): ``formulation, best_backend, sgm_s, runner_up, ratio``.

    As :func:`best_formulation_per_backend` with the roles swapped.
    """
    return _best_of(pair_table(df, shift_s), "formulation", "backend", BEST_BACKEND_COLUMNS)


def all_tables(df: pd.DataFrame, shift_s: float = 1.0) -> dict[str, pd.DataFrame]:
    """Every table of the report, keyed by :data:`TABLES` (in that order)."""
    shift = _check_shift(shift_s)
    _, vbs, controls, pairs = _scored(df, shift)
    tables = {
        "pairs": pairs,
        "virtual_best": _vbs_table(vbs),
        "pivot_sgm": _pivot(pairs, "sgm_s", "float64"),
        "pivot_solved": _pivot(pairs, "solved", "Int64"),
        "best_formulation_per_backend": _best_of(pairs, "backend", "formulation",
                                                 BEST_FORMULATION_COLUMNS),
        "best_backend_per_formulation": _best_of(pairs, "formulation", "backend",
                                                 BEST_BACKEND_COLUMNS),
        "repetitions": repetition_table(df),
        "controls": controls,
    }
    assert tuple(tables) == TABLES
    return tables


__all__ = [
    "BEST_BACKEND_COLUMNS", "BEST_FORMULATION_COLUMNS", "CELL_COLUMNS", "CONTROL_COLUMNS", "PAIR_COLUMNS",
    "REPETITION_COLUMNS", "TABLES", "VBS_COLUMNS", "all_tables", "best_backend_per_formulation",
    "across_groups", "best_formulation_per_backend", "control_table", "instance_times", "noise_floors", "pair_table", "ranked_tables", "pivot_sgm",
    "pivot_solved", "repetition_table", "shifted_geomean", "virtual_best",
]
