"""The ``minizinc`` backend: the project's own MiniZinc models of both formulations, run by any FlatZinc solver.

The models are ``mzn/placement.mzn`` and ``mzn/cell.mzn`` (package data next to this
module); their data are written from the shared abstract model, never re-derived.
The ``minizinc`` Python package (the driver of the ``minizinc`` executable) is
imported lazily inside methods; importing this module imports no solver.

Enumeration (option ``enumeration``, argued in docs/explanation/formulations.md, "MiniZinc models"):

* ``all`` (default): one MiniZinc call with ``--all-solutions`` (count all) or
  ``--num-solutions K`` (count K).  Used only where a solution of the model *is* a
  board: ships may not touch (so a ship-cell set fixes every model variable) and the
  solver has ``-a``/``-n``.  A board seen twice would break that argument and raises
  :class:`~harness.errors.BackendError` rather than being dropped.
* ``blocking``: one call per board; each call is a ``branch()`` of the built instance
  whose data ``blocked`` lists the ship-cell sets found so far, and the model excludes
  each (``Σ_{c∈S} s_c ≤ |S| − 1``).  Always used when ships may touch (one cell set,
  several decompositions) or the solver has no ``-a``/``-n``.  Every call re-flattens
  the model (MiniZinc has no incremental interface).

Options and their honest effects:

* ``solver``: any solver MiniZinc finds and can run here (``minizinc --solvers``;
  a MIP wrapper whose library MiniZinc cannot load, or a GUI solver, is refused).
* ``threads`` -> ``--parallel`` and ``seed`` -> ``--random-seed``, each only when the
  solver declares the flag (``-p``/``-r``); otherwise ignored and said in ``detail``.
* time limits: each call gets the remaining time of one
  :class:`~harness.backends.base.Deadline` less ``_MARGIN_S`` (at most half of it) as
  MiniZinc's ``--time-limit`` (compilation included; MiniZinc stops ~0.2-0.4 s after it);
  ``UNKNOWN``, or ``SATISFIED`` short of the requested count, is the solver's limit.  A
  call still running at the deadline is cancelled (the MiniZinc process is terminated,
  its solver with it; the boards it already printed are kept) and counted as a limit;
  so is a MiniZinc process ended by a signal (the runner's SIGTERM to the process group
  at its wall limit), any other failure is a BackendError.
* solver-reported time: MiniZinc's ``flatTime`` + the solver's ``solveTime``, summed
  over calls (None when no call reported either).
* model size (``build()``): the ``var`` and ``constraint`` items of the FlatZinc of one
  compilation of the model and its data (no board blocked); that compilation, and the
  model-interface call the minizinc package makes, are part of ``build_s``.  The same
  model, data and solver compile to the same FlatZinc: a worker compiles them for the
  size once and remembers it (:data:`_SIZES`; a conformance run asks three times).
* no search annotation: each solver runs its own default search.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import shutil
import signal
import subprocess
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any

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


@functools.lru_cache(maxsize=1)
def _driver() -> Any:
    """The package's default driver from now on, remembering the last MiniZinc process it started.

    It is made the default (``make_default()``) because ``Instance.branch()`` children
    always use the default driver.  Only to tell a MiniZinc process ended by a signal from outside (the runner's SIGTERM
    to the process group at its wall limit: a limit, boards found so far kept) from a
    failure; the minizinc package raises the same error for both.  It overrides the
    package's ``Driver._create_process`` (not public API): should that change, nothing
    is recorded and such a stop is reported as a failure (BackendError).
    """
    mzn = _mzn()

    class RecordingDriver(mzn.Driver):
        last_process: Any = None

        async def _create_process(self, *args: Any, **kwargs: Any) -> Any:
            proc = await super()._create_process(*args, **kwargs)
            self.last_process = proc
            return proc

    driver = RecordingDriver(mzn.default_driver.executable)
    driver.make_default()
    return driver


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
    exe = shutil.which("minizinc")
    if exe is None:
        raise BackendUnavailable("the minizinc executable is not on PATH")
    try:
        out = subprocess.run([exe, "--solvers-json"], capture_output=True, text=True, timeout=60, check=True)
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


def _fzn_size(fzn: str) -> ModelSize:
    """Variables and constraints of a FlatZinc text: its ``var`` and ``constraint`` items.

    (The minizinc package's ``flat()`` statistics come back empty with 0.10 and
    MiniZinc 2.6, which print them as JSON, so the FlatZinc itself is counted.)
    """
    variables = constraints = 0
    for line in fzn.splitlines():
        if line.startswith("var "):
            variables += 1
        elif line.startswith("constraint "):
            constraints += 1
    return ModelSize(variables=variables, constraints=constraints)


@contextlib.contextmanager
def _quiet():
    """Silence MiniZinc's warnings (stdlib overrides in Gecode's library, 'model
    inconsistency detected' on unsat data): they are not errors, and a status says it all."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=_mzn().error.MiniZincWarning)
        yield


def _seconds(stat: Any) -> float | None:
    if stat is None:
        return None
    if isinstance(stat, timedelta):
        return stat.total_seconds()
    try:
        return float(stat)
    except (TypeError, ValueError):
        return None


def _reported(stats: dict[str, Any]) -> float | None:
    """flatTime + solveTime from one call's statistics (None if neither is there)."""
    parts = [_seconds(stats.get(k)) for k in ("flatTime", "solveTime")]
    parts = [p for p in parts if p is not None]
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
        self.mzn_instance: Any = None  # minizinc.Instance with the model and its static data
        self.mzn_solver: Any = None

    # ------------------------------------------------------------------ build
    def build(self) -> ModelSize:
        mzn = _mzn()
        _lookup(self.opts["solver"])
        driver = _driver()
        try:
            self.mzn_solver = mzn.Solver.lookup(self.opts["solver"], driver=driver)
        except LookupError as exc:  # pragma: no cover - the same list _lookup read
            raise BackendError(f"the minizinc package cannot find solver {self.opts['solver']!r}: {exc}") from exc
        data = self._placement_data() if self.formulation == "placement" else self._cell_data()
        try:
            inst = mzn.Instance(self.mzn_solver, mzn.Model(MZN_DIR / f"{self.formulation}.mzn"), driver)
            for key, value in data.items():
                inst[key] = value
            known = json.dumps([self.opts["solver"], self.formulation, data], sort_keys=True, default=sorted)
            size = _SIZES.get(known)
            if size is None:
                with inst.branch() as child, _quiet():  # compile once (no board blocked) for the size
                    child["NB"] = 0
                    child["blocked"] = []
                    with child.flat() as (fzn, _ozn, _stats):
                        size = _SIZES[known] = _fzn_size(Path(fzn.name).read_text())
        except mzn.MiniZincError as exc:
            raise BackendError(f"MiniZinc could not compile the {self.formulation} model: {exc}") from exc
        self.mzn_instance = inst
        return size

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
    def _chosen(self, solution: Any) -> list[int]:
        flags = solution.y if self.formulation == "placement" else solution.w
        return [i for i, v in enumerate(flags) if v]

    def _flags(self) -> tuple[dict[str, Any], list[str]]:
        """Solver keyword arguments for threads and seed, and notes on what was ignored."""
        std = set(self.mzn_solver.stdFlags or ())
        kwargs: dict[str, Any] = {}
        notes = []
        if "-p" in std:
            kwargs["processes"] = int(self.opts["threads"])
        elif self.opts["threads"] != 1:
            notes.append("threads ignored (no -p)")
        if "-r" in std:
            kwargs["random_seed"] = int(self.opts["seed"])
        elif self.opts["seed"]:
            notes.append("seed ignored (no -r)")
        return kwargs, notes

    def _run(self, child: Any, remaining: float | None, on_solution, **kwargs) -> tuple[Any, dict[str, Any], str]:
        """One MiniZinc call; ``on_solution(solution)`` for each solution as it arrives.

        Returns (final status, merged statistics, why it was stopped early: ``""`` if it
        was not, ``"cancelled at the deadline"``, or ``"killed by SIGTERM"`` when a signal
        from outside, such as the runner's at its wall limit, ended the MiniZinc process).
        """
        mzn = _mzn()
        driver = _driver()
        if remaining is not None:
            own = max(remaining - _MARGIN_S, remaining / 2)
            kwargs["time_limit"] = timedelta(milliseconds=max(int(own * 1000), 1))
        state: dict[str, Any] = {"status": mzn.Status.UNKNOWN, "stats": {}}

        async def go() -> None:
            async for result in child.solutions(intermediate_solutions=False, **kwargs):
                state["status"] = result.status
                state["stats"].update(result.statistics or {})
                if result.solution is not None:
                    on_solution(result.solution)

        async def bounded() -> str:
            if remaining is None:
                await go()
                return ""
            try:
                await asyncio.wait_for(go(), remaining)  # cancelling terminates MiniZinc
            except asyncio.TimeoutError:
                return "cancelled at the deadline"
            return ""

        driver.last_process = None
        try:
            with _quiet():
                stopped = asyncio.run(bounded())
        except mzn.MiniZincError as exc:
            code = getattr(driver.last_process, "returncode", None)
            if code is None or code >= 0:
                raise BackendError(f"MiniZinc failed: {exc}") from exc
            try:
                stopped = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                stopped = f"killed by signal {-code}"
        return state["status"], state["stats"], stopped

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        _mzn()
        if self.mzn_instance is None:
            self.build()
        deadline = Deadline(time_limit_s)
        std = set(self.mzn_solver.stdFlags or ())
        mode = self.opts["enumeration"]
        if mode == "all" and (self.model.instance.touching or not {"-a", "-n"} <= std):
            mode = "blocking"  # see the module docstring
        flags, notes = self._flags()
        answer = self._enumerate_all(limit, deadline, flags) if mode == "all" else \
            self._enumerate_blocking(limit, deadline, flags)
        solver = f"{self.mzn_solver.id}@{self.mzn_solver.version}"
        answer.detail = f"{solver}, {answer.detail}" + "".join(f", {n}" for n in notes)
        return answer

    def _enumerate_all(self, limit: int | None, deadline: Deadline, flags: dict[str, Any]) -> Answer:
        boards: list[Board] = []
        seen: set = set()

        def on_solution(solution: Any) -> None:
            board = self.model.board_from(self._chosen(solution))
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
        with self.mzn_instance.branch() as child:
            child["NB"] = 0
            child["blocked"] = []
            more = {"all_solutions": True} if limit is None else {"nr_solutions": limit}
            status, stats, stopped = self._run(child, remaining, on_solution, **flags, **more)
        meaning = "limit" if stopped else MINIZINC.meaning(status, "all")
        answer.exhausted = meaning == "exhausted"
        answer.hit_limit = meaning == "limit" or (meaning == "stopped" and (limit is None or len(boards) < limit))
        answer.solver_reported_s = _reported(stats)
        how = "--all-solutions" if limit is None else f"--num-solutions {limit}"
        end = stopped or f"status {status.name}"
        answer.detail = f"all: 1 MiniZinc call ({how}), {len(boards)} board(s), {end}"
        return answer

    def _enumerate_blocking(self, limit: int | None, deadline: Deadline, flags: dict[str, Any]) -> Answer:
        blocked: list[set[int]] = []
        reported: list[float] = []
        notes: set[str] = set()

        def solve_once(remaining: float | None) -> Step:
            found: list[Any] = []
            with self.mzn_instance.branch() as child:
                child["NB"] = len(blocked)
                child["blocked"] = blocked
                status, stats, stopped = self._run(child, remaining, found.append, **flags)
            seconds = _reported(stats)
            if seconds is not None:
                reported.append(seconds)
            if stopped:
                notes.add(stopped)
            meaning = "limit" if stopped else MINIZINC.meaning(status, "blocking")
            chosen = self._chosen(found[-1]) if found else None
            if meaning == "board" and chosen is None:
                raise BackendError(f"MiniZinc said {status.name} without a solution")
            return Step(meaning, chosen, seconds or 0.0)

        def block(board: Board) -> None:
            blocked.append({self._cell_id(c) for c in board.cells})

        answer, calls = self.enumerate_by_blocking(limit, deadline, solve_once, block)
        answer.solver_reported_s = sum(reported) if reported else None
        answer.detail = f"blocking: {calls} MiniZinc call(s)" + "".join(f", last {n}" for n in sorted(notes))
        return answer
