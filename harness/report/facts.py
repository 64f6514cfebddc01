"""The campaign's provenance in the report: the facts listed under "Campaign", the sessions it was measured in,
and the warning that a session ran on a loaded machine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from harness import __version__
from harness.report.data import Measures
from harness.report.tables import NA, format_number


def _distinct(series: pd.Series) -> list[str]:
    return sorted({str(v) for v in series.dropna()})


def campaign_facts(df: pd.DataFrame, meta: dict[str, str], results_dir: Path, generated: str,
                   shift_s: float) -> list[tuple[str, str]]:
    """(label, value) rows describing the campaign, in display order."""
    campaigns = _distinct(df["campaign"]) if not df.empty else []
    campaign = meta.get("campaign") or ", ".join(campaigns) or results_dir.name
    config_hash = meta.get("config_hash") or ", ".join(_distinct(df["config_hash"])) or NA
    solver_versions = []
    if not df.empty:
        for backend, group in df.groupby(df["backend"].astype(object), sort=True):
            versions = _distinct(group["solver_version"])
            if versions:
                solver_versions.append(f"{backend}: {', '.join(versions)}")
    battlebench = set()
    if not df.empty:
        for text in df["versions"].dropna().unique():
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if isinstance(value, dict) and value.get("battlebench"):
                battlebench.add(str(value["battlebench"]))
    limits = ", ".join(format_number(v) + " s" for v in sorted(df["time_limit_s"].dropna().unique())) \
        if not df.empty else NA
    memory = ", ".join(f"{int(v)} MB" for v in sorted(df["memory_limit_mb"].dropna().unique())) \
        if not df.empty else NA
    reps = df["repetition"].dropna().nunique() if not df.empty else 0
    seeds = _distinct(df["seed"]) if not df.empty else []
    started = df["started_at"].dropna()
    ended = df["ended_at"].dropna()
    period = f"{started.min()} – {ended.max()}" if len(started) and len(ended) else NA
    instances = df["instance_key"].nunique() if not df.empty else 0
    return [
        ("campaign", campaign),
        ("config hash", config_hash),
        ("results", str(results_dir)),
        ("runs", str(len(df))),
        ("pairs", str(df["pair"].nunique() if not df.empty else 0)),
        ("instances", str(instances)),
        ("task", ", ".join(_distinct(df["question"])) or NA),
        ("time limit", limits or NA),
        ("memory limit", memory or NA),
        ("repetitions", str(reps) if reps else NA),
        ("seeds", ", ".join(seeds) or NA),
        ("hosts", ", ".join(_distinct(df["host"])) or NA),
        ("node class", " | ".join(_distinct(df["node_class"])) if "node_class" in df.columns and
         df["node_class"].notna().any() else "not known (runs stored before records named it)"),
        ("solver versions", "; ".join(solver_versions) or NA),
        ("battlebench (runs)", ", ".join(sorted(battlebench)) or NA),
        ("runs executed", period),
        ("campaign created", meta.get("created_at") or NA),
        ("measured on", " | ".join(sessions_of(meta)) or NA),
        ("SGM shift", f"{shift_s:g} s"),
        ("report generated", f"{generated} by battlebench {__version__}"),
    ]


def sessions_of(meta: dict[str, str]) -> list[str]:
    """One line per ``battlebench run`` session the store recorded (machine, load at start, harness commit)."""
    import json

    from harness.core.provenance import describe

    try:
        return [describe(s) for s in json.loads(meta.get("sessions") or "[]")]
    except (ValueError, TypeError, AttributeError):
        return ["unreadable (the store's sessions are damaged)"]


LOADED_LOAD_PER_CORE = 0.5
"""A session counts as run on a loaded machine when its 1-minute load average at start is above this many
times its cores (the store records the load once per session, when it starts)."""


def load_warning(meta: dict[str, str], measures: Measures | None = None) -> str | None:
    """The warning that wall times come from a loaded machine, or None: every recorded session whose load at
    start is above :data:`LOADED_LOAD_PER_CORE` × its cores, and what that does to the ranking (``measures``:
    which pairs are ranked by wall time, the ones it stretches)."""
    try:
        sessions = json.loads(meta.get("sessions") or "[]")
    except (ValueError, TypeError):
        return None
    loaded = []
    for session in sessions if isinstance(sessions, list) else []:
        if not isinstance(session, dict):
            continue
        load, cores = session.get("load_avg"), session.get("cores")
        try:
            one, cores = float(load[0]), int(cores)
        except (TypeError, ValueError, IndexError, KeyError):
            continue
        if cores > 0 and one > LOADED_LOAD_PER_CORE * cores:
            loaded.append(f"load {one:g} on {cores} cores (session started {session.get('started_at') or '?'} "
                          f"on {session.get('host') or '?'})")
    if not loaded:
        return None
    which = "" if len(loaded) == len(sessions) else f" in {len(loaded)} of {len(sessions)} sessions"
    on_wall = sorted(p for p, m in (measures.by_pair.items() if measures else ()) if m == "wall")
    if measures is None:
        advice = "compare the CPU times (median CPU, total CPU), not the wall times."
    elif not on_wall:
        advice = ("every pair is ranked by CPU time, which it hardly stretches; the wall-time columns are "
                  "stretched.")
    else:
        advice = (f"the pairs ranked by wall time ({', '.join(on_wall[:5])}{' ...' if len(on_wall) > 5 else ''}) "
                  "are stretched by it: their figures are upper bounds of the quiet machine's.")
    return (f"Loaded machine: the runs were measured on a loaded machine{which}: {'; '.join(loaded)}. "
            f"Other work stretches wall time, hardly CPU time: {advice} (Rule: a session's 1-minute load average "
            f"at its start above {LOADED_LOAD_PER_CORE:g} × its cores; the load is recorded only when a session "
            "starts.)")


__all__ = ["LOADED_LOAD_PER_CORE", "campaign_facts", "load_warning", "sessions_of"]
