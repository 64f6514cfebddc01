"""What solver binaries print, read: the SAT and PB competitions' ``s``/``v`` lines, MiniSat's result file, and
the solution files of CBC and GLPK.

A parser takes the tool's standard output and the text of its ``{out}`` file (empty when it wrote none) and
returns a :class:`ToolOutput`; output it cannot read raises :class:`~harness.errors.BackendError` with one line
saying what was wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from harness.errors import BackendError


@dataclass
class ToolOutput:
    """What the tool said: ``"sat"``, ``"unsat"`` or ``"unknown"``, and the literals of its model (sat)."""

    result: str
    literals: list[int] = field(default_factory=list)


def _literals(tokens: list[str], where: str) -> list[int]:
    out = []
    for tok in tokens:
        try:
            out.append(int(tok))
        except ValueError:
            raise BackendError(f"{where}: {tok[:20]!r} is not a literal") from None
    if out and out[-1] == 0:
        out.pop()
    return out


def _s_and_v(stdout: str, table: dict[str, str], kind: str) -> tuple[str, list[str]]:
    """The competitions' shared lines: the one ``s`` line (its meaning by ``table``) and the ``v`` lines' tokens."""
    status, tokens = None, []
    for line in stdout.splitlines():
        if line.startswith("s "):
            if status is not None:
                raise BackendError("the tool printed two 's' lines")
            status = line[2:].strip()
        elif line.startswith("v ") or line == "v":
            tokens += line[1:].split()
    if status is None:
        raise BackendError("the tool printed no 's' line (no answer)")
    if status not in table:
        raise BackendError(f"the tool's 's' line says {status[:40]!r}, which is no {kind} answer")
    return table[status], tokens


def sat_competition(stdout: str, _out: str = "") -> ToolOutput:
    """``s SATISFIABLE`` / ``s UNSATISFIABLE`` / ``s UNKNOWN`` and the model on ``v`` lines."""
    status, tokens = _s_and_v(stdout, {"SATISFIABLE": "sat", "UNSATISFIABLE": "unsat", "UNKNOWN": "unknown",
                                       "INDETERMINATE": "unknown"}, "SAT")
    out = ToolOutput(status)
    if out.result == "sat":
        out.literals = _literals(tokens, "a 'v' line")
        if not out.literals:
            raise BackendError("the tool says SATISFIABLE but printed no model")
    return out


def minisat_file(_stdout: str, out: str) -> ToolOutput:
    """MiniSat's result file: ``SAT`` and the model's literals, ``UNSAT``, or ``INDET``."""
    lines = out.split("\n", 1)
    head = lines[0].strip()
    if head == "UNSAT":
        return ToolOutput("unsat")
    if head == "INDET":
        return ToolOutput("unknown")
    if head != "SAT":
        raise BackendError("the tool wrote no result file" if not out.strip()
                           else f"the result file begins {head[:20]!r}, not SAT/UNSAT/INDET")
    literals = _literals(lines[1].split() if len(lines) > 1 else [], "the result file")
    if not literals:
        raise BackendError("the result file says SAT but holds no model")
    return ToolOutput("sat", literals)


def pb_competition(stdout: str, _out: str = "") -> ToolOutput:
    """The PB competition's lines: ``s SATISFIABLE`` (or ``OPTIMUM FOUND``) / ``s UNSATISFIABLE`` / ``s UNKNOWN``,
    the model on ``v`` lines as ``x3 -x5`` (a ``-`` or ``~`` marks a false variable)."""
    status, tokens = _s_and_v(stdout, {"SATISFIABLE": "sat", "OPTIMUM FOUND": "sat", "UNSATISFIABLE": "unsat",
                                       "UNKNOWN": "unknown"}, "PB")
    out = ToolOutput(status)
    if out.result != "sat":
        return out
    for tok in tokens:
        negated = tok[:1] in "-~"
        name = tok[1:] if negated else tok
        if not name.startswith("x") or not name[1:].isdigit() or int(name[1:]) == 0:
            raise BackendError(f"a 'v' line: {tok[:20]!r} is not a variable x<N>")
        out.literals.append(-int(name[1:]) if negated else int(name[1:]))
    if not out.literals:
        raise BackendError("the tool says SATISFIABLE but printed no model")
    return out


def _binary(value: str, name: str) -> bool:
    try:
        x = float(value)
    except ValueError:
        raise BackendError(f"the solution gives {name} the value {value[:20]!r}, not a number") from None
    if abs(x - round(x)) > 1e-6 or round(x) not in (0, 1):
        raise BackendError(f"the solution gives {name} the value {value}, not 0 or 1")
    return round(x) == 1


def cbc_solution(_stdout: str, out: str) -> ToolOutput:
    """CBC's solution file (``solu FILE``): a status line, then ``index name value reduced-cost`` per column."""
    lines = out.splitlines()
    if not lines:
        raise BackendError("the tool wrote no solution file")
    head = lines[0].strip()
    if head.startswith(("Infeasible", "Integer infeasible")):
        return ToolOutput("unsat")
    if head.startswith(("Stopped", "Time limit")):
        return ToolOutput("unknown")
    if not head.startswith("Optimal"):
        raise BackendError(f"the solution file begins {head[:40]!r}, no status CBC writes")
    literals = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) < 3 or not parts[1].startswith("x") or not parts[1][1:].isdigit():
            raise BackendError(f"the solution file has the line {line.strip()[:40]!r}, not a column x<N>")
        v = int(parts[1][1:])
        literals.append(v if _binary(parts[2], parts[1]) else -v)
    return ToolOutput("sat", literals)


def glpk_solution(_stdout: str, out: str) -> ToolOutput:
    """GLPK's solution file (``-w FILE``): ``s mip ROWS COLS STATUS OBJ``, then ``j COL VALUE`` per column (its
    columns are ``x1..xN`` in that order: the LP file names them so in its objective)."""
    status, literals = None, []
    for line in out.splitlines():
        parts = line.split()
        if parts[:2] == ["s", "mip"] and len(parts) >= 5:
            status = parts[4]
        elif parts[:1] == ["j"] and len(parts) >= 3:
            if not parts[1].isdigit():
                raise BackendError(f"the solution file has the line {line.strip()[:40]!r}")
            literals.append(int(parts[1]) if _binary(parts[2], f"column {parts[1]}") else -int(parts[1]))
    if status is None:
        raise BackendError("the tool wrote no solution file" if not out.strip()
                           else "the solution file has no 's mip' line")
    meaning = {"o": "sat", "f": "sat", "n": "unsat", "u": "unknown"}.get(status)
    if meaning is None:
        raise BackendError(f"the solution file's status {status[:10]!r} is none GLPK writes")
    if meaning != "sat":
        return ToolOutput(meaning)
    if not literals:
        raise BackendError("the solution file says feasible but holds no column values")
    return ToolOutput("sat", literals)


PARSERS: dict[str, Callable[[str, str], ToolOutput]] = {
    "sat-competition": sat_competition,
    "minisat": minisat_file,
    "pb-competition": pb_competition,
    "cbc-solution": cbc_solution,
    "glpk-solution": glpk_solution,
}

__all__ = ["PARSERS", "ToolOutput", "cbc_solution", "glpk_solution", "minisat_file", "pb_competition",
           "sat_competition"]
