"""The statuses per pair: how every stored run of each pair ended, by status and by termination, with a total.

BenchExec's table-generator shows such a summary under its table (counts of each
result category per run set); here it is one table (``statuses.csv``), a pure function
of the run frame with a plain RangeIndex, one row per pair in the order given (the
report's: best first; others after, by name) and a last row ``total`` over all pairs.
Columns (:data:`SUMMARY_COLUMNS`):

* ``runs``: the pair's stored runs; ``instances``: the instances it ran on;
* ``solved``: the instances it solved, as the pairs table counts them (a pair × instance
  cell is solved when more than half of its runs are, :func:`metrics.instance_times`);
* ``status:S`` for every status a store can hold (:data:`harness.core.record.STATUS_VALUES`:
  the classified outcome, ``refused`` included; ``unknown`` only where a run has it) and ``termination:T`` for every
  termination (:data:`~harness.core.record.TERMINATION_VALUES`: why the run ended),
  counted over runs.  Each group sums to ``runs`` (a run of an old store without a
  termination counts in no termination column).

Unlike the pairs table, which ranks on the instances every pair has results on, this
counts every stored run: it is a census, as the matrix and the failures are.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from harness.core.record import STATUS_VALUES, TERMINATION_VALUES
from harness.core.status import WHEN_PRESENT
from harness.report.data import INSTANCE_KEY, with_instance_key
from harness.report.metrics import instance_times

STATUS_COLUMNS = [f"status:{s}" for s in STATUS_VALUES if s not in WHEN_PRESENT]
TERMINATION_COLUMNS = [f"termination:{t}" for t in TERMINATION_VALUES if t not in WHEN_PRESENT]
SUMMARY_COLUMNS = ["pair", "runs", "instances", "solved", *STATUS_COLUMNS, *TERMINATION_COLUMNS]
"""The columns always shown; a status or termination of :data:`~harness.core.status.WHEN_PRESENT` joins them
(in its vocabulary's order) where some run has it."""
TOTAL = "total"
"""The ``pair`` of the last row, the sum over every pair (``instances``: distinct instances)."""

TITLE = "Statuses per pair"
NOTE = ("Every stored run, ranked or not (the pairs table ranks on the instances every pair has results on): "
        "status is the classified outcome (sat and unsat are solved; wrong is a board the verifier rejected), "
        "termination why the run ended (solver-limit: the solver stopped on its own time limit; refused: the "
        "plugin declined the instance, it cannot express it). solved counts instances, the other columns runs.")


def _counts(runs: pd.DataFrame, column: str, values: tuple[str, ...], prefix: str) -> dict[str, int]:
    seen = runs[column].astype(object).value_counts()
    return {f"{prefix}:{v}": int(seen.get(v, 0)) for v in values}


def _row(pair: str, runs: pd.DataFrame, solved: int, statuses: tuple[str, ...],
         terminations: tuple[str, ...]) -> dict[str, object]:
    return {"pair": pair, "runs": len(runs), "instances": int(runs[INSTANCE_KEY].nunique()), "solved": solved,
            **_counts(runs, "status", statuses, "status"),
            **_counts(runs, "termination", terminations, "termination")}


def status_table(df: pd.DataFrame, order: list[str] | None = None) -> pd.DataFrame:
    """One row per pair with runs (:data:`SUMMARY_COLUMNS`), then ``total``; no rows if there are no runs.

    ``order`` gives the pairs' order (the report's ranking); pairs not in it follow by name.
    """
    df = with_instance_key(df)
    if df.empty:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c != "pair" else object) for c in SUMMARY_COLUMNS})
    cells = instance_times(df)
    solved = cells.groupby("pair", sort=True)["solved"].sum()
    present = set(df["pair"].astype(object))
    pairs = [p for p in (order or []) if p in present] + sorted(present - set(order or []))
    by_pair = dict(list(df.groupby(df["pair"].astype(object), sort=True)))
    seen = set(df["status"].astype(object)) | set(df["termination"].astype(object))
    statuses = tuple(s for s in STATUS_VALUES if s not in WHEN_PRESENT or s in seen)
    terminations = tuple(t for t in TERMINATION_VALUES if t not in WHEN_PRESENT or t in seen)
    rows = [_row(p, by_pair[p], int(solved.get(p, 0)), statuses, terminations) for p in pairs]
    rows.append(_row(TOTAL, df, int(solved.sum()), statuses, terminations))
    return pd.DataFrame(rows, columns=list(rows[0]))


def statuses_html(table: pd.DataFrame, html_table: Callable[[pd.DataFrame], str]) -> str:
    """The section's body: the note and the table (inside ``<div id="statuses-table">``, which the filters rewrite)."""
    return (f'<p class="sub">{NOTE}</p><p class="note filtered-note" hidden></p>'
            f'<div id="statuses-table">{html_table(table)}</div>')


def statuses_markdown(table: pd.DataFrame, markdown_table: Callable[[pd.DataFrame], str]) -> list[str]:
    """The section's lines in summary.md."""
    body = markdown_table(table) if not table.empty else "_No runs._"
    return [f"## {TITLE}", "", NOTE, "", body, "", "Every pair's counts: [statuses.csv](statuses.csv).", ""]


__all__ = ["NOTE", "STATUS_COLUMNS", "SUMMARY_COLUMNS", "TERMINATION_COLUMNS", "TITLE", "TOTAL", "status_table",
           "statuses_html", "statuses_markdown"]
