"""The report of a campaign, from its results store only: HTML, Markdown, CSV tables and PNG figures.

:func:`write_report` reads ``RESULTS_DIR/results.sqlite`` and writes into ``OUT_DIR``:

* ``index.html``: one self-contained page (inline CSS and script, every figure inlined
  as a base64 PNG, no external reference) that opens offline: whether the campaign is
  complete, the headline, the pairs tables, the statuses per pair, the instance × pair
  matrix (sortable, filterable; a filter recomputes the statuses and the outcome and speed
  tables over the instances shown, :mod:`harness.report.filters`), the failures with their messages,
  the disputed boards drawn, the formulation × backend pivots, the best-of tables, the virtual best, repetitions (if
  any), the figures, the campaign's provenance and how to read the measures;
* ``summary.md``: the same headline and tables as GitHub Markdown, rounded, with the
  figures linked;
* one CSV per table of :func:`harness.report.metrics.all_tables` (``pairs.csv``, ...),
  unrounded, and ``matrix.csv``, ``failures.csv``, ``completeness.csv``, ``statuses.csv``;
* one PNG per figure of :func:`harness.report.plots.all_figures` (``cactus.png``, ...);
  figures that make no sense for the store (no runs, a single pair) are skipped, the
  reason is printed in both documents and a stale PNG of that name is removed.

Pairs are ranked (every table and figure that compares them) only on the instances where
every pair has its results (:mod:`harness.report.completeness`); the matrix and the
failures show every stored run of the plan.  Nothing here imports a solver library, the
runner or the backends: a report rebuilds on a machine with only pandas, matplotlib and
scipy.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import pandas as pd

from harness import __version__
from harness.report import evidence, filters, matrix, metrics, noise, plots, sizes, summary
from harness.report.headline import headline as headline_of
from harness.report.agreement import find_manifest, load_manifest
from harness.errors import InputError
from harness.report.completeness import Completeness, load_campaign
from harness.report.data import MEASURE_WORDS, Measures, configured_rank_by, pair_measures, with_measures
from harness.report.sections import all_problems, parts_of, prepare, unknown_note

NA = "–"
"""How a missing value (NaN, null) is shown in the HTML and Markdown tables."""

OUTCOME_COLUMNS = [
    "pair", "runs", "instances", "solved", "sat", "unsat", "timeout", "memout", "error", "wrong",
    "unique_solves",
]
"""The pairs table's columns shown as "outcome"; then "speed" and "model and resources"."""

SPEED_COLUMNS = [
    "pair", "measure", "sgm_s [95% CI]", "× winner [95% CI]", "tie", "par2_s", "par10_s", "median_s", "cpu_median_s",
    "vbs_gap_s",
]
"""The two bracketed columns are made for display from sgm_s, sgm_lo, sgm_hi and sgm_ratio,
ratio_lo, ratio_hi (:func:`display_pairs`)."""

RESOURCE_COLUMNS = [
    "pair", "mean_s", "cpu_total_s", "build_share", "solve_share", "median_variables", "median_constraints",
    "median_peak_rss_mb", "median_overshoot_s", "max_overshoot_s",
]

TABLE_TITLES = {
    "pairs": "Pairs",
    "virtual_best": "Virtual best solver, per instance",
    "pivot_sgm": "Shifted geometric mean time (s): formulation × backend",
    "pivot_solved": "Instances solved: formulation × backend",
    "best_formulation_per_backend": "Best formulation per backend",
    "best_backend_per_formulation": "Best backend per formulation",
    "repetitions": "Repetitions: spread over the runs of one pair on one instance",
    "size_winners": "Winner at each board size",
    "size_growth": "Time vs board size: the best pair of each backend",
    "controls": "A/A controls: the machine's run-to-run noise",
}
CONTROLS_NOTE = ("Each control is a pair run a second time, interleaved with it on every instance (each copy first "
                 "on every other instance). ratio = the control's shifted geometric mean / the pair's, over the "
                 "instances both copies solved, with its paired 95% interval; floor = the largest factor that "
                 "ratio reaches within its interval, either way round. A pair whose ratio to its group's winner "
                 "has an interval reaching below the floor is tied with it within the machine's noise "
                 "(tie = machine).")
SIZE_NOTE = ("Per size, pairs are scored as above on that size's instances only. ratio = the runner-up's "
             "shifted geometric mean / the winner's; growth = the shifted geometric mean at the largest size / "
             "at the smallest (unsolved at the limit, so a pair that times out grows less than it would).")

FIGURE_CAPTIONS = {
    "cactus": "Cactus plot. For each pair, how many instances it solves within a given time "
              "(per instance, the median over repetitions). Higher and further left is better; "
              "where a line ends is the number the pair solved.",
    "profile": "Performance profile (Dolan–Moré). For each pair, the fraction of instances on "
               "which its time is within a factor τ of the fastest pair's; at τ = 1, the fraction "
               "where it is the fastest. Unsolved instances never count. Higher is better.",
    "scatter": "Each other pair against the best pair, one point per instance (log-log). Above "
               "the diagonal the best pair is faster; dotted lines are 10× apart. Unsolved runs "
               "are crosses on the border, at the time limit.",
    "size": "Time against instance size (rows × cols) per pair; the line joins each pair's "
            "median per size. Unsolved runs are crosses at the time limit.",
}




def ranking_sentence(measures: Measures) -> str:
    """How the pairs were ranked, for the page: which measure, asked how, and which pairs fell back to wall."""
    asked = {"auto": "the default: CPU time for pairs that use one core (threads = 1, no split, not a race), "
                     "wall time for parallel pairs",
             "cpu": "asked for by rank_by = cpu", "wall": "asked for by rank_by = wall"}[measures.asked]
    used = " and ".join(MEASURE_WORDS[m] for m in measures.used) or "no measure (no runs)"
    text = f"Ranked by {used} ({asked})."
    if measures.mixed:
        counts = {m: sum(1 for v in measures.by_pair.values() if v == m) for m in measures.used}
        text += (" The campaign mixes one-core and parallel pairs: each group is ranked apart, with its own "
                 "winner, ratios and virtual best (" + ", ".join(f"{n} by {MEASURE_WORDS[m]}"
                                                                for m, n in counts.items()) + ").")
    if measures.no_cpu:
        text += (f" Ranked by wall time for want of recorded CPU time: {', '.join(measures.no_cpu)} (a store "
                 "made before cpu_s was recorded).")
    return text


def _measures(shift_s: float) -> list[tuple[str, str]]:
    return [
        ("measure (ranked by)", "what a pair's times are: cpu (cpu_s, user + system CPU time of the worker's "
                                "process tree) or wall (wall_s). By default a pair that uses one core is ranked "
                                "by CPU time, which other work on the machine hardly stretches, and a parallel "
                                "pair by wall time (its CPU time adds up its cores); [report] rank_by in the "
                                "config or report --rank-by chooses one for all. Every figure of merit (SGM, "
                                "PAR-k, × winner, intervals, VBS gap, the figures) is in the pair's measure; "
                                "median wall and median CPU are both shown whatever it is."),
        ("solved", "a run is solved when its status is sat or unsat (a wrong answer is not solved); "
                   "with repetitions, a pair solves an instance when more than half its runs do, and "
                   "its time there is the median over the runs."),
        ("PAR-2 / PAR-10 (par2_s, par10_s)", "penalized average runtime: the mean over instances of "
                                             "the time, an unsolved instance counting 2 × (10 ×) the "
                                             "time limit. Lower is better."),
        ("SGM (sgm_s, sgm_ratio)", f"shifted geometric mean of the times, exp(mean(log(t + {shift_s:g}))) "
                                   f"− {shift_s:g} with shift {shift_s:g} s (unsolved at the limit): "
                                   "a typical time in which fast instances do not vanish and one slow "
                                   "one does not dominate; sgm_ratio (× winner) is relative to the winner."),
        ("VBS (virtual best solver)", "per instance, the fastest pair; vbs_gap_s is a pair's mean "
                                      "time beyond it, unique_solves the instances only this pair solved."),
        ("95% CI, × winner, tie", "sgm_s [95% CI]: the interval of a percentile bootstrap over the "
                                  "instances (2,000 resamples, fixed seed): how much the score depends on "
                                  "which instances were drawn. × winner: sgm_s / the winner's, with its "
                                  "paired bootstrap interval. A pair that solved as many instances as the "
                                  "winner is tied with it (tie = noise) when that interval contains 1, or "
                                  f"(tie = resolution) when the two means differ by less than "
                                  f"{noise.RESOLUTION_S * 1000:g} ms, the timer's resolution; the headline "
                                  "then names no single winner. With one run per pair and instance, "
                                  "run-to-run timing noise is not in the interval: use repetitions, and "
                                  "A/A controls (tie = machine: the interval reaches below the noise floor "
                                  "the controls measured)."),
        ("times", "wall_s measured by the runner, from dispatch to answer, in seconds; cpu_s is the "
                  "user + system CPU time of the worker's process tree during the run (above wall_s "
                  "when the solver runs threads; far below it when the machine was busy or the "
                  "solver waited); build_share is the share of in-worker time spent building the model."),
        ("complete", "the store records every run its config expands to; a run not stored is missing. "
                     "Pairs are ranked only on the instances where every planned run is stored; the "
                     "matrix and the failures list every stored run."),
    ]


# -- formatting -------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def format_number(value: Any) -> str:
    """A number rounded for reading: 3 significant digits below 1, fewer decimals above."""
    if _missing(value):
        return NA
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Integral):
        return str(int(value))
    x = float(value)
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 10 and x.is_integer():
        return f"{int(x):,}"
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.2f}"
    return f"{x:#.3g}"


Fmt = str | Callable[[Any], str] | Mapping[str, str | Callable[[Any], str]] | None


def _formatter(floatfmt: Fmt, column: str) -> Callable[[Any], str]:
    spec = floatfmt.get(column) if isinstance(floatfmt, Mapping) else floatfmt
    if spec is None:
        return format_number
    if callable(spec):
        return spec
    return lambda v: format(float(v), spec)


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


COLUMN_LABELS: dict[str, str] = {
    # the pairs tables
    "unique_solves": "unique solves", "timeout": "timeouts", "memout": "memouts", "error": "errors",
    "sgm_s": "shifted geo. mean (s)", "sgm_s [95% CI]": "shifted geo. mean (s) [95% CI]",
    "sgm_ratio": "× winner", "par2_s": "PAR-2 (s)", "par10_s": "PAR-10 (s)", "median_s": "median wall (s)",
    "cpu_median_s": "median CPU (s)", "vbs_gap_s": "gap to virtual best (s)", "mean_s": "mean wall (s)",
    "cpu_total_s": "total CPU (s)", "build_share": "build share", "solve_share": "solve share",
    "median_variables": "median variables", "median_constraints": "median constraints",
    "median_peak_rss_mb": "median peak memory (MB)", "median_overshoot_s": "median overshoot (s)",
    "max_overshoot_s": "max overshoot (s)",
    # best-of, sizes, virtual best, repetitions
    "best_formulation": "best formulation", "best_backend": "best backend", "best_pair": "best pair",
    "runner_up": "runner-up", "runner_up_solved": "runner-up solved", "best_s": "best time (s)",
    "solved_by": "solved by", "solved_runs": "solved runs", "min_s": "min (s)", "max_s": "max (s)",
    "time_s": "time (s)",
    # runs, failures, races
    "wall_s": "wall (s)", "cpu_s": "CPU (s)", "peak_rss_mb": "peak memory (MB)", "won_share": "won share",
    "median_wall_s_when_won": "median wall when won (s)",
    # games and values
    "paired_games": "paired games", "mean_diff": "mean difference", "ci95_low": "95% CI low",
    "ci95_high": "95% CI high", "ci95_half": "95% CI ±", "better_games": "better games",
    "worse_games": "worse games", "mean_shots": "mean shots", "median_shots": "median shots",
    "games_per_s": "games per s", "cpu_games_per_s": "games per CPU s", "gap_pct": "gap (%)",
    "costly_games": "costly games", "first_costly_shot": "first costly shot",
}
"""Readable names for the report's table columns (the CSV files keep the identifiers)."""

_UNITS = {"s": "(s)", "mb": "(MB)", "pct": "(%)", "ms": "(ms)"}
_WORDS = {"cpu": "CPU", "sgm": "shifted geo. mean", "par2": "PAR-2", "par10": "PAR-10", "rss": "RSS",
          "ci95": "95% CI", "vbs": "virtual best"}


def column_label(name: str) -> str:
    """The words a table shows for column ``name``: :data:`COLUMN_LABELS`, ``sgm_s@10x10`` as
    ``shifted geo. mean (s), 10x10``, another snake_case identifier spelt out (``gap_pct`` -> ``gap (%)``);
    anything else (a pair, a backend, a strategy) as it is."""
    if name in COLUMN_LABELS:
        return COLUMN_LABELS[name]
    base, at, where = name.partition("@")
    if at and re.fullmatch(r"[a-z][a-z0-9_]*", base):
        return f"{column_label(base)}, {where}"
    if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", name):
        return name
    words = name.split("_")
    unit = _UNITS.get(words[-1]) if len(words) > 1 else None
    if unit:
        words = words[:-1]
    text = " ".join(_WORDS.get(w, w) for w in words)
    return f"{text} {unit}" if unit else text


def _cells(df: pd.DataFrame, floatfmt: Fmt) -> tuple[list[str], list[bool], list[list[str]]]:
    """Header (:func:`column_label`), right-alignment per column and the formatted cells of ``df`` (index
    dropped)."""
    header = [column_label(str(c)) for c in df.columns]
    numeric = [_is_numeric(df[c]) for c in df.columns]
    rows: list[list[str]] = []
    for values in df.itertuples(index=False, name=None):
        row = []
        for col, _num, value in zip(df.columns, numeric, values):
            if _missing(value):
                row.append(NA)
            elif isinstance(value, Real) and not isinstance(value, (bool, Integral)):
                row.append(_formatter(floatfmt, str(col))(value))
            elif isinstance(value, Integral) and not isinstance(value, bool):
                row.append(str(int(value)))
            else:
                row.append(str(value))
        rows.append(row)
    return header, numeric, rows


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, floatfmt: Fmt = None) -> str:
    """``df`` as a GitHub Markdown table (no index), without the ``tabulate`` package.

    ``floatfmt`` formats float cells: a format spec such as ``".3g"``, a callable, a
    mapping of column name (the identifier) to either, or None for :func:`format_number`.  The header
    shows each column's :func:`column_label`.  Integers are
    printed whole, missing values as :data:`NA`, numeric columns right-aligned; ``|`` in a
    cell is escaped.  A frame without columns gives the empty string.
    """
    if len(df.columns) == 0:
        return ""
    header, numeric, rows = _cells(df, floatfmt)
    lines = ["| " + " | ".join(_md_escape(h) for h in header) + " |",
             "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


_NUM = ' class="num"'


def _breakable(header: str) -> str:
    """A column name, escaped, that may wrap after an underscore (``median_<wbr>peak_<wbr>rss_<wbr>mb``)."""
    return html.escape(header).replace("_", "_<wbr>")


def html_table(df: pd.DataFrame, floatfmt: Fmt = None, *, first_row_class: str | None = None) -> str:
    """``df`` as an HTML ``<table>`` (escaped, numbers right-aligned), formatted as :func:`markdown_table`."""
    if len(df.columns) == 0 or df.empty:
        return '<p class="note">No rows.</p>'
    header, numeric, rows = _cells(df, floatfmt)
    out = ['<div class="scroll"><table>', "<thead><tr>"]
    out += [f"<th{_NUM if num else ''}>{_breakable(h)}</th>" for h, num in zip(header, numeric)]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        cls = f' class="{first_row_class}"' if i == 0 and first_row_class else ""
        out.append(f"<tr{cls}>" + "".join(
            f"<td{_NUM if num else ''}>{html.escape(c)}</td>" for c, num in zip(row, numeric))
            + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


# -- provenance -------------------------------------------------------------------------


def _distinct(series: pd.Series) -> list[str]:
    return sorted({str(v) for v in series.dropna()})


def _facts(df: pd.DataFrame, meta: dict[str, str], results_dir: Path, generated: str,
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


# -- the documents ----------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1400px;padding:1.2em 1.6em 3em;color:#1b1f24;line-height:1.45;background:#fff}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #d0d7de;
padding-bottom:.2em}h3{font-size:1.05em;margin-top:1.2em}
.sub{color:#57606a;font-size:.92em}.headline{font-size:1.08em;background:#eef6ff;border-left:4px solid #0969da;
padding:.7em 1em;margin:1em 0}.warn{background:#fff8c5;border-left:4px solid #bf8700;padding:.6em 1em;margin:1em 0}
.scroll{overflow-x:auto;margin:.5em 0}table{border-collapse:collapse;font-size:.86em}
th,td{border:1px solid #d0d7de;padding:.25em .55em;white-space:nowrap;text-align:left}
th{background:#f6f8fa;position:sticky;top:0;white-space:normal;vertical-align:bottom}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafbfc}tr.best{font-weight:600;background:#f0fff4}
.note{color:#57606a;font-style:italic}figure{margin:1.2em 0}figure img{max-width:100%;height:auto;
border:1px solid #eaeef2}figcaption{color:#424a53;font-size:.92em;max-width:60em}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;font-size:.92em}
dl.facts dt{color:#57606a}dl.facts dd{margin:0;overflow-wrap:anywhere}
dl.measures dt{font-weight:600;margin-top:.4em}dl.measures dd{margin-left:1.2em}
code{font-size:.92em}
"""


def display_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs table with the two interval columns made readable: ``0.41 [0.35–0.48]``, ``1.7 [1.4–2.1]``."""
    out = pairs.copy()

    def interval(v: Any, lo: Any, hi: Any) -> str | None:
        if _missing(v):
            return None
        if _missing(lo) or _missing(hi):
            return format_number(v)
        return f"{format_number(v)} [{format_number(lo)}–{format_number(hi)}]"

    out["sgm_s [95% CI]"] = [interval(*t) for t in zip(pairs["sgm_s"], pairs["sgm_lo"], pairs["sgm_hi"])]
    out["× winner [95% CI]"] = [interval(*t) for t in zip(pairs["sgm_ratio"], pairs["ratio_lo"],
                                                          pairs["ratio_hi"])]
    out["tie"] = [t or None for t in pairs["tie"]]
    return out


def _completeness_html(c: Completeness) -> str:
    esc = html.escape
    if c.complete:
        return (f'<p class="sub" id="completeness">Complete: all {c.planned} planned runs are stored'
                + (f" ({c.outside} stored runs outside the plan are left out)" if c.outside else "") + ".</p>")
    parts = [f'<div class="warn" id="completeness"><b>{esc(c.sentence())}</b>']
    missing = c.by_pair[c.by_pair["missing"] > 0] if c.known else c.by_pair.iloc[0:0]
    if len(missing):
        parts.append("<br>Missing runs per pair: " + ", ".join(
            f"{esc(str(p))} {int(m)} of {int(n)}" for p, m, n in
            zip(missing["pair"], missing["missing"], missing["planned"])) + ".")
    if c.outside:
        parts.append(f"<br>{c.outside} stored runs are not in the plan (their instance files changed since); "
                     "they are left out.")
    parts.append("</div>")
    return "".join(parts)


MENU = {"pairs": "pairs", "statuses": "statuses", "matrix-section": "every run", "failures": "failures",
        "disagreements": "disagreements", "pivots": "formulation × backend", "best-of": "best of",
        "sizes": "by board size", "virtual-best": "virtual best", "repetitions": "repetitions",
        "figures": "figures", "campaign": "campaign", "files": "files"}
"""The section menu's word for each of the page's sections (a task's own section: its title)."""

_H2 = re.compile(r'<h2 id="([^"]+)">(.*?)</h2>', re.S)


def _menu(body: str) -> str:
    """The section menu: one link per ``<h2 id=...>`` of ``body``, in page order."""
    links = [f'<a href="#{anchor}">{MENU.get(html.unescape(anchor)) or title}</a>'
             for anchor, title in _H2.findall(body)]
    return '<nav class="sub" id="sections">Sections: ' + " · ".join(links) + "</nav>"


def _html(title: str, subtitle: str, headline: str, tables: dict[str, pd.DataFrame],
          figures: dict[str, str], skipped: dict[str, str], facts: list[tuple[str, str]],
          files: list[str], shift_s: float, sections: dict[str, str],
          task_sections: list[tuple[str, str, str]], notes: list[str], load: str | None = None,
          ranking: str = "") -> str:
    esc = html.escape
    pairs = display_pairs(tables["pairs"])
    head = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{_CSS}{matrix.CSS}{evidence.CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>", f'<p class="sub">{esc(subtitle)}</p>',
        sections["completeness"],
        *([f'<p class="warn" id="loaded"><b>{esc(load)}</b></p>'] if load else []),
        *[f'<p class="warn">{esc(note)}</p>' for note in notes],
        f'<p class="headline" id="headline">{esc(headline)}</p>',
    ]
    parts = [
        '<h2 id="pairs">Pairs</h2>',
        '<p class="sub">Best first: most instances solved, then smallest shifted geometric mean; ranked on '
        "the instances every pair has results on.</p>",
        f'<p class="sub" id="ranked-by">{esc(ranking)}</p>',
        '<p class="note filtered-note" hidden></p><h3>Outcome</h3><div id="outcome-table">',
        html_table(pairs[[c for c in OUTCOME_COLUMNS if c in pairs.columns]], first_row_class="best"), "</div>",
        '<h3>Speed</h3><div id="speed-table">',
        html_table(pairs[[c for c in SPEED_COLUMNS if c in pairs.columns]], first_row_class="best"), "</div>",
        "<h3>Model and resources</h3>",
        html_table(pairs[[c for c in RESOURCE_COLUMNS if c in pairs.columns]]),
        f'<h3 id="controls">{esc(TABLE_TITLES["controls"])}</h3>',
        *([html_table(tables["controls"]), f'<p class="sub">{esc(CONTROLS_NOTE)}</p>']
          if not tables["controls"].empty else
          ['<p class="note">Not measured: the campaign declares no A/A controls ([report] controls = [PAIR, ...] '
           "in its config runs those pairs twice, interleaved), so a difference inside the machine's run-to-run "
           "noise cannot be told from a real one.</p>"]),
        '<h3 id="measures">How to read the measures</h3><dl class="measures">',
    ]
    parts += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in _measures(shift_s)]
    parts.append("</dl>")
    parts += [f'<h2 id="statuses">{esc(summary.TITLE)}</h2>', sections["statuses"]]
    parts += ['<h2 id="matrix-section">Every run: instance × pair</h2>', sections["matrix"]]
    for key, title, body in task_sections:
        parts += [f'<h2 id="{esc(key)}">{esc(title)}</h2>', body]
    parts += ['<h2 id="failures">Failures: errors, memouts and timeouts</h2>', sections["failures"]]
    parts += ['<h2 id="disagreements">Disagreements and wrong boards</h2>', sections["problems"]]
    parts.append('<h2 id="pivots">Formulation × backend</h2>')
    for name in ("pivot_sgm", "pivot_solved"):
        parts += [f"<h3>{esc(TABLE_TITLES[name])}</h3>", html_table(tables[name])]
    parts.append('<p class="sub">Where several pairs share a backend and formulation (other options), '
                 "the cell is the best of them (most solved, then by its measure's rank); – where a backend "
                 "lacks the formulation. Each time is in its pair's measure (the pairs table's measure column)."
                 "</p>")
    parts.append('<h2 id="best-of">Best of</h2>')
    for name in ("best_formulation_per_backend", "best_backend_per_formulation"):
        parts += [f"<h3>{esc(TABLE_TITLES[name])}</h3>", html_table(tables[name])]
    parts.append('<p class="sub">ratio = the runner-up\'s shifted geometric mean / the winner\'s.</p>')
    if "size_winners" in tables:
        parts.append('<h2 id="sizes">By board size</h2>')
        for name in ("size_winners", "size_growth"):
            parts += [f"<h3>{esc(TABLE_TITLES[name])}</h3>", html_table(tables[name])]
        parts.append(f'<p class="sub">{esc(SIZE_NOTE)}</p>')
    parts += [f'<h2 id="virtual-best">{esc(TABLE_TITLES["virtual_best"])}</h2>',
              '<p class="sub">best time: the fastest pair\'s time (the limit when no pair solved the '
              "instance); solved by: how many pairs solved it.</p>",
              html_table(tables["virtual_best"])]
    if not tables["repetitions"].empty:
        parts += [f'<h2 id="repetitions">{esc(TABLE_TITLES["repetitions"])}</h2>',
                  '<p class="sub">spread = (max − min) / median of the ranking time.</p>',
                  html_table(tables["repetitions"])]
    parts.append('<h2 id="figures">Figures</h2>')
    for key in plots.FIGURES:
        if key in figures:
            parts.append(f'<figure id="fig-{key}"><img alt="{esc(plots.TITLES[key])}" '
                         f'src="data:image/png;base64,{figures[key]}">'
                         f"<figcaption>{esc(FIGURE_CAPTIONS[key])}</figcaption></figure>")
        else:
            parts.append(f'<p class="note">{esc(plots.TITLES[key])}: not drawn, '
                         f"{esc(skipped.get(key, 'not available'))}.</p>")
    parts.append('<h2 id="campaign">Campaign</h2><dl class="facts">')
    parts += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts]
    parts.append("</dl>")
    parts.append('<h2 id="files">Files</h2><p class="sub">Next to this page: '
                 + ", ".join(f'<a href="{esc(f)}">{esc(f)}</a>' for f in files)
                 + " (tables unrounded).</p>")
    body = "\n".join(parts)
    return "\n".join([*head, _menu(body), body, "</body></html>"]) + "\n"


def _markdown(title: str, subtitle: str, headline: str, tables: dict[str, pd.DataFrame],
              pngs: list[str], skipped: dict[str, str], files: list[str], shift_s: float,
              extra: dict[str, Any]) -> str:
    pairs = display_pairs(tables["pairs"])

    def table(df: pd.DataFrame) -> str:
        return markdown_table(df) if not df.empty and len(df.columns) else "_No rows._"

    completeness: Completeness = extra["completeness"]
    state = (f"Complete: all {completeness.planned} planned runs are stored." if completeness.complete
             else f"**{completeness.sentence()}**")
    measured = [f"- {line}" for line in extra.get("sessions", [])] or ["- not recorded (a store written before "
                                                                        "sessions were recorded)"]
    load = extra.get("load")
    out = [f"# {title}", "", subtitle, "", state, "", "Measured on (each `battlebench run` session):", "",
           *measured, "", *([f"> **{load}**", ""] if load else []),
           *[x for note in extra["notes"] for x in (f"> {note}", "")],
           f"**Headline.** {headline}", "",
           "Full report with every table, the instance × pair matrix and the disputed boards drawn: "
           "[index.html](index.html).", "",
           "## Pairs", "", "Best first: most instances solved, then smallest shifted geometric mean; ranked on "
           "the instances every pair has results on.", "", extra.get("ranking", ""), "",
           "### Outcome", "",
           table(pairs[[c for c in OUTCOME_COLUMNS if c in pairs.columns]]), "",
           "### Speed", "",
           table(pairs[[c for c in SPEED_COLUMNS if c in pairs.columns]]), "",
           "### Model and resources", "",
           table(pairs[[c for c in RESOURCE_COLUMNS if c in pairs.columns]]), "",
           f"### {TABLE_TITLES['controls']}", "",
           *([table(tables["controls"]), "", CONTROLS_NOTE] if not tables["controls"].empty else
             ["_Not measured: the campaign declares no A/A controls ([report] controls in its config)._"]), ""]
    out += summary.statuses_markdown(extra["statuses"], markdown_table)
    out += extra["task_markdown"]
    groups: pd.DataFrame = extra["failure_groups"]
    out += ["## Failures: errors, memouts and timeouts", ""]
    out += [table(groups) if not groups.empty else "_No run ended in error, memout or timeout._", "",
            "Every failed run: [failures.csv](failures.csv); every run: [matrix.csv](matrix.csv).", ""]
    problems = extra["problems"]
    out += ["## Disagreements and wrong boards", ""]
    if problems:
        out += [f"- `{p.kind}` {p.message}" for p in problems] + ["", "The boards are drawn in "
                                                                   "[index.html](index.html#disagreements).", ""]
    else:
        out += ["_None: every board passed the verifier and all pairs agree._", ""]
    out += ["## Formulation × backend", ""]
    for name in ("pivot_sgm", "pivot_solved"):
        out += [f"### {TABLE_TITLES[name]}", "", table(tables[name]), ""]
    out += ["## Best of", ""]
    for name in ("best_formulation_per_backend", "best_backend_per_formulation"):
        out += [f"### {TABLE_TITLES[name]}", "", table(tables[name]), ""]
    out += ["ratio = the runner-up's shifted geometric mean / the winner's. "
            "Per-instance virtual best: [virtual_best.csv](virtual_best.csv)"
            + ("; repetitions: [repetitions.csv](repetitions.csv)." if not tables["repetitions"].empty
               else "."), ""]
    if "size_winners" in tables:
        out += ["## By board size", ""]
        for name in ("size_winners", "size_growth"):
            out += [f"### {TABLE_TITLES[name]}", "", table(tables[name]), ""]
        out += [SIZE_NOTE, ""]
    out += ["## Figures", ""]
    for key in plots.FIGURES:
        name = f"{key}.png"
        if name in pngs:
            out += [f"[![{plots.TITLES[key]}]({name})]({name})", "", f"_{FIGURE_CAPTIONS[key]}_", ""]
        else:
            out += [f"- {plots.TITLES[key]}: not drawn, {skipped.get(key, 'not available')}.", ""]
    out += ["## Measures", ""]
    out += [f"- **{k}**: {v}" for k, v in _measures(shift_s)]
    out += ["", "## Files", "", ", ".join(f"[{f}]({f})" for f in files) + " (tables unrounded).", ""]
    return "\n".join(out)


EXTRA_TABLES = ("matrix", "failures", "completeness", "statuses")
"""CSV files written beside the metrics tables: every run's cell, every failed run, runs missing per pair, the
statuses per pair."""


def write_report(results_dir: str | Path, out_dir: str | Path, shift_s: float = 1.0,
                 manifest: str | Path | None = None, rank_by: str | None = None) -> dict[str, Path]:
    """Write the report of the store in ``results_dir`` into ``out_dir``; return ``{file name: path}``.

    Keys: ``index.html``, ``summary.md``, ``<table>.csv`` for every table of
    :data:`harness.report.metrics.TABLES` (plus ``size_winners`` and ``size_growth`` when
    the runs cover several board sizes, :mod:`harness.report.sizes`), the
    :data:`EXTRA_TABLES` and ``<figure>.png`` for every figure drawn.  ``shift_s`` is
    the shift of the shifted geometric mean; ``manifest`` the instance manifest the
    disagreements are checked against (default: found above ``results_dir``); ``rank_by``
    what pairs are ranked by (:data:`harness.core.task.RANK_BY`; default: the campaign
    config's ``[report] rank_by``, else ``auto``).  Raises
    :class:`harness.errors.InputError` if ``results_dir`` holds no results store, or a
    damaged one (:class:`harness.errors.StoreDamaged`).
    """
    results_dir = Path(results_dir)
    out = Path(out_dir)
    campaign = load_campaign(results_dir)
    parts = parts_of(campaign.runs)
    notes = unknown_note(parts) + [n for p in parts for n in p.section.notes(p.frame(campaign.runs))]
    meta, completeness = campaign.meta, campaign.completeness
    measures = pair_measures(campaign.runs, rank_by or configured_rank_by(meta))
    df = with_measures(prepare(campaign.runs, parts), measures)
    ranked = with_measures(prepare(campaign.ranked, parts), measures)
    tables = metrics.all_tables(ranked, shift_s)
    by_size = sizes.size_tables(ranked, shift_s, pairs=tables["pairs"])
    if len(by_size["size_winners"]) > 1:  # a campaign over several board sizes
        tables.update(by_size)
    pairs = tables["pairs"]
    best_pair = str(metrics.across_groups(pairs)["pair"].iloc[0]) if not pairs.empty else None  # most solved
    skipped = plots.problems(ranked, best_pair, shift_s=shift_s)
    figures = plots.all_figures(ranked, best_pair, shift_s=shift_s)
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    manifest_path = Path(manifest) if manifest else find_manifest(results_dir)
    problems = all_problems(df, load_manifest(manifest_path) if manifest_path else None, manifest_path, parts)
    disputed = df[df["instance_hash"].isin({p.key for p in problems}).to_numpy(dtype=bool)]
    known: dict[str, Any] = {}  # the disputed runs' instances, for the clues around their boards
    if problems:
        for part in parts:
            again = part.section.recheck(part.frame(disputed), results_dir)
            known.update(getattr(again, "instances", None) or {})
    order = list(pairs["pair"]) if not pairs.empty else []
    statuses = summary.status_table(df, order)
    extra_tables = {"matrix": matrix.matrix_table(df), "failures": evidence.failure_table(df),
                    "completeness": completeness.by_pair, "statuses": statuses}
    own: list[tuple[Any, dict[str, pd.DataFrame], dict[str, Any]]] = []  # per part: its section, tables, figures
    for part in parts:
        frame = part.frame(df)
        part_tables, part_figures = part.section.tables(frame), part.section.figures(frame)
        extra_tables.update(part_tables)
        figures.update(part_figures)
        own.append((part.section, part_tables, part_figures))
    headline = None
    if parts and not any(p.section.ranks_by_time for p in parts):  # its own measure (shots), not seconds
        headline = next((h for section, t, _ in own if (h := section.headline(t))), None)
    if headline is None:
        headline = headline_of(ranked, shift_s, completeness=completeness, all_runs=df, tables=tables)
    shown = display_pairs(pairs).columns
    layout = {"outcome-table": [c for c in OUTCOME_COLUMNS if c in shown],  # the divs of _html's pairs tables
              "speed-table": [c for c in SPEED_COLUMNS if c in shown]}
    blob = filters.run_data(df, frozenset(completeness.ranked), pairs=order, tables=layout, summary=statuses,
                            measures=measures.by_pair, shift_s=shift_s)
    sections = {
        "statuses": summary.statuses_html(statuses, html_table) + filters.blob_html(blob),
        "completeness": _completeness_html(completeness),
        "matrix": matrix.matrix_html(df, order),
        "failures": evidence.failures_html(df, html_table),
        "problems": evidence.problems_html(problems, known),
    }

    try:
        return _write(out, tables, extra_tables, figures, df, meta, results_dir, generated, shift_s, completeness,
                      headline, skipped, sections, own, problems, notes, measures)
    except OSError as exc:  # a full disk, a file in the way: one line, nothing half-said
        where = exc.filename or out
        raise InputError(f"{where}: cannot write the report: {exc.strerror or exc}") from None


def _write(out: Path, tables: dict, extra_tables: dict, figures: dict, df: pd.DataFrame, meta: dict,
           results_dir: Path, generated: str, shift_s: float, completeness: Completeness, headline: str,
           skipped: dict, sections: dict, own: list, problems: list, notes: list[str],
           measures: Measures) -> dict[str, Path]:
    """Write the report's files into ``out`` (:func:`write_report`)."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    csvs = []
    for name, table in {**tables, **extra_tables}.items():
        path = out / f"{name}.csv"
        table.to_csv(path, index=False)
        csvs.append(path.name)
        written[path.name] = path
    pngs, drawn, encoded = [], [], {}  # drawn: every figure file, PNG, SVG and PDF
    for key in dict.fromkeys([*plots.FIGURES, *figures]):
        paths = {fmt: out / f"{key}.{fmt}" for fmt in plots.FORMATS}
        if figures.get(key) is None:
            for path in paths.values():
                path.unlink(missing_ok=True)  # a stale figure of an earlier report
            continue
        for fmt, path in paths.items():
            data = plots.figure_bytes(figures[key], fmt)
            path.write_bytes(data)
            if fmt == "png":
                encoded[key] = base64.b64encode(data).decode("ascii")
                pngs.append(path.name)
            drawn.append(path.name)
            written[path.name] = path

    facts = _facts(df, meta, results_dir, generated, shift_s)
    fact = dict(facts)
    title = f"battlebench report: {fact['campaign']}"
    stored = (f"{fact['runs']} runs" if completeness.complete or not completeness.known
              else f"{fact['runs']} of {completeness.planned} planned runs")
    subtitle = (f"Campaign {fact['campaign']}, config {fact['config hash']}, {stored} "
                f"({fact['pairs']} pairs × {fact['instances']} instances, task {fact['task']}, "
                f"time limit {fact['time limit']}) on {fact['hosts']}; generated {generated}.")
    files = csvs + drawn
    index = out / "index.html"
    task_sections = [s for section, t, f in own
                     for s in section.html(t, {k: encoded[k] for k in f if k in encoded}, html_table)]
    load = load_warning(meta, measures)
    ranking = ranking_sentence(measures)
    index.write_text(_html(title, subtitle, headline, tables, encoded, skipped, facts, files, shift_s, sections,
                           task_sections, notes, load, ranking), encoding="utf-8")
    summary = out / "summary.md"

    def md_table(frame: pd.DataFrame) -> str:
        return markdown_table(frame) if not frame.empty and len(frame.columns) else "_No rows._"

    task_markdown = [line for section, t, f in own
                     for line in section.markdown(t, [p for p in pngs if p[:-4] in f], md_table)]
    extra = {"completeness": completeness, "failure_groups": evidence.failure_groups(df), "problems": problems,
             "statuses": extra_tables["statuses"],
             "sessions": sessions_of(meta), "load": load, "ranking": ranking,
             "task_markdown": task_markdown, "notes": notes}
    summary.write_text(_markdown(title, subtitle, headline, tables, pngs, skipped, ["index.html"] + files,
                                 shift_s, extra), encoding="utf-8")
    return {"index.html": index, "summary.md": summary, **written}


__all__ = ["COLUMN_LABELS", "EXTRA_TABLES", "LOADED_LOAD_PER_CORE", "NA", "column_label", "display_pairs",
           "format_number", "html_table", "load_warning", "markdown_table", "ranking_sentence", "write_report"]
