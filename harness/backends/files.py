"""Instances as the field's standard files: each puzzle in each formulation written as a solver format, with a
variable map beside it that decodes a model back to a board, and a manifest of what was written.

Formats written: ``cnf`` (DIMACS, the ``sat`` backend's encoding with its ``p cnf`` header), ``opb`` (linear
OPB: the placement formulation natively, :mod:`harness.backends.pb`; the cell formulation's CNF row by row) and
``lp`` (the same rows as a CPLEX LP file of binary variables).
The variable map (``NAME.FORMULATION.map.json``) lists per placement its variable, ship length and cells
(``placements``) and, where the file has them, per cell the literal true exactly when a ship covers it
(``cells``); a board is the cells of a model (:func:`board_cells`).  The manifest (``MANIFEST.json``) has per file: instance, source
file, format, formulation, encoding options, variables, clauses, expected status and count where the instance
file knows them, and the file's sha256.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import UsageError

WRITE_FORMATS = ("cnf", "opb", "lp")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def encode_cnf(inst: Any, formulation: str, options: dict[str, Any] | None = None) -> Any:
    """The ``sat`` backend's CNF of ``inst`` in ``formulation``: the encoded backend (``sat_pool``,
    ``sat_clauses``, ``sat_w``, ``sat_s``)."""
    from harness.backends.sat import SatBackend
    from harness.model import build_model

    backend = SatBackend(build_model(inst), formulation, options or {})
    backend.encode()
    return backend


def write_file(inst: Any, fmt: str, formulation: str, out: Path,
               options: dict[str, Any] | None = None) -> dict[str, Any]:
    """``inst`` as ``out/NAME.FORMULATION.FMT`` with its variable map; the manifest entry."""
    from harness.backends.pb import PbRows, placement_rows, write_lp, write_opb
    from harness.backends.tool import write_dimacs
    from harness.model import build_model

    stem = f"{inst.name}.{formulation}"
    path, varmap = out / f"{stem}.{fmt}", out / f"{stem}.map.json"
    note = (f"battlebench {__version__}: {inst.name}, formulation {formulation}",
            f"ship cells: by the variable map {varmap.name}")
    cells: dict[tuple[int, int], int] = {}
    write_rows = write_lp if fmt == "lp" else write_opb
    if fmt in ("opb", "lp") and formulation == "placement":
        model = build_model(inst)
        pb = placement_rows(model)
        write_rows(path, pb, note)
        placement_var, variables, constraints, opts = pb.placement_var, pb.variables, len(pb.rows), {}
    else:
        enc = encode_cnf(inst, formulation, options)
        model, placement_var, cells = enc.model, enc.sat_w, enc.sat_s
        opts = {k: enc.opts[k] for k in ("encoding", "amo", "seed")}
        if fmt == "cnf":
            write_dimacs(path, enc.sat_pool.top, enc.sat_clauses, note)
            variables, constraints = enc.sat_pool.top, len(enc.sat_clauses)
        else:
            pb = PbRows()
            pb.variables = enc.sat_pool.top
            for clause in enc.sat_clauses:
                pb.clause(clause)
            write_rows(path, pb, note)
            variables, constraints = pb.variables, len(pb.rows)
    placements = {str(v): {"length": model.placements[p].length,
                           "cells": [list(c) for c in model.placements[p].cells]}
                  for p, v in sorted(placement_var.items())}
    body: dict[str, Any] = {"instance": inst.name, "formulation": formulation, "format": fmt, "rows": inst.rows,
                            "cols": inst.cols, "placements": placements}
    if cells:
        body["cells"] = {f"{r},{c}": lit for (r, c), lit in sorted(cells.items())}
    varmap.write_text(json.dumps(body, indent=1) + "\n")
    meta = dict(inst.meta)
    return {"instance": inst.name, "file": path.name, "map": varmap.name, "format": fmt,
            "formulation": formulation, "options": opts, "variables": variables, "constraints": constraints,
            "expected_status": meta.get("expected_status"), "expected_count": meta.get("expected_count"),
            "sha256": _sha256(path)}


def write_all(paths: list[str], fmt: str, formulations: list[str], out: Path,
              options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every puzzle of ``paths`` in every formulation, into ``out`` with ``MANIFEST.json``; the entries."""
    from harness.puzzle.formats import read_instance

    if fmt not in WRITE_FORMATS:
        raise UsageError(f"unknown format {fmt!r} to write (choose from {', '.join(WRITE_FORMATS)})")
    for f in formulations:
        if f not in ("placement", "cell"):
            raise UsageError(f"format {fmt!r} has no formulation {f!r} (choose from placement, cell)")
    instances = [(p, read_instance(p)) for p in paths]  # every file read before anything is written
    names = [inst.name for _, inst in instances]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"two puzzles are named {twice[0]!r}: their files would overwrite each other")
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for path, inst in instances:
        for f in formulations:
            entry = write_file(inst, fmt, f, out, options)
            entry["source"] = str(path)
            entries.append(entry)
    (out / "MANIFEST.json").write_text(json.dumps({"written_by": f"battlebench {__version__}",
                                                   "files": entries}, indent=1) + "\n")
    return entries


def board_cells(varmap: dict[str, Any], literals: list[int]) -> frozenset[tuple[int, int]]:
    """The ship cells a model's literals say, by a variable map: the cells whose literal is true (``cells``), or
    the cells of the true placements (an OPB map of the placement formulation has only ``placements``)."""
    true = {lit for lit in literals if lit > 0}
    out = set()
    if "cells" in varmap:
        for key, lit in varmap["cells"].items():
            if (lit > 0 and lit in true) or (lit < 0 and -lit not in true):
                r, c = key.split(",")
                out.add((int(r), int(c)))
        return frozenset(out)
    for var, placement in varmap["placements"].items():
        if int(var) in true:
            out.update((r, c) for r, c in placement["cells"])
    return frozenset(out)


__all__ = ["WRITE_FORMATS", "board_cells", "encode_cnf", "write_all", "write_file"]
