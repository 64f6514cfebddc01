"""Regressions between two campaigns: what got worse (or better) from a baseline to new results.

Runs are matched on (instance, pair, task, seed), the instance by its content hash
(``instance_hash``, else ``instance_path``); the repetitions of one match are summed up
as one status and the median ``wall_s``.

Regressions (:func:`compare`):

``status``
    decided (sat / unsat) -> undecided (timeout / memout / error); anything -> wrong;
    sat <-> unsat.
``slowdown``
    both decided with the same status and ``new median > ratio x old median``, unless
    both medians are below ``floor_s`` (the noise floor).
``missing``
    an (instance, pair) of the baseline with no run at all in the new results.

Improvements (:func:`improvements`, for information): ``solved`` (undecided or wrong
-> decided) and ``speedup`` (the slowdown rule with old and new swapped).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.report.data import clean as _clean

REGRESSION_KINDS = ("status", "slowdown", "missing")
IMPROVEMENT_KINDS = ("solved", "speedup")
DECIDED = ("sat", "unsat")
UNDECIDED = ("timeout", "memout", "error")
# ties between repetitions' statuses go to the first in this order (the worse)
_SEVERITY = ("wrong", "error", "memout", "timeout", "unsat", "sat")


@dataclass
class Regression:
    """One change between the baseline (old) and the new results.

    ``old`` / ``new`` are statuses for ``status`` / ``solved`` / ``missing`` (``new`` is
    None when missing) and median wall seconds for ``slowdown`` / ``speedup``, where
    ``ratio`` is new / old (old / new for a speedup).
    """

    kind: str
    instance: str
    pair: str
    old: Any
    new: Any
    ratio: float | None
    message: str
    task: str = ""
    seed: int | None = None


@dataclass
class _Group:
    instance: str
    statuses: list[str]
    walls: list[float]

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
        status = self.status
        n = len(self.statuses)
        k = sum(s == status for s in self.statuses)
        return status if k == n else f"{status} ({k} of {n} reps)"


_Key = tuple[str, str, str, int | None]


def _groups(df: pd.DataFrame) -> dict[_Key, _Group]:
    out: dict[_Key, _Group] = {}
    for rec in df.to_dict("records"):
        rec = {k: _clean(v) for k, v in rec.items()}
        instance = str(rec.get("instance") or rec.get("instance_path") or "?")
        where = str(rec.get("instance_hash") or rec.get("instance_path") or instance)
        seed = rec.get("seed")
        key = (where, str(rec.get("pair") or "?"), str(rec.get("task") or ""),
               None if seed is None else int(seed))
        group = out.setdefault(key, _Group(instance, [], []))
        group.statuses.append(str(rec.get("status") or "error"))
        wall = rec.get("wall_s")
        if wall is not None:
            group.walls.append(float(wall))
    return out


def _where(task: str, seed: int | None) -> str:
    return f" ({task}, seed {seed})" if seed is not None else f" ({task})"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g} s"


def _make(kind: str, key: _Key, group: _Group, old: Any, new: Any, ratio: float | None, text: str) -> Regression:
    _, pair, task, seed = key
    message = f"{group.instance} {pair}{_where(task, seed)}: {text}"
    return Regression(kind, group.instance, pair, old, new, ratio, message, task, seed)


def _slower(a: float | None, b: float | None, ratio: float, floor_s: float) -> bool:
    """Is b more than ``ratio`` times a (and not both under the noise floor)?"""
    if a is None or b is None:
        return False
    if a < floor_s and b < floor_s:
        return False
    return b > ratio * a


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else float("inf")


def _order(kinds: tuple[str, ...]):
    return lambda r: (kinds.index(r.kind), r.instance, r.pair, r.task, r.seed if r.seed is not None else -1)


def _matched(old: dict[_Key, _Group], new: dict[_Key, _Group]):
    """(key, old group, new group) for every run present in both campaigns."""
    for key, o in old.items():
        n = new.get(key)
        if n is not None:
            yield key, o, n


def _changed(kind: str, key: _Key, o: _Group, n: _Group, note: str = "") -> Regression:
    """A status change (regression or improvement) from ``o`` to ``n``."""
    return _make(kind, key, n, o.describe(), n.describe(), None, f"{o.describe()} -> {n.describe()}{note}")


def _timed(kind: str, key: _Key, o: _Group, n: _Group, ratio: float, word: str) -> Regression:
    """A slowdown or speed-up between two medians."""
    assert o.median is not None and n.median is not None
    return _make(kind, key, n, o.median, n.median, ratio,
                 f"{ratio:.2f}x {word}: median {_seconds(o.median)} -> {_seconds(n.median)}")


def compare(old_df: pd.DataFrame, new_df: pd.DataFrame, ratio: float = 2.0,
            floor_s: float = 0.1) -> list[Regression]:
    """The regressions from ``old_df`` (the baseline) to ``new_df``: status, slowdown, missing."""
    old, new = _groups(old_df), _groups(new_df)
    out: list[Regression] = []
    for key, o, n in _matched(old, new):
        os_, ns = o.status, n.status
        if os_ != "wrong" and ns == "wrong":
            out.append(_changed("status", key, o, n, ": a board failed the verifier"))
        elif os_ in DECIDED and ns in UNDECIDED:
            out.append(_changed("status", key, o, n))
        elif os_ in DECIDED and ns in DECIDED and os_ != ns:
            out.append(_changed("status", key, o, n, ": the answer flipped"))
        elif os_ in DECIDED and ns == os_ and _slower(o.median, n.median, ratio, floor_s):
            out.append(_timed("slowdown", key, o, n, _ratio(n.median, o.median), "slower"))
    seen = {(where, pair) for where, pair, _, _ in new}
    missing: dict[tuple[str, str], list[_Group]] = {}
    for (where, pair, _, _), o in old.items():
        if (where, pair) not in seen:
            missing.setdefault((where, pair), []).append(o)
    for (where, pair), groups in missing.items():
        merged = _Group(groups[0].instance, [s for g in groups for s in g.statuses], [])
        out.append(Regression("missing", merged.instance, pair, merged.describe(), None, None,
                              f"{merged.instance} {pair}: in the baseline ({merged.describe()}), "
                              f"not in the new results"))
    out.sort(key=_order(REGRESSION_KINDS))
    return out


def improvements(old_df: pd.DataFrame, new_df: pd.DataFrame, ratio: float = 2.0,
                 floor_s: float = 0.1) -> list[Regression]:
    """What got better from ``old_df`` to ``new_df`` (kinds ``solved``, ``speedup``); not regressions."""
    out: list[Regression] = []
    for key, o, n in _matched(_groups(old_df), _groups(new_df)):
        if o.status not in DECIDED and n.status in DECIDED:
            out.append(_changed("solved", key, o, n))
        elif o.status in DECIDED and n.status == o.status and _slower(n.median, o.median, ratio, floor_s):
            out.append(_timed("speedup", key, o, n, _ratio(o.median, n.median), "faster"))
    out.sort(key=_order(IMPROVEMENT_KINDS))
    return out


def _cell(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind in ("slowdown", "speedup") and isinstance(value, (int, float)):
        return _seconds(float(value))
    return str(value)


def render_regressions(regs: list[Regression]) -> str:
    """A plain-text table: kind, instance, pair, task, old, new, ratio."""
    if not regs:
        return "no regressions\n"
    head = ("kind", "instance", "pair", "task", "old", "new", "ratio")
    rows = [head] + [
        (r.kind, r.instance, r.pair, r.task or "-", _cell(r.old, r.kind), _cell(r.new, r.kind),
         "-" if r.ratio is None else f"{r.ratio:.2f}x")
        for r in regs
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


__all__ = ["Regression", "REGRESSION_KINDS", "IMPROVEMENT_KINDS", "compare", "improvements",
           "render_regressions"]
