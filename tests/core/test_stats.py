"""The paired difference the play command and the play report both give: game by game, on the games both played."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from harness.core.stats import mean_ci95, paired_difference


def test_the_paired_difference_is_taken_game_by_game_on_the_common_games():
    base = {0: 20, 1: 30, 2: 25, 3: 40}
    other = {0: 18, 1: 29, 2: 26, 4: 10}  # game 3 not ended by other, game 4 not by base
    d = paired_difference(base, other)
    assert (d.games, d.better, d.worse) == (3, 2, 1)
    assert d.mean == pytest.approx((-2 - 1 + 1) / 3)
    t = stats.ttest_rel([18, 29, 26], [20, 30, 25]).confidence_interval(0.95)
    assert (d.mean - d.half, d.mean + d.half) == pytest.approx((t.low, t.high))
    # a difference of means over unpaired games would be (18 + 29 + 26 + 10) / 4 - 115 / 4
    assert d.mean != pytest.approx(mean_ci95(list(other.values()))[0] - mean_ci95(list(base.values()))[0])


def test_no_common_game_gives_no_mean_and_one_gives_no_interval():
    assert paired_difference({0: 1}, {1: 2}).games == 0 and math.isnan(paired_difference({0: 1}, {1: 2}).mean)
    one = paired_difference({0: 5}, {0: 3})
    assert one.mean == -2 and math.isnan(one.half)
