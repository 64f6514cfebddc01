"""The per-instance selector: which pair for which puzzle, learnt from a scenario and measured out of fold.

:func:`evaluate` learns, for every two pairs of a :class:`harness.selection.scenario.Scenario`, a random
forest (scikit-learn) that says from the puzzle's features which of the two is faster, each training puzzle
weighted by the PAR-10 seconds the choice costs there (cost-sensitive pairwise classification, SATzilla
2012's selector); the selector picks the pair with the most votes.  Honest by construction:

* the features are the puzzle's alone (:mod:`harness.selection.features`: nothing of its solution, no run);
* every instance's pair is chosen by models that never saw it, nor any puzzle of its group (its generator
  seed): the folds are :func:`harness.selection.aslib.folds` -- the same as the scenario's ``cv.arff``;
* the selector pays for its features: a puzzle's feature CPU seconds are added to the chosen pair's time
  (a solved run that then passes the limit counts as unsolved, 10 × the limit).

It is set beside the *single best solver* (SBS: the one pair with the least mean PAR-10 over all the
instances) and the *virtual best* (VBS: each instance's fastest pair).  ``gap_closed`` is (SBS − selector) /
(SBS − VBS) in mean PAR-10, with a 95 % bootstrap interval over instances; solved counts beside.  The
features that matter are the forests' mean impurity importances; the *instance space* is the features'
first two principal components (standardised), each instance marked with the pair that is best on it (its
*footprint*).  :func:`train` fits the models on every instance and :func:`predict` names the pair for new
puzzles with its confidence (its votes over its contests with the other pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import InputError

TREES = 100
MISS_S = 1.0  # the footprint figure rings a puzzle where the selector's pair lost this much or more
BOOTSTRAP = 2000


@dataclass
class Models:
    """The per-pair forests, the features they read (in order) and the scenario's cutoff."""

    pairs: list[str]
    features: list[str]
    forests: dict[tuple[str, str], Any]
    cutoff_s: float
    measure: str


@dataclass
class Selection:
    """What :func:`evaluate` found (module docstring)."""

    measure: str
    cutoff_s: float
    sbs: str
    per_instance: pd.DataFrame  # instance, name, group, fold, vbs_pair, vbs_s, sbs_s, selected, selected_s, ...
    summary: pd.DataFrame  # who (sbs, vbs, selector, selector without feature cost), par10_s, solved
    gap_closed: float | None
    gap_lo: float | None
    gap_hi: float | None
    importance: pd.DataFrame  # feature, importance
    projection: pd.DataFrame  # instance, x, y, best_pair, selected
    explained: tuple[float, float] = (math.nan, math.nan)  # the two components' shares of the variance
    notes: list[str] = field(default_factory=list)


def _fit(X: pd.DataFrame, y: pd.DataFrame, pairs: list[str], seed: int) -> dict[tuple[str, str], Any]:
    """One cost-sensitive classifier per two pairs (a, b): is a faster than b on a puzzle, each training puzzle
    weighted by how much the choice matters there (|PAR-10 of a - PAR-10 of b|); puzzles where it does not
    matter (both unsolved, equal times) are left out.  A pair of pairs with one answer everywhere keeps it."""
    from sklearn.ensemble import RandomForestClassifier

    models: dict[tuple[str, str], Any] = {}
    for i, a in enumerate(pairs):
        for b in pairs[i + 1:]:
            diff = y[a].to_numpy() - y[b].to_numpy()
            keep = diff != 0
            labels = (diff[keep] < 0).astype(int)  # 1: a is faster
            if not keep.any() or labels.min() == labels.max():
                models[(a, b)] = float(labels[0]) if keep.any() else 0.5
                continue
            forest = RandomForestClassifier(n_estimators=TREES, min_samples_leaf=1, random_state=seed, n_jobs=1)
            forest.fit(X.to_numpy()[keep], labels, sample_weight=np.abs(diff[keep]))
            models[(a, b)] = forest
    return models


def _votes(models: dict[tuple[str, str], Any], pairs: list[str], X: np.ndarray) -> np.ndarray:
    """Per row, each pair's votes: every two pairs' classifier gives its probability that the first is faster
    to the first and the rest to the second; a pair's votes over its contests with the others (1: it beats
    every other pair for sure -- the confidence :func:`predict` gives)."""
    votes = np.zeros((len(X), len(pairs)))
    index = {p: i for i, p in enumerate(pairs)}
    for (a, b), model in models.items():
        if isinstance(model, float):
            p_a = np.full(len(X), model)
        else:
            proba = model.predict_proba(X)
            p_a = proba[:, list(model.classes_).index(1)] if 1 in model.classes_ else np.zeros(len(X))
        votes[:, index[a]] += p_a
        votes[:, index[b]] += 1.0 - p_a
    return votes / max(1, len(pairs) - 1)


def _usable(scn: Any) -> pd.DataFrame:
    X = scn.feature_matrix().fillna(0.0)
    keep = [c for c in X.columns if X[c].nunique() > 1]
    if not keep:
        raise InputError(f"{scn.name}: every feature has one value on all instances; nothing to select by")
    return X[keep]


def _charged(par10: float, solved: bool, cost: float, cutoff: float) -> float:
    if not solved or par10 + cost > cutoff:
        return 10.0 * cutoff
    return par10 + cost


def evaluate(scn: Any, seed: int = 0, bootstrap: int = BOOTSTRAP) -> Selection:
    """The selector measured out of fold on ``scn`` (module docstring)."""
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import StandardScaler

    from harness.selection.aslib import folds

    if len(scn.instances) < 4:
        raise InputError(f"{scn.name}: {len(scn.instances)} instances; a selector needs at least 4 to be "
                         "measured out of fold")
    X = _usable(scn)
    pairs, cutoff = list(scn.pairs), scn.cutoff_s
    par10, solved, cost = scn.par10, scn.solved, scn.feature_cost()
    fold_of = folds(scn.groups)
    if len(set(fold_of.values())) < 2:
        raise InputError(f"{scn.name}: every instance is in one group; no fold is left to measure on")
    chosen: dict[str, str] = {}
    confidence: dict[str, float] = {}
    for fold in sorted(set(fold_of.values())):
        test = [k for k in scn.instances if fold_of[k] == fold]
        train_ = [k for k in scn.instances if fold_of[k] != fold]
        models = _fit(X.loc[train_], par10.loc[train_], pairs, seed)
        for key, votes in zip(test, _votes(models, pairs, X.loc[test].to_numpy())):
            chosen[key] = pairs[int(votes.argmax())]
            confidence[key] = float(votes.max())
    means = par10.mean(axis=0)
    sbs = str(means.sort_values(kind="mergesort").index[0])
    vbs_pair = par10.idxmin(axis=1)
    rows = []
    for key in scn.instances:
        pick = chosen[key]
        rows.append({"instance": key, "name": scn.names[key], "group": scn.groups[key], "fold": fold_of[key],
                     "vbs_pair": vbs_pair[key] if solved.loc[key].any() else None,
                     "vbs_s": float(par10.loc[key].min()), "sbs_s": float(par10.loc[key, sbs]),
                     "selected": pick, "confidence": confidence[key],
                     "selected_bare_s": float(par10.loc[key, pick]),
                     "selected_s": _charged(float(par10.loc[key, pick]), bool(solved.loc[key, pick]),
                                            float(cost[key]), cutoff),
                     "feature_cpu_s": float(cost[key])})
    per = pd.DataFrame(rows)
    summary = pd.DataFrame([
        {"who": f"single best (SBS): {sbs}", "par10_s": per["sbs_s"].mean(), "solved": int(solved[sbs].sum())},
        {"who": "virtual best (VBS)", "par10_s": per["vbs_s"].mean(), "solved": int(solved.any(axis=1).sum())},
        {"who": "selector, feature cost charged", "par10_s": per["selected_s"].mean(),
         "solved": int((per["selected_s"] < 10 * cutoff).sum())},
        {"who": "selector, features free", "par10_s": per["selected_bare_s"].mean(),
         "solved": int(sum(bool(solved.loc[k, p]) for k, p in chosen.items()))},
    ])
    gap, lo, hi, notes = _gap(per, bootstrap, seed)
    everything = [m for m in _fit(X, par10, pairs, seed).values() if not isinstance(m, float)]
    importance = pd.DataFrame({"feature": list(X.columns),
                               "importance": np.mean([m.feature_importances_ for m in everything], axis=0)
                               if everything else np.zeros(len(X.columns))})
    importance = importance.sort_values(["importance", "feature"], ascending=[False, True],
                                        kind="mergesort").reset_index(drop=True)
    scaled = StandardScaler().fit_transform(X.to_numpy())
    pca = PCA(n_components=2, random_state=seed).fit(scaled)
    xy = pca.transform(scaled)
    projection = pd.DataFrame({"instance": scn.instances, "x": xy[:, 0], "y": xy[:, 1],
                               "best_pair": [vbs_pair[k] if solved.loc[k].any() else "none" for k in scn.instances],
                               "selected": [chosen[k] for k in scn.instances],
                               "regret_s": (per["selected_bare_s"] - per["vbs_s"]).to_numpy()})
    return Selection(scn.measure, cutoff, sbs, per, summary, gap, lo, hi, importance, projection,
                     tuple(float(v) for v in pca.explained_variance_ratio_), notes)


def _gap(per: pd.DataFrame, bootstrap: int, seed: int) -> tuple[float | None, float | None, float | None, list[str]]:
    sbs, vbs, sel = per["sbs_s"].to_numpy(), per["vbs_s"].to_numpy(), per["selected_s"].to_numpy()
    width = sbs.mean() - vbs.mean()
    if width <= 0:
        return None, None, None, ["no gap to close: the single best pair is the fastest on every instance"]
    gap = (sbs.mean() - sel.mean()) / width
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(bootstrap):
        idx = rng.integers(0, len(per), len(per))
        w = sbs[idx].mean() - vbs[idx].mean()
        if w > 0:
            draws.append((sbs[idx].mean() - sel[idx].mean()) / w)
    lo, hi = (float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))) if draws else (None, None)
    return float(gap), lo, hi, []


def train(scn: Any, seed: int = 0) -> Models:
    """The per-pair forests fitted on every instance of ``scn``, for :func:`predict`."""
    X = _usable(scn)
    return Models(list(scn.pairs), list(X.columns), _fit(X, scn.par10, list(scn.pairs), seed), scn.cutoff_s,
                  scn.measure)


def predict(models: Models, features: list[dict[str, float]]) -> list[tuple[str, float, dict[str, float]]]:
    """For each puzzle's feature values: (the pair chosen, its votes -- the confidence: 1 when every contest with
    another pair is won for sure --, every pair's votes)."""
    X = np.array([[f.get(n, 0.0) for n in models.features] for f in features], dtype="float64")
    out = []
    for votes in _votes(models.forests, models.pairs, X):
        best = int(votes.argmax())
        out.append((models.pairs[best], float(votes[best]), {p: float(v) for p, v in zip(models.pairs, votes)}))
    return out


def footprint_figure(sel: Selection) -> Any:
    """The instance space: each instance at its first two principal components, coloured by the pair best on
    it ("none": no pair solved it); a ring where the selector's pair (out of fold) took :data:`MISS_S` seconds
    or more beyond the best."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    proj = sel.projection
    for i, (pair, rows) in enumerate(proj.groupby("best_pair", sort=True)):
        ax.scatter(rows["x"], rows["y"], s=28, label=f"{pair} ({len(rows)})", color=plt.cm.tab10(i % 10))
    wrong = proj[(proj["best_pair"] != "none") & (proj["regret_s"] >= MISS_S)]
    ax.scatter(wrong["x"], wrong["y"], s=90, facecolors="none", edgecolors="black", linewidths=0.8,
               label=f"the selector's pair ≥ {MISS_S:g} s slower than the best ({len(wrong)})")
    ax.set_xlabel(f"PC1 ({sel.explained[0]:.0%} of the features' variance)")
    ax.set_ylabel(f"PC2 ({sel.explained[1]:.0%})")
    ax.set_title("Instance space: where each pair is best", fontsize=11)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


__all__ = ["BOOTSTRAP", "Models", "Selection", "TREES", "evaluate", "footprint_figure", "predict", "train"]
