"""The instance × pair matrix of a campaign: every run's status, wall and CPU time, as a table and as HTML.

BenchExec's table-generator is the model: one row per instance, one column per pair,
each cell coloured by status and holding the time, sortable by any column and filterable
by instance name, by kind of row, by instance family and board size and by status, in a page that needs no server and no network (the
script is inline).  Repetitions of one pair on one instance collapse into one cell: the
most common status (ties: the worse, ``wrong`` always wins) and the median times.

:func:`matrix_table` is the long-form table (``matrix.csv``); :func:`matrix_html` the
HTML section.  Pure functions of the run frame.  Each filter change sends the visible
instance keys as a ``mx-filter`` event, for the tables :mod:`harness.report.filters`
recomputes.
"""

from __future__ import annotations

import html
import math
from collections import Counter

import pandas as pd

from harness.core.failures import first_line
from harness.core.status import WHEN_PRESENT
from harness.report.data import INSTANCE_KEY, clean, family, size, with_instance_key

MATRIX_COLUMNS = ["instance", INSTANCE_KEY, "pair", "runs", "status", "statuses", "wall_s", "cpu_s",
                  "termination", "message"]
SEVERITY = ("wrong", "error", "memout", "timeout", "unknown", "unsat", "sat")
"""Worst first: a cell whose repetitions tie takes the worse status."""

STATUS_CLASS = {s: f"st-{s}" for s in SEVERITY} | {"unknown": "st-timeout st-unknown"}  # (coloured as undecided)
SORT_UNSOLVED = 1e9
"""Unsolved cells sort after every solved time (their key is this plus the time)."""


def _cell_status(statuses: list[str]) -> str:
    if "wrong" in statuses:
        return "wrong"
    counts = Counter(statuses)
    return min(counts, key=lambda s: (-counts[s], SEVERITY.index(s) if s in SEVERITY else len(SEVERITY)))


def _median(values: pd.Series) -> float:
    v = values.astype("float64").dropna()
    return float(v.median()) if len(v) else math.nan


def matrix_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per instance × pair that has runs, ordered by instance name, file, pair.

    ``status``: the cell's status (see the module docstring); ``statuses``: every
    repetition's, e.g. ``"sat×2, memout×1"``; ``wall_s``, ``cpu_s``: medians over the
    repetitions; ``termination`` and ``message`` (first line of error or detail) of the
    first run whose status is the cell's.
    """
    df = with_instance_key(df)
    rows = []
    if not df.empty:
        for (key, pair), runs in df.groupby([INSTANCE_KEY, "pair"], sort=True):
            statuses = [str(clean(s) or "error") for s in runs["status"]]
            status = _cell_status(statuses)
            counts = Counter(statuses)
            order = [s for s in SEVERITY if s in counts] + sorted(s for s in counts if s not in SEVERITY)
            example = runs[[s == status for s in statuses]].iloc[0]
            rec = {k: clean(v) for k, v in example.items()}
            rows.append({
                "instance": str(runs["instance"].iloc[0]), INSTANCE_KEY: key, "pair": pair, "runs": len(runs),
                "status": status, "statuses": ", ".join(f"{s}×{counts[s]}" for s in order),
                "wall_s": _median(runs["wall_s"]), "cpu_s": _median(runs["cpu_s"]),
                "termination": rec.get("termination") or "",
                "message": "" if status in ("sat", "unsat") else first_line(rec),
            })
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in MATRIX_COLUMNS})
    out = pd.DataFrame(rows, columns=MATRIX_COLUMNS)
    return out.sort_values(["instance", INSTANCE_KEY, "pair"], kind="mergesort", ignore_index=True)


def _secs(x: float) -> str:
    if math.isnan(x):
        return "–"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}" if x >= 1 else f"{x:.3f}"


def _cell(entry: dict | None) -> str:
    if entry is None:
        return '<td class="st-none" data-v="2e9" data-s="missing" title="no run stored">–</td>'
    status, wall, cpu = entry["status"], entry["wall_s"], entry["cpu_s"]
    solved = status in ("sat", "unsat")
    key = (0.0 if solved else SORT_UNSOLVED) + (0.0 if math.isnan(wall) else wall)
    tip = [f"{entry['instance']} × {entry['pair']}", f"status {entry['statuses']}",
           f"wall {_secs(wall)} s, cpu {_secs(cpu)} s"]
    if entry["termination"]:
        tip.append(f"termination {entry['termination']}")
    if entry["message"]:
        tip.append(entry["message"])
    word = "" if status == "sat" else f"{status} "
    mixed = "*" if entry["runs"] > 1 and "," in entry["statuses"] else ""
    return (f'<td class="{STATUS_CLASS.get(status, "st-none")}" data-v="{key!r}" data-s="{html.escape(status)}" '
            f'title="{html.escape(" · ".join(tip))}">{html.escape(word)}{_secs(wall)}{mixed}'
            f'<small>{_secs(cpu)}</small></td>')


_SCRIPT = """
(function(){
const t=document.getElementById('matrix');if(!t)return;
const body=t.tBodies[0],rows=Array.from(body.rows),q=document.getElementById('mx-q'),
k=document.getElementById('mx-k'),n=document.getElementById('mx-n'),heads=Array.from(t.tHead.rows[0].cells),
sel={f:document.getElementById('mx-f'),size:document.getElementById('mx-z'),s:document.getElementById('mx-s')};
function kind(r){const s=Array.from(r.cells).slice(1).map(c=>c.dataset.s);
 const solved=s.filter(x=>x==='sat'||x==='unsat');
 return {fail:s.some(x=>x==='error'||x==='memout'||x==='timeout'||x==='missing'),
  wrong:s.includes('wrong'),differ:new Set(solved).size>1||(solved.length>0&&solved.length<s.length)};}
const kinds=rows.map(kind);
function apply(){let re=null;try{re=new RegExp(q.value,'i');}catch(e){re=null;}
 let shown=0;const keys=[];rows.forEach((r,i)=>{const name=r.cells[0].textContent;
  let ok=re?re.test(name):name.toLowerCase().includes(q.value.toLowerCase());
  const f=k.value;if(f&&!kinds[i][f])ok=false;
  if(sel.f&&sel.f.value&&r.dataset.f!==sel.f.value)ok=false;if(sel.size&&sel.size.value&&r.dataset.z!==sel.size.value)ok=false;
  if(sel.s&&sel.s.value&&!Array.from(r.cells).slice(1).some(c=>c.dataset.s===sel.s.value))ok=false;
  r.style.display=ok?'':'none';if(ok){shown++;keys.push(r.dataset.key);}});
 n.textContent=shown+' of '+rows.length+' instances';
 document.dispatchEvent(new CustomEvent('mx-filter',{detail:{keys:keys,total:rows.length}}));}
function sortBy(col,asc){heads.forEach(h=>{delete h.dataset.dir;});heads[col].dataset.dir=asc?'asc':'desc';
 const key=r=>col===0?r.cells[0].textContent:parseFloat(r.cells[col].dataset.v);
 rows.sort((a,b)=>{const x=key(a),y=key(b);const c=(typeof x==='string')?x.localeCompare(y):x-y;
  return asc?c:-c;});rows.forEach(r=>body.appendChild(r));}
q.addEventListener('input',apply);k.addEventListener('change',apply);
Object.values(sel).forEach(e=>{if(e)e.addEventListener('change',apply);});
heads.forEach((th,col)=>{th.addEventListener('click',()=>sortBy(col,th.dataset.dir!=='asc'));});
const p=new URLSearchParams(location.hash.slice(1));
if(p.has('q'))q.value=p.get('q');if(p.has('k'))k.value=p.get('k');
Object.entries(sel).forEach(([name,e])=>{if(e&&p.has(name))e.value=p.get(name);});
const c=parseInt(p.get('sort'));if(c>=0&&c<heads.length)sortBy(c,p.get('dir')!=='desc');
apply();})();
"""

CSS = """
table.matrix td{text-align:right;font-variant-numeric:tabular-nums;padding:.15em .4em}
table.matrix td:first-child{text-align:left;position:sticky;left:0;background:#fff;z-index:1}
table.matrix th{cursor:pointer;white-space:normal;min-width:4.5em;max-width:10em;vertical-align:bottom;
font-size:.92em;overflow-wrap:anywhere}table.matrix th[data-dir=asc]::after{content:" ▲"}table.matrix th[data-dir=desc]::after{content:" ▼"}
table.matrix small{display:block;color:#57606a;font-size:.78em}table.matrix td.st-wrong small{color:#fff}
.st-sat{background:#dafbe1}.st-unsat{background:#ddf4ff}.st-timeout{background:#fff8c5}
.st-memout{background:#ffe7d0}.st-error{background:#ffd8d3}.st-wrong{background:#cf222e;color:#fff}
.st-wrong small{color:#fff}.st-none{background:#eaeef2;color:#57606a}
.legend span{display:inline-block;padding:.05em .5em;margin-right:.4em;border:1px solid #d0d7de}
.mx-controls{margin:.4em 0}.mx-controls input{width:16em}
"""


def _label(pair: str) -> str:
    """A pair label that may wrap after / , [ = (long option lists never overflow their column)."""
    out = html.escape(pair)
    for ch in ("/", ",", "[", "="):
        out = out.replace(ch, ch + "<wbr>")
    return out


def _cells_of(size: str) -> tuple[int, str]:
    rows, _, cols = size.partition("x")
    return (int(rows) * int(cols), size) if rows.isdigit() and cols.isdigit() else (0, size)


def _select(ident: str, everything: str, values: list[str], always: bool = False) -> str:
    """A filter's drop-down (none when there is nothing to choose between, unless ``always``)."""
    if len(values) < 2 and not always:
        return ""
    options = "".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in values)
    return f'<select id="{ident}"><option value="">{html.escape(everything)}</option>{options}</select> '


def matrix_html(df: pd.DataFrame, pairs: list[str]) -> str:
    """The matrix as an HTML section body (controls, legend, table and its inline script).

    ``pairs`` gives the column order (best pair first); pairs with no run are still shown.
    """
    table = matrix_table(df)
    if table.empty:
        return '<p class="note">No runs.</p>'
    by = {(k, p): r for k, p, r in zip(table[INSTANCE_KEY], table["pair"], table.to_dict("records"))}
    instances = table.drop_duplicates(INSTANCE_KEY)[["instance", INSTANCE_KEY]]
    columns = list(pairs) + sorted(set(table["pair"]) - set(pairs))
    seen = set(table["status"])
    legend = " ".join(f'<span class="{STATUS_CLASS[s]}">{s}</span>' for s in reversed(SEVERITY)
                      if s not in WHEN_PRESENT or s in seen)
    df = with_instance_key(df)
    where = pd.DataFrame({"key": df[INSTANCE_KEY].astype(object), "f": family(df), "z": size(df)}) \
        .drop_duplicates("key").set_index("key")
    statuses = [s for s in SEVERITY[::-1] if s in set(table["status"])] + sorted(set(table["status"]) - set(SEVERITY))
    out = [
        '<div class="mx-controls">Filter instances: <input id="mx-q" type="search" '
        'placeholder="name or regular expression"> <select id="mx-k">'
        '<option value="">all rows</option><option value="fail">a pair failed (timeout, memout, error, '
        'missing)</option><option value="wrong">a board was wrong</option>'
        '<option value="differ">pairs differ (sat / unsat / unsolved)</option></select> '
        + _select("mx-f", "all families", sorted(set(where["f"]) - {""}))
        + _select("mx-z", "all sizes", sorted(set(where["z"]) - {""}, key=_cells_of))
        + _select("mx-s", "any status", statuses, always=True)
        + '<span id="mx-n" class="sub"></span></div>',
        f'<p class="sub legend">{legend}<span class="st-none">no run</span> Each cell: wall time (s), '
        "CPU time below it; * marks repetitions that disagree in status. Click a column to sort "
        "(unsolved last); hover a cell for its statuses, termination and message. A link can carry the "
        "view: <code>index.html#q=REGEX&amp;k=fail|wrong|differ&amp;f=FAMILY&amp;size=ROWSxCOLS&amp;s=STATUS"
        "&amp;sort=COLUMN&amp;dir=desc</code> (s: a pair's cell has that status). A filter recomputes the "
        "statuses per pair and the pairs' outcome and speed tables over the instances shown.</p>",
        '<div class="scroll"><table class="matrix" id="matrix"><thead><tr><th>instance</th>',
    ]
    out += [f"<th>{_label(p)}</th>" for p in columns]
    out.append("</tr></thead><tbody>")
    for name, key in zip(instances["instance"], instances[INSTANCE_KEY]):
        f, z = (where.at[key, "f"], where.at[key, "z"]) if key in where.index else ("", "")
        out.append(f'<tr data-key="{html.escape(str(key))}" data-f="{html.escape(f)}" data-z="{html.escape(z)}">'
                   f'<td title="{html.escape(str(key))}">{html.escape(str(name))}</td>'
                   + "".join(_cell(by.get((key, p))) for p in columns) + "</tr>")
    out.append("</tbody></table></div>")
    out.append(f"<script>{_SCRIPT}</script>")
    return "\n".join(out)


__all__ = ["CSS", "MATRIX_COLUMNS", "matrix_html", "matrix_table"]
