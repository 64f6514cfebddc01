"""A mean and its 95 % interval (Student t): what ``battlebench play`` and the play report say of shots.  Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence


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


__all__ = ["mean_ci95"]
