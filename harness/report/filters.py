"""The page's filtered view: the run data as one JSON blob and the script that recomputes three tables from it.

The matrix's filters (:mod:`harness.report.matrix`: name, kind of row, family, size,
status; all in the page's ``#fragment``) hide instances; when they do, the matrix's
script sends the visible instance keys (a ``mx-filter`` event) and this module's script
recomputes, over those instances only:

* the statuses per pair (:mod:`harness.report.summary`): runs, instances, solved and
  every status and termination count, over every stored run;
* the pairs' outcome table (runs, instances, solved, each status, unique solves) and
  speed table (shifted geometric mean, its ratio to the best pair of its measure: most solved, then
  smallest mean; PAR-2 and PAR-10), over the ranked runs (the instances every pair has
  results on), with the report's conventions (:mod:`harness.report.metrics`): one cell
  per pair × instance (solved when more than half its runs are; its time the median over
  the runs), an unsolved run at its time limit, PAR-k at k × the limit.  Each pair's time
  is its declared measure, ``cpu_s`` or ``wall_s`` (``measures``; ``wall`` by default).
  The rows keep the report's order.

What cannot be recomputed in the browser (the bootstrap intervals, the ties, the other
columns) shows ``– (filtered)``, and a note says "recomputed over N of M instances".
With every instance visible again the tables are the report's own, unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness.core.status import shown_statuses
from harness.report.data import INSTANCE_KEY, MEASURES, clean, family, with_instance_key
from harness.report.summary import TOTAL

RUN_FIELDS = ("pair", "instance", "name", "family", "rows", "cols", "status", "termination", "wall_s", "cpu_s",
              "time_limit_s", "ranked")
"""The fields of each run in the blob (``instance``: the instance key; ``name``: its display name;
``ranked``: on an instance every pair has results on)."""

FILTERED = "– (filtered)"


def measures_of(pairs: list[str], measures: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each pair's measure: ``measures[pair]`` if given, else ``"wall"``; ValueError on another word."""
    out = {p: (measures or {}).get(p, "wall") for p in pairs}
    bad = {p: m for p, m in out.items() if m not in MEASURES}
    if bad:
        raise ValueError(f"a pair's measure is cpu or wall, not {bad}")
    return out


def _number(value: Any) -> float | int | None:
    value = clean(value)
    if value is None:
        return None
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2 ** 53 else number


def run_data(df: pd.DataFrame, ranked: set[str] | frozenset[str], *, pairs: list[str],
             tables: Mapping[str, list[str]], summary: pd.DataFrame, measures: Mapping[str, str] | None = None,
             shift_s: float = 1.0) -> dict[str, Any]:
    """The blob: every run of ``df`` (:data:`RUN_FIELDS`), each pair's measure, and the layout of the tables.

    ``ranked``: the instance keys the pairs are ranked on; ``pairs``: the rows of the pairs
    tables as shown (best first); ``tables``: for each pairs table the script rewrites, the
    id of the element around it -> its columns as shown; ``summary``: the statuses table
    as shown.
    """
    df = with_instance_key(df)
    everyone = sorted(set(df["pair"].astype(object)) | set(pairs))
    runs = [{"pair": str(p), "instance": str(k), "name": str(n), "family": f, "rows": _number(r),
             "cols": _number(c), "status": clean(s), "termination": clean(t), "wall_s": _number(w),
             "cpu_s": _number(u), "time_limit_s": _number(lim), "ranked": str(k) in ranked}
            for p, k, n, f, r, c, s, t, w, u, lim in zip(
                df["pair"], df[INSTANCE_KEY], df["instance"], family(df), df["rows"], df["cols"], df["status"],
                df["termination"], df["wall_s"], df["cpu_s"], df["time_limit_s"])]
    return {
        "shift_s": float(shift_s), "measures": measures_of(everyone, measures), "runs": runs,
        "pairs": list(pairs), "tables": {name: list(columns) for name, columns in tables.items()},
        "summary": {"pairs": [str(p) for p in summary["pair"]], "columns": list(summary.columns), "total": TOTAL},
        "statuses": list(shown_statuses(df["status"])),
    }


def blob_html(data: dict[str, Any]) -> str:
    """The blob as an inline ``application/json`` script, and the script that recomputes the tables."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="bb-runs">{text}</script><script>{SCRIPT}</script>'


FORMAT = """
function even(x,d){const e=x.toFixed(70);  // exact; a tie to d decimals (…5000…) goes to even, as in Python
 if(!/^50*$/.test(e.slice(e.indexOf('.')+1+d)))return x;const k=10**d,f=Math.floor(x*k);return (f%2===0?f:f+1)/k;}
function fmt(x){if(x===null||x===undefined||Number.isNaN(x))return '–';if(!Number.isFinite(x))return x>0?'∞':'-∞';
 if(x===0)return '0';const a=Math.abs(x);  // render.format_number's rounding
 if(a>=10&&Number.isInteger(x))return x.toLocaleString('en-US');
 if(a>=1000)return even(x,0).toLocaleString('en-US',{maximumFractionDigits:0});
 if(a>=100)return even(x,0).toFixed(0);if(a>=10)return even(x,1).toFixed(1);if(a>=1)return even(x,2).toFixed(2);
 if(a<1e-4)return x.toExponential(2).replace(/e([+-])(\\d)$/,'e$10$2');
 return even(x,2-Math.floor(Math.log10(a))).toPrecision(3);}
"""
"""The script's number formatting, :func:`harness.report.tables.format_number`'s (its rounding: ties to even)."""

SCRIPT = """
(function(){
const blob=document.getElementById('bb-runs');if(!blob)return;
const D=JSON.parse(blob.textContent),FILTERED='""" + FILTERED + """',ids=['statuses-table',...Object.keys(D.tables)],saved={};
ids.forEach(id=>{const e=document.getElementById(id);if(e)saved[id]=e.innerHTML;});
""" + FORMAT + """function num(v){return (v===null||v===undefined)?NaN:v;}
function median(a){const s=a.filter(Number.isFinite).sort((x,y)=>x-y),n=s.length;
 return n?(n%2?s[(n-1)/2]:(s[n/2-1]+s[n/2])/2):NaN;}
function mean(a){const s=a.filter(Number.isFinite);return s.length?s.reduce((x,y)=>x+y,0)/s.length:NaN;}
function solved(r){return r.status==='sat'||r.status==='unsat';}
function time(r,k){const m=D.measures[r.pair]==='cpu'?r.cpu_s:r.wall_s;return solved(r)?num(m):k*num(r.time_limit_s);}
function cells(runs){const by={};runs.forEach(r=>{const p=by[r.pair]=by[r.pair]||{};(p[r.instance]=p[r.instance]||[]).push(r);});
 const out={};Object.keys(by).forEach(p=>{out[p]=Object.entries(by[p]).map(([k,l])=>({key:k,
  solved:2*l.filter(solved).length>l.length,t:median(l.map(r=>time(r,1))),
  par2:median(l.map(r=>time(r,2))),par10:median(l.map(r=>time(r,10)))}));});return out;}
function sgm(ts){const s=ts.filter(x=>!Number.isNaN(x));if(!s.length)return NaN;
 return Math.exp(mean(s.map(t=>Math.log(t+D.shift_s))))-D.shift_s;}
function fill(id,rows){const e=document.getElementById(id);if(!e)return;const t=e.querySelector('tbody');if(!t)return;
 Array.from(t.rows).forEach((tr,i)=>{Array.from(tr.cells).forEach((td,j)=>{const v=rows[i]&&rows[i][j];
  if(v!==undefined&&v!==null)td.textContent=v;});});}
function summary(runs){const C=cells(runs),cols=D.summary.columns;
 function row(p,rs,nsolved){const insts=new Set(rs.map(r=>r.instance));return cols.map(c=>{
  if(c==='pair')return null;if(c==='runs')return String(rs.length);if(c==='instances')return String(insts.size);
  if(c==='solved')return String(nsolved);const [kind,v]=[c.slice(0,c.indexOf(':')),c.slice(c.indexOf(':')+1)];
  return String(rs.filter(r=>r[kind]===v).length);});}
 const solvedOf=p=>(C[p]||[]).filter(c=>c.solved).length;
 return D.summary.pairs.map(p=>{if(p!==D.summary.total)return row(p,runs.filter(r=>r.pair===p),solvedOf(p));
  return row(p,runs,Object.keys(C).reduce((s,q)=>s+solvedOf(q),0));});}
function scores(runs){const rr=runs.filter(r=>r.ranked),C=cells(rr),S={},by={};
 Object.values(C).forEach(c=>c.forEach(x=>{if(x.solved)by[x.key]=(by[x.key]||0)+1;}));
 D.pairs.forEach(p=>{const c=C[p]||[],mine=rr.filter(r=>r.pair===p),n={};mine.forEach(r=>{n[r.status]=(n[r.status]||0)+1;});
  S[p]={runs:mine.length,instances:c.length,solved:c.filter(x=>x.solved).length,n:n,
   unique:c.filter(x=>x.solved&&by[x.key]===1).length,sgm:sgm(c.map(x=>x.t)),
   par2:mean(c.map(x=>x.par2)),par10:mean(c.map(x=>x.par10))};});
 const key=p=>Number.isNaN(S[p].sgm)?Infinity:S[p].sgm;
 const order=D.pairs.slice().sort((a,b)=>(S[b].solved-S[a].solved)||(key(a)-key(b))||(a<b?-1:a>b?1:0));
 D.pairs.forEach(p=>{const best=order.find(q=>D.measures[q]===D.measures[p]);const w=S[best].sgm;
  S[p].measure=D.measures[p];S[p].ratio=(w>0)?S[p].sgm/w:NaN;});return S;}
function cell(s,c){if(c==='pair')return null;if(c==='measure')return s.measure;
 if(c==='runs'||c==='instances'||c==='solved')return String(s[c]);if(c==='unique_solves')return String(s.unique);
 if(D.statuses.includes(c))return String(s.n[c]||0);if(c==='sgm_s')return fmt(s.sgm);if(c==='sgm_ratio')return fmt(s.ratio);
 if(c==='sgm_s [95% CI]')return fmt(s.sgm)+' ['+FILTERED+']';if(c==='× winner [95% CI]')return fmt(s.ratio)+' ['+FILTERED+']';
 if(c==='par2_s')return fmt(s.par2);if(c==='par10_s')return fmt(s.par10);return FILTERED;}
document.addEventListener('mx-filter',ev=>{const keys=new Set(ev.detail.keys),total=ev.detail.total;
 const notes=document.querySelectorAll('.filtered-note');
 if(keys.size>=total){ids.forEach(id=>{const e=document.getElementById(id);if(e&&id in saved)e.innerHTML=saved[id];});
  notes.forEach(n=>{n.hidden=true;});return;}
 ids.forEach(id=>{const e=document.getElementById(id);if(e&&id in saved)e.innerHTML=saved[id];});
 const runs=D.runs.filter(r=>keys.has(r.instance));
 const ranked=new Set(runs.filter(r=>r.ranked).map(r=>r.instance)).size;
 fill('statuses-table',summary(runs));const S=scores(runs);
 Object.entries(D.tables).forEach(([id,cols])=>fill(id,D.pairs.map(p=>cols.map(c=>cell(S[p],c)))));
 const text='Recomputed over '+keys.size+' of '+total+' instances (the matrix\\'s filter'+
  (ranked<keys.size?'; the pairs tables over the '+ranked+' of them every pair has results on':'')+
  '): bootstrap intervals, ties and the columns marked '+FILTERED+' need every instance; the headline, '+
  'the model and resources table and everything below the matrix are the whole campaign\\'s.';
 notes.forEach(n=>{n.textContent=text;n.hidden=false;});});
})();
"""


__all__ = ["FILTERED", "FORMAT", "MEASURES", "RUN_FIELDS", "SCRIPT", "blob_html", "measures_of", "run_data"]
