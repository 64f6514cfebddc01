"""harness/selection/selector.py: the selector learns where each pair wins, out of fold, paying for its features."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from harness.errors import InputError
from harness.selection.aslib import folds
from harness.selection.features import GROUPS, Features
from harness.selection.scenario import Scenario
from harness.selection.selector import evaluate, predict, train


def _scenario(n: int = 40, cost: float = 0.0, per_group: int = 2, same: bool = False) -> Scenario:
    """Pair a is fast (1 s) where x < 0.5 and slow (20 s) elsewhere, pair b the other way round (or, ``same``,
    both alike); ``per_group`` puzzles share a generator seed."""
    rng = random.Random(7)
    keys = [f"p{i:02d}" for i in range(n)]
    xs = {k: rng.random() for k in keys}
    times = {k: ((1.0, 20.0) if xs[k] < 0.5 or same else (20.0, 1.0)) for k in keys}
    feats = {k: Features({"x": xs[k], "noise": rng.random()}, {g: cost / len(GROUPS) for g in GROUPS},
                         {"size": ["x", "noise"]}) for k in keys}
    par10 = pd.DataFrame({"a": [times[k][0] for k in keys], "b": [times[k][1] for k in keys]}, index=keys)
    runs = pd.DataFrame([{"instance": k, "pair": p, "repetition": 1, "time_s": par10.loc[k, p], "status": "ok",
                          "limit_s": 30.0, "solved": True} for k in keys for p in ("a", "b")])
    return Scenario("synthetic", "cpu", 30.0, None, ["a", "b"], keys, {k: k for k in keys},
                    {k: f"seed {i // per_group}" for i, k in enumerate(keys)}, runs, par10,
                    par10 < 300, feats)


def test_the_selector_learns_where_each_pair_wins_and_closes_the_gap_out_of_fold():
    sel = evaluate(_scenario(), bootstrap=200)
    assert sel.sbs in ("a", "b")
    by = dict(zip(sel.summary["who"].str.split(":").str[0], sel.summary["par10_s"]))
    assert by["virtual best (VBS)"] == pytest.approx(1.0)
    assert sel.gap_closed is not None and sel.gap_closed >= 0.8, sel.summary
    assert sel.gap_lo <= sel.gap_closed <= sel.gap_hi
    assert sel.importance["feature"].iloc[0] == "x"  # the feature that decides, not the noise
    assert set(sel.projection["best_pair"]) == {"a", "b"} and len(sel.projection) == 40


def test_each_puzzle_is_judged_by_models_that_never_saw_its_generator_seed():
    scn = _scenario(per_group=4)
    fold_of = folds(scn.groups)
    for group in set(scn.groups.values()):
        assert len({fold_of[k] for k, g in scn.groups.items() if g == group}) == 1
    sel = evaluate(scn, bootstrap=50)
    assert dict(zip(sel.per_instance["instance"], sel.per_instance["fold"])) == fold_of


def test_the_feature_cost_is_charged_and_can_push_a_solve_past_the_limit():
    sel = evaluate(_scenario(cost=29.5), bootstrap=50)
    right = sel.per_instance[sel.per_instance["selected_bare_s"] == 1.0]
    assert len(right) and (right["selected_s"] == 300.0).all()  # 1 s + 29.5 s of features > the 30 s limit
    assert sel.summary.set_index("who").loc["selector, feature cost charged", "par10_s"] > \
        sel.summary.set_index("who").loc["selector, features free", "par10_s"]


def test_no_gap_is_said_not_invented():
    sel = evaluate(_scenario(same=True), bootstrap=50)
    assert sel.gap_closed is None and "no gap" in sel.notes[0]


def test_too_little_to_learn_from_is_refused_in_one_line():
    with pytest.raises(InputError, match="at least 4"):
        evaluate(_scenario(n=3))
    with pytest.raises(InputError, match="one group"):
        evaluate(_scenario(n=6, per_group=6))


def test_predict_names_the_pair_with_its_confidence():
    models = train(_scenario())
    (low, c_low, votes), (high, c_high, _) = predict(models, [{"x": 0.1, "noise": 0.5}, {"x": 0.9, "noise": 0.5}])
    assert (low, high) == ("a", "b") and c_low > 0.5 and c_high > 0.5
    assert set(votes) == {"a", "b"} and sum(votes.values()) == pytest.approx(1.0)
