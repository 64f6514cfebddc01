"""Claims in a report: per pair, how its unsat claims were established and what the proofs cost.

A solve run that claims more than its boards show (unsat; no further board) records its ``certificate``
(:mod:`harness.proofs.claims`).  The table has one row per pair with claims: how many are certified, trusted,
rejected and unchecked, and, for the pairs that logged proofs, the proof's cost as its own columns -- the median
proof size, the median CPU time of checking it, the median of check CPU over the run's solve CPU (``cpu_s``,
which leaves the check out) and logging's own cost: the median, over the instances both ran, of the pair's solve
CPU over the same pair's without ``proof`` in the same store (:func:`plain_label`; empty when that pair is not
there).
"""

from __future__ import annotations

import re

import pandas as pd

from harness.proofs.claims import CERTIFICATES

COLUMNS = ["pair", "claims", *CERTIFICATES, "median_proof_mb", "median_check_cpu_s", "median_check_over_solve",
           "median_logging_over_plain"]
NOTE = ("A claim is what a run says that no board can show: unsat, or no further board after those found. "
        "certified: a proof of the exact CNF solved, accepted by an independent checker; trusted: the solver's word "
        "(no proof logged); rejected: a checker refused the proof, the run is wrong; unchecked: a proof was logged "
        "but no checker finished. Check times are CPU seconds, outside the run's cpu_s; logging is the solve CPU "
        "with proof over the same pair's without, per instance; certified is relative to the written encoding.")
_PROOF_OPTION = re.compile(r"(?<=[\[,])proof=[^,\]]*,?")


def has_claims(df: pd.DataFrame) -> bool:
    return "claim" in df.columns and bool(df["claim"].notna().any())


def plain_label(pair: str) -> str:
    """The label of ``pair`` without its ``proof`` option (``sat[proof=check]/placement`` -> ``sat/placement``)."""
    return _PROOF_OPTION.sub("", pair).replace(",]", "]").replace("[]", "")


def _logging_ratio(df: pd.DataFrame, pair: str) -> float | None:
    """Median over instances of the pair's solve CPU over its plain twin's (module doc), or None."""
    plain = plain_label(pair)
    if plain == pair or "cpu_s" not in df:
        return None
    cpu = df[df["pair"].isin((pair, plain))].groupby(["instance", "pair"])["cpu_s"].median().unstack()
    if plain not in cpu or pair not in cpu:
        return None
    ratio = (cpu[pair] / cpu[plain].where(cpu[plain] > 0)).dropna()
    return float(ratio.median()) if len(ratio) else None


def claims_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per pair that made claims (see the module docstring)."""
    rows = []
    claimed = df[df["claim"].notna()] if has_claims(df) else df.iloc[0:0]
    for pair, group in claimed.groupby("pair", sort=True):
        row = {"pair": pair, "claims": len(group)}
        for name in CERTIFICATES:
            row[name] = int((group["certificate"] == name).sum())
        proved = group[group["proof_bytes"].notna()] if "proof_bytes" in group else group.iloc[0:0]
        if len(proved):
            ratio = proved["check_cpu_s"] / proved["cpu_s"].where(proved["cpu_s"] > 0)
            row.update(median_proof_mb=float(proved["proof_bytes"].median()) / 1e6,
                       median_check_cpu_s=float(proved["check_cpu_s"].median()),
                       median_check_over_solve=float(ratio.median()) if ratio.notna().any() else None,
                       median_logging_over_plain=_logging_ratio(df, pair))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


__all__ = ["COLUMNS", "NOTE", "claims_table", "has_claims", "plain_label"]
