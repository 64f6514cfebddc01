"""The formulations as pseudo-Boolean rows for OPB and LP files: the placement formulation natively (one 0-1 variable per
placement; fleet counts, line clues and ship hints as equalities and inequalities, at most one placement per cell
or per no-touch window), and any CNF clause as a row, so the cell formulation reads as OPB too.

A row ``(terms, rhs)`` means ``sum(coef * x_var) >= rhs`` over ``terms = ((coef, var), ...)``; an equality is two
rows.  :func:`write_opb` writes the PB competition's linear OPB (``+1 x3 -2 x5 >= -1 ;``), :func:`write_lp` the
same rows as a CPLEX LP file of binary variables (for MIP solvers).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

Row = tuple[tuple[tuple[int, int], ...], int]


class PbRows:
    """Rows over variables ``1..variables``; ``placement_var``: placement index -> its variable (native rows)."""

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.variables = 0
        self.placement_var: dict[int, int] = {}

    def fresh(self) -> int:
        self.variables += 1
        return self.variables

    def at_least(self, terms: list[tuple[int, int]], rhs: int) -> None:
        terms = [(c, v) for c, v in terms if c]
        if not terms:
            if rhs > 0:
                self.false()
            return
        self.rows.append((tuple(terms), rhs))

    def equal(self, terms: list[tuple[int, int]], rhs: int) -> None:
        self.at_least(terms, rhs)
        self.at_least([(-c, v) for c, v in terms], -rhs)

    def false(self) -> None:
        """A pair of rows no assignment meets."""
        v = self.fresh()
        self.rows += [(((1, v),), 1), (((-1, v),), 0)]

    def clause(self, lits: list[int]) -> None:
        """A CNF clause as a row: ``sum(pos) - sum(neg) >= 1 - |neg|``."""
        neg = [lit for lit in lits if lit < 0]
        self.at_least([(1 if lit > 0 else -1, abs(lit)) for lit in lits], 1 - len(neg))

    def violated(self, true: set[int]) -> Row | None:
        """The first row the assignment (variables in ``true`` are 1) does not meet, or None."""
        for terms, rhs in self.rows:
            if sum(c for c, v in terms if v in true) < rhs:
                return terms, rhs
        return None


def placement_rows(model: Any) -> PbRows:
    """The placement formulation natively (the same constraints as the ``sat`` backend's placement CNF)."""
    pb = PbRows()
    x = pb.placement_var = {p.index: pb.fresh() for p in model.placements}
    for length, n in model.fleet.items():
        pb.equal([(1, x[p]) for p in model.by_length[length]], n)
    for _kind, _index, cells, clue in model.lines():
        inside = Counter()
        wanted = set(cells)
        for p in model.placements:
            k = sum(1 for c in p.cells if c in wanted)
            if k:
                inside[x[p.index]] += k
        pb.equal([(k, v) for v, k in sorted(inside.items())], clue)
    groups = (ps for ps in model.cover.values()) if model.instance.touching else (ps for _c, ps in model.windows)
    for ps in groups:
        if len(ps) > 1:
            pb.at_least([(-1, x[p]) for p in ps], -1)
    for cell in model.forced_ship:
        pb.at_least([(1, x[p]) for p in model.cover.get(cell, ())], 1)
    return pb


def block_placement_board(pb: PbRows, model: Any, cells: frozenset) -> None:
    """Exclude the board with ship cells ``cells``: fewer than all of them covered (boards have equally many)."""
    terms = Counter()
    for c in cells:
        for p in model.cover.get(c, ()):
            terms[pb.placement_var[p]] -= 1
    pb.at_least([(k, v) for v, k in sorted(terms.items())], -(len(cells) - 1))


def write_opb(path: Path, pb: PbRows, comments: tuple[str, ...] = ()) -> None:
    with open(path, "w") as f:
        f.write(f"* #variable= {pb.variables} #constraint= {len(pb.rows)}\n")
        f.writelines(f"* {line}\n" for line in comments)
        f.writelines(" ".join(f"{c:+d} x{v}" for c, v in terms) + f" >= {rhs} ;\n" for terms, rhs in pb.rows)


def _wrapped(first: str, items: list[str], last: str = "", width: int = 200) -> list[str]:
    """``first`` then ``items`` then ``last``, as lines of at most about ``width`` characters (continuations
    indented): CBC 2.10.8's LP reader fails on some long rows (measured: a 3,069-character blocking row, while
    3,068 or 3,070 characters read fine), and the CPLEX LP format bounds line length anyway."""
    lines, line = [], first
    for item in items + ([last] if last else []):
        if len(line) + 1 + len(item) > width and line.strip():
            lines.append(line)
            line = "   " + item
        else:
            line = f"{line} {item}" if line else item
    lines.append(line)
    return lines


def write_lp(path: Path, pb: PbRows, comments: tuple[str, ...] = ()) -> None:
    """The rows as a CPLEX LP file of binary variables ``x1..xN``: a zero objective naming every variable in
    order (so GLPK numbers its columns ``1..N``), each row a ``>=`` constraint, ``Binary`` for all; no line
    longer than about 200 characters."""
    names = [f"x{v}" for v in range(1, pb.variables + 1)]
    lines = [f"\\ {line}" for line in comments]
    lines.append("Minimize")
    lines += _wrapped(" obj:", [f"+ 0 {n}" if i else f"0 {n}" for i, n in enumerate(names)] or ["0"])
    lines.append("Subject To")
    for i, (terms, rhs) in enumerate(pb.rows, 1):
        lines += _wrapped(f" c{i}:", [f"{c:+d} x{v}" for c, v in terms], f">= {rhs}")
    lines.append("Binary")
    lines += _wrapped("", names)
    lines.append("End")
    path.write_text("\n".join(lines) + "\n")


__all__ = ["PbRows", "Row", "block_placement_board", "placement_rows", "write_lp", "write_opb"]
