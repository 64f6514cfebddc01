"""The CNF of a deployment shared by the ``sat`` and ``sharpsat`` counters: placement and cell variables.

Variables: one per placement of each piece type (``placement_vars``, numbered first), then
one per cell (``cell_vars``, by layout index) defined as the OR of the placements covering
it, then the auxiliaries of the cardinality encodings.  Clauses:

* each piece type with ``c`` copies has exactly ``c`` placements true (pysat's
  sequential counter; identical copies are one type, so a set of ``c`` placements is one
  unlabelled arrangement);
* cell ``h`` <-> OR of the placements covering it, and at most one of them (pairwise up to
  :data:`PAIRWISE` placements, else a sequential counter);
* touching forbidden: a true placement leaves every cell of its halo empty (``-p | -h``);
* a hit cell is occupied; a row or column clue fixes the number of its occupied cells.

Cell variables are functions of the placement variables, so projecting onto the
placement variables counts deployments and projecting onto the cell variables counts
boards; auxiliaries must be projected away (or ignored by the blocking clauses) in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.counting.deployment import Deployment
from harness.counting.placements import Layout, layout

PAIRWISE = 40  # at most one of this many literals or fewer: pairwise clauses, else a counter


@dataclass
class Cnf:
    """Clauses over variables 1..nvars; ``unsat`` when the instance is trivially impossible."""

    nvars: int = 0
    clauses: list[list[int]] = field(default_factory=list)
    placement_vars: list[int] = field(default_factory=list)
    cell_vars: list[int] = field(default_factory=list)  # by layout cell index
    types: list[range] = field(default_factory=list)  # per piece type, its placement vars
    unsat: bool = False


def build_cnf(dep: Deployment, lay: Layout | None = None) -> Cnf:
    """The CNF of ``dep`` (see the module docstring)."""
    from pysat.card import CardEnc, EncType

    lay = lay or layout(dep)
    cnf = Cnf()
    covering: list[list[int]] = [[] for _ in range(lay.n)]
    halos: list[tuple[int, tuple[int, ...]]] = []
    for t in lay.types:
        first = cnf.nvars + 1
        for p in t.placements:
            cnf.nvars += 1
            cnf.placement_vars.append(cnf.nvars)
            for i in p:
                covering[i].append(cnf.nvars)
            if not dep.touching:
                halos.append((cnf.nvars, lay.halo[p]))
        cnf.types.append(range(first, cnf.nvars + 1))
    cnf.cell_vars = list(range(cnf.nvars + 1, cnf.nvars + 1 + lay.n))
    cnf.nvars += lay.n

    def card(lits: list[int], bound: int, how: str) -> None:
        if bound > len(lits):
            cnf.unsat = True
            return
        enc = getattr(CardEnc, how)(lits=lits, bound=bound, top_id=cnf.nvars, encoding=EncType.seqcounter)
        cnf.clauses.extend(enc.clauses)
        cnf.nvars = max(cnf.nvars, enc.nv)

    for t, lits in zip(lay.types, cnf.types):
        card(list(lits), t.count, "equals")
    for i, lits in enumerate(covering):
        h = cnf.cell_vars[i]
        cnf.clauses.extend([-q, h] for q in lits)
        cnf.clauses.append([-h, *lits])
        if len(lits) <= PAIRWISE:
            cnf.clauses.extend([-a, -b] for k, a in enumerate(lits) for b in lits[k + 1:])
        else:
            card(lits, 1, "atmost")
    for p, halo in halos:
        cnf.clauses.extend([-p, -cnf.cell_vars[i]] for i in halo)
    for i in sorted(lay.hits):
        cnf.clauses.append([cnf.cell_vars[i]])
    for clues, axis in ((dep.row_clues, 0), (dep.col_clues, 1)):
        for line, v in enumerate(clues or ()):
            if v is None:
                continue
            lits = [cnf.cell_vars[i] for i, c in enumerate(lay.cells) if c[axis] == line]
            if v == 0 or v == len(lits):
                cnf.clauses.extend([x if v else -x] for x in lits)
            else:
                card(lits, v, "equals")
    return cnf


__all__ = ["Cnf", "PAIRWISE", "build_cnf"]
