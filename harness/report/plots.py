"""Figures of a campaign's runs: cactus, performance profile, scatter against the best pair, time vs size.

Every function takes the typed run frame (:meth:`harness.store.ResultsStore.dataframe`)
and returns a :class:`matplotlib.figure.Figure` drawn with the Agg canvas: no pyplot,
no global state, safe in threads and on machines without a display.  Each is written as
PNG (inlined in the report's page) and as SVG and PDF (:data:`FORMATS`, :func:`figure_bytes`),
the same bytes for the same figure (the SVG's salt is matplotlib's one global setting used,
set only while a figure is saved).

One point per (pair, instance), a *cell* of :func:`harness.report.metrics.instance_times`:
its time is the median over the cell's runs (repetitions, seeds) of the ranking time
(of a sat/unsat run its time in the pair's measure, ``cpu_s`` or ``wall_s``
(:func:`harness.report.data.pair_measures`); the time limit otherwise; the axes say which),
and the pair *solved* the
instance when more than half of those runs were sat or unsat.  Unsolved cells are drawn
at the time limit with a cross.  Instances are told apart by ``instance_key`` (the file).

Where the pairs are ranked by two measures (one-core pairs by CPU time, parallel ones
by wall time), the cactus and the size figure draw every pair, and the profile and the
scatter, which divide one pair's time by another's, only the best pair's measure group.

Each pair keeps one colour and one marker in every figure (:func:`pair_styles`, by
sorted label); legends list pairs best first, in the order of the report's pairs table
(:func:`harness.report.metrics.pair_table` with ``shift_s``, which only orders them).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import colormaps, rc_context
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from harness.report import metrics
from harness.report.data import INSTANCE_KEY, measure_of, with_instance_key

MIN_TIME_S = 1e-3
"""Times below this are drawn (and ratioed) as this: log axes need positive values and
sub-millisecond differences are timer noise."""

DPI = 110
_MARKERS = ("o", "s", "^", "D", "v", "P", "*", "<", ">", "h", "p", "d")  # no "x": unsolved
_UNSOLVED = "x"
_GREY = "0.45"

FORMATS = ("png", "svg", "pdf")
"""The files each figure is written as: PNG (inlined in the page), SVG and PDF (vector, for papers)."""
_METADATA: dict[str, dict[str, Any]] = {"png": {}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}

FIGURES = ("cactus", "profile", "scatter", "size")
"""The keys of :func:`all_figures`, in report order."""

TITLES = {
    "cactus": "Cactus plot: instances solved within a time",
    "profile": "Performance profile",
    "scatter": "Each pair against the best pair",
    "size": "Time vs instance size",
}


# -- per-instance times ---------------------------------------------------------------


def instance_times(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (pair, instance): :func:`harness.report.metrics.instance_times` plus size and limit.

    Columns ``pair, instance, instance_key, rows, cols, cells, runs, time_s, solved,
    limit_s``: ``time_s`` is the median ranking time over the runs (an unsolved cell's is
    its time limit), ``solved`` whether more than half of them solved; ``instance`` is the
    display name, ``instance_key`` tells instances apart.
    """
    cols = ["pair", "instance", INSTANCE_KEY, "rows", "cols", "cells", "runs", "time_s", "solved",
            "limit_s"]
    if df.empty:
        return pd.DataFrame({c: pd.Series(dtype=bool if c == "solved" else "float64") for c in cols})
    cells = metrics.instance_times(df)
    df = with_instance_key(df)
    extra = pd.DataFrame({
        "pair": df["pair"].astype(object),
        INSTANCE_KEY: df[INSTANCE_KEY].astype(object),
        "rows": df["rows"].astype("float64"),
        "cols": df["cols"].astype("float64"),
        "limit_s": df["time_limit_s"].astype("float64"),
    }).groupby(["pair", INSTANCE_KEY], sort=True).max()
    out = cells.join(extra, on=["pair", INSTANCE_KEY])
    out["runs"] = out["repetitions"]
    out["cells"] = out["rows"] * out["cols"]
    out["solved"] = out["solved"].astype(bool)
    limit = out["limit_s"].to_numpy(dtype="float64")
    t = out["time_s"].to_numpy(dtype="float64")
    # an unsolved cell sits at its limit (its median may mix in solved runs' times)
    out["time_s"] = np.where(out["solved"] | np.isnan(limit), t, limit)
    return out[cols].reset_index(drop=True)


def pair_order(df: pd.DataFrame, shift_s: float = 1.0) -> list[str]:
    """Pairs best first, as in the report's pairs table (:func:`harness.report.metrics.pair_table`)."""
    if df.empty:
        return []
    return [str(p) for p in metrics.pair_table(df, shift_s)["pair"]]


def pair_styles(pairs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """A fixed colour and marker per pair, by sorted label: ``{pair: {"color", "marker"}}``."""
    labels = sorted({str(p) for p in pairs})
    cmap = colormaps["tab10" if len(labels) <= 10 else "tab20"]
    n = cmap.N
    return {p: {"color": cmap(i % n), "marker": _MARKERS[i % len(_MARKERS)]}
            for i, p in enumerate(labels)}


def problems(df: pd.DataFrame, best_pair: str | None = None, *, shift_s: float = 1.0) -> dict[str, str]:
    """Why a figure of :data:`FIGURES` cannot be drawn for ``df``: ``{key: reason}`` (empty if all can)."""
    if df.empty:
        return {k: "no runs in the results store" for k in FIGURES}
    it = instance_times(df)
    pairs = pair_order(df, shift_s)
    out: dict[str, str] = {}
    if not it["solved"].any():
        out["cactus"] = "no pair solved any instance"
        out["profile"] = "no pair solved any instance"
    if not np.isfinite(it["cells"].to_numpy(dtype="float64")).any():
        out["size"] = "no run records the instance size (rows, cols)"
    if len(pairs) < 2:
        out["profile"] = "a performance profile compares pairs; the store holds only one"
        out["scatter"] = "there is no other pair to compare with the best one"
    elif best_pair is not None and best_pair not in pairs:
        out["scatter"] = f"pair {best_pair!r} has no runs"
    elif len(pair_order(one_measure(df, best_pair or pairs[0]), shift_s)) < 2:
        why = "no other pair is ranked by the best pair's measure (CPU or wall time)"
        out["profile"] = out["scatter"] = why
    return out


def time_words(df: pd.DataFrame) -> str:
    """What the times of ``df`` are, for an axis: "CPU time", "wall time", or both groups'."""
    used = set(measure_of(df).dropna()) if len(df) else set()
    if used == {"cpu"}:
        return "CPU time"
    if used == {"wall"}:
        return "wall time"
    return "time (CPU for one-core pairs, wall for parallel ones)"


def one_measure(df: pd.DataFrame, pair: str | None) -> pd.DataFrame:
    """The runs of the pairs ranked by ``pair``'s measure (all of ``df`` when it uses one measure)."""
    if df.empty or pair is None:
        return df
    measure = measure_of(df)
    mine = measure[df["pair"] == pair]
    if mine.empty:
        return df
    return df[(measure == mine.iloc[0]).to_numpy(dtype=bool)]


def all_figures(df: pd.DataFrame, best_pair: str | None = None, *, shift_s: float = 1.0) -> dict[str, Figure]:
    """Every figure that makes sense for ``df``, keyed by :data:`FIGURES` (see :func:`problems`)."""
    if best_pair is None:
        order = pair_order(df, shift_s)
        best_pair = order[0] if order else None
    skip = problems(df, best_pair, shift_s=shift_s)
    group = one_measure(df, best_pair)
    makers = {"cactus": lambda: cactus(df, shift_s=shift_s),
              "profile": lambda: performance_profile(group, shift_s=shift_s),
              "scatter": lambda: scatter_vs_best(group, best_pair, shift_s=shift_s),
              "size": lambda: time_vs_size(df, shift_s=shift_s)}
    return {k: makers[k]() for k in FIGURES if k not in skip}


def figure_bytes(fig: Figure, fmt: str = "png", dpi: int = DPI) -> bytes:
    """The figure as a file of one of :data:`FORMATS`; the same figure gives the same bytes (no creation date in
    SVG and PDF; the SVG's ids from a fixed salt, not a random one: matplotlib takes it from its rcParams only,
    set for the save's duration)."""
    buf = io.BytesIO()
    with rc_context({"svg.hashsalt": "battlebench"}):
        fig.savefig(buf, format=fmt, dpi=dpi, facecolor="white", metadata=_METADATA[fmt])
    return buf.getvalue()


def png_bytes(fig: Figure, dpi: int = DPI) -> bytes:
    """The figure as PNG bytes."""
    return figure_bytes(fig, "png", dpi)


# -- helpers --------------------------------------------------------------------------


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _legend_cols(labels) -> int:
    longest = max((len(lab) for lab in labels), default=0)
    ncols = 1 if longest > 45 else 2 if longest > 28 else 3
    return max(1, min(ncols, len(labels)))


def _plot_figure(order: list[str], note_chars: int) -> Figure:
    """A one-axes figure tall enough for a legend of ``order`` below it (labels + ``note_chars``)."""
    labels = [p + "x" * note_chars for p in order]
    rows = math.ceil(len(labels) / _legend_cols(labels)) if labels else 0
    return _figure(9.5, 5.2 + 0.2 * rows)


def _legend(fig: Figure, handles, labels) -> None:
    if not handles:
        return
    fig.legend(handles, labels, loc="outside lower center", ncols=_legend_cols(labels), frameon=False,
               fontsize=9, title="pair (best first)", title_fontsize=9)


def _limit_of(it: pd.DataFrame) -> float:
    lim = it["limit_s"].to_numpy(dtype="float64")
    lim = lim[np.isfinite(lim) & (lim > 0)]
    if lim.size:
        return float(lim.max())
    t = it["time_s"].to_numpy(dtype="float64")
    t = t[np.isfinite(t)]
    return float(t.max()) if t.size else 1.0


def _fitted_range(it: pd.DataFrame, pairs: list[str] | None = None) -> tuple[float, float, bool]:
    """(lo, hi, limit shown): the time axis fitted to the points drawn.

    Unsolved cells (and cells a pair lacks, when ``pairs`` is given) sit at the limit,
    so the limit is inside the range only when some point is there; otherwise the axis
    ends a little above the slowest solved time.
    """
    t = it["time_s"].to_numpy(dtype="float64")
    solved = it["solved"].to_numpy(dtype=bool)
    done = t[solved & np.isfinite(t)]
    unsolved = bool((~solved).any())
    if pairs is not None and not it.empty:
        per = it.groupby("pair")[INSTANCE_KEY].nunique()
        unsolved |= any(per.get(p, 0) < it[INSTANCE_KEY].nunique() for p in pairs)
    limit = _limit_of(it)
    lo = max(float(done.min()) if done.size else MIN_TIME_S, MIN_TIME_S)
    top = max(float(done.max()) if done.size else lo, lo * 10)
    hi = max(top, limit) if unsolved else top
    return lo / 1.6, hi * 1.6, unsolved


def _wrap(label: str, width: int = 38) -> str:
    """``label`` on lines of at most ``width`` characters, broken after ``,`` ``/`` ``[`` or spaces."""
    lines, line = [], ""
    for token in re.split(r"(?<=[,/\[ ])", label):
        if line and len(line) + len(token) > width:
            lines.append(line.rstrip())
            line = ""
        line += token
    lines.append(line)
    return "\n".join(lines)


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color=_GREY)


# -- the figures ----------------------------------------------------------------------


def cactus(df: pd.DataFrame, *, shift_s: float = 1.0) -> Figure:
    """Instances solved (y) within a time (x, log scale), one step line per pair."""
    it = instance_times(df)
    order = pair_order(df, shift_s)
    styles = pair_styles(order)
    fig = _plot_figure(order, 18)
    ax = fig.add_subplot()
    ax.set_xscale("log")  # scales before data: autoscaling degenerate data warns
    n_inst = int(it[INSTANCE_KEY].nunique()) if not it.empty else 0
    lo, hi, at_limit = _fitted_range(it, order)  # the limit only where a pair left something unsolved
    limit = _limit_of(it)
    handles, labels = [], []
    for pair in order:
        rows = it[it["pair"] == pair]
        t = np.sort(np.maximum(rows.loc[rows["solved"], "time_s"].to_numpy(dtype="float64"), MIN_TIME_S))
        st = styles[pair]
        if t.size:
            xs = np.concatenate([t, [max(limit if at_limit else hi, t[-1])]])
            ys = np.concatenate([np.arange(1, t.size + 1), [t.size]])
            ax.step(xs, ys, where="post", color=st["color"], lw=1.8, alpha=0.9)
            ax.plot(t, np.arange(1, t.size + 1), ls="none", marker=st["marker"], ms=4.5,
                    color=st["color"], markevery=max(1, t.size // 20))
        handles.append(Line2D([], [], color=st["color"], marker=st["marker"], lw=1.8, ms=5))
        labels.append(f"{pair}  ({t.size}/{rows[INSTANCE_KEY].nunique()} solved)")
    ax.axhline(n_inst, color=_GREY, ls=":", lw=1)
    ax.text(lo * 1.1, n_inst, f" {n_inst} instances", va="bottom", ha="left", color=_GREY, fontsize=8)
    if at_limit:
        ax.axvline(limit, color=_GREY, ls="--", lw=1)
        ax.text(limit, 0.02, f"time limit {limit:g} s ", rotation=90, ha="right", va="bottom",
                color=_GREY, fontsize=8, transform=ax.get_xaxis_transform())
    else:
        ax.text(0.99, 0.02, f"time limit {limit:g} s: every pair solved everything, far below it", ha="right",
                va="bottom", color=_GREY, fontsize=8, transform=ax.transAxes)
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, max(n_inst, 1) * 1.06)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel(f"{time_words(df)} per instance (s, log scale; median over repetitions)")
    ax.set_ylabel("instances solved within that time")
    ax.set_title("Cactus plot: higher and further left is better")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", axis="x", alpha=0.1)
    _legend(fig, handles, labels)
    return fig


def performance_profile(df: pd.DataFrame, *, shift_s: float = 1.0) -> Figure:
    """Dolan–Moré profile: per pair, the fraction of instances with t_pair / t_best ≤ τ.

    t_best is the fastest pair's time on the instance; an instance a pair did not solve
    (or did not run) has an infinite ratio, so it never counts; an instance no pair
    solved counts for nobody.  Times are floored at :data:`MIN_TIME_S`.
    """
    it = instance_times(df)
    order = pair_order(df, shift_s)
    styles = pair_styles(order)
    fig = _plot_figure(order, 32)
    ax = fig.add_subplot()
    ax.set_xscale("log", base=2)
    if it.empty:
        _note(ax, "no runs")
        return fig
    t = np.where(it["solved"], np.maximum(it["time_s"].to_numpy(dtype="float64"), MIN_TIME_S), np.inf)
    table = pd.DataFrame({"pair": it["pair"], "key": it[INSTANCE_KEY], "t": t})
    mat = table.pivot(index="key", columns="pair", values="t").reindex(columns=order)
    mat = mat.fillna(np.inf)
    best = mat.min(axis=1).to_numpy()
    with np.errstate(invalid="ignore"):
        ratio = mat.to_numpy() / best[:, None]
    ratio[~np.isfinite(ratio)] = np.inf
    n_inst = len(mat)
    finite = ratio[np.isfinite(ratio)]
    tau_max = max(2.0, float(finite.max()) * 1.25 if finite.size else 2.0)
    handles, labels = [], []
    for j, pair in enumerate(order):
        r = np.sort(ratio[:, j][np.isfinite(ratio[:, j])])
        st = styles[pair]
        xs = np.concatenate([[1.0], r, [tau_max]])
        ys = np.concatenate([[0.0], np.arange(1, r.size + 1) / n_inst, [r.size / n_inst]])
        ax.step(xs, ys, where="post", color=st["color"], lw=1.8, alpha=0.9)
        if r.size:
            ax.plot(r, np.arange(1, r.size + 1) / n_inst, ls="none", marker=st["marker"], ms=4.5,
                    color=st["color"], markevery=max(1, r.size // 20))
        wins = int(np.sum(ratio[:, j] <= 1.0))
        handles.append(Line2D([], [], color=st["color"], marker=st["marker"], lw=1.8, ms=5))
        labels.append(f"{pair}  (fastest on {wins}, solved {r.size}/{n_inst})")
    solvable = float(np.isfinite(best).sum()) / n_inst
    ax.axhline(solvable, color=_GREY, ls=":", lw=1)
    ax.text(1.0, solvable, " solved by some pair", va="bottom", ha="left", color=_GREY, fontsize=8)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlim(1 / 1.06, tau_max)  # a little left of 1, to show the jump at τ = 1
    ax.set_ylim(0, 1.04)
    ax.set_xlabel(f"τ: {time_words(df)} ratio to the fastest pair on the instance (log₂ scale)")
    ax.set_ylabel("fraction of instances with ratio ≤ τ")
    ax.set_title("Performance profile (Dolan–Moré): higher is better; "
                 "value at τ = 1: fraction where the pair is fastest")
    ax.title.set_fontsize(10.5)
    ax.grid(True, alpha=0.3)
    _legend(fig, handles, labels)
    return fig


def scatter_vs_best(df: pd.DataFrame, best_pair: str | None = None, *, shift_s: float = 1.0) -> Figure:
    """One log-log panel per other pair: x = ``best_pair``'s time, y = that pair's time.

    Points above the diagonal are instances where the best pair was faster.  An unsolved
    (or missing) run is drawn on the border, at the time limit, with a cross.
    """
    it = instance_times(df)
    order = pair_order(df, shift_s)
    styles = pair_styles(order)
    if best_pair is None and order:
        best_pair = order[0]
    others = [p for p in order if p != best_pair]
    n = max(len(others), 1)
    ncols = 1 if n == 1 else 2 if n in (2, 4) else 3
    nrows = math.ceil(n / ncols)
    fig = _figure(4.2 * ncols + 0.6, 3.9 * nrows + 0.9)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    for ax in axes.flat:
        ax.set_xscale("log")
        ax.set_yscale("log")
    limit = _limit_of(it)
    instances = sorted(set(it[INSTANCE_KEY])) if not it.empty else []
    # each axis fitted to its own points: x to the best pair's, y to the others'; the limit is
    # inside an axis only when some point on that axis sits on it (unsolved, or no run)
    best_rows = it[it["pair"] == best_pair]
    other_rows = it[it["pair"] != best_pair]
    xlo, xhi, x_at_limit = _fitted_range(best_rows)
    ylo, yhi, y_at_limit = _fitted_range(other_rows, others) if len(other_rows) else (xlo, xhi, False)
    x_at_limit |= len(best_rows) < len(instances)
    if x_at_limit:
        xhi = max(xhi, limit * 1.6)
    lo = min(xlo, ylo)

    def side(pair: str) -> tuple[np.ndarray, np.ndarray]:
        rows = it[it["pair"] == pair].set_index(INSTANCE_KEY).reindex(instances)
        solved = rows["solved"].fillna(False).to_numpy(dtype=bool)
        lim = rows["limit_s"].fillna(limit).to_numpy(dtype="float64")
        t = np.where(solved, np.maximum(rows["time_s"].to_numpy(dtype="float64"), MIN_TIME_S), lim)
        return t, solved

    bx, bsolved = side(best_pair) if best_pair is not None else (np.array([]), np.array([], bool))
    frame = _Frame(lo, xhi, yhi, limit, x_at_limit, y_at_limit)
    for k, ax in enumerate(axes.flat):
        if k >= len(others):
            if not others:
                _note(ax, "no other pair")
            else:
                ax.set_visible(False)
            continue
        pair = others[k]
        _scatter_panel(ax, pair, styles[pair]["color"], styles[pair]["marker"], (bx, bsolved), side(pair), frame)
        if k % ncols == 0:
            ax.set_ylabel(f"this pair: {time_words(df)} (s)")
        if k >= len(others) - ncols:
            ax.set_xlabel(f"the best pair: {time_words(df)} (s)")
            ax.tick_params(labelbottom=True)
    fig.suptitle(f"Per-instance time against the best pair, {best_pair}\n"
                 "(log-log; above the diagonal the best pair is faster; dotted lines: 10×)", fontsize=10.5)
    _scatter_legend(fig, limit, x_at_limit or y_at_limit)
    return fig


@dataclass(frozen=True)
class _Frame:
    """The scatter panels' common axes: from ``lo`` to ``xhi`` / ``yhi``, the time ``limit`` and whether it is
    inside the x / y axis."""

    lo: float
    xhi: float
    yhi: float
    limit: float
    x_at_limit: bool
    y_at_limit: bool


def _scatter_panel(ax: Any, pair: str, color: str, marker: str, best: tuple[np.ndarray, np.ndarray],
                   this: tuple[np.ndarray, np.ndarray], frame: _Frame) -> None:
    """One panel of :func:`scatter_vs_best`: ``pair``'s times (``this``: times, solved) against the best pair's
    (``best``), the diagonal, the 10× lines, the limit lines and the counts of slower, faster, lost and won."""
    (bx, bsolved), (y, ysolved) = best, this
    both = bsolved & ysolved
    lo, hi = frame.lo, max(frame.xhi, frame.yhi)
    ax.plot([lo, hi], [lo, hi], color=_GREY, lw=1)
    for f in (10.0,):
        ax.plot([lo, hi], [lo * f, hi * f], color=_GREY, lw=0.6, ls=":")
        ax.plot([lo, hi], [lo / f, hi / f], color=_GREY, lw=0.6, ls=":")
    if frame.y_at_limit:
        ax.axhline(frame.limit, color=_GREY, ls="--", lw=0.8)
    if frame.x_at_limit:
        ax.axvline(frame.limit, color=_GREY, ls="--", lw=0.8)
    ax.scatter(bx[both], y[both], s=22, color=color, marker=marker, alpha=0.8, edgecolors="none")
    ax.scatter(bx[~both], y[~both], s=40, color="#b2182b", marker=_UNSOLVED, linewidths=1.6)
    slower = int(np.sum(both & (y > bx)))
    faster = int(np.sum(both & (y < bx)))
    lost = int(np.sum(bsolved & ~ysolved))
    won = int(np.sum(~bsolved & ysolved))
    text = f"slower than the best on {slower}\nfaster on {faster}"
    if lost:
        text += f"\nunsolved here, solved by the best: {lost}"
    if won:
        text += f"\nsolved here, not by the best: {won}"
    ax.text(0.97, 0.03, text, transform=ax.transAxes, va="bottom", ha="right", fontsize=8,
            bbox={"boxstyle": "round", "fc": "white", "ec": "0.8", "alpha": 0.9})
    ax.set_xlim(lo, frame.xhi)
    ax.set_ylim(lo, frame.yhi)
    ax.set_title(_wrap(pair), fontsize=9, color=color)
    ax.grid(True, alpha=0.25)


def _scatter_legend(fig: Figure, limit: float, at_limit: bool) -> None:
    """:func:`scatter_vs_best`'s legend: both solved, unsolved by either, the time limit (on the axes or not)."""
    handles = [Line2D([], [], ls="none", marker="o", color=_GREY, ms=5),
               Line2D([], [], ls="none", marker=_UNSOLVED, color="#b2182b", ms=7, mew=1.6),
               Line2D([], [], color=_GREY, ls="--", lw=0.8)]
    labels = ["both solved (median over repetitions)", "unsolved by either: drawn at the limit",
              f"time limit {limit:g} s" if at_limit else f"time limit {limit:g} s (no run reached it: off the axes)"]
    fig.legend(handles, labels, loc="outside lower center", ncols=3, frameon=False, fontsize=8.5)


def time_vs_size(df: pd.DataFrame, *, shift_s: float = 1.0) -> Figure:
    """Time (log) vs instance size rows × cols per pair; unsolved drawn at the limit with a cross.

    A thin line joins each pair's median time per size.  When the sizes are well apart,
    pairs are nudged sideways a little so their points do not hide each other and every
    size is labelled with its shape.
    """
    it = instance_times(df)
    order = pair_order(df, shift_s)
    styles = pair_styles(order)
    fig = _plot_figure(order, 16)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    if it.empty:
        _note(ax, "no runs")
        return fig
    cells = it["cells"].to_numpy(dtype="float64")
    it = it[np.isfinite(cells) & (cells > 0)]  # boards without rows x cols (hex) have no size here
    if it.empty:
        _note(ax, "no instance sizes recorded")
        return fig
    lo, hi, at_limit = _fitted_range(it)
    limit = _limit_of(it)
    sizes = np.sort(it["cells"].unique())
    gap = float(np.diff(np.log(sizes)).min()) if sizes.size > 1 else math.inf
    separated = gap >= 0.12  # sizes at least 13 % apart: nudge pairs, label every size
    spread = min(0.06, gap * 0.3) if separated else 0.0
    handles, labels = [], []
    n = len(order)
    for j, pair in enumerate(order):
        st = styles[pair]
        rows = it[it["pair"] == pair]
        nudge = math.exp(spread * ((j - (n - 1) / 2) / max((n - 1) / 2, 1)))
        x = rows["cells"].to_numpy(dtype="float64") * nudge
        t = np.maximum(rows["time_s"].to_numpy(dtype="float64"), MIN_TIME_S)
        ok = rows["solved"].to_numpy(dtype=bool)
        med = rows.assign(t=t).groupby("cells")["t"].median().sort_index()
        ax.plot(med.index.to_numpy(dtype="float64") * nudge, med.to_numpy(), color=st["color"],
                lw=1, alpha=0.6)
        ax.scatter(x[ok], t[ok], s=20, color=st["color"], marker=st["marker"], alpha=0.75,
                   edgecolors="none")
        ax.scatter(x[~ok], t[~ok], s=36, color=st["color"], marker=_UNSOLVED, linewidths=1.5)
        handles.append(Line2D([], [], color=st["color"], marker=st["marker"], lw=1, ms=5))
        labels.append(f"{pair}  ({int((~ok).sum())} unsolved)")
    if at_limit:
        ax.axhline(limit, color=_GREY, ls="--", lw=1)
        ax.text(0.01, limit, f"time limit {limit:g} s: unsolved (×) drawn here", va="bottom", ha="left",
                color=_GREY, fontsize=8, transform=ax.get_yaxis_transform())
    else:
        ax.text(0.01, 0.98, f"time limit {limit:g} s: every run solved, far below it", va="top", ha="left",
                color=_GREY, fontsize=8, transform=ax.transAxes)
    ax.set_ylim(lo, hi)
    if separated and len(sizes) <= 10:
        shapes = it.groupby("cells")[["rows", "cols"]].apply(
            lambda g: sorted({(int(r), int(c)) for r, c in zip(g["rows"], g["cols"])}))
        ax.set_xticks(sizes, [f"{int(c)}\n" + "\n".join(f"{r}×{k}" for r, k in shapes.loc[c][:2])
                              for c in sizes])
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    pad = math.exp(max(spread * 2.5, 0.08))
    ax.set_xlim(sizes[0] / pad, sizes[-1] * pad)
    ax.set_xlabel("instance size: cells = rows × cols (log scale)")
    ax.set_ylabel(f"{time_words(df)} per instance (s, log scale; median over repetitions)")
    ax.set_title("Time vs instance size (line: median per size)")
    ax.grid(True, alpha=0.3)
    _legend(fig, handles, labels)
    return fig


__all__ = ["FIGURES", "FORMATS", "MIN_TIME_S", "TITLES", "all_figures", "cactus", "figure_bytes", "instance_times", "pair_order",
           "pair_styles", "performance_profile", "png_bytes", "problems", "scatter_vs_best", "time_vs_size"]
