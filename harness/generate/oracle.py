"""The uniqueness oracle: "is there another board that differs here?" for one planted board.

The generator asks two questions many times about a planted board P and a set H of
revealed cells (hints that show P there):

* ``other(H)``: a board other than P that agrees with P on H, or None;
* ``differs(H, F)``: a board that agrees with P on H and differs from P in at least one
  cell of F, or None.  ``differs(H - {c}, {c})`` is None exactly when hint c can be
  dropped from H without losing uniqueness (given that H makes P unique).

Both are answered first by an incremental CaDiCaL solver (the ``sat`` backend's
placement formulation, compiled once on the abstract model *without* hints; one
assumption literal per revealed cell) under a *conflict* budget, so the answers -- and
so the generated puzzle -- depend only on the seed, never on the machine's speed.
Counting arguments (row sums, fleet sizes) are hard for clause learning, so a
``differs`` that the budget does not settle is asked of CP-SAT instead: the ``cpsat``
backend's placement model built on the abstract model with the hints H, plus "differ in
some cell of F" (in this process; no time limit decides the answer unless CP-SAT runs past
``fallback_limit_s``, which is then an error, not a guess).  CP-SAT runs one worker: on
the 13 hardest of the first 40 questions of a 30x20 search, its 8-worker portfolio took
2.2x as long in all (3.1x on the proofs that no board differs) on this 2-core machine
(``experiments/oracle_workers.py``, experiments/oracle-workers).  It searches with the cpsat
backend's ``branching=long-first`` and ``lazy_lp=false`` (``FALLBACK_OPTIONS``), measured the
same way (experiments/oracle-branching), and starts from the planted board (a solution hint:
``GUIDE``), which took 0.92x the CPU time on the 38 hard early questions of 30x20 seed 514
and 0.96x on the 10 hard late ones of seed 515, the gain on the questions answered by a board
(experiments/oracle-guide).

On boards of more than ``LARGE_CELLS`` cells, once the puzzle is sparse -- CaDiCaL's
budget running out ``SKIP_AFTER`` times in a row, each costing ~0.4 s there -- the oracle
asks CP-SAT directly, retrying CaDiCaL on every ``RETRY_EVERY``-th question.  Which way a
question is answered never changes the answer (CaDiCaL and CP-SAT are complete), so the
generated puzzle depends only on the seed.

The oracle only guides the search: every generated puzzle is certified afterwards by a
complete count-2 run of a harness pair in an isolated worker.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass
from typing import Any, Callable

from harness.backends.registry import get_backend
from harness.errors import HarnessError, Undecided  # Undecided: re-exported from its old home
from harness.model import build_model
from harness.puzzle.board import Board
from harness.puzzle.instance import Cell, Hint, Instance
from harness.puzzle.verify import parse_ships

ORACLE_PAIR = "sat/placement"
ORACLE_SOLVER = "cadical195"
FALLBACK_PAIR = "cpsat/placement"
CONFLICT_BUDGET = 500  # per incremental call before a query is called undecided
FALLBACK_LIMIT_S = 120.0  # CP-SAT time limit for one single-cell question
FALLBACK_WORKERS = 1  # CP-SAT workers (the 8-worker portfolio: 2.2x slower on hard 30x20 questions)
# The cpsat backend's options for the fallback: longest ships first, every linear constraint in the LP
# from the start (0.39x the time of CP-SAT's own search on the hard early questions of a 30x20 search;
# experiments/oracle-branching).
FALLBACK_OPTIONS = {"threads": FALLBACK_WORKERS, "branching": "long-first", "lazy_lp": False}
GUIDE = True  # CP-SAT questions start from the planted board (experiments/oracle-guide)
LARGE_CELLS = 400  # boards with more cells are "large": CaDiCaL skipping
SKIP_AFTER = 4  # large boards: budgeted CaDiCaL calls undecided in a row before CP-SAT is asked directly
RETRY_EVERY = 8  # while skipping, still try CaDiCaL on every RETRY_EVERY-th question


def preload() -> None:
    """Import the native solver modules the oracle's searches load lazily (python-sat's solvers, CP-SAT's helper)
    now, before ``generate`` sets the handlers that turn SIGTERM and Ctrl-C into KeyboardInterrupt: an interrupt
    that lands inside an extension module's initialisation leaves it half made (pybind11: "initialization
    failed", seen in CI) and the process may crash at exit (CI: ``generate`` ended by SIGSEGV after Ctrl-C)."""
    from harness.backends.cpsat_core import load
    from harness.errors import BackendUnavailable

    import pysat.solvers  # noqa: F401 - loaded for its extension module

    try:
        load()
    except BackendUnavailable:  # no CP-SAT here: the oracle's fallback says so when it is needed
        pass


def _guarded(call: Callable[[], Any], stop: Callable[[], None] | None = None) -> Any:
    """``call()`` -- a solver's native search -- run so that Ctrl-C cannot break the solver.

    Called from the main thread, pysat installs a SIGINT handler that longjmps out of
    CaDiCaL (even out of malloc, leaving a heap lock held, or from another thread: a
    crash), and CP-SAT's own handler turns Ctrl-C into an UNKNOWN status -- which would
    read as "undecided" -- and stays installed, so a later Ctrl-C exits on the spot.  So
    the search runs in a thread that never receives SIGINT (nor SIGTERM, which
    ``battlebench generate`` turns into KeyboardInterrupt too), while this one waits on
    an event the thread sets when it is done.  Ctrl-C raises KeyboardInterrupt here;
    ``stop()`` (if given) asks the search to end early -- again at every further Ctrl-C --
    and the interrupt goes on only once the call has returned and the solver is back in a
    clean state.  (Not ``Thread.join``: interrupted, CPython 3.11 marks a thread that
    is still running as stopped, and a later join returns at once.)"""
    box: list[Any] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            box.append(call())
        except BaseException as exc:  # handed to the waiting thread
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="battlebench-oracle-search", daemon=True).start()
    interrupt: KeyboardInterrupt | None = None
    while True:
        try:
            if interrupt is not None and stop is not None:
                stop()  # again on each pass: a stop that came before the search started is lost
            if done.wait(0.1):
                break
        except KeyboardInterrupt as exc:
            interrupt = interrupt or exc
    if interrupt is not None:
        raise interrupt
    if errors:
        raise errors[0]
    return box[0]


@dataclass
class OracleStats:
    """What the oracle did (recorded in each generated file's meta)."""

    sat_calls: int = 0
    sat_undecided: int = 0
    fallback_calls: int = 0
    fallback_s: float = 0.0
    fallback_undecided: int = 0
    sat_skipped: int = 0
    boards_reused: int = 0  # questions answered by a board found earlier (see generator.minimal_hints)

    def to_meta(self) -> dict[str, int | float]:
        return {"sat_calls": self.sat_calls, "sat_undecided": self.sat_undecided,
                "fallback_calls": self.fallback_calls, "fallback_s": round(self.fallback_s, 4),
                "fallback_undecided": self.fallback_undecided, "sat_skipped": self.sat_skipped,
                "boards_reused": self.boards_reused}


class UniquenessOracle:
    """Incremental questions about one planted board (see the module docstring)."""

    def __init__(self, instance: Instance, planted: Board, piece_hints: bool = False,
                 budget: int = CONFLICT_BUDGET, fallback: bool = True, fallback_limit_s: float = FALLBACK_LIMIT_S):
        self.base = instance.replace(hints={})
        self.planted = planted
        self.piece_hints = piece_hints
        self.budget = budget
        self.fallback = fallback
        self.fallback_limit_s = fallback_limit_s
        self.stats = OracleStats()
        self.model = build_model(self.base)
        if self.model.infeasible is not None:
            raise HarnessError(f"the planted board's clues are infeasible: {self.model.infeasible}")
        self.backend = get_backend("sat")(self.model, "placement", {"solver": ORACLE_SOLVER})
        self.backend.build()
        self.solver = self.backend.sat_solver
        s = self.backend.sat_s
        missing = [c for c in planted.cells if c not in s]
        if missing:
            raise HarnessError(f"the planted board does not fit its own clues at {missing[0]}")
        self._other = self.backend.sat_pool.id(("other",))  # selector of "differ from P"
        self.solver.add_clause([-self._other] + [-s[c] for c in sorted(planted.cells)])
        # Start every search from the planted board: other boards are usually near it.
        ships = set(parse_ships(planted.rows)[0])
        self._planted_ships = ships
        y = self.backend.sat_w
        self.solver.set_phases([v if c in planted.cells else -v for c, v in s.items()]
                               + [v if self.model.placements[p].ship in ships else -v for p, v in y.items()])
        self._lit: dict[Cell, int | None] = {}
        self._fresh = 0
        self._failures = 0  # budgeted calls undecided in a row
        self._skipped = 0
        self.large = instance.rows * instance.cols > LARGE_CELLS
        self.fallback_options: dict[str, Any] = dict(FALLBACK_OPTIONS)
        self.guide = GUIDE  # CP-SAT questions start from the planted board (a solution hint)

    # ------------------------------------------------------------ cells and literals
    def hint(self, cell: Cell) -> Hint:
        """What revealing ``cell`` shows: the planted board there, in the chosen style."""
        ch = self.planted.rows[cell[0]][cell[1]]
        if ch == ".":
            return Hint.WATER
        return Hint.from_symbol(ch) if self.piece_hints else Hint.SHIP

    def candidates(self) -> list[Cell]:
        """Cells worth revealing: those some placement covers (the rest are always water)."""
        return [c for c in ((r, k) for r in range(self.base.rows) for k in range(self.base.cols))
                if self.literal(c) is not None]

    def literal(self, cell: Cell) -> int | None:
        """The literal true iff a board shows what the hint at ``cell`` reveals (None: always water)."""
        if cell not in self._lit:
            self._lit[cell] = self._make_literal(cell)
        return self._lit[cell]

    def _make_literal(self, cell: Cell) -> int | None:
        s = self.backend.sat_s.get(cell)
        hint = self.hint(cell)
        if s is None:
            return None
        if hint is Hint.WATER:
            return -s
        if hint is Hint.SHIP:
            return s
        # piece hint: selector <-> some placement with that piece covers the cell
        sel = self.backend.sat_pool.id(("hint", cell))
        y = self.backend.sat_w
        fitting = [y[p] for p in self.model.cover[cell] if self.model.placements[p].piece_at(cell) == hint.value]
        self.solver.add_clause([-sel] + fitting)
        for v in fitting:
            self.solver.add_clause([-v, sel])
        return sel

    # ------------------------------------------------------------ questions
    def _solve(self, assumptions: list[int], skippable: bool = False) -> bool:
        skipping = self.large and self.fallback and self._failures >= SKIP_AFTER
        if skippable and skipping and self._skipped < RETRY_EVERY - 1:
            self._skipped += 1
            self.stats.sat_skipped += 1
            raise Undecided()
        self._skipped = 0
        self.stats.sat_calls += 1
        self.solver.conf_budget(self.budget)
        result = _guarded(lambda: self.solver.solve_limited(assumptions=assumptions))
        if result is None:
            self.stats.sat_undecided += 1
            self._failures += 1
            raise Undecided()
        self._failures = 0
        return bool(result)

    def _board(self) -> Board:
        true = {lit for lit in self.solver.get_model() if lit > 0}
        return self.model.board_from([p for p, v in self.backend.sat_w.items() if v in true])

    def disagreements(self, board: Board) -> frozenset[Cell]:
        """The cells where a hint would tell ``board`` from the planted board."""
        p = self.planted.rows
        if self.piece_hints:
            return frozenset((r, c) for r, row in enumerate(board.rows) for c, ch in enumerate(row) if ch != p[r][c])
        return frozenset(board.cells ^ self.planted.cells)

    def _hint_lits(self, cells: list[Cell]) -> list[int]:
        return [lit for lit in map(self.literal, cells) if lit is not None]

    def other(self, cells: list[Cell]) -> Board | None:
        """A board other than the planted one agreeing with it on ``cells``, or None.

        Raises :class:`Undecided` when the conflict budget runs out."""
        if self._solve(self._hint_lits(cells) + [self._other]):
            return self._board()
        return None

    def differs(self, cells: list[Cell], flip: list[Cell]) -> Board | None:
        """A board agreeing with the planted one on ``cells`` and differing in some cell of ``flip``.

        None when there is none.  A single-cell question that the conflict budget does
        not settle goes to CP-SAT; a larger one raises :class:`Undecided`."""
        lits = self._hint_lits(flip)
        if not lits:
            return None
        self._fresh += 1
        sel = self.backend.sat_pool.id(("flip", self._fresh))
        self.solver.add_clause([-sel] + [-lit for lit in lits])
        try:
            if self._solve(self._hint_lits(cells) + [sel], skippable=True):
                return self._board()
            return None
        except Undecided:
            if not self.fallback:
                raise
            return self._fallback(cells, flip)
        finally:
            self.solver.add_clause([-sel])  # retire the selector

    def _fallback(self, cells: list[Cell], flip: list[Cell]) -> Board | None:
        """CP-SAT answers ``differs(cells, flip)`` completely (placement model, one solve).

        The abstract model is built with the hints on ``cells`` (so placements that
        contradict them are filtered out); one boolean per cell of ``flip`` means "the
        board differs from the planted one here" and at least one must hold."""
        import time

        from harness.backends.cpsat_core import load

        status_of = load().Status
        t0 = time.perf_counter()
        self.stats.fallback_calls += 1
        model = build_model(self.base.replace(hints={c: self.hint(c) for c in cells}))
        if model.infeasible is not None:
            return None
        backend = get_backend("cpsat")(model, "placement", self.fallback_options)
        backend.build()
        md, y = backend.cp_model, backend.cp_y
        differ = []
        for cell in flip:
            hint = self.hint(cell)
            covering = model.cover.get(cell, [])
            if hint is Hint.WATER:  # differs: some placement covers the cell
                lits = [y[i] for i in covering]
                if lits:
                    b = md.new_bool_var("")
                    md.add_bool_or(lits).only_enforce_if(b)
                    differ.append(b)
                continue
            same = [i for i in covering if hint is Hint.SHIP or model.placements[i].piece_at(cell) == hint.value]
            b = md.new_bool_var("")  # differs: no placement shows the hint there
            for i in same:
                md.add_implication(b, ~y[i])
            differ.append(b)
        if not differ:
            return None
        md.add_bool_or(differ)
        if self.guide:
            for i, lit in enumerate(y):
                md.add_hint(lit, model.placements[i].ship in self._planted_ships)
        solver = backend.new_solver()
        solver.parameters.max_time_in_seconds = self.fallback_limit_s
        solver.parameters.catch_sigint_signal = False
        status = _guarded(lambda: solver.solve(md), solver.stop_search)
        self.stats.fallback_s += time.perf_counter() - t0
        if status in (status_of.OPTIMAL, status_of.FEASIBLE):
            return model.board_from([i for i, v in enumerate(y) if solver.boolean_value(v)])
        if status == status_of.INFEASIBLE:
            return None
        self.stats.fallback_undecided += 1
        raise Undecided()

    def close(self) -> None:
        _guarded(self.solver.delete)  # a Ctrl-C inside pysat's delete would free CaDiCaL twice


__all__ = ["UniquenessOracle", "OracleStats", "Undecided", "ORACLE_PAIR", "ORACLE_SOLVER", "FALLBACK_PAIR",
           "CONFLICT_BUDGET", "FALLBACK_WORKERS", "FALLBACK_OPTIONS"]
