"""The report's HTML page (``index.html``): its style, the section menu, the completeness banner and the page
itself, one self-contained document that opens offline (figures inlined as base64 PNGs).
"""

from __future__ import annotations

import html
import re

import pandas as pd

from harness.report import evidence, matrix, plots, summary
from harness.report.completeness import Completeness
from harness.report.tables import OUTCOME_COLUMNS, RESOURCE_COLUMNS, SPEED_COLUMNS, display_pairs, html_table
from harness.report.wording import CONTROLS_NOTE, FIGURE_CAPTIONS, SIZE_NOTE, TABLE_TITLES, measure_notes

CSS = """
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


def completeness_html(c: Completeness) -> str:
    """The banner under the title: complete, or what is missing per pair and what lies outside the plan."""
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


def html_page(title: str, subtitle: str, headline: str, tables: dict[str, pd.DataFrame],
              figures: dict[str, str], skipped: dict[str, str], facts: list[tuple[str, str]],
              files: list[str], shift_s: float, sections: dict[str, str],
              task_sections: list[tuple[str, str, str]], notes: list[str], load: str | None = None,
              ranking: str = "") -> str:
    """The page: the title and ``subtitle``, the completeness banner, the loaded-machine warning and ``notes``,
    the ``headline``, then the pairs tables, the ``sections`` built by :func:`harness.report.render.write_report`,
    each task's ``task_sections``, the pivots, best-of, sizes, virtual best, repetitions, the ``figures`` (base64
    PNGs; ``skipped`` says why one is missing), the campaign's ``facts`` and the ``files`` beside it."""
    head = _head(title, subtitle, headline, sections["completeness"], notes, load)
    parts = _pairs_part(tables, ranking, shift_s)
    parts += _runs_part(sections, task_sections)
    parts += _tables_part(tables)
    parts += _figures_part(figures, skipped)
    parts += _campaign_part(facts, files)
    body = "\n".join(parts)
    return "\n".join([*head, _menu(body), body, "</body></html>"]) + "\n"


def _head(title: str, subtitle: str, headline: str, completeness: str, notes: list[str],
          load: str | None) -> list[str]:
    """The document's head and the page's top: title, subtitle, completeness banner, warnings, headline."""
    esc = html.escape
    return [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}{matrix.CSS}{evidence.CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>", f'<p class="sub">{esc(subtitle)}</p>',
        completeness,
        *([f'<p class="warn" id="loaded"><b>{esc(load)}</b></p>'] if load else []),
        *[f'<p class="warn">{esc(note)}</p>' for note in notes],
        f'<p class="headline" id="headline">{esc(headline)}</p>',
    ]


def _pairs_part(tables: dict[str, pd.DataFrame], ranking: str, shift_s: float) -> list[str]:
    """The "Pairs" section: how they were ranked, the outcome, speed and resources tables, the A/A controls
    and how to read the measures."""
    esc = html.escape
    pairs = display_pairs(tables["pairs"])
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
    parts += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in measure_notes(shift_s)]
    parts.append("</dl>")
    return parts


def _runs_part(sections: dict[str, str], task_sections: list[tuple[str, str, str]]) -> list[str]:
    """The sections about the runs: statuses, the matrix, each task's own, failures, disagreements."""
    esc = html.escape
    parts = [f'<h2 id="statuses">{esc(summary.TITLE)}</h2>', sections["statuses"]]
    parts += ['<h2 id="matrix-section">Every run: instance × pair</h2>', sections["matrix"]]
    for key, title, body in task_sections:
        parts += [f'<h2 id="{esc(key)}">{esc(title)}</h2>', body]
    parts += ['<h2 id="failures">Failures: errors, memouts and timeouts</h2>', sections["failures"]]
    parts += ['<h2 id="disagreements">Disagreements and wrong boards</h2>', sections["problems"]]
    return parts


def _tables_part(tables: dict[str, pd.DataFrame]) -> list[str]:
    """The other tables: the pivots, best-of, by board size (when several), virtual best, repetitions (if any)."""
    esc = html.escape
    parts = ['<h2 id="pivots">Formulation × backend</h2>']
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
    return parts


def _figures_part(figures: dict[str, str], skipped: dict[str, str]) -> list[str]:
    """The figures inlined (base64 PNGs) with their captions; for each one not drawn, why."""
    esc = html.escape
    parts = ['<h2 id="figures">Figures</h2>']
    for key in plots.FIGURES:
        if key in figures:
            parts.append(f'<figure id="fig-{key}"><img alt="{esc(plots.TITLES[key])}" '
                         f'src="data:image/png;base64,{figures[key]}">'
                         f"<figcaption>{esc(FIGURE_CAPTIONS[key])}</figcaption></figure>")
        else:
            parts.append(f'<p class="note">{esc(plots.TITLES[key])}: not drawn, '
                         f"{esc(skipped.get(key, 'not available'))}.</p>")
    return parts


def _campaign_part(facts: list[tuple[str, str]], files: list[str]) -> list[str]:
    """The campaign's provenance facts and the files written beside the page."""
    esc = html.escape
    parts = ['<h2 id="campaign">Campaign</h2><dl class="facts">']
    parts += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts]
    parts.append("</dl>")
    parts.append('<h2 id="files">Files</h2><p class="sub">Next to this page: '
                 + ", ".join(f'<a href="{esc(f)}">{esc(f)}</a>' for f in files)
                 + " (tables unrounded).</p>")
    return parts


__all__ = ["CSS", "MENU", "completeness_html", "html_page"]
