"""Bootstrap intervals and the tie rule: a winner is named only when the data can tell."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.report.noise import RESOLUTION_S, ratio_interval, sgm_interval, tie


def test_sgm_interval_contains_the_estimate_and_narrows_with_more_instances():
    rng = np.random.default_rng(3)
    small, large = rng.lognormal(0, 1, 10), rng.lognormal(0, 1, 400)
    for x in (small, large):
        lo, hi = sgm_interval(x, 1.0)
        est = math.exp(np.mean(np.log(x + 1))) - 1
        assert lo < est < hi
    assert np.diff(sgm_interval(large, 1.0))[0] < np.diff(sgm_interval(small, 1.0))[0]


def test_intervals_are_reproducible_and_degenerate_cases_are_handled():
    x = [0.5, 1.0, 2.0, 4.0]
    assert sgm_interval(x) == sgm_interval(x)  # fixed seed
    assert all(math.isnan(v) for v in sgm_interval([1.0]))
    assert sgm_interval([2.0, 2.0, 2.0]) == pytest.approx((2.0, 2.0))
    assert ratio_interval([1.0, 2.0], [1.0, 2.0]) == (1.0, 1.0)
    assert all(math.isnan(v) for v in ratio_interval([1.0, float("nan")], [1.0, 2.0]))


def test_a_consistent_ratio_excludes_one_and_noise_includes_it():
    rng = np.random.default_rng(0)
    base = rng.lognormal(0, 1, 30)
    lo, hi = ratio_interval(base * 1.5, base, shift_s=0.0)
    assert lo == pytest.approx(1.5) and hi == pytest.approx(1.5)  # paired: the same factor everywhere
    lo, hi = ratio_interval(base * 1.5, base)  # with the shift the ratio is smaller, still clearly above 1
    assert 1.2 < lo <= hi < 1.5
    noisy = base * rng.lognormal(0, 0.4, 30)
    lo, hi = ratio_interval(noisy, base)
    assert lo < 1 < hi


def test_the_tie_rule():
    assert tie(1.0, 1.7, 1.4, 2.1) == ""
    assert tie(1.0, 1.1, 0.9, 1.3) == "noise"
    assert tie(0.004, 0.008, 1.5, 2.5) == "resolution"  # both below the resolution
    assert tie(0.5, 0.5 + RESOLUTION_S / 2, 1.01, 1.02) == "resolution"  # closer than the resolution
    assert tie(1.0, 2.0, math.nan, math.nan) == ""  # no interval: cannot call it a tie
