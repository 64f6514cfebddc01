"""What solver binaries print, read: the SAT and PB competitions' ``s``/``v`` lines and MiniSat's result file.

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


PARSERS: dict[str, Callable[[str, str], ToolOutput]] = {
    "sat-competition": sat_competition,
    "minisat": minisat_file,
    "pb-competition": pb_competition,
}

__all__ = ["PARSERS", "ToolOutput", "minisat_file", "pb_competition", "sat_competition"]
