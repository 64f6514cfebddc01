"""The ``tool`` backend: any solver binary declared as a tool entry, run on a formulation's standard file.

Like BenchExec runs a tool (:mod:`harness.tools`): one fresh process per call, measured, killed at the limit.

The file is a :class:`~harness.backends.files.SolverFile` of the format the tool reads (DIMACS CNF or WCNF,
OPB, LP, MPS, SMT-LIB, XCSP3, FlatZinc or ASP), in the placement or the cell formulation.  Boards are enumerated
in one of two ways, and the record's detail says which:

* **the tool's own enumeration** (option ``enumeration=own``, the default where the entry declares
  ``enumerate``): one call asks the tool for the ``K`` boards still wanted (all, when counting all); its models
  are decoded and told apart by their ship cells (a formulation whose models are not one-to-one with boards may
  give one board twice).  A tool that says its search is complete has proven there are no more; one that stopped
  at ``K`` models holding fewer distinct boards gets those boards blocked and is called again;
* **blocking** (``enumeration=blocking``, and every tool without ``enumerate``): after each board the file gets
  the constraint that excludes it and the tool runs again on the longer file.

Each call gets what is left of the run's time; a tool that overruns it is killed (SIGTERM to its process group,
SIGKILL a second later) and the run is a timeout (a tool that answers ``unknown``, ``s UNKNOWN``, is a timeout
when it answers at its limit, :func:`at_limit`, and ``unknown`` when it gives up well within it: the SAT
competition's and BenchExec's reading, a run is a timeout when its limit ended it); a tool whose tree goes over the memory limit is a memout, one
that writes more than the run's output cap (``limits.output_mb``, 64 MiB of stdout and stderr) an error with
termination ``output-limit``; whatever ends a call, the tool's whole tree is killed (:mod:`harness.tools.process`)
and its work folder removed (:mod:`harness.core.scratch`).  What the tool prints is read by the entry's parser; output it
cannot read, a model that is not one of the file's (a clause or row it leaves false), a tool that exits without
an answer or cannot be started: each is the run's error with one line saying which.

With the option ``proof`` on (an entry that declares ``proof`` and ``proof_args``, such as the built-in
``cadical``: DRAT), every call writes a proof, blocking enumeration is used, and the call that answers unsat
leaves its file -- the exact CNF, blocking clauses included -- and its proof for the worker's checkers
(:mod:`harness.proofs.stage`); a tool that writes no proof leaves its claim trusted.
"""

from __future__ import annotations

import shutil
import time
from typing import Any

from harness.backends.base import PROOF_OPTION, Answer, Backend, Deadline, ModelSize, Option, ProofFiles, Step
from harness.backends.files import suffix, write_dimacs
from harness.backends.sat import AMO_ENCODINGS, ENCODINGS
from harness.core import scratch
from harness.core.limits import current
from harness.errors import BackendError, OutputLimitError, UsageError
from harness.puzzle.board import Board


AT_LIMIT_SHARE, AT_LIMIT_S = 0.05, 1.0
"""A call that answered within this share of the time it had (at most this many seconds) answered at its limit."""


def at_limit(wall_s: float, given_s: float | None) -> bool:
    """Whether a call that ran ``wall_s`` seconds of the ``given_s`` it had (None: no limit) ended at its limit."""
    return given_s is not None and wall_s >= given_s - min(AT_LIMIT_S, AT_LIMIT_SHARE * given_s)


class ToolBackend(Backend):
    name = "tool"
    library = ""
    formulations = ("placement", "cell")
    options = {
        "tool": Option("cadical", str, None,
                       "the tool entry to run (built in: listed by `battlebench backends`; docs/how-to/solver-binaries.md)"),
        "tool_file": Option("", str, None, "a TOML file of more tool entries ([tools.NAME]; docs/how-to/solver-binaries.md)"),
        "enumeration": Option("own", str, ("own", "blocking"),
                              "own: the tool's own enumeration where its entry declares one, else blocking; "
                              "blocking: exclude each board and run again"),
        "measure": Option("auto", str, ("auto", "runexec", "process"),
                          "what measures and limits each tool process: runexec (BenchExec's cgroups: the whole "
                          "tree's CPU time and peak memory, real limits), process (wait4 and a process group), "
                          "auto: runexec where it can run here, else process"),
        "encoding": Option("seqcounter", str, ENCODINGS, "CardEnc encoding of fleet counts and line clues"),
        "amo": Option("seqcounter", str, AMO_ENCODINGS, "CardEnc encoding of at-most-one constraints"),
        "proof": PROOF_OPTION,
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

        from harness.tools import unusable

        tool = find_tool(opts["tool"], opts["tool_file"] or None)
        missing = tool.missing()
        if missing:
            raise UsageError(missing)
        why = unusable() if opts["measure"] == "runexec" else None
        if why:
            raise UsageError(f"measure=runexec: {why} (measure=process or auto runs without it)")
        if opts.get("proof", "off") != "off" and not tool.proof:
            raise UsageError(f"tool {tool.name!r} declares no proof format (proof = {opts['proof']!r} needs an entry "
                             "with proof and proof_args: docs/how-to/solver-binaries.md)")

    @classmethod
    def proof_format(cls, opts: dict[str, Any]) -> str | None:
        from harness.tools import find_tool

        return find_tool(opts["tool"], opts.get("tool_file") or None).proof or None

    @classmethod
    def tools(cls) -> list[dict[str, Any]]:
        """The built-in tool entries, each with ``missing`` (None when installed, else how to install it)."""
        from harness.tools import builtin_tools

        return [{"name": t.name, "format": t.format, "command": list(t.command), "missing": t.missing(),
                 "enumerates": bool(t.enumerate)} for t in builtin_tools().values()]

    @classmethod
    def measuring(cls) -> str:
        """What measures tool processes here under ``measure=auto``, and why when it is not runexec."""
        from harness.tools import unusable

        why = unusable()
        return "runexec (BenchExec)" if why is None else f"the process path ({why})"

    @classmethod
    def versions(cls) -> dict[str, str]:
        """python-sat's (it writes the CNF), benchexec's where installed, and each built-in tool installed here."""
        from harness.tools import builtin_tools

        out = cls._writer_versions()
        for name, tool in builtin_tools().items():
            if tool.missing() is None:
                out[name] = tool.version_of() or "unknown"
        return out

    @classmethod
    def run_versions(cls, opts: dict[str, Any]) -> dict[str, str]:
        """A run's: python-sat's, benchexec's when it may measure, and the one tool that ran (a user's entry too)."""
        from harness.tools import find_tool

        out = cls._writer_versions(opts.get("measure") != "process")
        tool = find_tool(cls.solver(opts), opts.get("tool_file") or None)
        out[tool.name] = tool.version_of() or "unknown"
        return out

    @staticmethod
    def _writer_versions(measuring: bool = True) -> dict[str, str]:
        import pysat

        from harness.tools import benchexec_version

        out = {"python-sat": pysat.__version__}
        if measuring and benchexec_version():
            out["benchexec"] = benchexec_version()
        return out

    def build(self) -> ModelSize:
        from harness.backends.files import SolverFile
        from harness.tools import find_tool

        self.tool = find_tool(self.opts["tool"], self.opts["tool_file"] or None)
        self.tool_version = self.tool.version_of()
        encoding = {k: self.opts[k] for k in ("encoding", "amo", "seed")}
        self.file = SolverFile(self.model, self.formulation, self.tool.format, encoding)
        self.layer = self._layer()
        return self.file.size()

    def _layer(self) -> str:
        from harness.tools import unusable

        if self.opts["measure"] == "process":
            return "process"
        why = unusable()
        if why and self.opts["measure"] == "runexec":
            raise BackendError(f"measure=runexec: {why}")
        return "process" if why else "runexec"

    @staticmethod
    def _memory_limit_mb() -> int | None:
        """The run's memory limit, as the worker set it (its address-space limit)."""
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        return None if soft == resource.RLIM_INFINITY else max(1, soft // (1024 * 1024))

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        deadline = Deadline(time_limit_s)
        self.parse = self.tool.parse
        self.work = scratch.folder(self.tool.name)  # removed below, or with the worker's root whatever ends the run
        self.given = self.work / f"input.{suffix(self.tool.format)}"
        self.out = self.work / "answer.txt"
        self._calls, self._models, self._tool_cpu, self._tool_wall, self._write_s = 0, 0, 0.0, 0.0, 0.0
        self._peak_mb, self._at_limit = 0.0, False
        self._proving, self._proof = self.opts.get("proof", "off") != "off", None
        own = self.opts["enumeration"] == "own" and bool(self.tool.enumerate) and not self._proving
        try:
            if own:
                answer, calls = self._enumerate_own(limit, deadline)
                asked = " ".join(self.tool.enumerate).replace("{k}", "K")
                how = f"the tool's own enumeration ({asked}), {calls} runs, {self._models} models"
                if limit is None and not self.file.one_to_one:
                    how += " (one per run, each board blocked: in this formulation a board has many models)"
            else:
                answer, calls = self.enumerate_by_blocking(limit, deadline, self._solve_once, self._block)
                how = f"{calls} runs, blocking each board and running again"
        finally:
            shutil.rmtree(self.work, ignore_errors=True)
        answer.proof = self._proof if answer.exhausted else None
        answer.solver_reported_s = None  # the tool's own figures are not read; its CPU time is in the detail
        version = f" {self.tool_version}" if self.tool_version else ""
        answer.detail = (f"{self.tool.name}{version} ({self.tool.origin}): {self.tool.format.upper()}, {how}; "
                         f"files written in {self._write_s:.3f} s, the tool ran {self._tool_wall:.3f} s wall, "
                         f"{self._tool_cpu:.3f} s CPU, peak memory {self._peak_mb:.1f} MB{self._peak_by()}; "
                         f"{self._measured_by()}")
        return answer

    def _measured_by(self) -> str:
        from harness.tools import benchexec_version

        if self.layer == "runexec":
            return (f"measured by runexec (BenchExec {benchexec_version()}; cgroups: CPU time and peak memory of "
                    "the whole process tree)")
        return ("measured by the process path (wait4: CPU time of the tool and the children it waited for; the "
                "tree's resident memory sampled, its whole tree killed at the end of each call)")

    def _peak_by(self) -> str:
        from harness.tools.process import SAMPLE_S

        return "" if self.layer == "runexec" else f" (the tree's summed RSS, sampled every {SAMPLE_S * 1000:.0f} ms)"

    def _call(self, remaining: float | None, k: int | None = None, own: bool = False) -> Any:
        """One run of the tool on the file as it is now: what it said (None when its time limit ended it)."""
        from harness.tools import run_measured, run_tool

        t0 = time.perf_counter()
        self.file.write(self.given)
        self.out.unlink(missing_ok=True)
        self._write_s += time.perf_counter() - t0
        proof = self.work / f"proof.{self.tool.proof}" if self._proving else None
        if proof is not None:
            proof.unlink(missing_ok=True)
        argv = self.tool.argv(self.given, self.out, self.opts["seed"], self.tool.enumerate_args(k) if own else None,
                              proof)
        output_mb = current().output_mb
        cap = None if output_mb is None else output_mb * 1024 * 1024
        if self.layer == "runexec":
            ran = run_measured(argv, remaining, self._memory_limit_mb(), self.work, cap)
        else:
            ran = run_tool(argv, remaining, self.work, self._memory_limit_mb(), cap)
        self._calls += 1
        self._tool_cpu += ran.cpu_s
        self._tool_wall += ran.wall_s
        self._at_limit = at_limit(ran.wall_s, remaining)
        self._peak_mb = max(self._peak_mb, ran.peak_mb or 0.0)
        if ran.output_over is not None:
            raise OutputLimitError(f"tool {self.tool.name!r} wrote more than the run's output cap ({output_mb} MiB of "
                                   f"stdout and stderr): stopped at {ran.output_over:,} bytes seen")
        if ran.memout:
            how = (f"runexec: terminationreason={ran.reason}" if self.layer == "runexec" else
                   "process path: the tree's summed RSS, sampled" if (ran.peak_mb or 0) > self._memory_limit_mb()
                   else "process path: it failed to allocate at its address-space backstop")
            raise MemoryError(f"tool {self.tool.name!r} went over the memory limit ({self._memory_limit_mb()} MB; "
                              f"{how}, peak {ran.peak_mb or 0:.0f} MB)")
        if ran.timed_out:
            return None
        text = self.out.read_text(errors="replace") if self.out.exists() else ""
        try:
            return self.parse(ran.stdout, text)
        except BackendError as exc:
            said_last = ran.stderr.strip() or ran.stdout.strip()  # its last words, on stderr or else stdout
            tail = said_last.splitlines()[-1:] if said_last else []
            raise BackendError(f"tool {self.tool.name!r} (exit code {ran.returncode}): {exc}"
                               + (f"; it said: {tail[0][:200]}" if tail else "")) from None

    def _solve_once(self, remaining: float | None) -> Step:
        said = self._call(remaining)
        if said is None or (said.result == "unknown" and self._at_limit):
            return Step("limit")
        if said.result == "unknown":
            return Step("unknown")
        if said.result == "unsat":
            self._keep_proof()
            return Step("exhausted")
        self._models += 1
        return Step("board", self.file.decode(said.literals, f"tool {self.tool.name!r}"))

    def _keep_proof(self) -> None:
        """With ``proof`` on: the file the tool just called unsat and the proof it wrote of it, moved out of the
        work folder (removed at the end of the run) into a folder of the proof's own; no proof written: none."""
        proof = self.work / f"proof.{self.tool.proof}"
        if not self._proving or not proof.exists():
            return
        folder = scratch.folder("proof")
        cnf, kept = folder / "solved.cnf", folder / proof.name
        shutil.move(self.given, cnf)
        shutil.move(proof, kept)
        self._proof = ProofFiles(cnf, kept, self.tool.proof, folder)

    def _block(self, board: Board) -> None:
        self.file.block(board.cells)

    def _enumerate_own(self, limit: int | None, deadline: Deadline) -> tuple[Answer, int]:
        """Ask the tool for the boards still wanted; tell its models apart by ship cells; block and ask again
        only when it stopped at the count asked with fewer distinct boards."""
        answer, calls = Answer(), 0
        seen: set[frozenset] = set()
        while limit is None or len(answer.boards) < limit:
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0.0:
                answer.hit_limit = True
                break
            if limit is not None:
                k = limit - len(answer.boards)
            else:  # all: at once where models are boards; else one at a time (one board may have many models)
                k = None if self.file.one_to_one else 1
            said = self._call(remaining, k, own=True)
            calls += 1
            if said is None:
                answer.hit_limit = True
                break
            new = []
            for model in said.all_models():
                self._models += 1
                board = self.model.board_from(self.file.decode(model, f"tool {self.tool.name!r}"))
                if board.cells not in seen:
                    seen.add(board.cells)
                    new.append(board)
            answer.boards += new
            if said.result == "unsat" or said.complete:
                answer.exhausted = True
                break
            if said.result == "unknown":
                answer.hit_limit = self._at_limit  # else it gave up within its limit: the run is unknown
                break
            if not new:
                raise BackendError(f"tool {self.tool.name!r}: it stopped short of a complete search with no board "
                                   "not already excluded")
            for board in new:
                self.file.block(board.cells)
        if limit is not None and len(answer.boards) > limit:  # a tool that gave more than asked
            answer.boards, answer.exhausted = answer.boards[:limit], False
        return answer, calls


__all__ = ["ToolBackend", "write_dimacs"]
