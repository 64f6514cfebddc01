"""Two campaigns side by side (``battlebench compare``): what changed per pair and per instance from a baseline to new results.

:func:`compare_runs` matches the runs of two frames (:func:`harness.report.data.load`) as
``battlebench check --baseline`` does (:mod:`harness.report.regression`: on the instance's
content, the pair, the question and the seed; the repetitions of a match summed up as one
status and a median time) and gives one row per match (:data:`ROW_COLUMNS`) with its
*change*, one of :data:`CHANGES`:

``became wrong``
    a board failed the verifier where the baseline had none (a regression for ``check``);
``status changed``
    every old run decided and some new one not, or sat <-> unsat (regressions for
    ``check``), or any other change of the statuses (timeout -> memout, wrong -> timeout);
``slower`` / ``faster``
    decided alike, and the new times more than ``ratio`` × the old ones (or the reverse)
    by check's slowdown rule on the ``time`` asked for (:func:`harness.report.regression.slower`:
    the Mann–Whitney test with 3 repetitions or more, else the medians; never when both
    medians are under ``floor_s``);
``fixed``
    undecided or wrong -> every run decided (an improvement for ``check``);
``same``
    the same statuses, neither slower nor faster: the note says why (under the floor,
    within the ratio, within noise with the test's p-value);
``appeared`` / ``disappeared``
    in the new results only / in the baseline only (an instance or a whole pair).

Every row has the old and new median CPU and wall time and their ratios (new / old; NaN
where a side has no time or the old time is 0).  :func:`pair_summary` gives one row per
pair (:data:`PAIR_COLUMNS`): whether the pair is in both campaigns, how many instances
are, how many of those each campaign solved, the ratio of the shifted geometric means of
the new and old CPU (and wall) times over the instances solved in both, with its 95 %
paired bootstrap interval (:func:`harness.report.noise.ratio_interval`), and how many
matches had each change.  :func:`markdown` and :func:`html_page` render a
:class:`Comparison`; :func:`write_comparison` writes ``compare.html``, ``compare.md`` and
``compare.csv`` (every row, unrounded).
"""

from __future__ import annotations

import html
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness.core.thresholds import DEFAULT_FLOOR_S, DEFAULT_RATIO
from harness.errors import InputError
from harness.report import noise
from harness.report.metrics import shifted_geomean
from harness.report.regression import DECIDED, TIMES, Key, Runs, compare, improvements, judged_times, runs, slower
from harness.report.page import CSS
from harness.report.tables import format_number, html_table, markdown_table

CHANGES = ("became wrong", "status changed", "slower", "disappeared", "appeared", "fixed", "faster", "same")
"""The change of a match, worst first (the order of the tables' rows)."""
RATIO = DEFAULT_RATIO
"""The default ``ratio``: check's (2).  Two idle campaigns of one config on one machine differed by up to 2.1×
in a run's CPU time, 1.56× at the 90th percentile (``reports/load-noise``): a lower ratio calls noise slower."""
FLOOR_S = DEFAULT_FLOOR_S
"""The default noise floor: check's (0.1 s)."""
FILES = ("compare.html", "compare.md", "compare.csv")

ROW_COLUMNS = [
    "pair", "instance", "question", "seed", "change", "old_status", "new_status", "old_runs", "new_runs",
    "old_cpu_s", "new_cpu_s", "cpu_ratio", "old_wall_s", "new_wall_s", "wall_ratio", "judged_on", "note",
    "old_solved", "new_solved", "instance_hash",
]
_COUNTS = [c.replace(" ", "_") for c in CHANGES]  # the pairs table's column of each change
PAIR_COLUMNS = [
    "pair", "pair_change", "instances_in_both", "solved_old", "solved_new", "cpu_ratio", "cpu_lo", "cpu_hi",
    "wall_ratio", "wall_lo", "wall_hi", *_COUNTS,
]
_SHOWN_ROWS = ["pair", "instance", "change", "old_status", "new_status", "old_cpu_s", "new_cpu_s", "cpu_ratio",
               "old_wall_s", "new_wall_s", "wall_ratio", "note"]
NAN = float("nan")


@dataclass(frozen=True)
class CompareOptions:
    """What decides slower / faster (``time``, ``ratio``, ``floor_s``) and the shift of the pairs' means."""

    time: str = "cpu"
    ratio: float = RATIO
    floor_s: float = FLOOR_S
    shift_s: float = 1.0


@dataclass
class Comparison:
    """Two campaigns compared: every match (:data:`ROW_COLUMNS`), every pair (:data:`PAIR_COLUMNS`)."""

    rows: pd.DataFrame
    pairs: pd.DataFrame
    options: CompareOptions
    new: str = "new"
    old: str = "old"


# -- the numbers ----------------------------------------------------------------------------------------------


def _median(group: Runs | None) -> float:
    return NAN if group is None or group.on_wall or not group.walls else float(statistics.median(group.walls))


def _ratio(new: float, old: float) -> float:
    return new / old if not (math.isnan(new) or math.isnan(old)) and old > 0 else NAN


def _text(message: str) -> str:
    """A regression's message without the instance, pair and question it starts with (the row has them)."""
    return message.split(": ", 1)[1] if ": " in message else message


def _same(o: Runs, n: Runs, ow: Runs, nw: Runs, opts: CompareOptions) -> tuple[str, str]:
    """(basis, why) of a match that did not change: not timed, under the floor, within the ratio, within noise."""
    a, b, basis = judged_times(opts.time, o, n, ow, nw)
    if not (o.all_decided and n.all_decided and o.decided == n.decided) or not a or not b:
        return basis, "not timed: not every run decided"
    ma, mb = statistics.median(a), statistics.median(b)
    if ma < opts.floor_s and mb < opts.floor_s:
        return basis, f"both under the {opts.floor_s:g} s floor"
    if mb <= opts.ratio * ma and ma <= opts.ratio * mb:
        return basis, f"within {opts.ratio:g}×"
    _, how = slower(a, b, opts.ratio, opts.floor_s) if mb > ma else slower(b, a, opts.ratio, opts.floor_s)
    return basis, f"within noise ({how})"


def compare_runs(old_df: pd.DataFrame, new_df: pd.DataFrame, opts: CompareOptions = CompareOptions()) -> pd.DataFrame:
    """One row per match of either campaign (:data:`ROW_COLUMNS`), ordered by pair, instance, question, seed."""
    if opts.time not in TIMES:
        raise ValueError(f"time must be one of {TIMES}, not {opts.time!r}")
    cpu = runs(old_df, "cpu"), runs(new_df, "cpu")
    wall = runs(old_df, "wall"), runs(new_df, "wall")
    judged = cpu if opts.time == "cpu" else wall
    found: dict[Key, Any] = {}
    for r in (compare(old_df, new_df, ratio=opts.ratio, floor_s=opts.floor_s, time=opts.time)
              + improvements(old_df, new_df, ratio=opts.ratio, floor_s=opts.floor_s, time=opts.time)):
        if r.kind != "missing":
            found.setdefault((r.where, r.pair, r.question, r.seed), r)  # a regression before an improvement
    def order(k: Key) -> tuple:
        return k[1], (wall[1].get(k) or wall[0][k]).instance, k[0], k[2], -1 if k[3] is None else k[3]

    rows = []
    for key in sorted(set(wall[0]) | set(wall[1]), key=order):
        where, pair, question, seed = key
        ow, nw = wall[0].get(key), wall[1].get(key)
        o, n = judged[0].get(key), judged[1].get(key)
        basis, note = opts.time, ""
        if o is None or n is None:
            change = "appeared" if o is None else "disappeared"
            note = "not in the baseline" if o is None else "not in the new results"
        elif key in found:
            r = found[key]
            change = {"slowdown": "slower", "speedup": "faster", "solved": "fixed"}.get(r.kind, "status changed")
            if r.kind == "status" and "wrong" in n.statuses and "wrong" not in o.statuses:
                change = "became wrong"
            note = _text(r.message)
            basis = judged_times(opts.time, o, n, ow, nw)[2]
        elif o.describe() != n.describe():
            change, note = "status changed", f"{o.describe()} -> {n.describe()}"
        else:
            change = "same"
            basis, note = _same(o, n, ow, nw, opts)
        old_cpu, new_cpu = _median(cpu[0].get(key)), _median(cpu[1].get(key))
        old_wall, new_wall = _median(ow), _median(nw)
        rows.append({
            "pair": pair, "instance": (nw or ow).instance, "question": question, "seed": seed, "change": change,
            "old_status": ow.describe() if ow else None, "new_status": nw.describe() if nw else None,
            "old_runs": len(ow.statuses) if ow else 0, "new_runs": len(nw.statuses) if nw else 0,
            "old_cpu_s": old_cpu, "new_cpu_s": new_cpu, "cpu_ratio": _ratio(new_cpu, old_cpu),
            "old_wall_s": old_wall, "new_wall_s": new_wall, "wall_ratio": _ratio(new_wall, old_wall),
            "judged_on": basis if o is not None and n is not None else None, "note": note,
            "old_solved": bool(ow and ow.status in DECIDED), "new_solved": bool(nw and nw.status in DECIDED),
            "instance_hash": where,
        })
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in ROW_COLUMNS})
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def _sgm_ratio(new: pd.Series, old: pd.Series, shift_s: float) -> tuple[float, float, float]:
    """sgm(new) / sgm(old) over the rows with both times, and its 95 % paired bootstrap interval."""
    both = new.notna() & old.notna()
    new, old = new[both].astype("float64"), old[both].astype("float64")
    if new.empty:
        return NAN, NAN, NAN
    ratio = _ratio(shifted_geomean(new, shift_s), shifted_geomean(old, shift_s))
    lo, hi = noise.ratio_interval(list(new), list(old), shift_s)
    return ratio, lo, hi


def pair_summary(rows: pd.DataFrame, shift_s: float = 1.0) -> pd.DataFrame:
    """One row per pair of either campaign (:data:`PAIR_COLUMNS`), ordered by pair.

    ``pair_change``: ``in both``, ``appeared`` or ``disappeared``; ``instances_in_both``:
    its matches in both; ``solved_old`` / ``solved_new``: how many of those each solved (a pair in one
    campaign only: of its matches there); ``cpu_ratio`` and ``wall_ratio``: the new
    shifted geometric mean over the old one, over the matches solved in both, with
    ``_lo`` / ``_hi`` its interval; then the count of each change.
    """
    out = []
    for pair, g in rows.groupby("pair", sort=True):
        both = g[~g["change"].isin(("appeared", "disappeared"))]
        scope = both if len(both) else g
        solved = both[both["old_solved"] & both["new_solved"]]
        cpu = _sgm_ratio(solved["new_cpu_s"], solved["old_cpu_s"], shift_s)
        wall = _sgm_ratio(solved["new_wall_s"], solved["old_wall_s"], shift_s)
        counts = g["change"].value_counts()
        presence = ("appeared" if (g["change"] == "appeared").all() else
                    "disappeared" if (g["change"] == "disappeared").all() else "in both")
        out.append({"pair": pair, "pair_change": presence, "instances_in_both": len(both),
                    "solved_old": int(scope["old_solved"].sum()), "solved_new": int(scope["new_solved"].sum()),
                    "cpu_ratio": cpu[0], "cpu_lo": cpu[1], "cpu_hi": cpu[2],
                    "wall_ratio": wall[0], "wall_lo": wall[1], "wall_hi": wall[2],
                    **{name: int(counts.get(c, 0)) for c, name in zip(CHANGES, _COUNTS)}})
    if not out:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in PAIR_COLUMNS})
    return pd.DataFrame(out, columns=PAIR_COLUMNS)


def comparison(old_df: pd.DataFrame, new_df: pd.DataFrame, opts: CompareOptions = CompareOptions(),
               new: str = "new", old: str = "old") -> Comparison:
    """The comparison of ``new_df`` against the baseline ``old_df``; ``new`` / ``old`` name them in the documents."""
    rows = compare_runs(old_df, new_df, opts)
    return Comparison(rows, pair_summary(rows, opts.shift_s), opts, new, old)


# -- the documents --------------------------------------------------------------------------------------------


def headline(c: Comparison) -> str:
    """One sentence: the matches in both, the count of each change, the pairs that appeared or disappeared."""
    rows, pairs = c.rows, c.pairs
    if rows.empty:
        return "Neither campaign holds a run: nothing was compared."
    counts = rows["change"].value_counts()
    both = int((~rows["change"].isin(("appeared", "disappeared"))).sum())
    said = [f"{int(counts[k])} {k}" for k in CHANGES if counts.get(k, 0)]
    text = f"{len(rows)} instance × pair matches, {both} in both campaigns: " + ", ".join(said) + "."
    for word in ("appeared", "disappeared"):
        names = list(pairs.loc[pairs["pair_change"] == word, "pair"])
        if names:
            text += f" Pairs {word}: {', '.join(names)}."
    return text


def _interval(v: Any, lo: Any, hi: Any) -> str | None:
    if pd.isna(v):
        return None
    if pd.isna(lo) or pd.isna(hi):
        return format_number(v)
    return f"{format_number(v)} [{format_number(lo)}–{format_number(hi)}]"


def _shown_pairs(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs table as read: each ratio with its interval, the counts of the changes that happened."""
    out = pairs[["pair", "pair_change", "instances_in_both", "solved_old", "solved_new"]].copy()
    for what, word in (("cpu", "CPU"), ("wall", "wall")):
        out[f"{word} ratio [95% CI]"] = [_interval(*t) for t in
                                         zip(pairs[f"{what}_ratio"], pairs[f"{what}_lo"], pairs[f"{what}_hi"])]
    for name in _COUNTS:
        if pairs[name].any():
            out[name] = pairs[name]
    return out


def _by_change(rows: pd.DataFrame) -> pd.DataFrame:
    order = rows["change"].map(CHANGES.index)
    return rows.assign(_order=order).sort_values(["_order", "pair", "instance"], kind="mergesort")[_SHOWN_ROWS]


def _changes(c: Comparison) -> tuple[pd.DataFrame, str]:
    """The matches that changed, but for those of pairs that appeared or disappeared whole (the pairs table says
    so), and a sentence on those left out ("" if none)."""
    whole = set(c.pairs.loc[c.pairs["pair_change"] != "in both", "pair"])
    changed = c.rows[c.rows["change"] != "same"]
    left = changed["pair"].isin(whole)
    note = (f"The {int(left.sum())} matches of the pairs that appeared or disappeared are not listed here "
            "(every match is in compare.csv)." if left.any() else "")
    return changed[~left], note


def _about(c: Comparison) -> str:
    o = c.options
    return (f"{c.new} (new) against {c.old} (baseline). Per instance × pair: the statuses, the median CPU and wall "
            f"times and their ratios (new / old); slower / faster on {o.time} time by more than {o.ratio:g}× "
            f"(a Mann–Whitney test with 3 repetitions or more), never when both medians are under the floor of "
            f"{o.floor_s:g} s. Pairs: the ratio of the shifted geometric means (shift {o.shift_s:g} s) over the "
            "instances both campaigns solved, with its 95 % interval.")


def markdown(c: Comparison) -> str:
    """The comparison as GitHub Markdown: what was compared, the headline, the pairs, every match that changed."""
    changed, left_out = _changes(c)
    lines = [f"# battlebench compare: {c.new} against {c.old}", "", _about(c), "", f"**{headline(c)}**", "",
             "## Pairs", ""]
    lines.append(markdown_table(_shown_pairs(c.pairs)) if not c.pairs.empty else "_No pairs._")
    lines += ["", "## Changes", ""]
    lines.append(markdown_table(_by_change(changed)) if not changed.empty else "_No changes._")
    same = int((c.rows["change"] == "same").sum())
    for text in (left_out, f"{same} matches are the same (every match is in compare.csv)." if same else ""):
        lines += ["", text] if text else []
    return "\n".join(lines) + "\n"


def html_page(c: Comparison) -> str:
    """The comparison as one self-contained HTML page in the report's style: the pairs, then every match."""
    esc = html.escape
    title = f"battlebench compare: {c.new} against {c.old}"
    changed, left_out = _changes(c)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>", f'<p class="sub">{esc(_about(c))}</p>',
        f'<p class="headline" id="headline">{esc(headline(c))}</p>',
        '<h2 id="pairs">Pairs</h2>', html_table(_shown_pairs(c.pairs)),
        f'<h2 id="changes">Changes ({len(changed)})</h2>', html_table(_by_change(changed)),
        *([f'<p class="sub">{esc(left_out.replace("compare.csv", "the table below"))}</p>'] if left_out else []),
        f'<h2 id="matches">Every match ({len(c.rows)})</h2>', html_table(_by_change(c.rows)),
        '<h2 id="files">Files</h2><p class="sub">Next to this page: '
        + ", ".join(f'<a href="{f}">{f}</a>' for f in FILES[1:]) + " (compare.csv unrounded).</p>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_comparison(c: Comparison, out_dir: str | Path) -> dict[str, Path]:
    """Write ``compare.html``, ``compare.md`` and ``compare.csv`` into ``out_dir``; return ``{file name: path}``."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        written = {name: out / name for name in FILES}
        written["compare.html"].write_text(html_page(c), encoding="utf-8")
        written["compare.md"].write_text(markdown(c), encoding="utf-8")
        c.rows.to_csv(written["compare.csv"], index=False)
    except OSError as exc:  # a full disk, a file in the way: one line
        raise InputError(f"{exc.filename or out}: cannot write the comparison: {exc.strerror or exc}") from None
    return written


__all__ = ["CHANGES", "FILES", "FLOOR_S", "PAIR_COLUMNS", "RATIO", "ROW_COLUMNS", "CompareOptions", "Comparison",
           "compare_runs", "comparison", "headline", "html_page", "markdown", "pair_summary", "write_comparison"]
