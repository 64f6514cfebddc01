"""What solver binaries print, read: the SAT and PB competitions' ``s``/``v`` lines, MiniSat's result file, the
solution files of CBC, GLPK and HiGHS, SMT-LIB's ``get-value``, FlatZinc's solution stream, XCSP3's
``<instantiation>`` lines (ACE) and clingo's JSON.

A parser takes the tool's standard output and the text of its ``{out}`` file (empty when it wrote none) and
returns a :class:`ToolOutput`; output it cannot read raises :class:`~harness.errors.BackendError` with one line
saying what was wrong.  A model is the literals of variables ``1..N`` (``-v``: false), or for ASP the shown atoms.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.errors import BackendError


@dataclass
class ToolOutput:
    """What the tool said: ``"sat"``, ``"unsat"`` or ``"unknown"``; the literals of its model (sat); the further
    models of an enumeration (``models``, after the first); ``complete``: the tool says it found every model."""

    result: str
    literals: list = field(default_factory=list)
    models: list[list] = field(default_factory=list)
    complete: bool = False

    def all_models(self) -> list[list]:
        return ([self.literals] if self.literals else []) + self.models


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
                                       "INDETERMINATE": "unknown", "OPTIMUM FOUND": "sat"}, "SAT")
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


def highs_solution(_stdout: str, out: str) -> ToolOutput:
    """HiGHS's solution file (``--solution_file FILE``): ``Model status`` and its value, then under
    ``# Columns N`` one ``name value`` line per column ``x<N>``."""
    lines = out.splitlines()
    if "Model status" not in [line.strip() for line in lines]:
        raise BackendError("the tool wrote no solution file" if not out.strip()
                           else "the solution file has no 'Model status'")
    status = lines[[line.strip() for line in lines].index("Model status") + 1].strip()
    if status == "Infeasible":
        return ToolOutput("unsat")
    if status != "Optimal":
        return ToolOutput("unknown")
    header = next((i for i, line in enumerate(lines) if line.startswith("# Columns ")), None)
    if header is None:
        raise BackendError("the solution file says Optimal but has no '# Columns' section")
    literals = []
    for line in lines[header + 1: header + 1 + int(lines[header].split()[2])]:
        parts = line.split()
        if len(parts) != 2 or not parts[0].startswith("x") or not parts[0][1:].isdigit():
            raise BackendError(f"the solution file has the line {line.strip()[:40]!r}, not a column x<N>")
        v = int(parts[0][1:])
        literals.append(v if _binary(parts[1], parts[0]) else -v)
    return ToolOutput("sat", literals)


_VALUE = re.compile(r"\(\s*x(\d+)\s+(true|false)\s*\)")


def smt_values(stdout: str, _out: str = "") -> ToolOutput:
    """An SMT solver's answer to ``(check-sat)`` (``sat``/``unsat``/``unknown``) and to ``(get-value (x1 ...))``."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    if not lines or lines[0] not in ("sat", "unsat", "unknown"):
        raise BackendError("the tool printed no answer to (check-sat)" if not lines
                           else f"the tool's first line is {lines[0][:40]!r}, not sat/unsat/unknown")
    if lines[0] != "sat":
        return ToolOutput(lines[0])
    rest = " ".join(lines[1:])
    if "(error" in rest:
        raise BackendError(f"the tool says sat but gave no values: {rest[:120]}")
    literals = [int(v) if value == "true" else -int(v) for v, value in _VALUE.findall(rest)]
    if not literals:
        raise BackendError("the tool says sat but printed no values")
    return ToolOutput("sat", literals)


def flatzinc(stdout: str, _out: str = "") -> ToolOutput:
    """FlatZinc's solution stream: ``x = array1d(1..N, [0, 1, ...]);`` then ``----------`` per solution,
    ``==========`` when the search was complete, ``=====UNSATISFIABLE=====``, ``=====UNKNOWN=====``."""
    models, current, complete = [], None, False
    for line in stdout.splitlines():
        line = line.strip()
        if line == "=====UNSATISFIABLE=====":
            return ToolOutput("unsat")
        if line in ("=====UNKNOWN=====", "=====ERROR====="):
            if line == "=====ERROR=====":
                raise BackendError("the tool printed =====ERROR=====")
            return ToolOutput("unknown")
        if line.startswith("x = array1d("):
            inside = line[line.index("[") + 1: line.rindex("]")] if "[" in line and "]" in line else None
            if inside is None:
                raise BackendError(f"the line {line[:40]!r} is no array of values")
            values = _literals(inside.replace(",", " ").split(), "the array x")
            current = [v if x == 1 else -v for v, x in enumerate(values, 1)]
            if any(x not in (0, 1) for x in values):
                raise BackendError("the array x holds a value that is not 0 or 1")
        elif line == "----------":
            if current is None:
                raise BackendError("a solution separator with no values of x before it")
            models.append(current)
            current = None
        elif line == "==========":
            complete = True
    if not models:
        if complete:
            return ToolOutput("unsat")
        raise BackendError("the tool printed no solution and no status")
    return ToolOutput("sat", models[0], models[1:], complete)


_INSTANTIATION = re.compile(r"<values>(.*?)</values>")


def _xcsp_values(text: str) -> list[int]:
    """An XCSP3 value list, compact runs ``0x4`` (0 four times) included, as literals of ``x[0]..``."""
    values = []
    for tok in text.split():
        value, _, times = tok.partition("x")
        try:
            values += [int(value)] * (int(times) if times else 1)
        except ValueError:
            raise BackendError(f"a 'v' line: {tok[:20]!r} is not a value") from None
    if any(x not in (0, 1) for x in values):
        raise BackendError("a 'v' line holds a value that is not 0 or 1")
    return [v if x == 1 else -v for v, x in enumerate(values, 1)]


def xcsp3_competition(stdout: str, _out: str = "") -> ToolOutput:
    """The XCSP3 competition's lines (ACE with ``-xe``): ``v <instantiation> ... <values> 0 1 </values>`` per
    solution, one ``s`` line, ``d COMPLETE EXPLORATION`` when the search was complete."""
    stdout = re.sub(r"\x1b\[[0-9;]*m", "", stdout)  # colours
    models, status, complete = [], None, False
    for line in stdout.splitlines():
        if line.startswith("v ") and "<instantiation" in line:
            found = _INSTANTIATION.search(line)
            if found is None:
                raise BackendError(f"a 'v' line with no <values>: {line[:60]!r}")
            model = _xcsp_values(found.group(1))
            if model not in models:  # the last solution may be printed again at the end
                models.append(model)
        elif line.startswith("s "):
            status = line[2:].strip()
        elif line.strip() == "d COMPLETE EXPLORATION":
            complete = True
    meaning = {"SATISFIABLE": "sat", "OPTIMUM FOUND": "sat", "UNSATISFIABLE": "unsat", "UNKNOWN": "unknown"}
    if status is None:
        raise BackendError("the tool printed no 's' line (no answer)")
    if status not in meaning:
        raise BackendError(f"the tool's 's' line says {status[:40]!r}, which is no XCSP3 answer")
    if meaning[status] != "sat":
        return ToolOutput(meaning[status])
    if not models:
        raise BackendError("the tool says SATISFIABLE but printed no solution")
    return ToolOutput("sat", models[0], models[1:], complete)


def clingo_json(stdout: str, _out: str = "") -> ToolOutput:
    """clingo's (or clasp's) JSON output (``--outf=2``): ``Result``, the ``Value`` atoms of every witness,
    ``Models.More`` (``no``: every answer found)."""
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError as exc:
        raise BackendError(f"the tool's output is not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or "Result" not in data:
        raise BackendError("the tool's JSON has no 'Result'")
    result = {"SATISFIABLE": "sat", "OPTIMUM FOUND": "sat", "UNSATISFIABLE": "unsat",
              "UNKNOWN": "unknown"}.get(data["Result"])
    if result is None:
        raise BackendError(f"the tool's Result is {str(data['Result'])[:40]!r}, no answer clingo gives")
    if result != "sat":
        return ToolOutput(result)
    models = []
    for call in data.get("Call", []):
        for witness in call.get("Witnesses", []):
            value = witness.get("Value")
            if not isinstance(value, list):
                raise BackendError("a witness of the tool's JSON has no list 'Value'")
            models.append([str(a) for a in value])
    if not models:
        raise BackendError("the tool says SATISFIABLE but gave no witness")
    complete = data.get("Models", {}).get("More") == "no"
    return ToolOutput("sat", models[0], models[1:], complete)


PARSERS: dict[str, Callable[[str, str], ToolOutput]] = {
    "sat-competition": sat_competition,
    "minisat": minisat_file,
    "pb-competition": pb_competition,
    "cbc-solution": cbc_solution,
    "glpk-solution": glpk_solution,
    "highs-solution": highs_solution,
    "smt-values": smt_values,
    "flatzinc": flatzinc,
    "xcsp3-competition": xcsp3_competition,
    "clingo-json": clingo_json,
}

__all__ = ["PARSERS", "ToolOutput", "cbc_solution", "clingo_json", "flatzinc", "glpk_solution", "highs_solution",
           "minisat_file", "pb_competition", "sat_competition", "smt_values", "xcsp3_competition"]
