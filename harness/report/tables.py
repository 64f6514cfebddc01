"""How the report shows a table: numbers rounded for reading, column labels, Markdown and HTML tables.

Also the pairs table as the page and the summary show it: its three column groups and its interval columns
made readable (:func:`display_pairs`).  The CSV files keep the unrounded values and the identifiers.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping
from numbers import Integral, Real
from typing import Any

import pandas as pd

NA = "–"
"""How a missing value (NaN, null) is shown in the HTML and Markdown tables."""

OUTCOME_COLUMNS = [
    "pair", "runs", "instances", "solved", "sat", "unsat", "timeout", "unknown", "memout", "error", "wrong",
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


__all__ = ["COLUMN_LABELS", "Fmt", "NA", "OUTCOME_COLUMNS", "RESOURCE_COLUMNS", "SPEED_COLUMNS", "column_label",
           "display_pairs", "format_number", "html_table", "markdown_table"]
