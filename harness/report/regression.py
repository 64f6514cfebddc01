"""Regressions between two campaigns: what got worse (or better) from a baseline to new results.

Runs are matched on (instance, pair, question, seed), the instance by its content hash
(``instance_hash``, else ``instance_path``); the repetitions of one match are summed up
as one status and a list of times.

Times are CPU times (``cpu_s``: user + system CPU of the worker's process tree) unless
``time="wall"``: CPU time hardly moves when the machine is busy with other work, wall
time does.  A match with a run that has no ``cpu_s`` (stores made before it was
recorded) is compared on wall time, and said so.

Regressions (:func:`compare`):

``status``
    every old run decided (sat / unsat) and some new run undecided (timeout / memout /
    error); a wrong run where the baseline had none; a decided answer that flipped
    (sat <-> unsat).  With repetitions one worse run is enough: a run that times out one
    time in three is less reliable than one that never does.
``slowdown``
    both decided with the same status, and the new times are more than ``ratio`` × the
    old: with at least :data:`MIN_REPS` runs on each side, the new median is above
    ``ratio`` × the old median *and* a one-sided Mann–Whitney U test says the new times
    are larger than ``ratio`` × the old ones (p <= :data:`ALPHA`; the distributions
    are compared, not two numbers); with fewer runs, the new median is above ``ratio`` ×
    the old median.  Never when both medians are below ``floor_s`` (the noise floor).
``missing``
    an (instance, pair) of the baseline with no run at all in the new results.

``ratio`` and ``floor_s`` hold for every pair, unless ``thresholds`` (a
:class:`~harness.core.thresholds.Thresholds`) gives each pair its own; a slowdown or
speed-up names the threshold it was judged by (``Regression.threshold``).

Improvements (:func:`improvements`, for information): ``solved`` (undecided or wrong
-> decided) and ``speedup`` (the slowdown rule with old and new swapped).

``battlebench compare`` (:mod:`harness.report.compare`) lays every match of two campaigns
side by side with these same rules and pieces (:func:`runs`, :func:`judged_times`,
:func:`slower`).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.core.thresholds import Thresholds
from harness.report.data import clean as _clean

TIMES = ("cpu", "wall")
"""The time a slowdown is judged on: ``cpu_s`` (default) or ``wall_s``."""
MIN_REPS = 3
"""Runs needed on both sides before slowdowns are judged by a test on the distributions
(with 3 against 3 the smallest one-sided Mann–Whitney p-value is 1/20 = 0.05)."""
ALPHA = 0.05

REGRESSION_KINDS = ("status", "slowdown", "missing")
IMPROVEMENT_KINDS = ("solved", "speedup")
DECIDED = ("sat", "unsat")
UNDECIDED = ("timeout", "unknown", "memout", "error")
# ties between repetitions' statuses go to the first in this order (the worse)
_SEVERITY = ("wrong", "error", "memout", "timeout", "unknown", "unsat", "sat")


@dataclass
class Regression:
    """One change between the baseline (old) and the new results.

    ``old`` / ``new`` are statuses for ``status`` / ``solved`` / ``missing`` (``new`` is
    None when missing) and median wall seconds for ``slowdown`` / ``speedup``, where
    ``ratio`` is new / old (old / new for a speedup), and ``threshold`` says the ratio
    (and floor) it was judged by.
    """

    kind: str
    instance: str
    pair: str
    old: Any
    new: Any
    ratio: float | None
    message: str
    question: str = ""  # the runs' question (solve, count-2, deployments, ...)
    seed: int | None = None
    where: str = ""  # the instance's content hash (else its path): what matched it
    threshold: str = ""


@dataclass
class _Group:
    instance: str
    statuses: list[str]
    walls: list[float]  # the times judged: cpu_s or wall_s, per run
    on_wall: bool = False  # cpu_s was asked for but some run has none: these are wall_s

    @property
    def status(self) -> str:
        """The repetitions' status: wrong if any is wrong, else the most common (ties: the worse)."""
        if "wrong" in self.statuses:
            return "wrong"
        counts = Counter(self.statuses)
        return min(counts, key=lambda s: (-counts[s], _SEVERITY.index(s) if s in _SEVERITY else -1))

    @property
    def median(self) -> float | None:
        return statistics.median(self.walls) if self.walls else None

    def describe(self) -> str:
        counts = Counter(self.statuses)
        if len(counts) == 1:
            return self.statuses[0]
        order = sorted(counts, key=lambda s: _SEVERITY.index(s) if s in _SEVERITY else -1)
        return ", ".join(f"{s}×{counts[s]}" for s in order)

    @property
    def decided(self) -> set[str]:
        return {s for s in self.statuses if s in DECIDED}

    @property
    def all_decided(self) -> bool:
        return all(s in DECIDED for s in self.statuses)


_Key = tuple[str, str, str, int | None]


def _groups(df: pd.DataFrame, time: str = "wall") -> dict[_Key, _Group]:
    if time not in TIMES:
        raise ValueError(f"time must be one of {TIMES}, not {time!r}")
    out: dict[_Key, _Group] = {}
    cpu: dict[_Key, list[float | None]] = {}
    for rec in df.to_dict("records"):
        rec = {k: _clean(v) for k, v in rec.items()}
        instance = str(rec.get("instance") or rec.get("instance_path") or "?")
        where = str(rec.get("instance_hash") or rec.get("instance_path") or instance)
        seed = rec.get("seed")
        key = (where, str(rec.get("pair") or "?"), str(rec.get("question") or ""),
               None if seed is None else int(seed))
        group = out.setdefault(key, _Group(instance, [], []))
        group.statuses.append(str(rec.get("status") or "error"))
        wall = rec.get("wall_s")
        if wall is not None:
            group.walls.append(float(wall))
        cpu.setdefault(key, []).append(rec.get("cpu_s"))
    if time == "cpu":
        for key, group in out.items():
            values = cpu[key]
            if all(v is not None for v in values):
                group.walls = [float(v) for v in values]
            else:
                group.on_wall = True
    return out


def matches(old_df: pd.DataFrame, new_df: pd.DataFrame) -> tuple[int, int]:
    """(matched, in the baseline): how many of the baseline's (instance, pair, question, seed) the new runs have."""
    old, new = _groups(old_df), _groups(new_df)
    return sum(1 for key in old if key in new), len(old)


def timed(old_df: pd.DataFrame, new_df: pd.DataFrame, floor_s: float = 0.1, time: str = "wall",
          thresholds: Thresholds | None = None) -> int:
    """How many matches a slowdown could be judged on: both sides decided alike, and a median time at or above
    the noise floor on one side (under it on both, no slowdown is ever flagged)."""
    limits = thresholds or Thresholds.uniform(floor_s=floor_s)
    old, new = _groups(old_df, time), _groups(new_df, time)
    wall_old, wall_new = _groups(old_df, "wall"), _groups(new_df, "wall")
    count = 0
    for key, o, n in _matched(old, new):
        if o.all_decided and n.all_decided and o.decided == n.decided:
            a, b = _pick(time, o, n, wall_old[key], wall_new[key])
            floor = limits.floor(key[1])
            if a and b and (statistics.median(a) >= floor or statistics.median(b) >= floor):
                count += 1
    return count


def wall_fallbacks(old_df: pd.DataFrame, new_df: pd.DataFrame) -> int:
    """How many matched (instance, pair, question, seed) are judged on wall time for want of cpu_s."""
    old, new = _groups(old_df, "cpu"), _groups(new_df, "cpu")
    return sum(1 for key, o, n in _matched(old, new) if o.on_wall or n.on_wall)


def _where(question: str, seed: int | None) -> str:
    return f" ({question}, seed {seed})" if seed is not None else f" ({question})"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g} s"


def _make(kind: str, key: _Key, group: _Group, old: Any, new: Any, ratio: float | None, text: str,
          threshold: str = "") -> Regression:
    where, pair, question, seed = key
    message = f"{group.instance} {pair}{_where(question, seed)}: {text}"
    return Regression(kind, group.instance, pair, old, new, ratio, message, question, seed, where=where,
                      threshold=threshold)


def _slower(a: list[float], b: list[float], ratio: float, floor_s: float) -> tuple[bool, str]:
    """Are the times ``b`` more than ``ratio`` times the times ``a``?  (verdict, how it was judged)."""
    if not a or not b:
        return False, ""
    ma, mb = statistics.median(a), statistics.median(b)
    if ma < floor_s and mb < floor_s:
        return False, ""
    if not mb > ratio * ma:
        return False, ""
    if len(a) >= MIN_REPS and len(b) >= MIN_REPS:
        from scipy.stats import mannwhitneyu

        p = float(mannwhitneyu(b, [ratio * x for x in a], alternative="greater").pvalue)
        return p <= ALPHA, f"Mann-Whitney p = {p:.3g}, {len(a)} vs {len(b)} runs"
    return True, "" if len(a) == len(b) == 1 else f"medians of {len(a)} vs {len(b)} runs"


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else float("inf")


def _order(kinds: tuple[str, ...]):
    return lambda r: (kinds.index(r.kind), r.instance, r.pair, r.question, r.seed if r.seed is not None else -1)


def _matched(old: dict[_Key, _Group], new: dict[_Key, _Group]):
    """(key, old group, new group) for every run present in both campaigns."""
    for key, o in old.items():
        n = new.get(key)
        if n is not None:
            yield key, o, n


def _changed(kind: str, key: _Key, o: _Group, n: _Group, note: str = "") -> Regression:
    """A status change (regression or improvement) from ``o`` to ``n``."""
    return _make(kind, key, n, o.describe(), n.describe(), None, f"{o.describe()} -> {n.describe()}{note}")


def _timed(kind: str, key: _Key, a: list[float], b: list[float], ratio: float, word: str, how: str,
           basis: str, group: _Group, threshold: str) -> Regression:
    """A slowdown or speed-up between two lists of times (``a`` old, ``b`` new)."""
    old, new = statistics.median(a), statistics.median(b)
    note = "; ".join(x for x in (basis, how) if x)
    return _make(kind, key, group, old, new, ratio,
                 f"{ratio:.2f}x {word}: median {_seconds(old)} -> {_seconds(new)}" + (f" ({note})" if note else ""),
                 threshold)


def _basis(time: str, o: _Group, n: _Group) -> str:
    return "wall: no cpu_s stored" if time == "cpu" and (o.on_wall or n.on_wall) else time


def compare(old_df: pd.DataFrame, new_df: pd.DataFrame, ratio: float = 2.0, floor_s: float = 0.1,
            time: str = "wall", thresholds: Thresholds | None = None) -> list[Regression]:
    """The regressions from ``old_df`` (the baseline) to ``new_df``: status, slowdown, missing.

    ``time``: ``cpu`` or ``wall``, the time slowdowns are judged on; ``thresholds``: per-pair ratios and floors
    instead of ``ratio`` and ``floor_s`` (see the module docstring).
    """
    limits = thresholds or Thresholds.uniform(ratio, floor_s)
    old, new = _groups(old_df, time), _groups(new_df, time)
    wall_old, wall_new = _groups(old_df, "wall"), _groups(new_df, "wall")
    out: list[Regression] = []
    for key, o, n in _matched(old, new):
        if "wrong" in n.statuses and "wrong" not in o.statuses:
            out.append(_changed("status", key, o, n, ": a board failed the verifier"))
        elif o.all_decided and not n.all_decided:
            out.append(_changed("status", key, o, n))
        elif o.decided and n.decided and o.decided != n.decided:
            out.append(_changed("status", key, o, n, ": the answer flipped"))
        elif o.all_decided and n.all_decided and o.decided == n.decided:
            found = _timing("slowdown", key, o, n, wall_old[key], wall_new[key], time, limits)
            if found:
                out.append(found)
    seen = {(where, pair) for where, pair, _, _ in new}
    missing: dict[tuple[str, str], list[_Group]] = {}
    for (where, pair, _, _), o in old.items():
        if (where, pair) not in seen:
            missing.setdefault((where, pair), []).append(o)
    for (_where, pair), groups in missing.items():
        merged = _Group(groups[0].instance, [s for g in groups for s in g.statuses], [])
        out.append(Regression("missing", merged.instance, pair, merged.describe(), None, None,
                              f"{merged.instance} {pair}: in the baseline ({merged.describe()}), "
                              f"not in the new results"))
    out.sort(key=_order(REGRESSION_KINDS))
    return out


def _timing(kind: str, key: _Key, o: _Group, n: _Group, wo: _Group, wn: _Group, time: str,
            limits: Thresholds) -> Regression | None:
    """A ``slowdown`` (new slower than the pair's ratio × old) or ``speedup`` (the reverse) of one match, or None."""
    a, b = _pick(time, o, n, wo, wn)
    pair = key[1]
    ratio, floor_s = limits.ratio(pair), limits.floor(pair)
    slow = kind == "slowdown"
    found, how = _slower(a, b, ratio, floor_s) if slow else _slower(b, a, ratio, floor_s)
    if not found:
        return None
    factor = _ratio(statistics.median(b), statistics.median(a)) if slow else \
        _ratio(statistics.median(a), statistics.median(b))
    return _timed(kind, key, a, b, factor, "slower" if slow else "faster", how, _basis(time, o, n), n,
                  limits.applied(pair))


def _pick(time: str, o: _Group, n: _Group, wo: _Group, wn: _Group) -> tuple[list[float], list[float]]:
    """The old and new times on one basis: cpu when both sides have it, else wall for both."""
    if time == "cpu" and (o.on_wall or n.on_wall):
        return wo.walls, wn.walls
    return o.walls, n.walls


def improvements(old_df: pd.DataFrame, new_df: pd.DataFrame, ratio: float = 2.0, floor_s: float = 0.1,
                 time: str = "wall", thresholds: Thresholds | None = None) -> list[Regression]:
    """What got better from ``old_df`` to ``new_df`` (kinds ``solved``, ``speedup``); not regressions."""
    limits = thresholds or Thresholds.uniform(ratio, floor_s)
    out: list[Regression] = []
    wall_old, wall_new = _groups(old_df, "wall"), _groups(new_df, "wall")
    for key, o, n in _matched(_groups(old_df, time), _groups(new_df, time)):
        if not o.all_decided and n.all_decided and "wrong" not in n.statuses:
            out.append(_changed("solved", key, o, n))
        elif o.all_decided and n.all_decided and o.decided == n.decided:
            found = _timing("speedup", key, o, n, wall_old[key], wall_new[key], time, limits)
            if found:
                out.append(found)
    out.sort(key=_order(IMPROVEMENT_KINDS))
    return out


def _cell(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind in ("slowdown", "speedup") and isinstance(value, (int, float)):
        return _seconds(float(value))
    return str(value)


def render_regressions(regs: list[Regression]) -> str:
    """A plain-text table: kind, instance, pair, question, old, new, ratio (and the threshold judged by, if any)."""
    if not regs:
        return "no regressions\n"
    judged = any(r.threshold for r in regs)
    head = ("kind", "instance", "pair", "question", "old", "new", "ratio") + (("threshold",) if judged else ())
    rows = [head] + [
        (r.kind, r.instance, r.pair, r.question or "-", _cell(r.old, r.kind), _cell(r.new, r.kind),
         "-" if r.ratio is None else f"{r.ratio:.2f}x") + ((r.threshold or "-",) if judged else ())
        for r in regs
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


# -- the pieces `battlebench compare` (harness.report.compare) reads every match with ---------------------

Runs = _Group
"""The repetitions of one match in one campaign: ``instance``, ``statuses``, ``walls`` (the times of the basis
asked for), ``on_wall`` (cpu asked for, some run has none), ``status`` (their one status), ``describe()``."""
Key = _Key
"""A match: (instance content hash, else its path; pair; question; seed)."""


def runs(df: pd.DataFrame, time: str = "wall") -> dict[Key, Runs]:
    """Every match of ``df`` and its repetitions, times on ``time`` (``cpu``: wall where a run lacks ``cpu_s``)."""
    return _groups(df, time)


def judged_times(time: str, old: Runs, new: Runs, old_wall: Runs,
                 new_wall: Runs) -> tuple[list[float], list[float], str]:
    """The old and new times a slowdown of one match is judged on, and their basis (``cpu``, ``wall``, or
    ``wall: no cpu_s stored``): cpu when both sides have it, else wall for both."""
    a, b = _pick(time, old, new, old_wall, new_wall)
    return a, b, _basis(time, old, new)


def slower(a: list[float], b: list[float], ratio: float, floor_s: float) -> tuple[bool, str]:
    """The slowdown rule (the module docstring): are the times ``b`` more than ``ratio`` × the times ``a``?
    (verdict, how it was judged: the Mann-Whitney p-value, or medians)."""
    return _slower(a, b, ratio, floor_s)


__all__ = ["ALPHA", "MIN_REPS", "Regression", "REGRESSION_KINDS", "IMPROVEMENT_KINDS", "TIMES", "compare",
           "improvements", "judged_times", "Key", "matches", "render_regressions", "Runs", "runs", "slower", "timed",
           "wall_fallbacks"]
