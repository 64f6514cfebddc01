"""Value campaigns reported: the optimality gap of every strategy, per board and announcement rule.

Reads the typed results frame (rows of task ``value``: one per pair and board; ``detail``
holds ``expected`` as an exact fraction ``p/q``, ``mean``, ``half_width``, ``method``,
``work``, ``costly``, ``first_costly``; the ``optimal`` pair's ``lower`` is its proved bound).
The *optimality gap* table, per board and rule: each strategy's expected shots (exact, or
sampled with its 95 % interval), the optimum, the gap (shots and per cent), how often a
game meets a costly shot (a shot whose optimal continuation needs more expected shots
than the optimum there) and the mean shot number of the first such, the method and the
work (nodes walked, states searched, games sampled).  Problems:

``below-optimum``
    a strategy's exact value is below the optimum of the same board and rule (one of
    them is wrong), or a sampled value lies more than 3.29 standard errors below it (its
    99.9 % interval wholly below: a campaign samples dozens of values, and a 95 %
    interval misses on the low side once in forty by chance -- measured: thompson on
    ``r5x4_s4`` at 4 rounds, 6.10 ± 0.24 against 83/13 = 6.38, and 6.35 ± 0.10 at 40).
``value-wrong``
    the judge contradicted a value (status ``wrong``).
``value-unfinished``
    a value hit the time or memory limit, or its search stopped with a bound only.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pandas as pd

from harness.report.agreement import Problem

OPTIMAL = "optimal"
GATE_Z = 3.29  # a sampled value fails the gate this many standard errors below the optimum (99.9 %)


def _rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    for r in df[df["task"] == "value"].to_dict("records"):
        try:
            d = json.loads(r.get("detail") or "{}")
        except ValueError:
            d = {}
        r["d"] = d
        r["board"] = f"{r['instance_path']}@{r['instance_hash']}"
        out.append(r)
    return out


def _frac(text: Any) -> Fraction | None:
    try:
        return Fraction(str(text)) if text not in (None, "") else None
    except (ValueError, ZeroDivisionError):
        return None


def gap_table(df: pd.DataFrame) -> pd.DataFrame:
    """The optimality-gap table (see the module docstring); empty without value runs."""
    out = _gap_rows(_rows(df))
    if not out:
        return pd.DataFrame()
    table = pd.DataFrame(out).drop(columns="_opt")
    table["_opt"] = table["strategy"].str.startswith(OPTIMAL)
    table = table.sort_values(["instance", "rule", "_opt", "shots"], ascending=[True, True, False, True],
                              na_position="last").drop(columns="_opt")
    return table.reset_index(drop=True)


def _gap_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    best: dict = {}
    for r in rows:
        if r["backend"] == OPTIMAL and r["status"] == "sat":
            best[(r["board"], r["formulation"])] = _frac(r["d"].get("expected"))
    out = []
    for r in rows:
        d = r["d"]
        opt = best.get((r["board"], r["formulation"]))
        exact = _frac(d.get("expected"))
        mean = d.get("mean")
        gap = (float(exact - opt) if exact is not None else float(mean) - float(opt)) if (
            opt is not None and mean is not None) else None
        costly = _frac(d.get("costly"))
        out.append({
            "board": r["board"], "instance": r["instance"], "rule": r["formulation"], "strategy": r["pair"],
            "status": r["status"], "method": d.get("method"),
            "expected": str(exact) if exact is not None else None,
            "shots": mean, "ci95_half": d.get("half_width") or 0.0 if mean is not None else None,
            "optimum": float(opt) if opt is not None else None, "gap": gap,
            "gap_pct": 100.0 * gap / float(opt) if gap is not None and opt else None,
            "costly_games": float(costly) if costly is not None else None,
            "first_costly_shot": d.get("first_costly"),
            "deployments": d.get("deployments"), "work": d.get("work"),
            "wall_s": r.get("wall_s"), "cpu_s": r.get("cpu_s"), "peak_rss_mb": r.get("peak_rss_mb"),
            "_opt": opt,
        })
    return out


def check_value(df: pd.DataFrame) -> list[Problem]:
    """Every problem among the value runs (see the module docstring)."""
    problems = []
    rows = _rows(df)
    for r in rows:
        if r["status"] == "wrong":
            problems.append(Problem("value-wrong", str(r["instance"]), (str(r["pair"]),),
                                    f"{r['pair']} on {r['instance']}: {r.get('verdict')}", []))
        elif r["status"] in ("timeout", "memout", "error"):
            d = r["d"]
            why = d.get("stopped") or r.get("error") or r["status"]
            bound = f" (proved at least {float(Fraction(d['lower'])):.4f} shots)" if d.get("lower") else ""
            problems.append(Problem("value-unfinished", str(r["instance"]), (str(r["pair"]),),
                                    f"{r['pair']} on {r['instance']}: {r['status']}: "
                                    f"{str(why).splitlines()[0]}{bound}", []))
    for t in _gap_rows(rows):
        if t["_opt"] is None or t["strategy"].startswith(OPTIMAL) or t["shots"] is None:
            continue
        if t["expected"] is not None:
            below = Fraction(t["expected"]) < t["_opt"]
        else:
            below = t["shots"] + GATE_Z / 1.96 * (t["ci95_half"] or 0.0) < t["optimum"] - 1e-12
        if below:
            problems.append(Problem("below-optimum", str(t["instance"]), (str(t["strategy"]),),
                                    f"{t['strategy']} on {t['instance']}: {t['shots']:.6f} expected shots, below "
                                    f"the optimum {t['optimum']:.6f}", []))
    return problems


def agreement_line(df: pd.DataFrame) -> str:
    rows = _rows(df)
    exact = sum(1 for r in rows if r["d"].get("expected"))
    return (f"{len(rows)} values ({exact} exact): none below the optimum of its board and rule, every "
            "random equal to K(N+1)/(K+1), every optimum of a board of at most 12 cells equal to the brute force")


def value_headline(t: pd.DataFrame) -> str | None:
    """One sentence per board and rule: the optimum, and the best strategy's value and gap."""
    if t.empty:
        return None
    parts = []
    for (inst, rule), g in t.groupby(["instance", "rule"], sort=False):
        opt = g["optimum"].dropna()
        if opt.empty:
            continue
        others = g[~g["strategy"].str.startswith(OPTIMAL) & g["gap"].notna() & g["expected"].notna()]
        if others.empty:
            parts.append(f"On {inst} ({rule}), optimal play takes {opt.iloc[0]:.4f} shots.")
            continue
        top = others.sort_values("shots").iloc[0]  # exact values only: a sampled one is not ranked on its mean
        parts.append(f"On {inst} ({rule}), optimal play takes {opt.iloc[0]:.4f} shots; the best exact strategy, "
                     f"{top['strategy']}, {top['shots']:.4f} (gap {top['gap']:+.4f}).")
    return " ".join(parts) or None


GAP_NOTE = ("Expected shots to sink the fleet per strategy against optimal play (uniformly random hidden deployment; "
            "`expected` is exact where `method` is search, walk or closed-form; sampled values carry a 95% "
            "half-width). `costly_games`: the share of games that meet a shot whose optimal continuation needs more "
            "expected shots than the optimum there; `first_costly_shot`: the mean shot number of the first such.")


__all__ = ["GAP_NOTE", "agreement_line", "check_value", "gap_table", "value_headline"]
