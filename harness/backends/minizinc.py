"""The ``minizinc`` backend: the project's own MiniZinc models of both formulations, run by any FlatZinc solver.

The models are ``mzn/placement.mzn`` and ``mzn/cell.mzn`` (package data next to this
module); their data are written from the shared abstract model, never re-derived.
``build()`` compiles the model and its data once for the chosen solver (``minizinc -c``,
:mod:`harness.backends.flatzinc`); every solver call of the run runs that FlatZinc
(``minizinc --solver ID file.fzn``), so a run flattens the model once.  The ``minizinc``
Python package is imported only by :meth:`MiniZincBackend.versions`; importing this
module imports no solver.

Enumeration (option ``enumeration``, argued in docs/explanation/formulations.md, "MiniZinc models"):

* ``all`` (default): one MiniZinc call with ``--all-solutions`` (count all) or
  ``--num-solutions K`` (count K).  Used only where a solution of the model *is* a
  board: ships may not touch (so a ship-cell set fixes every model variable) and the
  solver has ``-a``/``-n``.  A board seen twice would break that argument and raises
  :class:`~harness.errors.BackendError` rather than being dropped.
* ``blocking``: one call per board; each call runs the one FlatZinc with a clause per
  board found so far, ``bool_clause`` over the output placement literals (``y``, or
  ``w``) of the placements not inside that board's ship cells: every board has the
  fleet's number of ship cells, so a board differs from board ``S`` exactly when one of
  its ships leaves ``S``, whatever its decomposition.  Always used when ships may touch
  (one cell set, several decompositions) or the solver has no ``-a``/``-n``.  No call
  re-flattens the model.

Options and their honest effects:

* ``solver``: any solver MiniZinc finds and can run here (``minizinc --solvers``;
  a MIP wrapper whose library MiniZinc cannot load, or a GUI solver, is refused).
* ``threads`` -> ``--parallel`` and ``seed`` -> ``--random-seed``, each only when the
  solver declares the flag (``-p``/``-r``); otherwise ignored and said in ``detail``.
* time limits: the run's time limit covers ``build()`` (the compilation); each solver
  call gets the remaining time of one :class:`~harness.backends.base.Deadline` less
  ``_MARGIN_S`` (at most half of it) as MiniZinc's ``--time-limit`` (MiniZinc stops
  ~0.2-0.4 s after it); ``UNKNOWN``, or ``SATISFIED`` short of the requested count, is the
  solver's limit.  A call still running at the deadline is cancelled (the MiniZinc process
  is terminated, its solver with it; the boards it already printed are kept) and counted
  as a limit; so is a MiniZinc process ended by a signal (the runner's SIGTERM to the
  process group at its wall limit), any other failure is a BackendError.  The MiniZinc
  processes are children of the worker: its memory limit holds for them.
* solver-reported time: MiniZinc's ``flatTime`` of the one compilation, plus each call's
  ``flatTime`` (reading the FlatZinc) and the solver's ``solveTime`` (None when no call
  reported either).
* model size (``build()``): the ``var`` and ``constraint`` items of the FlatZinc of the
  run's one compilation (part of ``build_s``).
* no search annotation: each solver runs its own default search.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from harness.backends import flatzinc
from harness.backends.base import Answer, Backend, Deadline, ModelSize, Option, Step
from harness.backends.status_tables import MINIZINC
from harness.errors import BackendError, BackendUnavailable, UsageError
from harness.puzzle.board import Board
from harness.puzzle.instance import CELL_SYMBOLS

MZN_DIR = Path(__file__).resolve().parent / "mzn"
_SYM = {t: i + 1 for i, t in enumerate(CELL_SYMBOLS)}  # the cell model's symbols 1..7, in this order
_MODES = MINIZINC.modes
_SIZES: dict[str, ModelSize] = {}  # (solver, formulation, data) -> the size of its FlatZinc, per worker process
_MARGIN_S = 0.3  # MiniZinc stops ~0.2-0.4 s after its --time-limit: it gets this much less

def _mzn():
    try:
        import minizinc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailable(f"cannot import the minizinc package: {exc}") from exc
    if minizinc.default_driver is None:  # pragma: no cover - depends on the environment
        raise BackendUnavailable("the minizinc package found no usable minizinc executable")
    return minizinc


def _exe() -> str:
    exe = shutil.which("minizinc")
    if exe is None:
        raise BackendUnavailable("the minizinc executable is not on PATH")
    return exe


def _unusable(config: dict[str, Any]) -> str | None:
    """Why a solver configuration MiniZinc lists cannot run here (None: it can)."""
    if config.get("isGUIApplication"):
        return "it is a GUI application"
    required = list(config.get("requiredFlags") or [])
    if required or config.get("version") == "<unknown version>":
        flags = f" (it needs {' '.join(required)})" if required else ""
        return f"MiniZinc cannot load its library{flags}"
    return None


@functools.lru_cache(maxsize=1)
def _solver_table() -> tuple[dict[str, list[dict[str, Any]]], tuple[str, ...]]:
    """(name -> solver configurations, short names of the solvers usable here), once per process.

    Asked of the MiniZinc driver itself (``minizinc --solvers-json``), so that checking
    options imports no Python package; a name matches as in ``minizinc --solver NAME``
    and the package's ``Solver.lookup``: a tag, the full id or the id's last part.
    """
    try:
        out = subprocess.run([_exe(), "--solvers-json"], capture_output=True, text=True, timeout=60, check=True)
        configs = json.loads(out.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise BackendUnavailable(f"minizinc --solvers-json failed: {exc}") from exc
    table: dict[str, list[dict[str, Any]]] = {}
    usable: set[str] = set()
    for config in configs:
        short = config["id"].split(".")[-1]
        for name in [*config.get("tags", []), config["id"], short]:
            table.setdefault(name, []).append(config)
        if _unusable(config) is None:
            usable.add(short)
    return table, tuple(sorted(usable))


def _lookup(name: str) -> dict[str, Any]:
    """The solver configuration ``--solver name`` picks (UsageError if none, or if it cannot run here)."""
    table, usable = _solver_table()
    installed = ", ".join(usable) or "none"
    configs = table.get(name)
    if not configs:
        raise UsageError(f"minizinc solver {name!r} is not installed (installed: {installed})")
    why = _unusable(configs[0])
    if why:
        raise UsageError(f"minizinc solver {name!r} cannot run here: {why} (installed: {installed})")
    return configs[0]


def _reported(stats: dict[str, Any]) -> float | None:
    """flatTime + solveTime from one call's statistics (None if neither is there)."""
    parts = [stats.get(k) for k in ("flatTime", "solveTime")]
    parts = [float(p) for p in parts if isinstance(p, (int, float))]
    return sum(parts) if parts else None


class MiniZincBackend(Backend):
    """MiniZinc (own models of ``placement`` and ``cell``) with a FlatZinc solver, default Gecode."""

    name = "minizinc"

    @classmethod
    def solver(cls, opts: dict[str, Any]) -> str:
        """The FlatZinc solver MiniZinc runs (its short name, a key of :meth:`versions`)."""
        return str(opts.get("solver") or "minizinc")
    formulations = ("placement", "cell")
    options = {
        "solver": Option("gecode", str, help="a solver MiniZinc finds (minizinc --solvers): id, id ending or tag"),
        "enumeration": Option(
            "all", str, _MODES,
            "all: one --all-solutions/--num-solutions call (used only without touching and "
            "with a solver that has -a and -n, else blocking); blocking: one call per board",
        ),
    }
    requires = ("minizinc",)
    install = "apt-get install minizinc (the toolchain, with Gecode) and pip install minizinc"

    @classmethod
    def available(cls) -> str | None:
        missing = super().available()
        if missing is None and shutil.which("minizinc") is None:
            return f"backend {cls.name!r} needs the minizinc executable on PATH: {cls.install}"
        return missing

    @classmethod
    def check_options(cls, opts: dict[str, Any]) -> None:
        if cls.available() is not None:
            return  # check_pair reports what is missing
        _lookup(str(opts.get("solver", cls.options["solver"].default)))

    @classmethod
    def versions(cls) -> dict[str, str]:
        mzn = _mzn()
        out = {"minizinc": ".".join(map(str, mzn.default_driver.parsed_version)), "minizinc-python": mzn.__version__}
        table, usable = _solver_table()
        for short in usable:  # the chosen solver is one of these (versions() cannot see options)
            out[short] = table[short][0]["version"]
        return out

    def __init__(self, model, formulation, options=None):
        super().__init__(model, formulation, options)
        self.config: dict[str, Any] = {}  # the chosen solver's configuration (minizinc --solvers-json)
        self.flat: flatzinc.Flat | None = None  # the one compilation of the model and its data
        self.literals: list[str] = []  # its output array y (placement) or w (cell): one literal per placement

    # ------------------------------------------------------------------ build
    def build(self) -> ModelSize:
        self.config = _lookup(self.opts["solver"])
        data = self._placement_data() if self.formulation == "placement" else self._cell_data()
        self.flat = flatzinc.compile_model(_exe(), self.config["id"], MZN_DIR / f"{self.formulation}.mzn", data)
        literals = self.flat.literals("y" if self.formulation == "placement" else "w")
        if literals is not None and len(literals) != len(self.model.placements):
            raise BackendError(f"the FlatZinc has {len(literals)} placement literals for "
                               f"{len(self.model.placements)} placements")
        self.literals = literals or []  # none: the compiler proved the model unsatisfiable
        return self.flat.size()

    @staticmethod
    def _sets(groups) -> list[set[int]]:
        return [{i + 1 for i in g} for g in groups]

    def _cell_id(self, cell) -> int:
        return cell[0] * self.model.cols + cell[1] + 1

    def _common_data(self) -> dict[str, Any]:
        m = self.model
        lines = list(m.lines())
        fleet = sorted(m.fleet.items())
        return {
            "NP": len(m.placements),
            "cover": self._sets(m.cover[cell] for cell in m.cells()),
            "NL": len(fleet),
            "fleet_n": [n for _, n in fleet],
            "by_length": self._sets(m.by_length[L] for L, _ in fleet),
            "NLINES": len(lines),
            "line_cells": [{self._cell_id(c) for c in cells} for _, _, cells, _ in lines],
            "line_clue": [clue for _, _, _, clue in lines],
            "forced_ship": {self._cell_id(c) for c in m.forced_ship},
            "touching": bool(m.instance.touching),
        }

    def _placement_data(self) -> dict[str, Any]:
        m = self.model
        return {
            "NC": m.rows * m.cols,
            **self._common_data(),
            "NW": len(m.windows),
            "window": self._sets(ps for _, ps in m.windows),
        }

    def _cell_data(self) -> dict[str, Any]:
        m = self.model
        pstart, plen, pc_cell, pc_sym = [], [], [], []
        for p in m.placements:
            pstart.append(len(pc_cell) + 1)
            plen.append(len(p.cells))
            pc_cell += [self._cell_id(c) for c in p.cells]
            pc_sym += [_SYM[t] for t in p.pieces]
        hint = [0] * (m.rows * m.cols)
        for cell, h in m.piece_hints.items():
            hint[self._cell_id(cell) - 1] = _SYM[h.value]
        return {
            "R": m.rows,
            "C": m.cols,
            **self._common_data(),
            "pstart": pstart,
            "plen": plen,
            "pc_cell": pc_cell,
            "pc_sym": pc_sym,
            "forced_water": {self._cell_id(c) for c in m.forced_water},
            "piece_hint": hint,
        }

    # -------------------------------------------------------------- enumerate
    def _chosen(self, dzn: str) -> list[int]:
        flags = flatzinc.bool_arrays(dzn).get("y" if self.formulation == "placement" else "w")
        if flags is None or len(flags) != len(self.model.placements):
            raise BackendError(f"MiniZinc printed a solution without its placements: {dzn[:80]!r}")
        return [i for i, v in enumerate(flags) if v]

    def _flags(self) -> tuple[list[str], list[str]]:
        """Solver arguments for threads and seed, and notes on what was ignored."""
        std = set(self.config.get("stdFlags") or ())
        args: list[str] = []
        notes = []
        if "-p" in std:
            args += ["--parallel", str(int(self.opts["threads"]))]
        elif self.opts["threads"] != 1:
            notes.append("threads ignored (no -p)")
        if "-r" in std:
            args += ["--random-seed", str(int(self.opts["seed"]))]
        elif self.opts["seed"]:
            notes.append("seed ignored (no -r)")
        return args, notes

    def _run(self, fzn_text: str, remaining: float | None, on_solution, args: list[str]) -> flatzinc.Outcome:
        """One MiniZinc call on the FlatZinc ``fzn_text``, its own time limit a little under ``remaining``."""
        if remaining is not None:
            own = max(remaining - _MARGIN_S, remaining / 2)
            args = [*args, "--time-limit", str(max(int(own * 1000), 1))]
        return flatzinc.run(_exe(), self.config["id"], fzn_text, args, remaining, on_solution)

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        if self.flat is None:
            self.build()
        deadline = Deadline(time_limit_s)
        std = set(self.config.get("stdFlags") or ())
        mode = self.opts["enumeration"]
        if mode == "all" and (self.model.instance.touching or not {"-a", "-n"} <= std):
            mode = "blocking"  # see the module docstring
        flags, notes = self._flags()
        answer = self._enumerate_all(limit, deadline, flags) if mode == "all" else \
            self._enumerate_blocking(limit, deadline, flags)
        compiled = self.flat.flat_s if self.flat else None
        if compiled is not None:
            answer.solver_reported_s = (answer.solver_reported_s or 0.0) + compiled
        solver = f"{self.config['id']}@{self.config['version']}"
        answer.detail = f"{solver}, {answer.detail}" + "".join(f", {n}" for n in notes)
        return answer

    def _enumerate_all(self, limit: int | None, deadline: Deadline, flags: list[str]) -> Answer:
        boards: list[Board] = []
        seen: set = set()

        def on_solution(dzn: str) -> None:
            board = self.model.board_from(self._chosen(dzn))
            if board.cells in seen:  # would break the one-to-one argument: never drop silently
                raise BackendError("MiniZinc listed one board twice in all-solutions mode")
            seen.add(board.cells)
            boards.append(board)

        remaining = deadline.remaining()
        answer = Answer(boards=boards)
        if remaining is not None and remaining <= 0.0:
            answer.hit_limit = True
            answer.detail = "all: no time left"
            return answer
        more = ["--all-solutions"] if limit is None else ["--num-solutions", str(limit)]
        assert self.flat is not None
        out = self._run(self.flat.text, remaining, on_solution, [*flags, *more])
        meaning = "limit" if out.stopped else MINIZINC.meaning(out.status, "all")
        answer.exhausted = meaning == "exhausted"
        answer.hit_limit = meaning == "limit" or (meaning == "stopped" and (limit is None or len(boards) < limit))
        answer.solver_reported_s = _reported(out.stats)
        how = " ".join(more)
        end = out.stopped or f"status {out.status}"
        answer.detail = f"all: 1 MiniZinc call ({how}), {len(boards)} board(s), {end}"
        return answer

    def _blocking_clause(self, board: Board) -> list[str]:
        """The literals of the placements not inside ``board``'s ship cells: one must be true for another board.

        Every board has the same number of ship cells (the fleet's), so a board differs
        from ``board`` exactly when one of its ships leaves ``board``'s cells.
        """
        cells = set(board.cells)
        return [lit for lit, p in zip(self.literals, self.model.placements) if not set(p.cells) <= cells]

    def _enumerate_blocking(self, limit: int | None, deadline: Deadline, flags: list[str]) -> Answer:
        clauses: list[list[str]] = []
        reported: list[float] = []
        notes: set[str] = set()
        assert self.flat is not None
        flat = self.flat

        def solve_once(remaining: float | None) -> Step:
            found: list[str] = []
            text = flat.with_clauses(clauses) if clauses else flat.text
            out = self._run(text, remaining, found.append, flags)
            seconds = _reported(out.stats)
            if seconds is not None:
                reported.append(seconds)
            if out.stopped:
                notes.add(out.stopped)
            meaning = "limit" if out.stopped else MINIZINC.meaning(out.status, "blocking")
            chosen = self._chosen(found[-1]) if found else None
            if meaning == "board" and chosen is None:
                raise BackendError(f"MiniZinc said {out.status} without a solution")
            return Step(meaning, chosen, seconds or 0.0)

        def block(board: Board) -> None:
            clauses.append(self._blocking_clause(board))

        answer, calls = self.enumerate_by_blocking(limit, deadline, solve_once, block)
        answer.solver_reported_s = sum(reported) if reported else None
        answer.detail = f"blocking: {calls} MiniZinc call(s)" + "".join(f", last {n}" for n in sorted(notes))
        return answer
