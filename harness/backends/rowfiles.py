"""Pseudo-Boolean rows as MPS, SMT-LIB, XCSP3 and FlatZinc files (OPB and LP are in :mod:`harness.backends.pb`).

Every format names the rows' variables so that a model decodes by the same variable map: ``x1..xN`` in MPS and
SMT-LIB, the FlatZinc variables ``x1..xN`` gathered in the output array ``x``, and the XCSP3 array ``x[0..N-1]``
(``x[i]`` is variable ``i + 1``).  A row ``sum(c * x_v) >= rhs`` is written as

* MPS (free MPS, read by HiGHS and CBC): a ``G`` row; every column binary (``BV`` bound) inside ``INTORG`` markers,
  with a zero objective row naming each column (some readers drop a column no row names);
* SMT-LIB 2 (``QF_LIA``, read by z3 and cvc5): Boolean constants and ``(>= (+ (ite x c 0) ...) rhs)``, then
  ``(check-sat)`` and ``(get-value (x1 ... xN))``;
* XCSP3 (read by ACE): a ``<sum>`` with ``<coeffs>`` and the condition ``(ge,rhs)``;
* FlatZinc (read by ``fzn-gecode`` and every FlatZinc solver): ``int_lin_le`` of the negated row.
"""

from __future__ import annotations

from pathlib import Path

from harness.backends.pb import PbRows, _wrapped, write_lp, write_opb


def write_mps(path: Path, pb: PbRows, comments: tuple[str, ...] = ()) -> None:
    """Free MPS of binary columns ``x1..xN`` and ``>=`` rows ``c1..cM`` with a zero objective ``obj``."""
    columns: dict[int, list[tuple[str, int]]] = {v: [] for v in range(1, pb.variables + 1)}
    for i, (terms, _rhs) in enumerate(pb.rows, 1):
        for c, v in terms:
            columns[v].append((f"c{i}", c))
    with open(path, "w") as f:
        f.writelines(f"* {line}\n" for line in comments)
        f.write("NAME battlebench\nROWS\n N obj\n")
        f.writelines(f" G c{i}\n" for i in range(1, len(pb.rows) + 1))
        f.write("COLUMNS\n    M1 'MARKER' 'INTORG'\n")
        for v, entries in columns.items():
            f.write(f"    x{v} obj 0\n")
            f.writelines(f"    x{v} {row} {c}\n" for row, c in entries)
        f.write("    M2 'MARKER' 'INTEND'\nRHS\n")
        f.writelines(f"    rhs c{i} {rhs}\n" for i, (_t, rhs) in enumerate(pb.rows, 1) if rhs)
        f.write("BOUNDS\n")
        f.writelines(f" BV bnd x{v}\n" for v in columns)
        f.write("ENDATA\n")


def _smt_int(c: int) -> str:
    return str(c) if c >= 0 else f"(- {-c})"


def write_smt2(path: Path, pb: PbRows, comments: tuple[str, ...] = ()) -> None:
    """SMT-LIB 2 over Boolean constants ``x1..xN``: each row a linear sum of ``ite`` terms."""
    with open(path, "w") as f:
        f.writelines(f"; {line}\n" for line in comments)
        f.write("(set-option :produce-models true)\n(set-logic QF_LIA)\n")
        f.writelines(f"(declare-const x{v} Bool)\n" for v in range(1, pb.variables + 1))
        for terms, rhs in pb.rows:
            parts = [f"(ite x{v} {_smt_int(c)} 0)" for c, v in terms]
            total = parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"
            f.write(f"(assert (>= {total} {_smt_int(rhs)}))\n")
        f.write("(check-sat)\n")
        names = " ".join(f"x{v}" for v in range(1, pb.variables + 1))
        f.write(f"(get-value ({names}))\n" if pb.variables else "")


def write_xcsp3(path: Path, pb: PbRows, comments: tuple[str, ...] = ()) -> None:
    """XCSP3 (CSP): the array ``x`` of ``N`` 0/1 variables and one ``<sum>`` per row."""
    with open(path, "w") as f:
        f.write("<instance format=\"XCSP3\" type=\"CSP\">\n")
        f.writelines(f"  <!-- {line.replace('--', '-')} -->\n" for line in comments)
        f.write(f"  <variables>\n    <array id=\"x\" size=\"[{pb.variables}]\"> 0 1 </array>\n  </variables>\n")
        f.write("  <constraints>\n")
        for terms, rhs in pb.rows:
            names = " ".join(f"x[{v - 1}]" for _c, v in terms)
            coeffs = " ".join(str(c) for c, _v in terms)
            f.write(f"    <sum> <list> {names} </list> <coeffs> {coeffs} </coeffs> <condition> (ge,{rhs}) "
                    "</condition> </sum>\n")
        f.write("  </constraints>\n</instance>\n")


def write_fzn(path: Path, pb: PbRows, comments: tuple[str, ...] = ()) -> None:
    """FlatZinc: 0/1 variables ``x1..xN`` (the output array ``x``), each row as ``int_lin_le`` of its negation."""
    n = pb.variables
    with open(path, "w") as f:
        f.writelines(f"% {line}\n" for line in comments)
        f.writelines(f"var 0..1: x{v};\n" for v in range(1, n + 1))
        items = [f"x{v}" for v in range(1, n + 1)]
        f.write("\n".join(_wrapped(f"array [1..{n}] of var int: x :: output_array([1..{n}]) = [",
                                   [s + "," for s in items[:-1]] + items[-1:], "];")) + "\n")
        for terms, rhs in pb.rows:
            coeffs = ",".join(str(-c) for c, _v in terms)
            names = ",".join(f"x{v}" for _c, v in terms)
            f.write(f"constraint int_lin_le([{coeffs}],[{names}],{-rhs});\n")
        f.write("solve satisfy;\n")


ROW_WRITERS = {"opb": write_opb, "lp": write_lp, "mps": write_mps, "smt2": write_smt2, "xcsp3": write_xcsp3,
               "fzn": write_fzn}

__all__ = ["ROW_WRITERS", "write_fzn", "write_mps", "write_smt2", "write_xcsp3"]
