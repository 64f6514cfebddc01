"""The headline of a report: which pair wins (or which tie), by how much, how sure we are, and anything wrong.

Plain sentences from the pairs table (:func:`harness.report.metrics.pair_table`) of the
runs pairs are ranked on, and the campaign's completeness: an incomplete campaign says
so first; the headline says which measure it ranks by (CPU or wall time), and a
campaign whose pairs use both gets one sentence per group; pairs tied with the winner
(:func:`harness.report.noise.tie`) make the headline name no single winner; every ratio
comes with its 95 % bootstrap interval; the machine's noise floor is named when A/A
controls measured it, and said to be unmeasured when none did.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from harness.report import noise
from harness.report.data import MEASURE_WORDS
from harness.report.metrics import noise_floors, pair_table, ranked_tables

GROUP_WORDS = {"cpu": "one-core pairs", "wall": "parallel pairs"}

def _secs(x: float) -> str:
    if math.isnan(x):
        return "n/a"
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _times(r: float) -> str:
    if math.isnan(r):
        return "n/a"
    return f"{r:.1f}×" if r < 10 else f"{r:.0f}×"


def _interval(lo: float, hi: float) -> str:
    if math.isnan(lo) or math.isnan(hi):
        return ""
    return f", 95% CI {_fmt_ratio(lo)}–{_fmt_ratio(hi)}"


def _fmt_ratio(r: float) -> str:
    return f"{r:.2f}" if r < 10 else f"{r:.0f}"


def _solved(r: pd.Series) -> str:
    return f"{int(r['solved'])}/{int(r['instances'])}"


def _and(names: list[str]) -> str:
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def _winner_sentence(pairs: pd.DataFrame, floor: float = math.nan) -> str:
    win = pairs.iloc[0]
    sgm = f"shifted geometric mean {_secs(float(win['sgm_s']))} s"
    if len(pairs) == 1:
        return f"{win['pair']} is the only pair: {_solved(win)} solved, {sgm}"
    tied = pairs.iloc[1:][pairs.iloc[1:]["tie"].astype(str) != ""]
    if len(tied):
        names = [str(win["pair"])] + [str(p) for p in tied["pair"]]
        who = _and(names)
        reasons = []
        for _, t in tied.iterrows():
            if t["tie"] == "resolution":
                why = (f"{_secs(float(t['sgm_s']))} s against {_secs(float(win['sgm_s']))} s, less than "
                       f"{noise.RESOLUTION_S * 1000:g} ms apart: within the timer's resolution")
            elif t["tie"] == "machine":
                why = (f"{_fmt_ratio(float(t['sgm_ratio']))}× the time"
                       f"{_interval(float(t['ratio_lo']), float(t['ratio_hi']))}: within the machine's noise "
                       f"(the A/A controls' floor {_fmt_ratio(floor)}×)")
            else:
                why = (f"{_fmt_ratio(float(t['sgm_ratio']))}× the time"
                       f"{_interval(float(t['ratio_lo']), float(t['ratio_hi']))}, an interval that holds 1")
            reasons.append(f"{t['pair']} {why}")
        return (f"No single winner: {who} tie ({_solved(win)} solved each; {'; '.join(reasons)}); "
                f"the smallest {sgm} is {win['pair']}'s")
    lo, hi = float(win["sgm_lo"]), float(win["sgm_hi"])
    ci = "" if math.isnan(lo) or math.isnan(hi) else f" (95% CI {_secs(lo)}–{_secs(hi)} s)"
    return f"{win['pair']} wins: {_solved(win)} solved, {sgm}{ci}"


def headline(df: pd.DataFrame, shift_s: float = 1.0, *, completeness: Any = None,
             all_runs: pd.DataFrame | None = None, tables: dict[str, pd.DataFrame] | None = None) -> str:
    """Plain sentences: which pair wins (or which tie within noise), by how much, how sure, anything wrong.

    ``df`` is the runs pairs are ranked on (with the ``measure`` column,
    :func:`harness.report.data.with_measures`; without it, as ``auto``); ``completeness``
    (a :class:`harness.report.completeness.Completeness`) puts "incomplete: N of M runs"
    and the instances left out first.  Per measure group (CPU time, then wall time): the
    winner, or the pairs tied with it (:func:`harness.report.noise.tie`), and the ratios
    of the others, each pair's sgm_s over the winner's with their 95 % paired bootstrap
    interval; the three pairs after the winner are named, then only the last.  Then where
    the intervals come from and whether the machine's noise was measured (A/A controls).
    Wrong answers are counted over ``all_runs`` (every stored run of the campaign) when
    given, so that an instance left out of the ranking never hides one.  ``tables``: the
    ``pairs`` and ``controls`` tables of ``df`` (:func:`harness.report.metrics.all_tables`)
    when the caller has them already.
    """
    lead = completeness.sentence() + " " if completeness is not None and completeness.sentence() else ""
    pairs, controls = (tables["pairs"], tables["controls"]) if tables is not None else ranked_tables(df, shift_s)
    everything = pair_table(all_runs, shift_s) if all_runs is not None else pairs
    if pairs.empty:
        stored = 0 if all_runs is None else len(all_runs)
        text = ("No runs in these results." if not stored else
                f"No pair is ranked: none of the {stored} stored runs is on an instance every pair has "
                "results on yet.")
        return lead + text + _wrong_sentence(everything)
    floors = noise_floors(controls)
    groups = list(dict.fromkeys(pairs["measure"]))
    sentences = []
    for measure in groups:
        group = pairs[pairs["measure"] == measure].reset_index(drop=True)
        words = MEASURE_WORDS.get(str(measure), str(measure))
        if len(groups) > 1:
            words += f" ({GROUP_WORDS.get(str(measure), '')}, {len(group)})"
        sentences.append(f"Ranked by {words}. " + _group_sentence(group, floors.get(str(measure), math.nan)))
    if len(groups) > 1:
        sentences.insert(0, "Two groups, ranked apart, since a CPU second and a wall second are not the same: "
                            "one-core pairs by CPU time, parallel pairs by wall time.")
    sentence = lead + " ".join(sentences)
    n = int(pairs["instances"].max())
    reps = int(pairs["runs"].max()) > n
    if len(pairs) > 1 and n >= 2:
        sentence += (f" Intervals: bootstrap over the {n} instances"
                     + ("." if reps else "; one run per pair and instance, so run-to-run timing noise "
                                        "is not in them."))
    sentence += " " + _noise_sentence(controls, groups)
    return sentence + _wrong_sentence(everything)


def _group_sentence(pairs: pd.DataFrame, floor: float) -> str:
    """The winner (or the tie) of one measure group and the others' ratios, ending with a full stop."""
    win = pairs.iloc[0]
    n = int(win["instances"])
    first = _winner_sentence(pairs, floor)
    others = []
    rest = pairs.iloc[1:]
    rest = rest[rest["tie"].astype(str) == ""]
    shown = list(range(min(3, len(rest))))
    if len(rest) > 3:
        shown.append(len(rest) - 1)
    for i in shown:
        r = rest.iloc[i]
        ratio = float(r["sgm_ratio"])
        ci = _interval(float(r["ratio_lo"]), float(r["ratio_hi"]))[2:]
        solved = ""
        if int(r["solved"]) != int(win["solved"]) or int(r["instances"]) != n:
            solved = f"{_solved(r)} solved"
        last = i == len(rest) - 1 and len(rest) > 3
        notes = "; ".join(x for x in ([solved] if last else [ci, solved]) if x)
        note = f" ({notes})" if notes else ""
        if i == 0:
            how = "slower" if math.isnan(ratio) or ratio >= 1 else "the time"
            label = "the runner-up" if len(rest) == len(pairs) - 1 else "next"
            others.append(f"{label} {r['pair']} is {_times(ratio)} {how}{note}")
        elif last:
            others.append(f"and {len(rest) - 3} more, the last {r['pair']} {_times(ratio)}{note}")
        else:
            others.append(f"{r['pair']} {_times(ratio)}{note}")
    return first + ("; " + ", ".join(others) if others else "") + "."


def _noise_sentence(controls: pd.DataFrame, groups: list[str]) -> str:
    """What the A/A controls measured of the machine's run-to-run noise, or that nothing did."""
    if controls.empty:
        return ("The machine's run-to-run noise was not measured (no A/A controls: [report] controls in the "
                "config runs a pair twice, interleaved).")
    parts = []
    for _, c in controls.iterrows():
        if int(c["instances"]) < 2 or math.isnan(float(c["floor"])):
            parts.append(f"{c['pair']} run twice measured nothing ({int(c['instances'])} instances solved by "
                         "both copies)")
            continue
        parts.append(f"{c['pair']} run twice, interleaved, came out {_fmt_ratio(float(c['ratio']))}× apart "
                     f"by {MEASURE_WORDS.get(str(c['measure']), c['measure'])}"
                     f"{_interval(float(c['ratio_lo']), float(c['ratio_hi']))} over {int(c['instances'])} "
                     f"instances: noise floor {_fmt_ratio(float(c['floor']))}×")
    measured = set(controls.loc[controls["instances"] >= 2, "measure"].astype(str))
    unmeasured = [MEASURE_WORDS.get(g, g) for g in groups if g not in measured]
    tail = f"; the noise of {' and '.join(unmeasured)} was not measured" if unmeasured else ""
    return ("A/A controls: " + "; ".join(parts) + tail + ". A difference whose interval reaches below the "
            "floor is called a tie within the machine's noise.")


def _wrong_sentence(pairs: pd.DataFrame) -> str:
    if pairs.empty:
        return ""
    wrong = pairs[pairs["wrong"] > 0]
    total = int(pairs["wrong"].sum())
    if total == 0:
        return " No run gave a wrong answer."
    who = ", ".join(f"{int(w)} by {p}" for p, w in zip(wrong["pair"], wrong["wrong"]))
    return (f" {total} run{'s' if total != 1 else ''} gave a wrong answer ({who}): "
            f"check {'them' if total != 1 else 'it'} before trusting these numbers.")


__all__ = ["headline"]
