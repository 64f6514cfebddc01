"""Racing portfolios in a report: which leg won how often, read from the stored race records.

A race's run record carries ``backend = "race"`` and, in ``detail``, the winner and how
each leg ended (:mod:`harness.tasks.solve.race`).  The table has one row per race and leg:
runs won, and the median wall time of the leg on the runs it won.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

COLUMNS = ["race", "leg", "runs", "won", "won_share", "median_wall_s_when_won"]


def is_race(df: pd.DataFrame) -> pd.Series:
    return df["backend"].astype(str).eq("race") if "backend" in df.columns else pd.Series(False, index=df.index)


def _race_detail(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except (TypeError, ValueError):
        return {}
    return value.get("race", {}) if isinstance(value, dict) else {}


def race_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (race, leg): how many of the race's runs the leg won (no winner: leg ``none``)."""
    rows = []
    races = df[is_race(df).to_numpy(dtype=bool)]
    for label, group in races.groupby("pair", sort=True):
        details = [_race_detail(text) for text in group["detail"]]
        legs = [leg["pair"] for leg in details[0].get("legs", [])] if details else []
        for leg in [*legs, None]:
            won = [d for d in details if d.get("winner") == leg]
            if leg is None and not won:
                continue
            walls = [x["wall_s"] for d in won for x in d.get("legs", []) if x.get("pair") == leg]
            rows.append({"race": label, "leg": leg if leg is not None else "none (undecided)", "runs": len(details),
                         "won": len(won), "won_share": len(won) / len(details) if details else None,
                         "median_wall_s_when_won": float(pd.Series(walls).median()) if walls else None})
    return pd.DataFrame(rows, columns=COLUMNS)


__all__ = ["is_race", "race_table"]
