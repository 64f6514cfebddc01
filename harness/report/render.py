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

This module is the orchestration: it computes the tables, figures and sections and writes the files.  The
parts live by concept: the HTML page in :mod:`harness.report.page`, the Markdown summary in
:mod:`harness.report.markdown`, how a table is shown (rounding, labels, Markdown and HTML tables) in
:mod:`harness.report.tables`, the report's words (titles, captions, notes, the measures) in
:mod:`harness.report.wording`, the campaign's provenance and the loaded-machine warning in
:mod:`harness.report.facts`.  Their public names stay importable from here.
"""

from __future__ import annotations

import base64
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from harness.core.paths import check_name
from harness.errors import InputError
from harness.report import evidence, filters, matrix, metrics, plots, sizes, summary
from harness.report.completeness import Completeness, load_campaign
from harness.report.data import Measures, configured_rank_by, pair_measures, with_measures
from harness.report.facts import LOADED_LOAD_PER_CORE, campaign_facts, load_warning, sessions_of
from harness.report.headline import headline as headline_of
from harness.report.manifest import find_manifest, load_manifest
from harness.report.markdown import markdown_summary
from harness.report.page import completeness_html, html_page
from harness.report.sections import all_problems, parts_of, prepare, unknown_note
from harness.report.tables import (COLUMN_LABELS, NA, OUTCOME_COLUMNS, SPEED_COLUMNS, column_label, display_pairs,
                                   format_number, html_table, markdown_table)
from harness.report.wording import ranking_sentence

EXTRA_TABLES = ("matrix", "failures", "completeness", "statuses")
"""CSV files written beside the metrics tables: every run's cell, every failed run, runs missing per pair, the
statuses per pair."""


def write_report(results_dir: str | Path, out_dir: str | Path, shift_s: float = 1.0,
                 manifest: str | Path | None = None, rank_by: str | None = None,
                 node_class: str | None = None) -> dict[str, Path]:
    """Write the report of the store in ``results_dir`` into ``out_dir``; return ``{file name: path}``.

    Keys: ``index.html``, ``summary.md``, ``<table>.csv`` for every table of
    :data:`harness.report.metrics.TABLES` (plus ``size_winners`` and ``size_growth`` when
    the runs cover several board sizes, :mod:`harness.report.sizes`), the
    :data:`EXTRA_TABLES` and ``<figure>.png`` for every figure drawn.  ``shift_s`` is
    the shift of the shifted geometric mean; ``manifest`` the instance manifest the
    disagreements are checked against (default: found above ``results_dir``); ``rank_by``
    what pairs are ranked by (:data:`harness.core.task.RANK_BY`; default: the campaign
    config's ``[report] rank_by``, else ``auto``); ``node_class`` a part of the name of the
    node class whose runs are reported, needed when they were measured on several
    (:mod:`harness.report.nodes`).  Raises :class:`harness.errors.InputError` if
    ``results_dir`` holds no results store, a damaged one (:class:`harness.errors.StoreDamaged`),
    or runs of several node classes and none chosen.
    """
    results_dir = Path(results_dir)
    out = Path(out_dir)
    campaign = load_campaign(results_dir, node_class)
    parts = parts_of(campaign.runs)
    notes = unknown_note(parts) + [n for p in parts for n in p.section.notes(p.frame(campaign.runs))]
    if campaign.nodes.chosen is not None:  # the runs of one class of several
        said = campaign.nodes.sentence()
        notes.append(said[0].upper() + said[1:] + ".")
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
        more_tables, more_figures = part.section.studies(frame, results_dir)
        part_tables, part_figures = {**part_tables, **more_tables}, {**part_figures, **more_figures}
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
        "completeness": completeness_html(completeness),
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
        path = out / f"{check_name(name, 'table name', 'a report section')}.csv"
        table.to_csv(path, index=False)
        csvs.append(path.name)
        written[path.name] = path
    pngs, drawn, encoded = [], [], {}  # drawn: every figure file, PNG, SVG and PDF
    for key in dict.fromkeys([*plots.FIGURES, *figures]):
        paths = {fmt: out / f"{check_name(key, 'figure name', 'a report section')}.{fmt}" for fmt in plots.FORMATS}
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

    facts = campaign_facts(df, meta, results_dir, generated, shift_s)
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
    index.write_text(html_page(title, subtitle, headline, tables, encoded, skipped, facts, files, shift_s,
                               sections, task_sections, notes, load, ranking), encoding="utf-8")
    summary = out / "summary.md"

    def md_table(frame: pd.DataFrame) -> str:
        return markdown_table(frame) if not frame.empty and len(frame.columns) else "_No rows._"

    task_markdown = [line for section, t, f in own
                     for line in section.markdown(t, [p for p in pngs if p[:-4] in f], md_table)]
    extra = {"completeness": completeness, "failure_groups": evidence.failure_groups(df), "problems": problems,
             "statuses": extra_tables["statuses"],
             "sessions": sessions_of(meta), "load": load, "ranking": ranking,
             "task_markdown": task_markdown, "notes": notes}
    summary.write_text(markdown_summary(title, subtitle, headline, tables, pngs, skipped,
                                        ["index.html"] + files, shift_s, extra), encoding="utf-8")
    return {"index.html": index, "summary.md": summary, **written}


__all__ = ["COLUMN_LABELS", "EXTRA_TABLES", "LOADED_LOAD_PER_CORE", "NA", "column_label", "display_pairs",
           "format_number", "html_table", "load_warning", "markdown_table", "ranking_sentence", "write_report"]
