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

* ``layout`` -- the frontier width of the counting dp's layout (:meth:`harness.counting.placements.Layout.span`
  + 1: the cells a state of the frontier programme spans) of the puzzle read as a deployment without its hints;
* ``tally`` -- the *tally-only* board count: how many boards the clues alone allow (no hint), counted exactly
  by the ``dp`` counter where that is cheap -- a frontier at most :data:`TALLY_MAX_WIDTH` cells wide (measured:
  0.2-0.9 CPU s on 10x10 and 13x13 puzzles, 16-42 s on 15x15, where the width passes it), in a child within
  :data:`TALLY_BUDGET_S` and :data:`TALLY_MEMORY_MB`; elsewhere ``tally_counted`` is 0 and the count
  missing.  It is ``log10(1 + count)``: counts span dozens of orders.

:func:`board_features` is the small set of a count or play board (a
:class:`~harness.counting.deployment.Deployment`; :data:`BOARD_GROUPS`): its size, pieces, what is known
(misses, hits, sunk ships, clues) and its frontier width and placements.  :func:`cached_features` keeps each
puzzle's features in the harness's cache folder by content hash
(:meth:`harness.puzzle.instance.Instance.content_hash`) and version, so a store's features are computed once.
"""

from __future__ import annotations

import functools
import json
import math
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.puzzle.instance import Hint, Instance

GROUPS = ("size", "fleet", "clues", "hints", "placements", "encoding", "layout", "tally")
"""The feature groups of a puzzle, in the order they are computed; each is charged its own CPU seconds."""

BOARD_GROUPS = ("board", "knowledge", "board_layout")
"""The feature groups of a count or play board (:func:`board_features`)."""

VERSION = 2
"""The features' version: a cached value of another version is computed again."""

TALLY_MAX_WIDTH = 67
"""The widest frontier (cells) on which the tally-only count is computed: a 13x13 board's (module docstring)."""

TALLY_BUDGET_S, TALLY_MEMORY_MB = 5.0, 1024
"""The tally-only count's CPU seconds and memory (what its child may map beyond what the fork gave it): past
either, it is not counted.  CPU, not wall, so that a busy machine does not change a puzzle's features; the wall
clock only backs it up (ten times the budget)."""


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


def _size(inst: Instance, _model: Any, _extras: dict[str, Any]) -> dict[str, float]:
    return {"rows": inst.rows, "cols": inst.cols, "cells": inst.rows * inst.cols}


def _fleet(inst: Instance, _model: Any, _extras: dict[str, Any]) -> dict[str, float]:
    fleet = {L: n for L, n in inst.fleet.items() if n > 0}
    ship_cells = sum(L * n for L, n in fleet.items())
    return {"pieces": sum(fleet.values()), "lengths": len(fleet), "longest": max(fleet, default=0),
            "ship_cells": ship_cells, "ship_share": ship_cells / (inst.rows * inst.cols),
            "single_lengths": sum(1 for n in fleet.values() if n == 1)}


def _clues(inst: Instance, _model: Any, _extras: dict[str, Any]) -> dict[str, float]:
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


def _hints(inst: Instance, _model: Any, _extras: dict[str, Any]) -> dict[str, float]:
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


def _placements(inst: Instance, model: Any, _extras: dict[str, Any]) -> dict[str, float]:
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


def _tally_deployment(inst: Instance) -> Any:
    """The puzzle without its hints, read as a deployment (the clues and the fleet alone)."""
    from harness.counting.format import from_puzzle

    return from_puzzle(inst.replace(hints={}))


def _layout(inst: Instance, _model: Any, extras: dict[str, Any]) -> dict[str, float]:
    from harness.counting.placements import layout

    extras["tally_deployment"] = dep = _tally_deployment(inst)
    extras["tally_layout"] = lay = layout(dep)
    return {"frontier_width": lay.span() + 1}


def _count_boards(dep: Any, out: Any) -> None:
    """The child of :func:`_tally`: the dp's board count of ``dep`` and its own CPU seconds, sent on ``out``."""
    import os
    import resource

    try:  # what the fork already maps (numba's and LLVM's address space, the parent's heap) plus the budget
        mapped = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        mapped = 0
    limit = mapped + (TALLY_MEMORY_MB << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    cpu = max(1, math.ceil(TALLY_BUDGET_S + time.process_time()))  # SIGXCPU past the budget
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    t0 = time.process_time()
    try:
        out.send((_count_boards_here(dep), time.process_time() - t0))
    except BaseException:  # noqa: BLE001 - out of its memory, or refused deeper down: not counted
        out.send((None, time.process_time() - t0))


@functools.cache
def _warm_dp() -> None:
    """The dp's compiled programmes loaded in this process once (a 2x2 puzzle counted), so that each forked
    child runs them instead of loading them again: a one-time cost, as numba's cache is, not a puzzle's."""
    _count_boards_here(_tally_deployment(Instance(rows=2, cols=2, fleet={1: 1}, row_clues=(1, 0),
                                                  col_clues=(1, 0), name="warm")))


def _count_boards_here(dep: Any) -> int | None:
    from harness.counting.counters import FAMILY

    counter = FAMILY.load("dp")()
    got = None if counter.refuses(dep, "boards") is not None else counter.count(dep, "boards")
    return int(got.count) if got is not None and got.complete else None


def _tally(inst: Instance, _model: Any, extras: dict[str, Any]) -> dict[str, float]:
    """The tally-only count where cheap: a frontier at most :data:`TALLY_MAX_WIDTH` wide, counted in a forked
    child within :data:`TALLY_BUDGET_S` CPU seconds and :data:`TALLY_MEMORY_MB` (a fleet without clues can need
    gigabytes of states on a narrow board); the child's CPU is charged in ``extras["tally_child_cpu_s"]``."""
    import multiprocessing

    lay = extras.get("tally_layout")
    if lay is None or lay.span() + 1 > TALLY_MAX_WIDTH or not any(n for n in inst.fleet.values()):
        return {"tally_counted": 0.0}
    _warm_dp()
    recv, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_count_boards,
                                                        args=(extras["tally_deployment"], send))
    child.start()
    send.close()
    said = recv.recv() if recv.poll(10 * TALLY_BUDGET_S) else None
    if child.is_alive():
        child.kill()
    child.join()
    recv.close()
    extras["tally_child_cpu_s"] = said[1] if said else TALLY_BUDGET_S
    if said is None or said[0] is None:
        return {"tally_counted": 0.0}
    return {"tally_counted": 1.0, "tally_log10_boards": math.log10(1 + said[0])}


_STEPS = {"size": _size, "fleet": _fleet, "clues": _clues, "hints": _hints, "placements": _placements,
          "encoding": _encoding, "layout": _layout, "tally": _tally}
"""group -> its step: (puzzle, model, extras shared by the steps) -> {feature: value}."""


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
        values = _STEPS[group](inst, model, extras)
        got.costs[group] = time.process_time() - t0 + (build if group in ("placements", "encoding") else 0.0) + \
            (extras.pop("tally_child_cpu_s", 0.0) if group == "tally" else 0.0)
        got.values.update({k: float(v) for k, v in values.items()})
        got.groups[group] = list(values)
    got.gbd_hash = extras.get("gbd_hash")
    return got


def board_features(dep: Any) -> Features:
    """The features of a count or play board ``dep`` (a Deployment; :data:`BOARD_GROUPS`), each group timed."""
    from harness.counting.placements import layout

    got = Features()
    clues = [c for side in (dep.row_clues or (), dep.col_clues or ()) for c in side]
    steps = {
        "board": lambda: {"cells": len(dep.cells), "hex": float(dep.grid.kind != "square"),
                          "pieces": sum(p.count for p in dep.pieces), "piece_kinds": len(dep.pieces),
                          "largest_piece": max((p.size for p in dep.pieces), default=0),
                          "ship_share": sum(p.size * p.count for p in dep.pieces) / max(len(dep.cells), 1),
                          "touching": float(dep.touching), "reflections": float(dep.reflections)},
        "knowledge": lambda: {"misses": len(dep.misses), "hits": len(dep.hits), "sunk": len(dep.sunk),
                              "clues_known": sum(1 for c in clues if c is not None),
                              "clues_unknown": sum(1 for c in clues if c is None)},
    }
    for group in BOARD_GROUPS:
        t0 = time.process_time()
        if group == "board_layout":
            lay = layout(dep)
            kept = [len(t.placements) for t in lay.types]
            values = {"frontier_width": lay.span() + 1, "placements": sum(kept),
                      "placements_fewest_of_a_piece": min(kept, default=0)}
        else:
            values = steps[group]()
        got.costs[group] = time.process_time() - t0
        got.values.update({k: float(v) for k, v in values.items()})
        got.groups[group] = list(values)
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


__all__ = ["BOARD_GROUPS", "Features", "GROUPS", "TALLY_MAX_WIDTH", "VERSION", "board_features",
           "cached_features", "features"]
