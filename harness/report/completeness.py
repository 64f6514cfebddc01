"""Is a campaign complete?  The stored runs against the plan the store recorded, per pair and instance.

``battlebench run`` records the campaign's *plan* in its store (every run the config
expands to; :meth:`harness.store.ResultsStore.plan`).  :func:`load_campaign` reads the
runs and the plan and :func:`assess` compares them:

* ``missing``: planned runs with no stored record (an interrupted campaign, rows lost), or with only a record
  that holds no measurement (``lost``: the run's worker or node was lost on every attempt; counted as ``lost``
  among the missing, and left out of every table like a run not stored);
* ``outside``: stored runs that are not in the plan (they ran for an instance file whose
  content has changed since, or from another plan): left out of every table and check;
* ``ranked``: the instances on which every planned run is stored, so that every pair has
  its result there: pairs are ranked on these only, never on a subset that favours the
  pairs that happened to run first;
* ``left_out``: the other instances, named in the report's headline.

Each stored run of the plan must also *be* the run the plan names: :func:`against_plan` compares
its instance, pair, task, question, seed and repetition columns with its plan row (the run id
hashes them, so a ``question`` edited from ``count-2`` to ``count-1`` keeps the id but
contradicts the plan); ``check`` fails on each contradiction.

A store without a plan (schema version 1, or written by hand) has unknown completeness:
pairs are then ranked on the instances where every pair seen in the store has a run,
and ``check`` fails unless told ``--allow-incomplete``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from harness.core.status import NOT_MEASURED
from harness.errors import InputError
from harness.report.data import INSTANCE_KEY, clean, with_instance_key
from harness.report.nodes import Nodes, choose, classes_of
from harness.store import ResultsStore
from harness.store.sqlite import PLAN_COLUMNS

MISSING_COLUMNS = ["pair", "planned", "stored", "missing"]


@dataclass(frozen=True)
class Completeness:
    """How much of the plan is stored (see the module docstring)."""

    planned: int | None  # runs in the plan; None: the store records no plan
    stored: int  # planned runs in the store (every stored run when there is no plan)
    outside: int  # stored runs not in the plan
    instances: int  # instances in the plan (in the store when there is no plan)
    ranked: tuple[str, ...]  # instance keys every pair has its results on
    left_out: tuple[str, ...]  # display names of the other instances, sorted
    by_pair: pd.DataFrame = field(repr=False, compare=False,
                                  default_factory=lambda: pd.DataFrame(columns=MISSING_COLUMNS))
    lost: int = 0  # of the missing: runs stored as lost (no measurement), executed again by the next resume

    @property
    def known(self) -> bool:
        return self.planned is not None

    @property
    def missing(self) -> int:
        return 0 if self.planned is None else self.planned - self.stored

    @property
    def complete(self) -> bool:
        return self.known and self.missing == 0

    def missing_by_pair(self) -> dict[str, int]:
        """pair -> planned runs not stored (pairs with none missing left out)."""
        rows = self.by_pair[self.by_pair["missing"] > 0]
        return {str(p): int(m) for p, m in zip(rows["pair"], rows["missing"])}

    def sentence(self) -> str:
        """One sentence for a headline; empty when the campaign is complete."""
        if self.complete:
            return ""
        if not self.known:
            head = ("Completeness unknown: the store records no plan (written before battlebench kept "
                    "one, or by hand)")
        else:
            lost = f", {self.lost} of them lost with their worker or node" if self.lost else ""
            head = f"Incomplete: {self.stored} of {self.planned} runs ({self.missing} missing{lost})"
        n, total = len(self.ranked), self.instances
        if n == total:
            return head + "."
        names = _list(self.left_out)
        return (f"{head}; pairs are ranked on the {n} of {total} instances every pair has results on "
                f"(left out: {names}).")


def _list(names: tuple[str, ...], most: int = 5) -> str:
    if len(names) <= most:
        return ", ".join(names)
    return ", ".join(names[:most]) + f" and {len(names) - most} more"


def _key(frame: pd.DataFrame) -> pd.Series:
    return frame["instance_path"].fillna(frame["instance"]).astype(object)


def assess(runs: pd.DataFrame, plan: list[dict] | None) -> tuple[Completeness, pd.DataFrame]:
    """The completeness of ``runs`` against ``plan``, and the runs that belong to the plan.

    ``runs`` is the typed run frame; ``plan`` the store's plan rows (None: unknown).
    """
    runs = with_instance_key(runs)
    measured = ~runs["status"].astype(object).isin(NOT_MEASURED).to_numpy(dtype=bool)
    lost = runs[~measured]
    runs = runs[measured].reset_index(drop=True)
    if plan is None:
        return replace(_without_plan(runs), lost=len(lost)), runs
    planned = pd.DataFrame(plan, columns=["run_id", "instance", "instance_path", "pair"])
    planned[INSTANCE_KEY] = _key(planned)
    in_plan = runs["run_id"].astype(object).isin(set(planned["run_id"]))
    kept = runs[in_plan.to_numpy(dtype=bool)].reset_index(drop=True)
    stored_ids = set(kept["run_id"].astype(object))
    planned["stored"] = planned["run_id"].isin(stored_ids)
    by_pair = (planned.groupby("pair", sort=True)["stored"].agg(["size", "sum"])
               .rename(columns={"size": "planned", "sum": "stored"}).reset_index())
    by_pair["planned"] = by_pair["planned"].astype("int64")
    by_pair["stored"] = by_pair["stored"].astype("int64")
    by_pair["missing"] = by_pair["planned"] - by_pair["stored"]
    per_instance = planned.groupby(INSTANCE_KEY, sort=True)["stored"].all()
    names = planned.drop_duplicates(INSTANCE_KEY).set_index(INSTANCE_KEY)["instance"]
    ranked = tuple(k for k, ok in per_instance.items() if ok)
    left_out = tuple(sorted(str(names[k]) for k, ok in per_instance.items() if not ok))
    lost_in_plan = int(lost["run_id"].astype(object).isin(set(planned["run_id"])).sum())
    result = Completeness(len(planned), int(planned["stored"].sum()), int((~in_plan).sum()),
                          len(per_instance), ranked, left_out, by_pair[MISSING_COLUMNS], lost_in_plan)
    return result, kept


def _without_plan(runs: pd.DataFrame) -> Completeness:
    pairs = set(runs["pair"].dropna().astype(object))
    have = {key: set(group["pair"].dropna().astype(object))
            for key, group in runs.groupby(INSTANCE_KEY, sort=True)}
    names = runs.drop_duplicates(INSTANCE_KEY).set_index(INSTANCE_KEY)["instance"]
    ranked = tuple(k for k, seen in have.items() if seen >= pairs)
    left_out = tuple(sorted(str(names[k]) for k, seen in have.items() if not seen >= pairs))
    counts = runs.groupby("pair", sort=True).size() if len(runs) else pd.Series(dtype="int64")
    by_pair = pd.DataFrame({"pair": list(counts.index), "planned": pd.NA, "stored": list(counts.values),
                            "missing": 0})
    return Completeness(None, len(runs), 0, len(have), ranked, left_out, by_pair[MISSING_COLUMNS])


def _same(value: object) -> object:
    value = clean(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def against_plan(kept: pd.DataFrame, plan: list[dict] | None) -> tuple[str, ...]:
    """One line for each stored run of the plan whose columns differ from its plan row (none without a plan; a
    column the plan leaves null, as old plans did the seed, is not compared)."""
    if not plan or kept.empty:
        return ()
    by_id = {row["run_id"]: row for row in plan}
    columns = [c for c in PLAN_COLUMNS if c != "run_id" and c in kept.columns]
    lines = []
    for rec in kept[["run_id", *columns]].to_dict("records"):
        row = by_id.get(rec["run_id"])
        if row is None:
            continue
        differ = [f"{c} {_same(rec[c])!r}, planned {_same(row.get(c))!r}" for c in columns
                  if _same(row.get(c)) is not None and _same(rec[c]) != _same(row.get(c))]  # old plans: no seed
        if differ:
            lines.append(f"{rec.get('instance')} {rec.get('pair')} (run {rec['run_id']}): stored "
                         + "; ".join(differ))
    return tuple(lines)


def ranked_runs(runs: pd.DataFrame, completeness: Completeness) -> pd.DataFrame:
    """The runs on the instances every pair has results on (those pairs are ranked on)."""
    runs = with_instance_key(runs)
    keep = runs[INSTANCE_KEY].isin(set(completeness.ranked)).to_numpy(dtype=bool)
    return runs[keep].reset_index(drop=True)


@dataclass
class Campaign:
    """A results store as the reports and checks see it."""

    directory: Path
    runs: pd.DataFrame  # the runs of the plan (every run when there is no plan)
    completeness: Completeness
    meta: dict[str, str]
    contradicted: tuple[str, ...] = ()  # stored runs that contradict their plan row (:func:`against_plan`)
    twin: str = ""  # a results.sqlite beside a results.sqlite.gz: that they agree (:mod:`harness.store.twin`)
    nodes: Nodes = field(default_factory=Nodes)  # the node classes of its runs, and the one read

    @property
    def ranked(self) -> pd.DataFrame:
        return ranked_runs(self.runs, self.completeness)


def load_campaign(results_dir: str | Path, node_class: str | None = None, every_class: bool = False) -> Campaign:
    """Read a store's runs, plan and meta, as the runs of one node class (:func:`harness.report.nodes.choose`:
    ``node_class`` a part of its name, needed when the runs were measured on several), or of every class
    (``every_class``: for what does not compare times); InputError (StoreDamaged) for a missing or damaged
    store, and for a class that cannot be chosen."""
    directory = Path(results_dir)
    if not directory.is_dir():
        raise InputError(f"{results_dir}: no such results directory")
    with ResultsStore(directory, create=False) as store:
        runs = store.dataframe()
        plan = store.plan()
        meta = store.meta()
        twin = store.twin
    if every_class and node_class is None:
        nodes = Nodes(classes_of(runs))
    else:
        runs, plan, nodes = choose(runs, plan, node_class, str(directory))
    completeness, kept = assess(runs, plan)
    return Campaign(directory, kept, completeness, meta, against_plan(kept, plan), twin, nodes)


__all__ = ["Campaign", "Completeness", "MISSING_COLUMNS", "against_plan", "assess", "load_campaign", "ranked_runs"]
