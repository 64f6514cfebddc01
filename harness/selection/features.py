"""Instance features of puzzles: what a selector may know of a puzzle before any pair runs, and its cost.

:func:`features` computes, from the puzzle alone (never its solution or any run), one flat
``{name: number}`` in :data:`GROUPS`, each group timed (CPU seconds of this thread) so that a
selector can be charged what it costs to know them:

* ``size`` -- rows, cols, cells;
* ``fleet`` -- pieces, distinct lengths, the longest, ship cells and their share of the cells, how many
  lengths have a single ship;
* ``clues`` -- row and column clues known, unknown, their share; the known clues' mean, spread
  (coefficient of variation), zeros and full lines;
* ``hints`` -- hints in all, per kind (the cell alphabet of :class:`harness.puzzle.instance.Hint`), and
  their share of the cells;
* ``placements`` -- the ships' geometric placements, those the abstract model keeps after its pruning
  (:func:`harness.model.build_model`), the share kept, the fewest kept of one length and of the
  longest-unique ship (the one the cube split deals), the model's forced ship cells, its precheck;
* ``encoding`` -- the ``sat`` backend's placement CNF (variables, clauses) and the placement
  pseudo-Boolean rows (rows), the cell CNF (variables, clauses), and GBD's base features of the
  placement CNF (``gbd_*``: clause sizes, Horn shares, degree statistics of its graphs --
  :func:`gbdc.extract_base_features`, when ``gbdc`` is installed) with its GBD hash
  (:func:`gbdc.gbdhash`, the content hash of a CNF by which the Global Benchmark Database names it;
  ``features`` returns it apart, a name is no number).

Not here (their cost is unbounded or they need a solver): the count of boards the clues alone allow, the
frontier width of a counter's layout.  :func:`cached_features` keeps each puzzle's features in the
harness's cache folder by content hash (:meth:`harness.puzzle.instance.Instance.content_hash`) and
version, so a store's features are computed once.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.puzzle.instance import Hint, Instance

GROUPS = ("size", "fleet", "clues", "hints", "placements", "encoding")
"""The feature groups, in the order they are computed; each is charged its own CPU seconds."""

VERSION = 1
"""The features' version: a cached value of another version is computed again."""


@dataclass
class Features:
    """One puzzle's features: ``values`` (name -> number), ``costs`` (group -> CPU seconds), ``groups`` (group ->
    the names it gave), ``gbd_hash``."""

    values: dict[str, float] = field(default_factory=dict)
    costs: dict[str, float] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    gbd_hash: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "values": self.values, "costs": self.costs, "groups": self.groups,
                "gbd_hash": self.gbd_hash}


def _size(inst: Instance, _model: Any) -> dict[str, float]:
    return {"rows": inst.rows, "cols": inst.cols, "cells": inst.rows * inst.cols}


def _fleet(inst: Instance, _model: Any) -> dict[str, float]:
    fleet = {L: n for L, n in inst.fleet.items() if n > 0}
    ship_cells = sum(L * n for L, n in fleet.items())
    return {"pieces": sum(fleet.values()), "lengths": len(fleet), "longest": max(fleet, default=0),
            "ship_cells": ship_cells, "ship_share": ship_cells / (inst.rows * inst.cols),
            "single_lengths": sum(1 for n in fleet.values() if n == 1)}


def _clues(inst: Instance, _model: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    for side, clues, width in (("row", inst.row_clues, inst.cols), ("col", inst.col_clues, inst.rows)):
        known = [c for c in clues if c is not None]
        out[f"{side}_clues_known"] = len(known)
        out[f"{side}_clues_unknown"] = len(clues) - len(known)
        out[f"{side}_clues_zero"] = sum(1 for c in known if c == 0)
        out[f"{side}_clues_full"] = sum(1 for c in known if c == width)
        mean = statistics.fmean(known) if known else 0.0
        out[f"{side}_clues_mean"] = mean
        out[f"{side}_clues_spread"] = statistics.pstdev(known) / mean if len(known) > 1 and mean else 0.0
    lines = len(inst.row_clues) + len(inst.col_clues)
    out["clues_known_share"] = (out["row_clues_known"] + out["col_clues_known"]) / lines
    return out


def _hints(inst: Instance, _model: Any) -> dict[str, float]:
    out = {f"hints_{h.name.lower()}": 0.0 for h in Hint}
    for hint in inst.hints.values():
        out[f"hints_{hint.name.lower()}"] += 1
    out["hints"] = float(len(inst.hints))
    out["hints_share"] = len(inst.hints) / (inst.rows * inst.cols)
    return out


def _geometric(rows: int, cols: int, length: int) -> int:
    """Placements of a ship of ``length`` on an empty board (a ship of 1 has one orientation)."""
    across = rows * max(cols - length + 1, 0)
    return across if length == 1 else across + cols * max(rows - length + 1, 0)


def _placements(inst: Instance, model: Any) -> dict[str, float]:
    fleet = {L: n for L, n in inst.fleet.items() if n > 0}
    before = sum(_geometric(inst.rows, inst.cols, L) for L in fleet)
    kept = {L: len(model.by_length.get(L, ())) for L in fleet}
    singles = [L for L, n in fleet.items() if n == 1]
    return {"placements_geometric": before, "placements_kept": sum(kept.values()),
            "placements_kept_share": sum(kept.values()) / before if before else 0.0,
            "placements_fewest_of_a_length": min(kept.values(), default=0),
            "placements_longest_single": kept[max(singles)] if singles else 0,
            "forced_ship_cells": len(model.forced_ship), "precheck_infeasible": float(model.infeasible is not None)}


def _encoding(inst: Instance, model: Any, extras: dict[str, Any]) -> dict[str, float]:
    from harness.backends.files import encode_cnf, write_dimacs
    from harness.backends.pb import placement_rows

    out: dict[str, float] = {}
    placement = encode_cnf(inst, "placement", model=model)
    out["cnf_placement_variables"] = placement.sat_pool.top
    out["cnf_placement_clauses"] = len(placement.sat_clauses)
    out["pb_placement_rows"] = len(placement_rows(model).rows)
    cell = encode_cnf(inst, "cell", model=model)
    out["cnf_cell_variables"] = cell.sat_pool.top
    out["cnf_cell_clauses"] = len(cell.sat_clauses)
    try:
        import gbdc
    except ImportError:
        return out
    with tempfile.TemporaryDirectory(prefix="bb-features-") as work:
        path = Path(work) / "placement.cnf"
        write_dimacs(path, placement.sat_pool.top, placement.sat_clauses)
        extras["gbd_hash"] = gbdc.gbdhash(str(path))
        for name, value in gbdc.extract_base_features(str(path)).items():
            out[f"gbd_{name}"] = float(value)
    return out


def features(inst: Instance) -> Features:
    """The features of the puzzle ``inst`` (module docstring), each group's CPU seconds in ``costs``."""
    from harness.model import build_model

    got = Features()
    t0 = time.process_time()
    model = build_model(inst)
    build = time.process_time() - t0  # charged to the groups that read the model
    extras: dict[str, Any] = {}
    for group in GROUPS:
        t0 = time.process_time()
        if group == "encoding":
            values = _encoding(inst, model, extras)
        else:
            values = {"size": _size, "fleet": _fleet, "clues": _clues, "hints": _hints,
                      "placements": _placements}[group](inst, model)
        got.costs[group] = time.process_time() - t0 + (build if group in ("placements", "encoding") else 0.0)
        got.values.update({k: float(v) for k, v in values.items()})
        got.groups[group] = list(values)
    got.gbd_hash = extras.get("gbd_hash")
    return got


def _cache_file(inst: Instance) -> Path | None:
    from harness import __version__
    from harness.core.jitcache import cache_dir

    root = cache_dir()
    return None if root is None else root / "features" / f"{__version__}-v{VERSION}" / f"{inst.content_hash()}.json"


def cached_features(inst: Instance) -> Features:
    """:func:`features` of ``inst``, read from the cache when it holds them (same version), else computed and
    kept there (a cache that cannot be written is skipped)."""
    path = _cache_file(inst)
    if path is not None and path.is_file():
        try:
            data = json.loads(path.read_text())
            if data.get("version") == VERSION:
                return Features(dict(data["values"]), dict(data["costs"]), dict(data["groups"]),
                                data.get("gbd_hash"))
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a damaged entry: computed again
    got = features(inst)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(got.to_json(), sort_keys=True))
            tmp.replace(path)
        except OSError:
            pass
    return got


__all__ = ["Features", "GROUPS", "VERSION", "cached_features", "features"]
