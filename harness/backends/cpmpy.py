"""The ``cpmpy`` backend: both formulations in CPMpy, solved by one of its decision solvers.

It measures what CPMpy's modelling layer costs next to the native backends, so the
model is the one ``cpsat.py`` builds, constraint for constraint (docs/explanation/formulations.md):
``placement`` (``y_p``; fleet sums, weighted clue sums, at-most-one per window or per
cell when touching, ``s_c = 1`` on hinted ship cells) and ``cell`` (seven ``z_{c,t}``
per cell with the stitching, water and ``w_p`` rules as clauses and implications).
With ``solver=ortools`` it reaches CP-SAT through CPMpy's transformations; only the
way of writing differs (``sum == 1`` where cpsat.py calls ``add_exactly_one``).

Enumeration is blocking by ship cells: after each board, ``Σ_{c∈S} s_c ≤ |S| − 1``
is added to the same CPMpy solver object (``s += ...``) and it solves again, with the
remaining time of one :class:`~harness.backends.base.Deadline` as ``time_limit``
(at least 10 ms: some interfaces reject smaller values).  CPMpy's exit status goes
through one table (:data:`STATUS`); ``UNKNOWN`` without a time limit raises.

Solvers (option ``solver``), each checked against brute force on the tiny catalogue:

* ``ortools``, ``exact``, ``pumpkin``, ``pindakaas``, ``highs``, ``scip``: as above.
* ``pysat`` (CPMpy's default subsolver, glucose4): CPMpy encodes only unit-coefficient
  sums without PBLib (pypblib, not installed).  ``placement`` therefore takes the SAT
  form of docs/explanation/formulations.md, as ``sat.py`` does: ``s_c ↔ ∨_{p∋c} y_p`` as clauses,
  clues as cardinalities over ``s_c``, and the cut as the clause ``∨_{c∈S} ¬s_c``.
  (Tried first: the weighted sums written with repeated terms, which CPMpy does
  encode; every cut then became a cardinality encoding of ~|S|·10 terms, and counting
  sb_12_12_5_0 took 21 s against 0.4 s.)  ``cell`` needs no change.
* ``z3``: after a check, z3's combined solver answers later checks with its
  incremental core, which did not find the second board of sb_12_12_5_0 in 60 s; so
  before every call after the first, the backend moves the same z3 assertions into a
  fresh ``z3.Solver()`` (no CPMpy re-translation; the first-check path is fast).
* ``choco``: posting a constraint after a search makes Choco's native library die
  (ArrayIndexOutOfBounds in PropCompactTable, a fatal error of the whole process) and
  pychoco exposes no solver reset; so every call after the first re-creates the CPMpy
  Choco solver from all constraints posted so far (the cost is in ``solve_s``).  CPMpy
  tells a proof from a stop at the limit by comparing wall times, which misread a
  stopped search as UNSATISFIABLE; Choco's search state decides (:func:`_exit_name`).
Dropped: ``rc2`` (MaxSAT, an optimiser), ``minizinc`` (no MiniZinc executable here),
``gurobi``, ``cplex``, ``cpo``, ``hexaly``, ``gcs``, ``pysdd`` (not installed).

``threads`` and ``seed``: ortools gets ``num_workers`` and ``random_seed``; highs
``threads`` and ``random_seed`` (its process-wide thread pool is restarted when the
count changes); z3 ``random_seed``; scip ``randomization/randomseedshift``; pumpkin its
``seed``; exact its ``seed`` when > 0 (0 is not a valid Exact seed: its default is
kept).  Everything else is recorded in the options and ignored (pysat, choco and
pindakaas take neither; exact, z3, pumpkin and scip no thread count).

``import cpmpy`` imports OR-Tools and highspy (CPMpy's solver modules do), so it
happens only in ``build()``/``enumerate()``; ``check_options`` finds the chosen
solver's package with ``importlib`` (nothing imported: it runs in the calling process)
and ``build()`` confirms with ``cpmpy.SolverLookup``.  ``build()`` returns the CPMpy
model's size (decision variables created, constraints posted), the same for every
solver but pysat (whose placement model adds ``s_c``); with ortools the detail adds
the CP-SAT proto's size.  ``solver_reported_s``
sums CPMpy's ``status().solve_time`` per call (``runtime`` is a copy made once per
status object, and pindakaas keeps one status object across calls, so it would go
stale); HiGHS's is its run clock, which accumulates over the calls on one object, so
the backend takes differences.
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any

from harness.backends.base import Answer, Backend, Deadline, ModelSize, Option, Step
from harness.errors import BackendError, BackendUnavailable, UsageError
from harness.model.cell_rules import local_rules
from harness.puzzle.board import Board
from harness.puzzle.instance import CELL_SYMBOLS, Hint

_T = {t: i for i, t in enumerate(CELL_SYMBOLS)}

# solver -> (the module CPMpy imports for it, the package that installs it)
LIBRARIES = {
    "ortools": ("ortools", "ortools"),
    "pysat": ("pysat", "python-sat"),
    "choco": ("pychoco", "pychoco"),
    "exact": ("exact", "exact"),
    "z3": ("z3", "z3-solver"),
    "pumpkin": ("pumpkin_solver", "pumpkin-solver"),
    "pindakaas": ("pindakaas", "pindakaas"),
    "highs": ("highspy", "highspy"),
    "scip": ("pyscipopt", "pyscipopt"),
}
SOLVERS = tuple(LIBRARIES)
SAT_STYLE = frozenset(("pysat",))  # placement: s_c as variables, as in docs/explanation/formulations.md for SAT
MIN_TIME_LIMIT_S = 0.01

# CPMpy ExitStatus name -> meaning of one solve call (no objective: a decision problem).
STATUS = {
    "OPTIMAL": "board",
    "FEASIBLE": "board",
    "UNSATISFIABLE": "exhausted",
    "UNKNOWN": "limit",  # stopped by the time limit (raises when there was none)
    "NOT_RUN": "error",
    "ERROR": "error",
}


def _exit_name(cpm_solver: Any, solver: str) -> str:
    """The exit status name, corrected where CPMpy guesses it.

    CPMpy's Choco interface says UNSATISFIABLE when no solution came back in less
    wall time than the limit, which it also says when Choco stopped at the limit a
    hair early (seen: a stopped search reported as proven); Choco's own search state
    decides instead (TERMINATED: the search space is exhausted; STOPPED: a limit).
    """
    status = cpm_solver.status().exitstatus
    name = getattr(status, "name", str(status))
    if solver == "choco" and name == "UNSATISFIABLE":
        state = cpm_solver.chc_solver.get_search_state()
        if state == "STOPPED":
            return "UNKNOWN"
        if state != "TERMINATED":
            raise BackendError(f"Choco found no solution and ended in search state {state!r}")
    return name


def _meaning(name: str, limited: bool, solver: str) -> str:
    meaning = STATUS.get(name)
    if meaning is None:
        raise BackendError(f"CPMpy ({solver}) returned an unknown exit status {name!r}")
    if meaning == "error" or (meaning == "limit" and not limited):
        raise BackendError(f"CPMpy ({solver}) ended with exit status {name}" +
                           ("" if limited else " without a time limit"))
    return meaning


class CpmpyBackend(Backend):
    """CPMpy on the ``placement`` and ``cell`` formulations, any decision solver."""

    name = "cpmpy"

    @classmethod
    def solver(cls, opts: dict[str, Any]) -> str:
        """The package of the solver CPMpy drives (a key of :meth:`versions`)."""
        return LIBRARIES.get(str(opts.get("solver")), ("", "cpmpy"))[1]
    formulations = ("placement", "cell")
    options = {
        "solver": Option("ortools", str, SOLVERS, "the solver CPMpy drives (see the module docstring)"),
    }
    requires = ("cpmpy",)
    install = "pip install cpmpy (and the chosen solver's package, e.g. pip install pychoco)"

    @classmethod
    def memory_limit_by(cls, opts: dict[str, Any]) -> str:
        # pychoco is a GraalVM native image: its isolate reserves more than 16 GB of address space
        # (measured: graal_create_isolate fails under RLIMIT_AS of 16 GB, works at 40 GB), so an
        # address-space limit would stop it before it starts; the runner samples its RSS instead.
        return "rss" if opts.get("solver") == "choco" else "address-space"

    @classmethod
    def check_options(cls, opts: dict[str, Any]) -> None:
        solver = opts.get("solver", "ortools")
        module, package = LIBRARIES[solver]
        if importlib.util.find_spec(module) is None:
            raise UsageError(
                f"cpmpy solver {solver!r} needs the Python package {package}, which is not installed: "
                f"pip install {package}"
            )

    @classmethod
    def versions(cls) -> dict[str, str]:
        """CPMpy and the solver packages it drives here (read from package metadata, nothing imported)."""
        from importlib.metadata import PackageNotFoundError, version

        out = {"cpmpy": version("cpmpy")}
        for _module, package in LIBRARIES.values():
            try:
                out[package] = version(package)
            except PackageNotFoundError:
                pass
        return out

    def __init__(self, model, formulation, options=None):
        super().__init__(model, formulation, options)
        self.cpm_solver: Any = None
        self.cpm_y: list[Any] = []  # y_p (placement) or w_p (cell): one Boolean per placement
        self.cpm_water: dict = {}  # cell -> z_{c,~} (cell formulation)
        self.cpm_ship: dict = {}  # cell -> s_c (placement formulation, SAT style)
        self.cpm_posted: list[Any] = []  # every constraint given to the solver, cuts included
        self._rebuilds = 0
        self._rebuild_s = 0.0

    # ------------------------------------------------------------------ build
    def _new_solver(self) -> Any:
        import cpmpy as cp

        name = self.opts["solver"]
        cls = cp.SolverLookup.lookup(name)
        if not cls.supported():
            raise BackendUnavailable(f"CPMpy says its solver {name!r} is not supported here")
        init: dict[str, Any] = {}
        seed = int(self.opts["seed"])
        if name == "pumpkin" or (name == "exact" and seed > 0):
            init["seed"] = seed
        return cp.SolverLookup.get(name, **init)

    def build(self) -> ModelSize:
        try:
            import cpmpy as cp
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise BackendUnavailable(f"cannot import cpmpy: {exc}") from exc
        self._sat_style = self.opts["solver"] in SAT_STYLE
        cons: list[Any] = []
        if self.formulation == "placement":
            n_vars = self._placement(cp, cons)
        else:
            n_vars = self._cell(cp, cons)
        self.cpm_solver = self._new_solver()
        self.cpm_solver += cons
        self.cpm_posted = cons
        return ModelSize(variables=n_vars, constraints=len(cons))

    @staticmethod
    def _bools(cp: Any, n: int, name: str) -> list[Any]:
        return list(cp.boolvar(shape=(n,), name=name)) if n else []

    def _weighted(self, cp: Any, cells, over) -> Any:
        """Σ_{c ∈ cells} Σ_{p ∋ c} over[p] as one weighted sum (cpsat.py's clue and cut)."""
        m = self.model
        weight: dict[int, int] = {}
        for cell in cells:
            for i in m.cover[cell]:
                weight[i] = weight.get(i, 0) + 1
        return cp.sum([k * over[i] if k != 1 else over[i] for i, k in weight.items()])

    def _placement(self, cp: Any, cons: list) -> int:
        m = self.model
        y = self.cpm_y = self._bools(cp, len(m.placements), "y")
        for L, n in m.fleet.items():  # fleet
            cons.append(cp.sum([y[i] for i in m.by_length[L]]) == n)
        if self._sat_style:  # s_c <-> OR_{p∋c} y_p (sat.py); clues and hints on s_c
            covered = [cell for cell, ps in m.cover.items() if ps]
            s = self._bools(cp, len(covered), "s")
            self.cpm_ship = dict(zip(covered, s))
            for cell, sc in self.cpm_ship.items():
                cons.append(sc.implies(cp.any([y[i] for i in m.cover[cell]])))
                cons.extend(y[i].implies(sc) for i in m.cover[cell])
            for _kind, _idx, cells, clue in m.lines():
                cons.append(cp.sum([self.cpm_ship[c] for c in cells if c in self.cpm_ship]) == clue)
        else:
            for _kind, _idx, cells, clue in m.lines():  # clues on s_c = Σ_{p∋c} y_p
                cons.append(self._weighted(cp, cells, y) == clue)
        groups = (ps for _, ps in m.windows) if not m.instance.touching else m.cover.values()
        for ps in groups:  # no touching: per window; touching: per cell (no overlap)
            if len(ps) > 1:
                cons.append(cp.sum([y[i] for i in ps]) <= 1)
        for cell in sorted(m.forced_ship):  # s_c = 1 on hinted ship cells
            if self._sat_style:
                cons.append(self.cpm_ship[cell])  # covered: the precheck answers otherwise
            else:
                cons.append(cp.sum([y[i] for i in m.cover[cell]]) == 1)
        return len(y) + len(self.cpm_ship)

    def _cell(self, cp: Any, cons: list) -> int:
        m = self.model
        R, C = m.rows, m.cols
        touching = m.instance.touching
        flat = self._bools(cp, R * C * len(CELL_SYMBOLS), "z")
        z = {(r, c): flat[(r * C + c) * len(CELL_SYMBOLS):(r * C + c + 1) * len(CELL_SYMBOLS)]
             for r in range(R) for c in range(C)}
        self.cpm_water = {cell: zs[0] for cell, zs in z.items()}
        for zs in z.values():
            cons.append(cp.sum(zs) == 1)

        def lits(cell, symbols):
            """Literals 'cell holds one of symbols' (empty off the board: water)."""
            r, c = cell
            if not (0 <= r < R and 0 <= c < C):
                return []
            return [z[cell][_T[t]] for t in symbols]

        def imply_any(cond, options):  # cond -> OR(options); empty options: not cond
            cons.append(cond.implies(cp.any(options)) if options else ~cond)

        for cell, zs in z.items():  # piece stitching; no touching: water around pieces
            for kind, symbol, arg in local_rules(cell, R, C, touching):
                cond = zs[_T[symbol]]
                if kind == "any":
                    imply_any(cond, [lit for near, symbols in arg for lit in lits(near, symbols)])
                elif kind == "water":
                    cons.append(cond.implies(z[arg][0]))
                else:  # "water-or"
                    cons.append(cond.implies(z[arg[0]][0] | z[arg[1]][0]))
        if not touching:  # diagonals of every 2x2 window: s_a + s_b <= 1
            for r in range(R - 1):
                for c in range(C - 1):
                    cons.append(z[(r, c)][0] | z[(r + 1, c + 1)][0])
                    cons.append(z[(r, c + 1)][0] | z[(r + 1, c)][0])
        # Ship lengths: w_p <-> AND of the placement's pieces.
        w = self.cpm_y = self._bools(cp, len(m.placements), "w")
        for p in m.placements:
            conj = [z[cell][_T[piece]] for cell, piece in zip(p.cells, p.pieces)]
            cons.append(w[p.index].implies(cp.all(conj)))
            cons.append(cp.any([~x for x in conj] + [w[p.index]]))
        for L, n in m.fleet.items():
            cons.append(cp.sum([w[i] for i in m.by_length[L]]) == n)
        # s_c = sum of w_p covering c, i.e. z_{c,~} + sum_p w_p = 1.
        for cell, ps in m.cover.items():
            cons.append(cp.sum([z[cell][0]] + [w[i] for i in ps]) == 1)
        # Clues on s_c = 1 - z_{c,~}: sum of z_{c,~} = |line| - clue.
        for _kind, _idx, cells, clue in m.lines():
            cons.append(cp.sum([z[cell][0] for cell in cells]) == len(cells) - clue)
        # Hints fix z_{c,t} (water, the piece) or s_c = 1 (unknown piece).
        for cell, h in m.instance.hints.items():
            cons.append(~z[cell][0] if h is Hint.SHIP else z[cell][_T[h.value]])
        return len(flat) + len(w)

    # -------------------------------------------------------------- enumerate
    def _cut(self, board: Board) -> Any:
        """Σ_{c∈S} s_c ≤ |S| − 1 for the ship cells S of the board found."""
        import cpmpy as cp

        cells = sorted(board.cells)
        if self.formulation == "cell":  # s_c = 1 - z_{c,~}: at least one cell of S is water
            return cp.any([self.cpm_water[cell] for cell in cells])
        if self._sat_style:  # the clause OR_{c∈S} not s_c (sat.py)
            return cp.any([~self.cpm_ship[cell] for cell in cells])
        return self._weighted(cp, cells, self.cpm_y) <= len(cells) - 1

    def _solve_kwargs(self) -> dict[str, Any]:
        name, threads, seed = self.opts["solver"], int(self.opts["threads"]), int(self.opts["seed"])
        if name == "ortools":
            return {"num_workers": threads, "random_seed": seed}
        if name == "highs":
            return {"threads": threads, "random_seed": seed, "output_flag": False}
        if name == "z3":
            return {"random_seed": seed}
        if name == "scip":
            return {"randomization/randomseedshift": seed, "display/verblevel": 0}
        return {}

    def _fresh_native(self) -> None:
        """Work around a solver that cannot go on after a search (see the module docstring)."""
        name = self.opts["solver"]
        t0 = time.perf_counter()
        if name == "z3":
            import z3

            old = self.cpm_solver.z3_solver
            new = z3.Solver()
            new.add(old.assertions())
            self.cpm_solver.z3_solver = new
        elif name == "choco":
            self.cpm_solver = self._new_solver()
            self.cpm_solver += self.cpm_posted
        else:
            return
        self._rebuilds += 1
        self._rebuild_s += time.perf_counter() - t0

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        if self.cpm_solver is None:
            self.build()
        name = self.opts["solver"]
        kwargs = self._solve_kwargs()
        if name == "highs":
            from harness.backends.mip_engines import use_highs_threads

            use_highs_threads(int(self.opts["threads"]))
        deadline = Deadline(time_limit_s)
        calls = [0]
        clock = [0.0]  # highs: its run clock at the end of the previous call

        def solve_once(remaining: float | None) -> Step:
            if calls[0]:
                self._fresh_native()
            calls[0] += 1
            tl = None if remaining is None else max(remaining, MIN_TIME_LIMIT_S)
            s = self.cpm_solver
            found = s.solve(time_limit=tl, **kwargs)
            status = s.status()
            meaning = _meaning(_exit_name(s, name), tl is not None, name)
            reported = status.solve_time if status.solve_time is not None else (status.runtime or 0.0)
            if name == "highs":  # getRunTime(): accumulated over the calls on this Highs object
                reported, clock[0] = reported - clock[0], reported
            chosen = [i for i, v in enumerate(self.cpm_y) if v.value()] if found else None
            if meaning == "board" and chosen is None:
                raise BackendError(f"CPMpy ({name}) reported a solution but returned none")
            return Step(meaning, chosen if meaning != "exhausted" else None, float(reported))

        def block(board: Board) -> None:
            cut = self._cut(board)
            self.cpm_posted.append(cut)
            if name != "choco":  # Choco gets it with the model it is rebuilt from
                self.cpm_solver += cut

        answer, n = self.enumerate_by_blocking(limit, deadline, solve_once, block)
        answer.detail = f"cpmpy/{name}: {n} solve call(s)"
        if self._rebuilds:
            what = "fresh z3 solver" if name == "z3" else "rebuilt Choco model"
            answer.detail += f", {self._rebuilds} {what}(s) ({self._rebuild_s:.2f} s)"
        if name == "ortools":
            proto = self.cpm_solver.ort_model.proto
            answer.detail += f"; CP-SAT proto {len(proto.variables)} variables, {len(proto.constraints)} constraints"
        return answer
