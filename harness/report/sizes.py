"""Per-size tables: which pair wins at each board size, and how the best pairs' time grows with size.

A *size* is an instance's ``rows x cols``.  Both tables are pure functions of the run frame
and score pairs exactly as :func:`harness.report.metrics.pair_table` does, on the runs of
one size at a time (cells, unsolved at the limit, shifted geometric mean):

* :func:`size_winners` -- one row per size, smallest first: the winning pair there (most
  instances solved, then smallest ``sgm_s``), the runner-up and ``ratio`` = runner-up
  sgm_s / winner sgm_s;
* :func:`size_growth` -- one row per backend, its best pair over the whole campaign, with
  ``sgm_s`` and ``solved`` at each size (columns ``sgm_s@RxC``, ``solved@RxC``) and
  ``growth`` = sgm_s at the largest size / sgm_s at the smallest.

Runs without a size (no ``rows``/``cols``) are left out; with a single size the growth
table has no ``growth`` column worth reading (it is 1).
"""

from __future__ import annotations

import pandas as pd

from harness.report.metrics import _ratio, across_groups, pair_table

WINNER_COLUMNS = ["size", "cells", "instances", "best_pair", "solved", "sgm_s", "runner_up",
                  "runner_up_solved", "ratio"]
NAN = float("nan")


def _sizes(df: pd.DataFrame) -> list[tuple[int, int]]:
    if df.empty or "rows" not in df or "cols" not in df:
        return []
    known = df.dropna(subset=["rows", "cols"])
    pairs = {(int(r), int(c)) for r, c in zip(known["rows"], known["cols"])}
    return sorted(pairs, key=lambda rc: (rc[0] * rc[1], rc))


def _label(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def _at(df: pd.DataFrame, size: tuple[int, int]) -> pd.DataFrame:
    return df[(df["rows"] == size[0]) & (df["cols"] == size[1])]


def _per_size(df: pd.DataFrame, shift_s: float) -> dict[tuple[int, int], pd.DataFrame]:
    """The pair table of each size's runs, fewest cells first (computed once for both tables)."""
    return {size: pair_table(_at(df, size), shift_s) for size in _sizes(df)}


def _winners(per_size: dict[tuple[int, int], pd.DataFrame]) -> pd.DataFrame:
    rows = []
    for size, table in per_size.items():
        table = across_groups(table)  # most solved first, whatever the measure
        win = table.iloc[0]
        second = table.iloc[1] if len(table) > 1 else None
        rows.append({
            "size": _label(size), "cells": size[0] * size[1], "instances": int(win["instances"]),
            "best_pair": win["pair"], "solved": int(win["solved"]), "sgm_s": float(win["sgm_s"]),
            "runner_up": None if second is None else second["pair"],
            "runner_up_solved": None if second is None else int(second["solved"]),
            "ratio": NAN if second is None or second["measure"] != win["measure"] else  # not CPU against wall
            _ratio(float(second["sgm_s"]), float(win["sgm_s"])),
        })
    out = pd.DataFrame(rows, columns=WINNER_COLUMNS)
    out["runner_up_solved"] = out["runner_up_solved"].astype("Int64")
    return out


def _growth(pairs: pd.DataFrame, per_size: dict[tuple[int, int], pd.DataFrame]) -> pd.DataFrame:
    sizes = list(per_size)
    best = across_groups(pairs).drop_duplicates("backend", keep="first")  # most solved, then the group's rank
    indexed = {size: t.set_index("pair") for size, t in per_size.items()}
    rows = []
    for _, p in best.iterrows():
        row: dict = {"backend": p["backend"], "pair": p["pair"]}
        for size, t in indexed.items():
            has = p["pair"] in t.index
            row[f"sgm_s@{_label(size)}"] = float(t.at[p["pair"], "sgm_s"]) if has else NAN
            row[f"solved@{_label(size)}"] = (f"{int(t.at[p['pair'], 'solved'])}/{int(t.at[p['pair'], 'instances'])}"
                                             if has else None)
        if sizes:
            row["growth"] = _ratio(row[f"sgm_s@{_label(sizes[-1])}"], row[f"sgm_s@{_label(sizes[0])}"])
        rows.append(row)
    columns = ["backend", "pair"] + [c for s in sizes for c in (f"sgm_s@{_label(s)}", f"solved@{_label(s)}")]
    return pd.DataFrame(rows, columns=columns + (["growth"] if sizes else []))


def size_tables(df: pd.DataFrame, shift_s: float = 1.0, pairs: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """Both tables, ``{"size_winners": ..., "size_growth": ...}``, from one pass over the sizes.

    ``pairs`` is the campaign's :func:`~harness.report.metrics.pair_table` when the caller
    has it already (the report does); otherwise it is computed."""
    per_size = _per_size(df, shift_s)
    if pairs is None:
        pairs = pair_table(df, shift_s)
    return {"size_winners": _winners(per_size), "size_growth": _growth(pairs, per_size)}


def size_winners(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """One row per size (fewest cells first): :data:`WINNER_COLUMNS`."""
    return _winners(_per_size(df, shift_s))


def size_growth(df: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """One row per backend (its best pair over the whole campaign, best backend first)."""
    return _growth(pair_table(df, shift_s), _per_size(df, shift_s))


__all__ = ["size_tables", "size_winners", "size_growth", "WINNER_COLUMNS"]
