"""Node classes in a campaign: the classes its runs were measured on, and the one class a report or check ranks.

Times measured on two node classes (:func:`harness.core.node.node_class`: CPU model, cores, memory, kernel) are
not comparable, so nothing ranks them together.  A store whose measured runs name one class (or none: a store
written before records named it, read as the class ``not known``) is read as it is.  A store of several
classes is refused with a one-line error naming them, unless one is chosen (``--node-class TEXT``: the class
whose name contains TEXT, which must match exactly one); the campaign is then read as the runs of that class,
and the plan as the runs not measured on another one, so completeness and ranking are of that class alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from harness.core.status import NOT_MEASURED
from harness.errors import InputError

UNKNOWN = "not known"
"""The class of runs whose record names none (stores before schema version 6)."""


@dataclass(frozen=True)
class Nodes:
    """The node classes of a store's measured runs (class -> runs) and the one read (None: the only one)."""

    classes: dict[str, int] = field(default_factory=dict)
    chosen: str | None = None
    left_out: int = 0  # measured runs of the other classes, not read

    @property
    def read(self) -> str | None:
        """The class the campaign is read as (None: no measured run)."""
        if self.chosen is not None:
            return self.chosen
        return next(iter(self.classes), None)

    @property
    def mixed(self) -> bool:
        """Whether the runs read are of several classes (a store read whole, by ``check``)."""
        return self.chosen is None and len(self.classes) > 1

    def sentence(self) -> str:
        """What the report and check say of it: the class ranked, and what was left out."""
        if self.read is None:
            return ""
        if self.mixed:
            return f"measured on {len(self.classes)} node classes ({_listed(self.classes)})"
        if self.chosen is None:
            return f"measured on one node class: {self.read}"
        return (f"ranked on the node class {self.chosen}; {self.left_out} run{'s' if self.left_out != 1 else ''} "
                f"measured on {len(self.classes) - 1} other class{'es' if len(self.classes) > 2 else ''} left out")


def comparable(a: Nodes, b: Nodes) -> str | None:
    """Why the times of two campaigns (read as ``a`` and ``b``) are not comparable, or None: each of one class
    (or not known), and the same class where both are known."""
    for which, nodes in (("the store's", a), ("the baseline's", b)):
        if nodes.mixed:
            return f"{which} runs were measured on {len(nodes.classes)} node classes (choose one with --node-class)"
    if UNKNOWN not in (a.read, b.read) and None not in (a.read, b.read) and a.read != b.read:
        return f"the store was measured on the node class {a.read}, the baseline on {b.read}"
    return None


def classes_of(runs: pd.DataFrame) -> dict[str, int]:
    """Node class -> measured runs, most runs first (then by name)."""
    if runs.empty:
        return {}
    measured = runs[~runs["status"].astype(object).isin(NOT_MEASURED).to_numpy(dtype=bool)]
    labels = _labels(measured)
    counts = labels.value_counts()
    return {str(k): int(v) for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))}


def _labels(runs: pd.DataFrame) -> pd.Series:
    column = runs["node_class"] if "node_class" in runs.columns else pd.Series(None, index=runs.index, dtype=object)
    return column.astype(object).where(column.notna(), UNKNOWN)


def _listed(classes: dict[str, int]) -> str:
    return "; ".join(f"{name}: {n} run{'s' if n != 1 else ''}" for name, n in classes.items())


def choose(runs: pd.DataFrame, plan: list[dict] | None, wanted: str | None,
           where: str) -> tuple[pd.DataFrame, list[dict] | None, Nodes]:
    """(the runs, the plan, :class:`Nodes`) of the class read: all of them for a store of one class; of the class
    whose name contains ``wanted`` otherwise.  InputError for several classes and none wanted, or a ``wanted``
    that matches no class or more than one."""
    classes = classes_of(runs)
    if wanted is None:
        if len(classes) > 1:
            raise InputError(f"{where}: its runs were measured on {len(classes)} node classes ({_listed(classes)}); "
                             "times of two classes are not comparable, so they are not ranked together: choose "
                             "one with --node-class TEXT (a part of its name)")
        return runs, plan, Nodes(classes)
    matches = [name for name in classes if wanted.lower() in name.lower()]
    if len(matches) != 1:
        raise InputError(f"{where}: --node-class {wanted!r} matches {len(matches) or 'none'} of its node classes "
                         f"({_listed(classes) or 'no measured run'}); it must match exactly one")
    (chosen,) = matches
    measured = ~runs["status"].astype(object).isin(NOT_MEASURED).to_numpy(dtype=bool)
    mine = (_labels(runs) == chosen).to_numpy(dtype=bool)
    elsewhere = set(runs.loc[measured & ~mine, "run_id"].astype(object))
    kept = runs[~measured | mine].reset_index(drop=True)
    if plan is not None:
        plan = [row for row in plan if row["run_id"] not in elsewhere]
    return kept, plan, Nodes(classes, chosen, len(elsewhere))


__all__ = ["Nodes", "UNKNOWN", "choose", "classes_of", "comparable"]
