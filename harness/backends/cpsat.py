"""The OR-Tools CP-SAT backend: placement and cell formulations, board enumeration.

``ortools`` is imported lazily inside methods: importing this module imports no
solver, and a run imports only ortools' pybind module, through
:mod:`harness.backends.cpsat_core` (not ``cp_model``, which imports pandas).
Both formulations follow
``docs/explanation/formulations.md``.  Enumeration adds the blocking constraint of each board
found to the same ``cp_model`` and solves again (option ``enumeration=blocking``);
every call gets the remaining time of one :class:`~harness.backends.base.Deadline`.

The default ``enumeration=callback`` makes one call with ``enumerate_all_solutions``
and collects boards in a solution callback (3-9x faster on counting all boards of
sb_12_12_5_0).  It gives the same distinct boards as blocking because, when ships may
not touch, a set of ship cells fixes every variable of both formulations (ships are
its maximal runs; ``w_p`` follows from ``z``), so models and boards correspond one to
one.  It is used only where that holds and CP-SAT enumerates completely: with
``touching`` (one cell set, several decompositions) or ``threads != 1`` (CP-SAT's
parallel enumeration misses solutions) the backend falls back to blocking.

Two search options change only the speed: ``branching=long-first`` (a fixed search over the
placement literals, longest ships first, each tried absent first) and ``lazy_lp=false``
(every linear constraint in the LP from the start); together they certify the minimal-hint
30x20 puzzles about 4x faster (reports/certify-speed).  :meth:`new_solver` applies them,
for this backend and for the generator's oracle.  ``split=N`` (callback enumeration only)
runs N such searches at once over disjoint cubes of the placements
(:mod:`harness.backends.cubes`).
"""

from __future__ import annotations

from typing import Any

from harness.backends.base import Answer, Backend, Deadline, ModelSize, Option, Step
from harness.backends.status_tables import CPSAT
from harness.model.cell_rules import local_rules
from harness.puzzle.board import Board
from harness.puzzle.instance import CELL_SYMBOLS, Hint

_T = {t: i for i, t in enumerate(CELL_SYMBOLS)}

_MODES = CPSAT.modes
BRANCHING = ("auto", "long-first")


def _cp():
    from harness.backends.cpsat_core import load

    return load()


class CpSatBackend(Backend):
    """OR-Tools CP-SAT on the ``placement`` and ``cell`` formulations."""

    name = "cpsat"
    library = "ortools"
    formulations = ("placement", "cell")
    options = {
        "enumeration": Option(
            "callback", str, _MODES,
            "callback: one enumerate_all_solutions call (used only with threads=1 and "
            "without touching, else blocking); blocking: block each board and solve again",
        ),
        "branching": Option(
            "auto", str, BRANCHING,
            "auto: CP-SAT's own search; long-first: a fixed search over the placement literals, longest "
            "ships first, each tried absent before present (FIXED_SEARCH)",
        ),
        "lazy_lp": Option(
            True, bool, help="CP-SAT's add_lp_constraints_lazily: false puts every linear constraint in the LP "
            "from the start",
        ),
        "split": Option(
            1, int, minimum=1,
            help="N > 1: enumerate as N single-worker searches at once, each in its own thread, over disjoint "
            "cubes of the placements (see harness/backends/cubes.py); callback enumeration only",
        ),
    }

    def __init__(self, model, formulation, options=None):
        super().__init__(model, formulation, options)
        self.cp_model = None
        self.cp_y: list[Any] = []  # y_p (placement) or w_p (cell): one literal per placement
        self.cp_water: dict = {}  # cell -> z_{c,~} literal (cell formulation only)

    @classmethod
    def versions(cls) -> dict[str, str]:
        return {"ortools": _cp().version}

    # ------------------------------------------------------------------ build
    def build(self) -> ModelSize:
        cp_model = _cp()
        self.cp_model = cp_model.CpModel()
        if self.formulation == "placement":
            self._build_placement()
        else:
            self._build_cell()
        if self.opts["branching"] == "long-first":
            m = self.model
            order = sorted(range(len(self.cp_y)), key=lambda i: (-m.placements[i].length, i))
            self.cp_model.add_decision_strategy(
                [self.cp_y[i] for i in order], cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE
            )
        proto = self.cp_model.proto
        return ModelSize(variables=len(proto.variables), constraints=len(proto.constraints))

    def _build_placement(self) -> None:
        cp_model = _cp()
        m, md = self.model, self.cp_model
        y = self.cp_y = [md.new_bool_var("") for _ in m.placements]
        # Fleet: sum of y_p over by_length[L] = n_L.
        for L, n in m.fleet.items():
            lits = [y[i] for i in m.by_length[L]]
            if n == 1:
                md.add_exactly_one(lits)
            else:
                md.add(cp_model.LinearExpr.sum(lits) == n)
        # Clues: sum over line cells of s_c = sum_p |p ∩ line| * y_p = clue.
        for _kind, _idx, cells, clue in m.lines():
            weight: dict[int, int] = {}
            for cell in cells:
                for i in m.cover[cell]:
                    weight[i] = weight.get(i, 0) + 1
            ids = list(weight)
            md.add(cp_model.LinearExpr.weighted_sum([y[i] for i in ids], [weight[i] for i in ids]) == clue)
        # No touching: at most one placement meets each window; touching: per cell.
        if not m.instance.touching:
            for _, ps in m.windows:
                md.add_at_most_one([y[i] for i in ps])
        else:
            for ps in m.cover.values():
                if len(ps) > 1:
                    md.add_at_most_one([y[i] for i in ps])
        # Hints: s_c = 1 on forced_ship (at most one placement covers a cell already).
        for cell in sorted(m.forced_ship):
            md.add_exactly_one([y[i] for i in m.cover[cell]])

    def _build_cell(self) -> None:
        cp_model = _cp()
        m, md = self.model, self.cp_model
        R, C = m.rows, m.cols
        touching = m.instance.touching
        z = {cell: [md.new_bool_var("") for _ in CELL_SYMBOLS] for cell in m.cells()}
        self.cp_water = {cell: zs[0] for cell, zs in z.items()}
        for zs in z.values():
            md.add_exactly_one(zs)

        def lits(cell, symbols):
            """Literals 'cell holds one of symbols' (empty off the board: water)."""
            r, c = cell
            if not (0 <= r < R and 0 <= c < C):
                return []
            return [z[cell][_T[t]] for t in symbols]

        def imply_any(cond, options):  # cond -> OR(options); empty options: not cond
            md.add_bool_or(options).only_enforce_if(cond)

        for cell, zs in z.items():  # piece stitching; no touching: water around pieces
            for kind, symbol, arg in local_rules(cell, R, C, touching):
                cond = zs[_T[symbol]]
                if kind == "any":
                    imply_any(cond, [lit for near, symbols in arg for lit in lits(near, symbols)])
                elif kind == "water":
                    md.add_implication(cond, z[arg][0])
                else:  # "water-or"
                    md.add_bool_or([z[arg[0]][0], z[arg[1]][0]]).only_enforce_if(cond)
        if not touching:  # diagonals of every 2x2 window: s_a + s_b <= 1
            for r in range(R - 1):
                for c in range(C - 1):
                    md.add_bool_or([z[(r, c)][0], z[(r + 1, c + 1)][0]])
                    md.add_bool_or([z[(r, c + 1)][0], z[(r + 1, c)][0]])
        # Ship lengths: w_p <-> AND of the placement's pieces.
        w = self.cp_y = [md.new_bool_var("") for _ in m.placements]
        for p in m.placements:
            conj = [z[cell][_T[piece]] for cell, piece in zip(p.cells, p.pieces)]
            md.add_bool_and(conj).only_enforce_if(w[p.index])
            md.add_bool_or([~x for x in conj] + [w[p.index]])
        for L, n in m.fleet.items():
            md.add(cp_model.LinearExpr.sum([w[i] for i in m.by_length[L]]) == n)
        # s_c = sum of w_p covering c, i.e. z_{c,~} + sum_p w_p = 1.
        for cell, ps in m.cover.items():
            md.add_exactly_one([z[cell][0]] + [w[i] for i in ps])
        # Clues on s_c = 1 - z_{c,~}: sum of z_{c,~} = |line| - clue.
        for _kind, _idx, cells, clue in m.lines():
            md.add(cp_model.LinearExpr.sum([z[cell][0] for cell in cells]) == len(cells) - clue)
        # Hints fix z_{c,t} (water, the piece) or s_c = 1 (unknown piece).
        for cell, h in m.instance.hints.items():
            if h is Hint.SHIP:
                md.add_bool_or([~z[cell][0]])
            else:
                md.add_bool_or([z[cell][_T[h.value]]])

    # -------------------------------------------------------------- enumerate
    def _block(self, board: Board) -> None:
        """Add sum_{c in S} s_c <= |S| - 1 for the ship cells S of the board found."""
        cp_model = _cp()
        m, md = self.model, self.cp_model
        cells = sorted(board.cells)
        if self.formulation == "cell":  # s_c = 1 - z_{c,~}: at least one cell of S is water
            md.add_bool_or([self.cp_water[cell] for cell in cells])
            return
        weight: dict[int, int] = {}
        for cell in cells:
            for i in m.cover[cell]:
                weight[i] = weight.get(i, 0) + 1
        ids = list(weight)
        md.add(
            cp_model.LinearExpr.weighted_sum([self.cp_y[i] for i in ids], [weight[i] for i in ids])
            <= len(cells) - 1
        )

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        cp_model = _cp()
        if self.cp_model is None:
            self.build()
        deadline = Deadline(time_limit_s)
        mode = self.opts["enumeration"]
        if mode == "callback" and (self.model.instance.touching or self.opts["threads"] != 1):
            mode = "blocking"  # see the module docstring
        if mode == "callback" and self.opts["split"] > 1:  # each cube gets its own solver
            from harness.backends.cubes import enumerate_split

            return enumerate_split(self, limit, deadline)
        cp_solver = self.new_solver()
        if mode == "callback":
            return self._enumerate_callback(cp_model, cp_solver, limit, deadline)
        return self._enumerate_blocking(cp_solver, limit, deadline)

    def new_solver(self) -> Any:
        """A ``CpSolver`` with this backend's options (workers, seed, LP, branching) applied.

        The generator's oracle uses it too, so its CP-SAT questions search as configured here."""
        cp_solver = _cp().CpSolver()
        params = cp_solver.parameters
        params.num_workers = int(self.opts["threads"])
        params.random_seed = int(self.opts["seed"])
        params.add_lp_constraints_lazily = bool(self.opts["lazy_lp"])
        if self.opts["branching"] == "long-first":  # follow the decision strategy added by build()
            params.search_branching = _cp().FIXED_SEARCH
        return cp_solver

    def _chosen(self, value) -> list[int]:
        return [i for i, lit in enumerate(self.cp_y) if value(lit)]

    def _enumerate_blocking(self, cp_solver, limit, deadline) -> Answer:
        def solve_once(remaining: float | None) -> Step:
            if remaining is not None:
                cp_solver.parameters.max_time_in_seconds = remaining
            meaning = CPSAT.meaning(cp_solver.solve(self.cp_model), "blocking")
            outcome = {"exhausted": "exhausted", "hit_limit": "limit"}.get(meaning, "board")
            chosen = self._chosen(cp_solver.boolean_value) if outcome == "board" else None
            return Step(outcome, chosen, cp_solver.wall_time)

        answer, calls = self.enumerate_by_blocking(limit, deadline, solve_once, self._block)
        answer.detail = f"blocking: {calls} CP-SAT call(s), {self.opts['threads']} worker(s)"
        return answer

    def _enumerate_callback(self, cp_model, cp_solver, limit, deadline) -> Answer:
        backend = self
        boards: list = []
        seen: set = set()

        class Collector(cp_model.CpSolverSolutionCallback):
            stopped = False

            def on_solution_callback(self) -> None:
                board = backend.model.board_from(backend._chosen(self.boolean_value))
                if board.cells not in seen:
                    seen.add(board.cells)
                    boards.append(board)
                if limit is not None and len(boards) >= limit:
                    self.stopped = True
                    self.stop_search()

        cp_solver.parameters.enumerate_all_solutions = True
        cp_solver.parameters.num_workers = 1  # CP-SAT enumerates completely only with one worker
        remaining = deadline.remaining()
        if remaining is not None:
            cp_solver.parameters.max_time_in_seconds = remaining
        collector = Collector()
        status = cp_solver.solve(self.cp_model, collector)
        meaning = CPSAT.meaning(status, "callback")
        answer = Answer(boards=boards, solver_reported_s=cp_solver.wall_time)
        # OPTIMAL after our own stop_search is not trusted as a proof of exhaustion.
        answer.exhausted = meaning == "exhausted" and not collector.stopped
        answer.hit_limit = meaning == "hit_limit" or (meaning == "stopped" and not collector.stopped)
        answer.detail = f"callback: 1 CP-SAT call, 1 worker, {len(boards)} board(s)"
        return answer
