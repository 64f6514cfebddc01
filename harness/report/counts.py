"""Agreement of counting runs: exact counts compared across counters, repetitions and the known counts.

Reads the typed results frame (counting-task rows only: question ``deployments`` or
``boards``).  A count is *exact* when its run is complete (status ``sat``, ``unsat`` or
``wrong``); the exact integer is ``detail.count`` (decimal text, any size), else the
``count`` column.  Problems, per instance and what is counted:

``wrong-count``
    a run's stored verdict says its count contradicts the instance's known count.
``count-mismatch``
    two exact counts differ (between counters, or between repetitions of one).
``expected-count``
    an exact count differs from the manifest entry with the instance's content hash.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from harness.report.agreement import Problem

COUNTING = ("deployments", "boards")
"""The count task's questions (what is counted)."""


def is_counting(df: pd.DataFrame) -> pd.Series:
    return df["question"].isin(COUNTING)


def exact_count(rec: dict[str, Any]) -> int | None:
    """The run's exact count, or None when the run did not finish counting."""
    if rec.get("status") not in ("sat", "unsat", "wrong") or not rec.get("complete"):
        return None
    try:
        text = json.loads(rec.get("detail") or "{}").get("count")
    except (TypeError, ValueError, AttributeError):
        text = None
    if isinstance(text, str) and text.isdigit():
        return int(text)
    value = rec.get("count")
    return None if value is None or value != value else int(value)


def counting_manifest(manifest: dict[str, dict] | None, path: Any) -> dict[str, dict]:
    """The puzzle manifest plus ``deployments/MANIFEST.toml`` beside it (deployment instances' known counts)."""
    from pathlib import Path

    from harness.report.manifest import load_manifest

    out = dict(manifest or {})
    if path is not None:
        extra = Path(path).parent / "deployments" / "MANIFEST.toml"
        if extra.is_file():
            out.update(load_manifest(extra))
    return out


def check_counts(df: pd.DataFrame, manifest: dict[str, dict] | None = None) -> list[Problem]:
    """Every problem among the counting runs of ``df`` (see the module docstring)."""
    problems: list[Problem] = []
    rows = df[is_counting(df)]
    for (digest, counted), group in rows.groupby(["instance_hash", "question"], sort=True):
        recs = group.to_dict("records")
        name = str(recs[0]["instance"])
        for r in recs:
            if r.get("status") == "wrong":
                problems.append(Problem("wrong-count", name, (str(r["pair"]),),
                                        f"{r['pair']} ({counted}): {r.get('verdict')}", []))
        exact: dict[int, list[str]] = {}
        for r in recs:
            c = exact_count(r)
            if c is not None:
                exact.setdefault(c, []).append(str(r["pair"]))
        if len(exact) > 1:
            said = "; ".join(f"{c:,} by {', '.join(sorted(set(p)))}" for c, p in sorted(exact.items()))
            pairs = tuple(sorted({p for ps in exact.values() for p in ps}))
            problems.append(Problem("count-mismatch", name, pairs, f"exact {counted} counts differ: {said}", []))
        entry = (manifest or {}).get(str(digest))
        key = "expected_count" if counted == "deployments" else "expected_boards"
        known = entry.get(key) if entry else None
        if isinstance(known, int) and not isinstance(known, bool):
            off = {c: p for c, p in exact.items() if c != known}
            for c, p in sorted(off.items()):
                problems.append(Problem("expected-count", name, tuple(sorted(set(p))),
                                        f"{', '.join(sorted(set(p)))} counted {c:,} {counted}; the manifest says "
                                        f"{known:,}", []))
    return problems


def counts_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per counting instance: the exact count (when its counters agree), and per pair the median wall time of
    its exact counts or, if it has none, its status.  Empty when the store holds no counting runs."""
    rows = df[is_counting(df)]
    if rows.empty:
        return pd.DataFrame()
    out = []
    for (name, counted), group in rows.groupby(["instance", "question"], sort=False):
        recs = group.to_dict("records")
        exact = {c for c in (exact_count(r) for r in recs) if c is not None}
        row: dict[str, Any] = {"instance": name, "by": counted,
                               "count": f"{next(iter(exact)):,}" if len(exact) == 1 else
                               ("disagree" if exact else "none")}
        for pair, runs in group.groupby("pair", sort=False):
            done = [r for r in runs.to_dict("records") if exact_count(r) is not None]
            row[str(pair)] = (f"{pd.Series([r['wall_s'] for r in done]).median():.3f} s" if done
                              else str(runs["status"].iloc[0]))
        out.append(row)
    return pd.DataFrame(out)


__all__ = ["check_counts", "counts_table", "counting_manifest", "exact_count", "is_counting"]
