"""A mean and its 95 % interval (Student t), alone or paired: what ``battlebench play`` and the play report say of shots.  Pure."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import NamedTuple


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of its 95 % Student-t interval); NaN where there are too few values (none; one)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.nan
    from scipy import stats

    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)


class Paired(NamedTuple):
    """A paired difference: ``other - base`` on the games both played."""

    games: int
    mean: float  # NaN without a common game
    half: float  # the 95 % interval's half-width (Student t); NaN below two games
    better: int  # games where other is below base
    worse: int  # games where other is above base


def paired_difference(base: Mapping[Hashable, float], other: Mapping[Hashable, float]) -> Paired:
    """The mean of ``other[k] - base[k]`` over the keys both have (the same game), with its 95 % interval."""
    diffs = [float(other[k]) - float(base[k]) for k in base if k in other]
    mean, half = mean_ci95(diffs)
    return Paired(len(diffs), mean, half, sum(d < 0 for d in diffs), sum(d > 0 for d in diffs))


__all__ = ["Paired", "mean_ci95", "paired_difference"]
