"""How sure are we?  Bootstrap intervals for shifted geometric means and their ratios, and the tie rule.

Every interval here is a percentile bootstrap over *instances* (scipy.stats.bootstrap,
:data:`RESAMPLES` resamples, a fixed seed so a report is reproducible): it says how much
the score depends on which instances happened to be in the suite.  A ratio between two
pairs is bootstrapped *paired* (the same resampled instances for both), since the pairs
ran on the same instances.  With one repetition per run the interval does not contain
run-to-run timing noise; with repetitions each instance's time is already the median.

The tie rule (:func:`tie`): two pairs that solved the same number of instances are *tied
within the timer's resolution* when the two means differ by less than :data:`RESOLUTION_S`
(as two means below it do), *tied within noise* when the interval of the ratio of their
shifted geometric means contains 1, and *tied within the machine's noise* when that
interval reaches down to the campaign's measured noise floor.  A headline names a winner
only when none holds (or when the winner solved more instances).

The noise floor (:func:`floor_of`) comes from A/A controls: a pair run twice, interleaved,
on the same instances.  Both copies are the same solver on the same inputs, so whatever
ratio the machine puts between them is noise; the floor is the largest factor that ratio
reaches within its 95 % paired interval (at least 1).  A difference between two pairs
whose interval reaches below the floor is one the machine has been seen to make between
a pair and itself.  Without controls the floor is not measured, and the rule is as
without it: the bootstrap over instances does not contain run-to-run noise.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

RESOLUTION_S = 0.01
"""Times closer than this are not told apart: the CPU clock of /proc ticks every 10 ms and
the runner's own dispatch costs about a millisecond, with jitter of the same order."""

LEVEL = 0.95
RESAMPLES = 2000
SEED = 0


def _sgm(x: np.ndarray, shift: float, axis: int = -1) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.exp(np.mean(np.log(x + shift), axis=axis)) - shift


def _bootstrap(data: tuple[np.ndarray, ...], statistic, paired: bool) -> tuple[float, float]:
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate samples (all equal) give a point interval
        res = stats.bootstrap(data, statistic, paired=paired, vectorized=True, axis=-1,
                              confidence_level=LEVEL, n_resamples=RESAMPLES, method="percentile",
                              rng=np.random.default_rng(SEED))
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return lo, hi


def _clean(values: Sequence[float]) -> np.ndarray:
    arr = np.asarray([float(v) for v in values], dtype="float64")
    return arr[np.isfinite(arr)]


def sgm_interval(times: Sequence[float], shift_s: float = 1.0) -> tuple[float, float]:
    """The 95 % bootstrap interval of the shifted geometric mean of ``times`` (NaN, NaN below 2 values)."""
    x = _clean(times)
    if x.size < 2:
        return math.nan, math.nan
    if np.all(x == x[0]):
        v = float(_sgm(x, shift_s))
        return v, v
    return _bootstrap((x,), lambda a, axis: _sgm(a, shift_s, axis), paired=False)


def ratio_interval(num: Sequence[float], den: Sequence[float], shift_s: float = 1.0) -> tuple[float, float]:
    """The 95 % paired bootstrap interval of sgm(num) / sgm(den) over the same instances.

    ``num[i]`` and ``den[i]`` are two pairs' times on instance i; instances where either
    is missing are dropped.  NaN, NaN with fewer than 2 instances.
    """
    a = np.asarray([float(v) for v in num], dtype="float64")
    b = np.asarray([float(v) for v in den], dtype="float64")
    both = np.isfinite(a) & np.isfinite(b)
    a, b = a[both], b[both]
    if a.size < 2:
        return math.nan, math.nan
    if np.all(a == b):
        return 1.0, 1.0

    def ratio(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _sgm(x, shift_s, axis) / _sgm(y, shift_s, axis)

    return _bootstrap((a, b), ratio, paired=True)


def floor_of(ratio: float, lo: float, hi: float) -> float:
    """The noise floor an A/A control shows: the largest of ``ratio``, ``hi``, 1/``ratio``, 1/``lo`` (copy /
    original and its interval, either way round), at least 1; NaN when ``ratio`` is NaN."""
    if math.isnan(ratio) or ratio <= 0:
        return math.nan
    factors = [ratio, 1.0 / ratio, 1.0]
    factors += [v for v in (hi,) if not math.isnan(v)] + [1.0 / v for v in (lo,) if not math.isnan(v) and v > 0]
    return max(factors)


def tie(sgm_a: float, sgm_b: float, ratio_lo: float, ratio_hi: float,
        resolution_s: float = RESOLUTION_S, *, floor: float | None = None) -> str:
    """``"resolution"``, ``"noise"``, ``"machine"`` or ``""`` (told apart) for two pairs' shifted geometric
    means: ``sgm_a`` the winner's, ``sgm_b`` the other's, ``ratio_lo``..``ratio_hi`` the interval of
    sgm_b / sgm_a, ``floor`` the measured noise floor (None: not measured)."""
    if any(math.isnan(v) for v in (sgm_a, sgm_b)):
        return ""
    if abs(sgm_a - sgm_b) < resolution_s:  # (two means below the resolution are closer than it too)
        return "resolution"
    if not (math.isnan(ratio_lo) or math.isnan(ratio_hi)) and ratio_lo <= 1.0 <= ratio_hi:
        return "noise"
    if floor is not None and math.isfinite(floor) and sgm_a > 0:
        low = ratio_lo if not math.isnan(ratio_lo) else sgm_b / sgm_a  # >= 1: the winner is the faster
        if low <= floor:
            return "machine"
    return ""


__all__ = ["LEVEL", "RESAMPLES", "RESOLUTION_S", "floor_of", "ratio_interval", "sgm_interval", "tie"]
