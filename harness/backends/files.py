"""Instances as the field's standard files: each puzzle in each formulation written as a solver format, with a
variable map beside it that decodes a model back to a board, and a manifest of what was written.

One :class:`SolverFile` is one puzzle in one formulation as the file of one format: ``battlebench write`` writes
it, the ``tool`` backend writes it, blocks boards in it and decodes a tool's models by it.  Formats:

* ``cnf`` (DIMACS with its ``p cnf`` header) and ``wcnf`` (the same clauses as hard clauses of an old-style
  ``p wcnf`` file, the header clasp reads): the ``sat`` backend's encoding;
* ``opb``, ``lp``, ``mps``, ``smt2``, ``xcsp3``, ``fzn``: pseudo-Boolean rows (:mod:`harness.backends.pb`,
  :mod:`harness.backends.rowfiles`) — the placement formulation natively, the cell formulation's CNF clause by
  clause;
* ``asp``: the ``asp`` backend's program with the instance's facts (:mod:`harness.backends.asp`); its boards are
  the ``ship/2`` atoms, its placements the ``chosen/1`` (placement) or ``w/1`` (cell) atoms.

The variable map (``NAME.FORMULATION.map.json``) lists per placement its variable, ship length and cells
(``placements``) and, where the file has them, per cell the literal true exactly when a ship covers it
(``cells``); a board is the cells of a model (:func:`board_cells`).  The manifest (``MANIFEST.json``) has per file:
instance, source file, format, formulation, encoding options, variables, constraints, expected status and count
where the instance file knows them, and the file's sha256.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

from harness import __version__
from harness.backends.base import ModelSize
from harness.core.files import sha256_of
from harness.core.paths import path_part
from harness.errors import BackendError, UsageError

ROW_FORMATS = ("opb", "lp", "mps", "smt2", "xcsp3", "fzn")
WRITE_FORMATS = ("cnf", "wcnf") + ROW_FORMATS + ("asp",)
SUFFIX = {"xcsp3": "xml"}  # a format's file suffix where it is not the format's name (ACE reads only .xml)
_ATOM = re.compile(r"(chosen|w|ship)\((\d+)(?:,(\d+))?\)$")


def suffix(fmt: str) -> str:
    return SUFFIX.get(fmt, fmt)


def encode_cnf(inst: Any, formulation: str, options: dict[str, Any] | None = None, model: Any = None) -> Any:
    """The ``sat`` backend's CNF of ``inst`` in ``formulation``: the encoded backend (``sat_pool``,
    ``sat_clauses``, ``sat_w``, ``sat_s``)."""
    from harness.backends.sat import SatBackend
    from harness.model import build_model

    backend = SatBackend(model or build_model(inst), formulation, options or {})
    backend.encode()
    return backend


def write_dimacs(path: Path, variables: int, clauses: list[list[int]], comments: tuple[str, ...] = (),
                 weighted: bool = False) -> None:
    """A DIMACS CNF file with its ``p cnf`` header (some solvers reject a file without it); ``weighted``: every
    clause hard in an old-style ``p wcnf VARS CLAUSES TOP`` file (top weight 1: there are no soft clauses)."""
    with open(path, "w") as f:
        f.writelines(f"c {line}\n" for line in comments)
        if weighted:
            f.write(f"p wcnf {variables} {len(clauses)} 1\n")
            f.writelines("1 " + " ".join(map(str, clause)) + " 0\n" for clause in clauses)
        else:
            f.write(f"p cnf {variables} {len(clauses)}\n")
            f.writelines(" ".join(map(str, clause)) + " 0\n" for clause in clauses)


def first_false_clause(clauses: list[list[int]], variables: int, true: set[int]) -> int | None:
    """The index of the first clause that the model ``true`` (its true variables) leaves false, or None: numpy over
    the clauses flattened (a Python loop over a large CNF's clauses cost ~0.3 s of CPU a model, 30x this)."""
    import numpy as np

    truth = np.zeros(variables + 1, dtype=bool)
    truth[np.fromiter(true, dtype=np.int64, count=len(true))] = True
    lits = np.fromiter(itertools.chain.from_iterable(clauses), dtype=np.int64)
    lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
    met = truth[np.abs(lits)] == (lits > 0)
    satisfied = np.bincount(np.repeat(np.arange(len(clauses)), lengths), weights=met, minlength=len(clauses))
    false = np.flatnonzero(satisfied == 0)
    return int(false[0]) if false.size else None


class SolverFile:
    """One puzzle's model in one formulation as the file of one format: ``write`` it, ``block`` a board in it,
    ``decode`` a solver's model of it (checked against the file's clauses or rows) to placement indices."""

    def __init__(self, model: Any, formulation: str, fmt: str, options: dict[str, Any] | None = None):
        from harness.backends.pb import PbRows, placement_rows

        if fmt not in WRITE_FORMATS:
            raise UsageError(f"unknown format {fmt!r} (choose from {', '.join(WRITE_FORMATS)})")
        self.model, self.formulation, self.format = model, formulation, fmt
        self.pb = None
        self.clauses: list[list[int]] = []
        self.cells: dict[tuple[int, int], int] = {}
        self.options: dict[str, Any] = {}
        self.blocked: list[frozenset] = []
        if fmt == "asp":
            from harness.backends.asp import CELL, PLACEMENT, facts

            self.program = (PLACEMENT if formulation == "placement" else CELL) + "\n" + facts(model, formulation)
            self.placement_var = {p.index: p.index for p in model.placements}
            self.variables = len(model.placements)
            self.constraints = sum(1 for line in self.program.splitlines() if line.strip().endswith("."))
            return
        if fmt in ROW_FORMATS and formulation == "placement":
            self.pb = placement_rows(model)  # native pseudo-Boolean rows
            self.placement_var = self.pb.placement_var
        else:
            enc = encode_cnf(model.instance, formulation, options, model)
            self.clauses, self.placement_var, self.cells = enc.sat_clauses, enc.sat_w, enc.sat_s
            self.options = {k: enc.opts[k] for k in ("encoding", "amo", "seed")}
            self.variables = enc.sat_pool.top
            if fmt in ROW_FORMATS:  # the cell formulation's CNF, clause by clause as rows
                self.pb = PbRows()
                self.pb.variables = self.variables
                for clause in self.clauses:
                    self.pb.clause(clause)
        if self.pb is not None:
            self.variables = self.pb.variables
        self.constraints = len(self.pb.rows) if self.pb is not None else len(self.clauses)

    @property
    def one_to_one(self) -> bool:
        """Whether the file's models are its boards one to one: ASP (projected onto ship cells), and the placement
        formulation's rows where ships may not touch (no variable but the placements; a set of ship cells made of
        separate straight runs is one set of placements)."""
        if self.format == "asp":
            return True
        return self.pb is not None and bool(self.pb.placement_var) and not self.model.instance.touching

    def size(self) -> ModelSize:
        return ModelSize(variables=self.variables, constraints=self.constraints)

    def write(self, path: Path, comments: tuple[str, ...] = ()) -> None:
        from harness.backends.rowfiles import ROW_WRITERS

        if self.format == "asp":
            text = "".join(f"% {line}\n" for line in comments) + self.program + "\n"
            for cells in self.blocked:  # all boards have as many ship cells: this excludes exactly that one
                text += ":- " + ", ".join(f"ship({r},{c})" for r, c in sorted(cells)) + ".\n"
            path.write_text(text)
        elif self.pb is not None:
            ROW_WRITERS[self.format](path, self.pb, comments)
        else:
            write_dimacs(path, self.variables, self.clauses, comments, weighted=self.format == "wcnf")

    def block(self, cells: frozenset) -> None:
        """Exclude the board with ship cells ``cells`` from the file."""
        from harness.backends.pb import block_placement_board

        self.blocked.append(frozenset(cells))
        if self.format == "asp":
            return
        if self.pb is not None and self.pb.placement_var:
            block_placement_board(self.pb, self.model, frozenset(cells))
        elif self.pb is not None:
            self.pb.clause([-self.cells[c] for c in cells])
        else:
            self.clauses.append([-self.cells[c] for c in cells])

    def decode(self, said: list, who: str) -> list[int]:
        """The placements of one model (literals; atoms for ``asp``), after checking it is a model of the file;
        a model that is not raises :class:`BackendError` naming ``who``."""
        if self.format == "asp":
            return self._decode_atoms(said, who)
        true = set()
        for lit in said:
            if lit == 0 or abs(lit) > self.variables:
                raise BackendError(f"{who}: its model has literal {lit}, outside the file's {self.variables} "
                                   "variables")
            if lit > 0:
                true.add(lit)
        if self.pb is not None:
            row = self.pb.violated(true)
            if row is not None:
                raise BackendError(f"{who}: its model breaks the row {list(row[0])[:6]} >= {row[1]} (not a model "
                                   "of the file)")
        else:
            false = first_false_clause(self.clauses, self.variables, true)
            if false is not None:
                raise BackendError(f"{who}: its model leaves the clause {self.clauses[false][:8]} false (not a model "
                                   "of the CNF)")
        return sorted(p for p, v in self.placement_var.items() if v in true)

    def _decode_atoms(self, atoms: list, who: str) -> list[int]:
        key = "chosen" if self.formulation == "placement" else "w"
        chosen, ship = [], set()
        for atom in atoms:
            m = _ATOM.match(str(atom).replace(" ", ""))
            if m is None:
                raise BackendError(f"{who}: its answer has the atom {str(atom)[:40]!r}, which the program does not "
                                   "show")
            if m.group(1) == "ship" and m.group(3) is not None:
                ship.add((int(m.group(2)), int(m.group(3))))
            elif m.group(1) == key and m.group(3) is None and int(m.group(2)) < len(self.model.placements):
                chosen.append(int(m.group(2)))
            else:
                raise BackendError(f"{who}: its answer has the atom {atom!r}, which the program does not show")
        covered = {c for p in chosen for c in self.model.placements[p].cells}
        if covered != ship or frozenset(ship) in self.blocked:
            raise BackendError(f"{who}: its answer's ship cells are not those of its placements, or a board "
                               "already excluded (not an answer of the program)")
        return sorted(chosen)

    def varmap(self, inst: Any) -> dict[str, Any]:
        placements = {str(v): {"length": self.model.placements[p].length,
                               "cells": [list(c) for c in self.model.placements[p].cells]}
                      for p, v in sorted(self.placement_var.items())}
        body: dict[str, Any] = {"instance": inst.name, "formulation": self.formulation, "format": self.format,
                                "rows": inst.rows, "cols": inst.cols, "placements": placements}
        if self.format == "asp":
            body["atoms"] = {"placement": "chosen(P)" if self.formulation == "placement" else "w(P)",
                             "ship cell": "ship(R,C)"}
        if self.format == "xcsp3":
            body["variables"] = "variable i is x[i-1]"
        if self.cells:
            body["cells"] = {f"{r},{c}": lit for (r, c), lit in sorted(self.cells.items())}
        return body


def write_file(inst: Any, fmt: str, formulation: str, out: Path,
               options: dict[str, Any] | None = None) -> dict[str, Any]:
    """``inst`` as ``out/NAME.FORMULATION.FMT`` with its variable map; the manifest entry.  NAME is the instance's
    name as a safe file name (:func:`harness.core.paths.path_part`: kept when it is one, else escaped), so every
    file stays inside ``out``; the entry's ``instance`` is the name itself."""
    from harness.model import build_model

    stem = f"{path_part(inst.name)}.{formulation}"
    path, varmap = out / f"{stem}.{suffix(fmt)}", out / f"{stem}.map.json"
    one_line = " ".join(inst.name.split())  # a comment line: a newline in the name must not end it
    note = (f"battlebench {__version__}: {one_line}, formulation {formulation}",
            f"ship cells: by the variable map {varmap.name}")
    solver_file = SolverFile(build_model(inst), formulation, fmt, options)
    solver_file.write(path, note)
    varmap.write_text(json.dumps(solver_file.varmap(inst), indent=1) + "\n")
    meta = dict(inst.meta)
    return {"instance": inst.name, "file": path.name, "map": varmap.name, "format": fmt,
            "formulation": formulation, "options": solver_file.options, "variables": solver_file.variables,
            "constraints": solver_file.constraints, "expected_status": meta.get("expected_status"),
            "expected_count": meta.get("expected_count"), "sha256": sha256_of(path)}


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
    names = [path_part(inst.name) for _, inst in instances]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"two puzzles are named {twice[0]!r} (as file names): their files would overwrite each "
                         "other")
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


__all__ = ["ROW_FORMATS", "SUFFIX", "WRITE_FORMATS", "SolverFile", "board_cells", "encode_cnf", "suffix", "write_all",
           "write_dimacs", "write_file"]
