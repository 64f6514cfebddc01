"""The selector's part of a solve campaign's report: SBS, VBS and the selector out of fold, what matters, where.

:func:`selector_study` gives the tables and the figure the solve task's report section shows
(:class:`harness.tasks.solve.section.SolveSection`) when a campaign can teach a selector anything: at least
:data:`MIN_INSTANCES` ranked puzzles, two pairs or more, scikit-learn at hand, every puzzle's file found.
Otherwise it says in one line why there is no selector section (``selector_note``), never a made-up one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import InputError

MIN_INSTANCES = 20
"""Fewer ranked puzzles than this teach a selector nothing worth a section."""

NOTE = ("The selector picks a pair per puzzle from the puzzle's features alone (size, fleet, clues, hints, "
        "placements after pruning, the encodings' sizes and GBD's CNF features, the counting dp's frontier width and "
        "the tally-only board count where cheap; nothing of its solution), by one "
        "cost-sensitive classifier per two pairs, each puzzle judged by models that never saw it or any puzzle of "
        "its generator seed (folds by group, as the ASlib export's cv.arff). Its feature CPU seconds are charged "
        "to its time. SBS: the single pair with the least mean PAR-10; VBS: each puzzle's fastest pair. "
        "gap closed = (SBS − selector) / (SBS − VBS) in mean PAR-10, with a 95% bootstrap interval over puzzles.")


def selector_study(frame: Any, results: Path) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """(tables, figures) of the selector section, or a one-row ``selector_note`` table saying why there is none."""
    pairs = frame["pair"].astype(str).unique() if "pair" in frame.columns else []
    instances = frame["instance_hash"].nunique() if "instance_hash" in frame.columns else 0
    if len(pairs) < 2 or instances < MIN_INSTANCES:
        return {}, {}
    try:
        import sklearn  # noqa: F401 - the selector's library
    except ImportError:
        return {"selector_note": pd.DataFrame({"note": ["no selector section: scikit-learn is not installed"]})}, {}
    from harness.selection.scenario import scenario
    from harness.selection.selector import evaluate, footprint_figure

    classes = frame["node_class"].dropna().astype(str).unique() if "node_class" in frame.columns else []
    try:
        sel = evaluate(scenario(results, node_class=classes[0] if len(classes) == 1 else None))
    except InputError as exc:
        return {"selector_note": pd.DataFrame({"note": [f"no selector section: {exc}"]})}, {}
    summary = sel.summary.copy()
    gap = ("–" if sel.gap_closed is None else
           f"{sel.gap_closed:.0%} [{sel.gap_lo:.0%}, {sel.gap_hi:.0%}]" if sel.gap_lo is not None
           else f"{sel.gap_closed:.0%}")
    summary["measure"] = sel.measure
    tables = {"selector": summary, "selector_gap": pd.DataFrame({"gap_closed": [gap], "note": ["; ".join(sel.notes)]}),
              "selector_features": sel.importance.head(15).reset_index(drop=True),
              "selector_instances": sel.per_instance}
    return tables, {"instance_space": footprint_figure(sel)}


def html(tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
    """The section in ``index.html``."""
    if "selector_note" in tables:
        return [("selector", "Which pair for which puzzle", f'<p class="sub">{tables["selector_note"]["note"][0]}</p>')]
    if "selector" not in tables:
        return []
    body = (f'<p class="sub">{NOTE}</p>' + html_table(tables["selector"].round(3))
            + f'<p>Share of the SBS–VBS gap the selector closes: <b>{tables["selector_gap"]["gap_closed"][0]}</b>'
            f'{". " + tables["selector_gap"]["note"][0] if tables["selector_gap"]["note"][0] else ""}</p>'
            + "<h3>The features that matter</h3>" + html_table(tables["selector_features"].round(4)))
    if "instance_space" in figures:
        body += f'<img alt="instance space" src="data:image/png;base64,{figures["instance_space"]}">'
    return [("selector", "Which pair for which puzzle", body)]


def markdown(tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
    """The section in ``summary.md``."""
    if "selector_note" in tables:
        return ["## Which pair for which puzzle", "", tables["selector_note"]["note"][0], ""]
    if "selector" not in tables:
        return []
    gap, why = tables["selector_gap"]["gap_closed"][0], tables["selector_gap"]["note"][0]
    lines = ["## Which pair for which puzzle", "", NOTE, "", markdown_table(tables["selector"].round(3)), "",
             f"Share of the SBS–VBS gap the selector closes: **{gap}**" + (f" ({why})" if why else "") + ".", "",
             "The features that matter (mean impurity importance):", "",
             markdown_table(tables["selector_features"].round(4)), ""]
    lines += [f"![instance space]({p})" for p in pngs if p.startswith("instance_space")] + [""]
    return lines


__all__ = ["MIN_INSTANCES", "NOTE", "html", "markdown", "selector_study"]
