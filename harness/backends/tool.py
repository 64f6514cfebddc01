"""The ``tool`` backend: any solver binary declared as a tool entry, run on a formulation's standard file.

Like BenchExec runs a tool (:mod:`harness.tools`): one fresh process per call, measured, killed at the limit.

The formulations are the ``sat`` backend's CNF (placement and cell, the same encoding options), written as
DIMACS with its ``p cnf`` header.  Boards are enumerated by blocking and running again: after each board the
clause ``OR_{c in S} not s_c`` is appended and the tool runs on the longer file (the record's detail says so, and
how many calls it took).  Each call gets what is left of the run's time; a tool that overruns it is killed
(SIGTERM to its process group, SIGKILL a second later) and the run is a timeout.  What the tool prints is read
by the entry's parser; output it cannot read, a model that is not one of the CNF's (a clause it leaves false),
a tool that exits without an answer or cannot be started: each is the run's error with one line saying which.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.backends.base import Answer, Deadline, ModelSize, Option, Step
from harness.backends.sat import AMO_ENCODINGS, ENCODINGS, SatBackend
from harness.errors import BackendError, UsageError
from harness.puzzle.board import Board


def write_dimacs(path: Path, variables: int, clauses: list[list[int]], comments: tuple[str, ...] = ()) -> None:
    """A DIMACS CNF file with its ``p cnf`` header (some solvers reject a file without it)."""
    with open(path, "w") as f:
        f.writelines(f"c {line}\n" for line in comments)
        f.write(f"p cnf {variables} {len(clauses)}\n")
        f.writelines(" ".join(map(str, clause)) + " 0\n" for clause in clauses)


class ToolBackend(SatBackend):
    name = "tool"
    library = ""
    formulations = ("placement", "cell")
    options = {
        "tool": Option("cadical", str, None, "the tool entry to run (built in: cadical, cryptominisat5, minisat, "
                                             "picosat, clasp on CNF; minisat-plus, clasp-opb on OPB; cbc, "
                                             "glpsol on LP)"),
        "tool_file": Option("", str, None, "a TOML file of more tool entries ([tools.NAME]; docs/tools.md)"),
        "encoding": Option("seqcounter", str, ENCODINGS, "CardEnc encoding of fleet counts and line clues"),
        "amo": Option("seqcounter", str, AMO_ENCODINGS, "CardEnc encoding of at-most-one constraints"),
    }
    requires = ("pysat",)
    install = "pip install python-sat"

    @classmethod
    def solver(cls, opts: dict[str, Any]) -> str:
        return opts.get("tool") or cls.options["tool"].default

    @classmethod
    def available(cls) -> str | None:
        """python-sat (it writes the CNF) and the default tool installed; other tools are checked when named."""
        from harness.tools import find_tool

        return super().available() or find_tool(cls.options["tool"].default).missing()

    @classmethod
    def check_options(cls, opts: dict[str, Any]) -> None:
        from harness.tools import find_tool

        tool = find_tool(opts["tool"], opts["tool_file"] or None)
        missing = tool.missing()
        if missing:
            raise UsageError(missing)

    @classmethod
    def tools(cls) -> list[dict[str, Any]]:
        """The built-in tool entries, each with ``missing`` (None when installed, else how to install it)."""
        from harness.tools import builtin_tools

        return [{"name": t.name, "format": t.format, "command": list(t.command), "missing": t.missing()}
                for t in builtin_tools().values()]

    @classmethod
    def versions(cls) -> dict[str, str]:
        """python-sat's (it writes the CNF) and each built-in tool installed here."""
        import pysat

        from harness.tools import builtin_tools

        out = {"python-sat": pysat.__version__}
        for name, tool in builtin_tools().items():
            if tool.missing() is None:
                out[name] = tool.version_of() or "unknown"
        return out

    def build(self) -> ModelSize:
        from harness.backends.pb import PbRows, placement_rows
        from harness.tools import find_tool

        self.tool = find_tool(self.opts["tool"], self.opts["tool_file"] or None)
        self.tool_version = self.tool.version_of()
        self.pb = None
        if self.tool.format in ("opb", "lp") and self.formulation == "placement":
            self.pb = placement_rows(self.model)  # native pseudo-Boolean rows
            return ModelSize(variables=self.pb.variables, constraints=len(self.pb.rows))
        self.encode()
        if self.tool.format in ("opb", "lp"):  # the cell formulation's CNF, clause by clause as rows
            self.pb = PbRows()
            self.pb.variables = self.sat_pool.top
            for clause in self.sat_clauses:
                self.pb.clause(clause)
        return ModelSize(variables=self.sat_pool.top, constraints=len(self.sat_clauses))

    def _write(self, path: Path) -> None:
        from harness.backends.pb import write_lp, write_opb

        if self.pb is not None:
            (write_lp if self.tool.format == "lp" else write_opb)(path, self.pb)
        else:
            write_dimacs(path, self.sat_pool.top, self.sat_clauses)

    def _block(self, board: Board) -> None:
        from harness.backends.pb import block_placement_board

        if self.pb is not None and self.pb.placement_var:
            block_placement_board(self.pb, self.model, board.cells)
        elif self.pb is not None:
            self.pb.clause([-self.sat_s[c] for c in board.cells])
        else:
            self.sat_clauses.append([-self.sat_s[c] for c in board.cells])

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        from harness.tools import PARSERS, run_tool

        deadline = Deadline(time_limit_s)
        parse = PARSERS[self.tool.output]
        work = Path(tempfile.mkdtemp(prefix=f"battlebench-{self.tool.name}-"))
        given, out = work / f"input.{self.tool.format}", work / "answer.txt"
        self._calls, self._tool_cpu = 0, 0.0

        self._write_s = self._tool_wall = 0.0

        def solve_once(remaining: float | None) -> Step:
            t0 = time.perf_counter()
            self._write(given)
            out.unlink(missing_ok=True)
            self._write_s += time.perf_counter() - t0
            ran = run_tool(self.tool.argv(given, out, self.opts["seed"]), remaining, work)
            self._calls += 1
            self._tool_cpu += ran.cpu_s
            self._tool_wall += ran.wall_s
            if ran.timed_out:
                return Step("limit")
            text = out.read_text(errors="replace") if out.exists() else ""
            try:
                said = parse(ran.stdout, text)
            except BackendError as exc:
                said_last = ran.stderr.strip() or ran.stdout.strip()  # its last words, on stderr or else stdout
                tail = said_last.splitlines()[-1:] if said_last else []
                raise BackendError(f"tool {self.tool.name!r} (exit code {ran.returncode}): {exc}"
                                   + (f"; it said: {tail[0][:200]}" if tail else "")) from None
            if said.result == "unsat":
                return Step("exhausted")
            if said.result == "unknown":
                return Step("limit")
            return Step("board", self._decode(said.literals))

        try:
            answer, calls = self.enumerate_by_blocking(limit, deadline, solve_once, self._block)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        answer.solver_reported_s = None  # the tool's own figures are not read; its CPU time is in the detail
        version = f" {self.tool_version}" if self.tool_version else ""
        answer.detail = (f"{self.tool.name}{version} ({self.tool.origin}): {self.tool.format.upper()}, {calls} runs, "
                         f"blocking each board and running again; files written in {self._write_s:.3f} s, "
                         f"the tool ran {self._tool_wall:.3f} s wall, {self._tool_cpu:.3f} s CPU")
        return answer

    def _decode(self, literals: list[int]) -> list[int]:
        """The placements of a model, after checking it meets every clause (or row) of the file."""
        true = set()
        top = self.pb.variables if self.pb is not None else self.sat_pool.top
        for lit in literals:
            if lit == 0 or abs(lit) > top:
                raise BackendError(f"tool {self.tool.name!r}: its model has literal {lit}, outside the file's "
                                   f"{top} variables")
            if lit > 0:
                true.add(lit)
        if self.pb is not None:
            row = self.pb.violated(true)
            if row is not None:
                raise BackendError(f"tool {self.tool.name!r}: its model breaks the row {list(row[0])[:6]} >= "
                                   f"{row[1]} (not a model of the file)")
            if self.pb.placement_var:
                return sorted(p for p, v in self.pb.placement_var.items() if v in true)
        else:
            for clause in self.sat_clauses:
                if not any((lit > 0) == (abs(lit) in true) for lit in clause):
                    raise BackendError(f"tool {self.tool.name!r}: its model leaves the clause {clause[:8]} false "
                                       "(not a model of the CNF)")
        return sorted(p for p, v in self.sat_w.items() if v in true)


__all__ = ["ToolBackend", "write_dimacs"]
