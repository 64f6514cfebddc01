"""The MIP backend: the three formulations as Pyomo models, solved by HiGHS or SCIP.

Pyomo is imported lazily, and so is the engine (option ``engine``: ``highs``, the
default, or ``scip``).  Both run behind a persistent interface of
``pyomo.contrib.solver`` (``Highs``; ``ScipPersistent`` over pyscipopt); what differs
between them lives in :mod:`harness.backends.mip_engines`.  ``build()`` creates the
Pyomo model and translates it to the engine; ``enumerate()`` adds each blocking cut to
both and re-solves without re-translating (automatic change detection is switched
off; rows and cuts are added by hand).  The two engines get the same rows, the same
cuts and one termination table.

Rows are first collected as plain tuples ``(lb, vars, coefs, ub)`` and turned into one
indexed ``Constraint`` of ``LinearExpression`` objects; all variables are handed to
HiGHS in one call before the rows (the interface otherwise adds them row by row).
Rows with one term become variable bounds; SCIP learns variables from rows only, so
variables left in no row are mentioned by one trivially true row (not counted in the
model size).  It is a feasibility model (no objective).  ``versions()`` is a
classmethod and cannot see the option: it reports both engines.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from harness.backends.base import Answer, Backend, Deadline, ModelSize, Option, Step
from harness.errors import BackendError, UsageError
from harness.puzzle.board import Board
from harness.puzzle.instance import CELL_SYMBOLS

# No touching: the symbols whose neighbour on one side must be water, by side (the
# rules of docs/explanation/formulations.md grouped by side; '#' needs none, see there).
_WATER_SIDE = (((-1, 0), "^<>O"), ((1, 0), "v<>O"), ((0, -1), "<^vO"), ((0, 1), ">^vO"))


def _termination_table() -> dict[Any, str]:
    """ONE table, both engines: Pyomo termination condition -> what enumerate() does with it.

    SCIP's statuses reach it through pyomo's map: optimal (and gaplimit) ->
    convergenceCriteriaSatisfied, infeasible -> provenInfeasible, inforunbd ->
    infeasibleOrUnbounded, timelimit -> maxTimeLimit.  Its other statuses (unbounded,
    userinterrupt, node/solution/memory/restart limits, terminate) come as
    unbounded, interrupted, iterationLimit, objectiveLimit or unknown: none of them can
    happen with the limits set here, so they stay out of the table and raise, like
    HiGHS's error.
    """
    from pyomo.contrib.solver.common.results import TerminationCondition as TC

    return {
        TC.convergenceCriteriaSatisfied: "board",
        TC.provenInfeasible: "exhausted",
        # every variable is bounded, so "infeasible or unbounded" can only be infeasible
        TC.infeasibleOrUnbounded: "exhausted",
        TC.maxTimeLimit: "limit",
    }


class MipBackend(Backend):
    name: ClassVar[str] = "mip"
    library: ClassVar[str] = "highs"

    @classmethod
    def solver(cls, opts: dict[str, Any]) -> str:
        """The engine that answers: ``highs`` or ``scip`` (both engines' versions are in :meth:`versions`)."""
        return str(opts.get("engine") or cls.library)
    formulations: ClassVar[tuple[str, ...]] = ("placement", "cell", "ship-pairs")
    options: ClassVar[dict[str, Option]] = {
        "symmetry": Option(
            False, bool, (False, True),
            help="ship-pairs only: order ships of equal length by placement index",
        ),
        "engine": Option(
            "highs", str, ("highs", "scip"),
            help="the MIP solver behind pyomo's persistent interface: highs (highspy) or scip (pyscipopt)",
        ),
    }
    requires: ClassVar[tuple[str, ...]] = ("pyomo",)
    install: ClassVar[str] = "pip install pyomo highspy (engine=scip: pip install pyscipopt)"
    _ENGINE_PACKAGE: ClassVar[dict[str, str]] = {"highs": "highspy", "scip": "pyscipopt"}

    @classmethod
    def check_options(cls, opts: dict[str, Any]) -> None:
        """The engine's package must be installed (found, not imported)."""
        import importlib.util

        engine = opts.get("engine", "highs")
        package = cls._ENGINE_PACKAGE[engine]
        if importlib.util.find_spec(package) is None:
            raise UsageError(f"mip engine {engine!r} needs {package}, which is not installed: pip install {package}")

    @classmethod
    def versions(cls) -> dict[str, str]:
        import pyomo.version

        from harness.backends.mip_engines import engine_versions

        return {"pyomo": pyomo.version.version, **engine_versions()}

    def __init__(self, model, formulation, options=None):
        super().__init__(model, formulation, options)
        self.pyo_model: Any = None
        self.pyo_solver: Any = None  # the pyomo persistent solver (the engine's)
        self._engine: Any = None
        self._infeasible = False  # a row without terms that cannot hold
        self._n_rows = 0

    # ------------------------------------------------------------------ build
    def build(self) -> ModelSize:
        from pyomo.common.gc_manager import PauseGC

        # Pyomo allocates many small objects: with the cyclic collector running, its
        # passes (over this model and the garbage of earlier ones) cost a third of the
        # build or more.  Nothing here relies on it; it runs again afterwards.
        with PauseGC():
            return self._build()

    def _build(self) -> ModelSize:
        import pyomo.environ as pyo

        from harness.backends.mip_engines import make_engine

        m = self.model
        M = self.pyo_model = pyo.ConcreteModel(name=f"battleship-{self.formulation}")
        if self.formulation == "placement":
            M.pyo_y = pyo.Var(range(len(m.placements)), domain=pyo.Binary)
            self._y = [M.pyo_y[i] for i in range(len(m.placements))]
            rows = self._placement_rows()
        elif self.formulation == "cell":
            rows = self._cell_rows(M, pyo)
        else:
            self._ships = [L for L, n in m.fleet.items() for _ in range(n)]
            keys = [(k, p) for k, L in enumerate(self._ships) for p in m.by_length[L]]
            M.pyo_x = pyo.Var(range(len(keys)), domain=pyo.Binary)
            self._x = {key: M.pyo_x[i] for i, key in enumerate(keys)}
            rows = self._pairs_rows()

        rows = self._to_bounds(rows)
        engine = self._engine = make_engine(self.opts["engine"], self.opts["threads"], self.opts["seed"])
        variables = list(M.component_data_objects(pyo.Var, descend_into=True))
        engine.start(M, variables)  # variables only so far: no rows, no objective
        self.pyo_solver = engine.opt

        from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression as Mono

        def rule(_, k):  # unit coefficients stay bare variables (cheaper to walk)
            lb, vs, cs, ub = rows[k]
            args = vs if cs is None else [v if c == 1 else Mono((c, v)) for c, v in zip(cs, vs)]
            return (lb, LinearExpression(args), ub)

        M.pyo_rows = pyo.Constraint(range(len(rows)), rule=rule)
        constraints = list(M.pyo_rows.values())
        if not engine.registers_unused_variables:
            used = {id(v) for row in rows for v in row[1]}
            unused = [v for v in variables if id(v) not in used]
            if unused:  # one row that holds always, so that the engine knows them
                M.pyo_anchor = pyo.Constraint(expr=LinearExpression(unused) >= 0)
                constraints.append(M.pyo_anchor)
        engine.add(constraints)
        M.pyo_cuts = pyo.ConstraintList()
        self._n_rows = len(rows)
        return ModelSize(variables=len(variables), constraints=len(rows))

    def _to_bounds(self, rows: list[tuple]) -> list[tuple]:
        """Rows with no term are checked; rows with one term become variable bounds."""
        out = []
        for row in rows:
            lb, vs, cs, ub = row
            if len(vs) > 1:
                out.append(row)
                continue
            if not vs:
                if (lb is not None and lb > 0) or (ub is not None and ub < 0):
                    self._infeasible = True
                continue
            if cs is not None and cs[0] != 1:
                out.append(row)
                continue
            v = vs[0]
            if lb is not None and lb > v.lb:
                v.setlb(lb)
            if ub is not None and ub < v.ub:
                v.setub(ub)
            if v.lb > v.ub:
                self._infeasible = True
        return out

    def _placement_rows(self) -> list[tuple]:
        m, y = self.model, self._y
        rows: list[tuple] = []
        for L, n in m.fleet.items():
            rows.append((n, [y[p] for p in m.by_length[L]], None, n))
        for _, _, cells, clue in m.lines():
            rows.append((clue, [y[p] for c in cells for p in m.cover[c]], None, clue))
        groups = (ps for _, ps in m.windows) if not m.instance.touching else m.cover.values()
        rows.extend((None, [y[p] for p in ps], None, 1) for ps in groups if len(ps) > 1)
        for c in sorted(m.forced_ship):
            rows.append((1, [y[p] for p in m.cover[c]], None, 1))
        return rows

    def _cell_rows(self, M: Any, pyo: Any) -> list[tuple]:
        """The cell model, sparse: ``z_{c,t}`` only where some kept placement puts ``t``.

        A cell that no placement covers is water and has no variable; a row whose terms
        are all such constants holds trivially and is left out.  The placement
        indicators are linked by one equality per (cell, ship symbol),
        ``z_{c,t} = sum of w_p over the placements giving c the piece t``; it implies the
        piece stitching, and the diagonal rows imply the water rules of '#', so neither
        is stated (docs/explanation/formulations.md gives the argument).
        """
        m = self.model
        syms: dict[tuple[int, int], dict[str, list[int]]] = {}  # cell -> symbol -> placements
        for p in m.placements:
            for cell, piece in zip(p.cells, p.pieces):
                d = syms.get(cell)
                if d is None:
                    d = syms[cell] = {}
                ps = d.get(piece)
                if ps is None:
                    d[piece] = [p.index]
                else:
                    ps.append(p.index)
        cells = sorted(syms)
        keys = [(cell, t) for cell in cells for t in CELL_SYMBOLS if t == "~" or t in syms[cell]]
        M.pyo_z = pyo.Var(range(len(keys)), domain=pyo.Binary)
        z = {key: M.pyo_z[i] for i, key in enumerate(keys)}
        M.pyo_w = pyo.Var(range(len(m.placements)), domain=pyo.Binary)
        w = self._w = [M.pyo_w[i] for i in range(len(m.placements))]
        zw = self._zw = {cell: z[cell, "~"] for cell in cells}  # s_c = 1 - z_{c,~}

        rows: list[tuple] = []
        for cell in cells:
            d = syms[cell]
            rows.append((1, [zw[cell]] + [z[cell, t] for t in d], None, 1))  # one symbol per cell
            for t, ps in d.items():  # z_{c,t} = sum of w_p with piece_p(c) = t
                rows.append((0, [w[p] for p in ps] + [z[cell, t]], [1] * len(ps) + [-1], 0))
        for L, n in m.fleet.items():
            rows.append((n, [w[p] for p in m.by_length[L]], None, n))
        if not m.instance.touching:
            for cell in cells:  # symbols that need water on one side: sum of them <= z_{side,~}
                d, (r, c) = syms[cell], cell
                for (dr, dc), need in _WATER_SIDE:
                    side = zw.get((r + dr, c + dc))  # None: off the board or always water
                    if side is not None:
                        vs = [z[cell, t] for t in need if t in d]
                        if vs:
                            rows.append((None, vs + [side], [1] * len(vs) + [-1], 0))
            for win, _ in m.windows:  # both diagonals: s_a + s_b <= 1, i.e. z_{a,~} + z_{b,~} >= 1
                if len(win) == 4:
                    for a, b in ((win[0], win[3]), (win[1], win[2])):
                        if a in zw and b in zw:
                            rows.append((1, [zw[a], zw[b]], None, 2))
        for _, _, line, clue in m.lines():  # sum over the line of (1 - z_~) = clue
            vs = [zw[cell] for cell in line if cell in zw]
            rows.append((len(vs) - clue, vs, None, len(vs) - clue))
        for cell, hint in m.instance.hints.items():  # fix the symbol, or s_c = 1 (ship of unknown piece)
            if hint.value == "~":
                if cell in zw:
                    rows.append((1, [zw[cell]], None, 1))
            elif hint.value == "*":
                rows.append((0, [zw[cell]], None, 0) if cell in zw else (1, [], None, 1))
            else:
                v = z.get((cell, hint.value))
                rows.append((1, [v], None, 1) if v is not None else (1, [], None, 1))
        return rows

    def _pairs_rows(self) -> list[tuple]:
        m, x, ships = self.model, self._x, self._ships
        rows: list[tuple] = []
        for k, L in enumerate(ships):
            rows.append((1, [x[k, p] for p in m.by_length[L]], None, 1))
        occ = self._pairs_occupancy()
        for cell in m.cells():
            if occ[cell]:
                rows.append((None, occ[cell], None, 1))
        for _, _, cells, clue in m.lines():
            rows.append((clue, [v for c in cells for v in occ[c]], None, clue))
        for c in sorted(m.forced_ship):
            rows.append((1, occ[c], None, 1))
        length = {p.index: p.length for p in m.placements}
        by_len: dict[int, list[int]] = {}
        for k, L in enumerate(ships):
            by_len.setdefault(L, []).append(k)
        for p, q in m.conflict_pairs():
            for k in by_len[length[p]]:
                for k2 in by_len[length[q]]:
                    if k != k2:
                        rows.append((None, [x[k, p], x[k2, q]], None, 1))
        if self.opts["symmetry"]:
            for ks in by_len.values():
                for k, k2 in zip(ks, ks[1:]):  # index of ship k < index of ship k2
                    ps = m.by_length[ships[k]]
                    rows.append((None, [x[k, p] for p in ps] + [x[k2, p] for p in ps],
                                 list(ps) + [-p for p in ps], -1))
        return rows

    def _pairs_occupancy(self) -> dict:
        m, x = self.model, self._x
        occ: dict = {cell: [] for cell in m.cells()}
        for k, L in enumerate(self._ships):
            for p in m.by_length[L]:
                for cell in m.placements[p].cells:
                    occ[cell].append(x[k, p])
        return occ

    # ------------------------------------------------------------------ solve
    def _cut(self, board) -> tuple[list, list, int]:
        """sum_{c in S} s_c <= |S| - 1 over the native variables (coefficients merged)."""
        m, cells = self.model, sorted(board.cells)
        if self.formulation == "cell":  # sum (1 - z_~) <= |S| - 1  <=>  sum z_~ >= 1
            return [self._zw[cell] for cell in cells], [-1] * len(cells), -1
        if self.formulation == "placement":
            count = Counter(p for c in cells for p in m.cover[c])
            vs = [self._y[p] for p in count]
        else:
            count = Counter(key for c in cells for key in self._pairs_keys(c))
            vs = [self._x[key] for key in count]
        return vs, list(count.values()), len(cells) - 1

    def _pairs_keys(self, cell):
        m = self.model
        return [(k, p) for k, L in enumerate(self._ships) for p in m.cover[cell] if m.placements[p].length == L]

    def _chosen(self, values) -> list[int]:
        if self.formulation == "placement":
            return [p for p, v in enumerate(self._y) if values[v] > 0.5]
        if self.formulation == "cell":
            return [p for p, v in enumerate(self._w) if values[v] > 0.5]
        return [p for (k, p), v in self._x.items() if values[v] > 0.5]

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        if self.pyo_solver is None:
            raise BackendError("enumerate() called before build()")
        if self._infeasible:
            return Answer(exhausted=True, solver_reported_s=0.0, detail="calls=0 (a bound row cannot hold)")
        from pyomo.contrib.solver.common.results import SolutionStatus
        from pyomo.core.expr.numeric_expr import LinearExpression

        table = _termination_table()
        engine = self._engine
        engine.prepare()  # HiGHS: its process-wide thread pool
        deadline = Deadline(time_limit_s)
        M = self.pyo_model
        watched = self._y if self.formulation == "placement" else (
            self._w if self.formulation == "cell" else list(self._x.values()))

        def solve_once(remaining: float | None) -> Step:
            res = engine.solve(M, remaining, deadline.remaining)
            outcome = table.get(res.termination_condition)
            if outcome is None:
                raise BackendError(f"{engine.label} ended with termination condition {res.termination_condition!s}")
            has_solution = res.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
            chosen = None
            if outcome != "exhausted" and has_solution:  # at the limit the engine may still hold a board
                chosen = self._chosen(res.solution_loader.get_vars(watched))
            return Step(outcome, chosen, engine.solver_time(res))

        def block(board: Board) -> None:
            vs, cs, ub = self._cut(board)
            con = M.pyo_cuts.add((None, LinearExpression(constant=0, linear_coefs=cs, linear_vars=vs), ub))
            engine.add([con])

        answer, calls = self.enumerate_by_blocking(limit, deadline, solve_once, block)
        answer.detail = f"{engine.name}: calls={calls} rows={self._n_rows}+{len(M.pyo_cuts)} cuts" + engine.detail()
        return answer
