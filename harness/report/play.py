"""Play campaigns reported: shots per strategy with intervals, paired comparisons on the same deployments, the check on ``random``.

Reads the typed results frame (play rows only: task ``play``; a row is one game; the
``shots`` column holds its shots when the game ended, ``repetition`` its number + 1:
game ``repetition - 1`` of its seed, as ``battlebench play --seed`` numbers them).
Boards are told apart by file and content (``board``: ``instance_path@instance_hash``).  Per pair (strategy/rule):
games, ended games, mean shots with a 95 % interval (Student t), median, p5/p95, worst,
games per second (from the workers' measured game times, ``solve_s``, and from CPU
time).  The paired comparison sets every pair against the best mean on the games both
played (same board, seed and game: the same hidden deployment): the mean per-game
difference with its 95 % interval.  Problems (games that ended in ``error`` are the
gate's, like any error run):

``random-mean``
    a ``random`` pair's interval misses the exact mean of random firing, K(N+1)/(K+1)
    for K ship cells among N cells (17·101/18 = 95.39 on the standard board).  A 95 %
    interval misses the truth in one campaign of twenty by chance; a seeded campaign
    gives the same verdict every time.
``game-wrong``
    a game's replay contradicts it (status ``wrong``).
``game-unfinished``
    a game hit the time or memory limit.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from harness.core.stats import mean_ci95, paired_difference
from harness.report.agreement import Problem


def is_play(df: pd.DataFrame) -> pd.Series:
    return df["task"] == "play"


def _games(df: pd.DataFrame) -> pd.DataFrame:
    rows = df[is_play(df)].copy()
    if rows.empty:
        return rows
    rows["shots"] = pd.to_numeric(rows["shots"], errors="coerce")
    rows["ended"] = rows["status"] == "sat"
    rows["board"] = rows["instance_path"].astype(str) + "@" + rows["instance_hash"].astype(str)
    return rows


def play_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per instance and pair: the shots summary (see the module docstring); empty without play runs."""
    return _table(_games(df))


def _table(rows: pd.DataFrame) -> pd.DataFrame:
    if rows.empty:
        return pd.DataFrame()
    out = []
    for (key, pair), g in rows.groupby(["board", "pair"], sort=False):
        shots = g.loc[g["ended"], "shots"].astype(float)
        n = len(shots)
        mean, half = mean_ci95(shots.tolist())
        wall = g["solve_s"].fillna(g["wall_s"]).sum()
        cpu = g["cpu_s"].sum() if g["cpu_s"].notna().all() else math.nan
        out.append({"board": key, "instance": g["instance"].iloc[0], "pair": pair, "games": len(g),
                    "ended": n, "mean_shots": mean,
                    "ci95_low": mean - half, "ci95_high": mean + half,
                    "median_shots": shots.median() if n else math.nan,
                    "p5": shots.quantile(0.05) if n else math.nan, "p95": shots.quantile(0.95) if n else math.nan,
                    "worst": shots.max() if n else math.nan,
                    "games_per_s": len(g) / wall if wall > 0 else math.nan,
                    "cpu_games_per_s": len(g) / cpu if cpu and cpu > 0 else math.nan})
    table = pd.DataFrame(out)
    return table.sort_values(["board", "mean_shots"], kind="stable").reset_index(drop=True)


def paired_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per instance, every pair against the best mean: the mean per-game difference in shots on the games both
    ended, with its 95 % interval (positive: more shots than the best)."""
    rows = _games(df)
    table = _table(rows)
    if table.empty:
        return pd.DataFrame()
    out = []
    for key, t in table.groupby("board", sort=False):
        best = t.iloc[0]["pair"]
        inst = t.iloc[0]["instance"]
        games = rows[(rows["board"] == key) & rows["ended"]]
        same_game = ["seed", "repetition"]
        base = games[games["pair"] == best].set_index(same_game)["shots"].to_dict()
        for pair in t["pair"]:
            d = paired_difference(base, games[games["pair"] == pair].set_index(same_game)["shots"].to_dict())
            out.append({"board": key, "instance": inst, "pair": pair, "against": best, "paired_games": d.games,
                        "mean_diff": d.mean, "ci95_low": d.mean - d.half, "ci95_high": d.mean + d.half,
                        "better_games": d.better, "worse_games": d.worse})
    return pd.DataFrame(out)


def random_mean(rec: dict[str, Any]) -> float | None:
    """K(N+1)/(K+1) for the game's board, from its detail (None when unknown)."""
    try:
        d = json.loads(rec.get("detail") or "{}")
        k, n = int(d["ship_cells"]), int(d["cells"])
    except (TypeError, ValueError, KeyError):
        return None
    return k * (n + 1) / (k + 1)


def check_play(df: pd.DataFrame) -> list[Problem]:
    """Every problem among the play runs of ``df`` (see the module docstring)."""
    rows = _games(df)
    if rows.empty:
        return []
    problems: list[Problem] = []
    for r in rows[rows["status"].isin(["memout", "timeout", "wrong"])].to_dict("records"):
        kind = "game-wrong" if r["status"] == "wrong" else "game-unfinished"
        why = (r.get("verdict") if r["status"] == "wrong" else r.get("error")) or ""
        problems.append(Problem(kind, str(r["instance"]), (str(r["pair"]),),
                                f"{r['pair']} game {int(r['repetition']) - 1} of seed {r['seed']}: {r['status']}"
                                + (f": {why.splitlines()[0]}" if why else ""), []))
    for t in _table(rows).to_dict("records"):
        games = rows[(rows["board"] == t["board"]) & (rows["pair"] == t["pair"])]
        if games["backend"].iloc[0] != "random" or t["ended"] < 2:
            continue  # (fewer than two ended games: no interval to judge)
        expected = random_mean(games.iloc[0].to_dict())
        if expected is None:
            continue
        low, high = t["ci95_low"], t["ci95_high"]
        if not (low <= expected <= high):
            problems.append(Problem("random-mean", str(t["instance"]), (str(t["pair"]),),
                                    f"{t['pair']}: mean {t['mean_shots']:.2f} shots, 95% interval "
                                    f"[{low:.2f}, {high:.2f}], misses the exact {expected:.2f} of random firing",
                                    []))
    return problems


def play_headline(table: pd.DataFrame, paired: pd.DataFrame) -> str:
    """One sentence per board: the best mean (of :func:`play_table`), and every other pair's paired difference
    from it (:func:`paired_table`)."""
    parts = []
    for key, t in table.groupby("board", sort=False):
        best = t.iloc[0]
        inst = best["instance"]
        text = (f"On {inst}, {best['pair']} plays best: {best['mean_shots']:.2f} shots per game "
                f"(95% CI {best['ci95_low']:.2f}–{best['ci95_high']:.2f}, {int(best['ended'])} games)")
        others = paired[(paired["board"] == key) & (paired["pair"] != best["pair"])]
        if not others.empty:
            text += "; on the same deployments " + ", ".join(
                f"{o['pair']} {o['mean_diff']:+.2f} (95% CI {o['ci95_low']:+.2f} to {o['ci95_high']:+.2f})"
                for o in others.to_dict("records"))
        parts.append(text + ".")
    return " ".join(parts)


def shots_figure(df: pd.DataFrame):
    """seed-002's figure: per pair, the distribution of shots per ended game (histogram) and its CDF; None
    without play runs."""
    rows = _games(df)
    if rows.empty or not rows["ended"].any():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (hist, cdf) = plt.subplots(1, 2, figsize=(11, 4.2))
    table = _table(rows)
    several = table["board"].nunique() > 1
    for t in table.to_dict("records"):
        mine = (rows["board"] == t["board"]) & (rows["pair"] == t["pair"]) & rows["ended"]
        shots = rows.loc[mine, "shots"].astype(int)
        if shots.empty:
            continue
        name = f"{t['pair']} on {t['instance']}" if several else t["pair"]
        lo, hi = int(shots.min()), int(shots.max())
        hist.hist(shots, bins=range(lo, hi + 2), histtype="step", density=True, label=f"{name} ({shots.mean():.2f})")
        xs = sorted(shots)
        cdf.step(xs, [(i + 1) / len(xs) for i in range(len(xs))], where="post", label=name)
    hist.set_xlabel("shots to sink the fleet")
    hist.set_ylabel("share of games")
    hist.legend(fontsize=7)
    cdf.set_xlabel("shots to sink the fleet")
    cdf.set_ylabel("games ended within")
    cdf.grid(alpha=0.3)
    fig.tight_layout()
    return fig


__all__ = ["check_play", "is_play", "paired_table", "play_headline", "play_table", "random_mean", "shots_figure"]
