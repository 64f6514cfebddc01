"""What went wrong, for the report: failed runs with their messages, and disputed boards drawn as boards.

* :func:`failure_table`: one row per run that ended in ``error``, ``memout`` or
  ``timeout`` (``failures.csv``), with its termination and the first line of its message;
  :func:`failures_html` shows those grouped by message (one line per kind of failure,
  with a count and an example) and then run by run.
* :func:`problems_html`: the problems :func:`harness.report.agreement.check_agreement`
  finds (wrong boards, unsat against a verified board, counts that disagree, the
  manifest contradicted), each with its boards drawn as small grids, the verifier's
  verdict under each.
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

from harness.core.failures import FAILED, first_line, group_failures
from harness.report.agreement import Problem
from harness.report.data import clean, with_instance_key

FAILURE_COLUMNS = ["instance", "pair", "status", "termination", "wall_s", "cpu_s", "repetition", "seed",
                   "message", "detail"]
SHOWN_RUNS = 300
"""At most this many failed runs are listed one by one in the HTML (``failures.csv`` has all)."""

CSS = """
.boards{display:flex;flex-wrap:wrap;gap:1em;margin:.4em 0 1.2em}.boards figure{margin:0}
table.board{border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.8em}
table.board td{width:1.25em;height:1.25em;padding:0;text-align:center;border:1px solid #d0d7de}
table.board td.ship{background:#24292f;color:#fff}table.board td.water{background:#f6f8fa;color:#8c959f}
table.board td.clue{border:none;color:#57606a;font-size:.9em}table.board td.clue.bad{color:#cf222e;font-weight:700;
background:#ffebe9}
.boards figcaption{font-size:.85em;max-width:22em}.bad{color:#cf222e;font-weight:600}
.wrap td{white-space:normal;min-width:4em}.wrap td:first-child{white-space:nowrap}
.problem{margin-top:1em}.problem .kind{font-family:ui-monospace,monospace;background:#ffebe9;padding:0 .3em}
"""


def failure_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every failed run (worst status first, then instance, pair, repetition)."""
    df = with_instance_key(df)
    failed = df[df["status"].isin(FAILED).to_numpy(dtype=bool)]
    rows = []
    for rec in failed.to_dict("records"):
        rec = {k: clean(v) for k, v in rec.items()}
        detail = rec.get("detail") or ""
        rows.append({
            "instance": rec.get("instance"), "pair": rec.get("pair"), "status": rec.get("status"),
            "termination": rec.get("termination"), "wall_s": rec.get("wall_s"), "cpu_s": rec.get("cpu_s"),
            "repetition": rec.get("repetition"), "seed": rec.get("seed"), "message": first_line(rec),
            "detail": detail.strip().splitlines()[0] if detail.strip() and rec.get("error") else "",
        })
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in FAILURE_COLUMNS})
    out = pd.DataFrame(rows, columns=FAILURE_COLUMNS)
    out["_order"] = out["status"].map(FAILED.index)
    out = out.sort_values(["_order", "instance", "pair", "repetition"], kind="mergesort", ignore_index=True)
    return out.drop(columns="_order")


def failure_groups(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (status, first line of the message): ``status, runs, message, pairs, terminations, example``."""
    groups = group_failures(df.to_dict("records"))
    return pd.DataFrame([{
        "status": g.status, "runs": g.count, "message": g.message, "pairs": ", ".join(sorted(g.pairs)),
        "terminations": ", ".join(sorted(g.terminations)), "example": g.example,
    } for g in groups], columns=["status", "runs", "message", "pairs", "terminations", "example"])


def failures_html(df: pd.DataFrame, table_html) -> str:
    """The failures section's body; ``table_html`` renders a DataFrame (the report's own table style)."""
    runs = failure_table(df)
    if runs.empty:
        return '<p class="note">No run ended in error, memout or timeout.</p>'
    parts = ["<h3>By message</h3>", f'<div class="wrap">{table_html(failure_groups(df))}</div>',
             "<h3>Run by run</h3>"]
    shown = runs.head(SHOWN_RUNS)
    parts.append(f'<div class="wrap">{table_html(shown)}</div>')
    if len(runs) > len(shown):
        parts.append(f'<p class="note">The first {len(shown)} of {len(runs)} failed runs; every one is in '
                     '<a href="failures.csv">failures.csv</a>.</p>')
    return "\n".join(parts)


def _clue(value: Any, found: int) -> str:
    if value is None:
        return f'<td class="clue">{found}</td>'
    bad = "" if value == found else " bad"
    title = "" if value == found else f' title="the clue says {value}, the board has {found}"'
    return f'<td class="clue{bad}"{title}>{value}</td>'


def board_html(rows: list[str], instance: Any = None) -> str:
    """A board (rows of piece symbols, ``.`` water) as a small grid, with the instance's clues when known.

    A clue the board breaks is marked (and says what the board has); ``?`` clues show the board's count.
    """
    if not rows:
        return '<p class="note">no board (the pair says unsat)</p>'
    ship = [[ch not in ".~" for ch in row] for row in rows]
    row_clues = getattr(instance, "row_clues", None)
    col_clues = getattr(instance, "col_clues", None)
    if row_clues is not None and (len(row_clues) != len(rows) or len(col_clues) != len(rows[0])):
        row_clues = col_clues = None  # not this instance's shape: draw the board alone
    out = ['<table class="board">']
    for r, row in enumerate(rows):
        cells = "".join(
            f'<td class="{"water" if ch in ".~" else "ship"}">{html.escape(ch) if ch not in ".~" else ""}</td>'
            for ch in row)
        clue = _clue(row_clues[r], sum(ship[r])) if row_clues is not None else ""
        out.append(f"<tr>{cells}{clue}</tr>")
    if col_clues is not None:
        out.append("<tr>" + "".join(_clue(v, sum(s[c] for s in ship)) for c, v in enumerate(col_clues))
                   + "<td></td></tr>")
    out.append("</table>")
    return "".join(out)


def problems_html(problems: list[Problem], instances: dict[str, Any] | None = None) -> str:
    """Every problem with its boards drawn (the verifier's verdict under each board).

    ``instances`` maps an instance's content hash to the instance, for its clues around
    the boards (:func:`harness.report.reverify.reverify` finds them).
    """
    if not problems:
        return '<p class="note">None: every board passed the verifier and all pairs agree.</p>'
    parts = []
    for p in problems:
        parts.append(f'<div class="problem"><p><span class="kind">{html.escape(p.kind)}</span> '
                     f"{html.escape(p.message)}</p>")
        if p.boards:
            parts.append('<div class="boards">')
            for pair, rows, verdict in p.boards:
                ok = str(verdict).startswith("ok")
                inst = (instances or {}).get(p.key)
                parts.append(f"<figure>{board_html(rows, inst)}<figcaption><b>{html.escape(pair)}</b><br>"
                             f'<span class="{"" if ok else "bad"}">{html.escape(str(verdict))}</span>'
                             "</figcaption></figure>")
            parts.append("</div>")
        parts.append("</div>")
    return "\n".join(parts)


__all__ = ["CSS", "FAILURE_COLUMNS", "board_html", "failure_groups", "failure_table", "failures_html",
           "problems_html"]
