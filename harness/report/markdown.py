"""The report's Markdown summary (``summary.md``): the page's headline and tables as GitHub Markdown, rounded,
with the figures linked.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from harness.report import plots, summary
from harness.report.completeness import Completeness
from harness.report.tables import OUTCOME_COLUMNS, RESOURCE_COLUMNS, SPEED_COLUMNS, display_pairs, markdown_table
from harness.report.wording import CONTROLS_NOTE, FIGURE_CAPTIONS, SIZE_NOTE, TABLE_TITLES, measure_notes


def markdown_summary(title: str, subtitle: str, headline: str, tables: dict[str, pd.DataFrame],
                     pngs: list[str], skipped: dict[str, str], files: list[str], shift_s: float,
                     extra: dict[str, Any]) -> str:
    """The summary: the title, the completeness, the sessions, the headline, the pairs tables, the statuses, each
    task's Markdown, failures, disagreements, pivots, best-of, sizes, the figures (``pngs`` linked, ``skipped``
    says why one is missing), the measures and the ``files``; ``extra`` the parts :func:`harness.report.render`
    computed (completeness, failure groups, problems, statuses, sessions, load, ranking, task_markdown, notes)."""
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
    out += [f"- **{k}**: {v}" for k, v in measure_notes(shift_s)]
    out += ["", "## Files", "", ", ".join(f"[{f}]({f})" for f in files) + " (tables unrounded).", ""]
    return "\n".join(out)


__all__ = ["markdown_summary"]
