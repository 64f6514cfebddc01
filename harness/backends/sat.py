"""The ``sat`` backend: the placement and cell formulations as CNF for python-sat.

Variables come from one ``pysat.formula.IDPool`` (keys ``("y", p)``, ``("s", cell)``,
``("z", cell, symbol)``, ``("h", cell)``, ``("w", p)``; auxiliary encoding variables
are drawn from the same pool), cardinality constraints from ``pysat.card.CardEnc``
(``encoding`` for fleet counts and line clues, ``amo`` for at-most-one constraints),
and one incremental ``pysat.solvers.Solver`` enumerates boards: after each board the
clause ``OR_{c in S} not s_c`` blocks its ship cells and the solver runs again.

Options and their honest effects:

* ``solver``: the python-sat solvers that run here *and* can respect a time limit
  (lingeling has no limited solve, kissat404 aborts on incremental use, minisatgh and
  cryptosat are not in this build).  CaDiCaL has no ``interrupt()`` in python-sat, so
  its time limit is kept by solving in conflict-budget chunks sized from the measured
  conflict rate (overrun ~0.25 s at most); every other solver is stopped by a
  ``threading.Timer`` calling ``interrupt()`` (glucose4/gluecard4 honour it late).
* ``threads``: accepted and recorded, ignored (these SAT solvers are single-threaded).
* ``seed``: 0 keeps the clause order; any other value shuffles the clause order with
  that seed, and CaDiCaL additionally receives it as its native ``seed`` option.
* solver-reported time is python-sat's ``time_accum()`` (process CPU time of the
  solve calls, ``use_timer=True``).
* ``proof``: ``check`` / ``check-all`` log a DRUP proof (``with_proof=True``; every solver but
  :data:`NO_PROOF_SOLVERS`) and, when the search is exhausted, write the exact CNF solved (the
  puzzle's clauses, then each blocking clause) beside it for the worker's checkers
  (:mod:`harness.proofs.stage`).  CaDiCaL used incrementally (:data:`RESTORING_SOLVERS`: blocking clauses
  added after a solve) restores clauses its proof logged as deleted without logging them again, so
  checkers refuse its proof as logged (measured: every CaDiCaL of python-sat on sb_12_12_5_0, accepted
  without its deletions); its deletion lines are dropped then.  A proof without deletions is as sound
  (every lemma is checked against a superset of the clauses), only slower to check; the record says so.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from harness.backends.base import PROOF_OPTION, Answer, Backend, Deadline, ModelSize, Option, ProofFiles, Step
from harness.errors import BackendError, BackendUnavailable, UsageError
from harness.puzzle.board import Board
from harness.puzzle.instance import CELL_SYMBOLS

SOLVERS = (
    "cadical103", "cadical153", "cadical195", "cadical300", "ergo", "gluecard3", "gluecard4",
    "glucose3", "glucose4", "glucose42", "maplechrono", "maplecm", "maplesat", "mergesat3",
    "minicard", "minisat22", "minisatep",
)
BUDGET_SOLVERS = frozenset(("cadical103", "cadical153", "cadical195", "cadical300"))  # no interrupt()
NO_PROOF_SOLVERS = frozenset(("mergesat3", "minicard", "minisat22", "minisatep"))  # python-sat: NotImplementedError
RESTORING_SOLVERS = frozenset(("cadical103", "cadical153", "cadical195", "cadical300"))  # module doc
SEEDED_SOLVERS = frozenset(("cadical153", "cadical195", "cadical300"))  # configure({"seed": n})
ENCODINGS = ("seqcounter", "sortnetwrk", "cardnetwrk", "totalizer", "mtotalizer", "kmtotalizer")
AMO_ENCODINGS = ("pairwise", "ladder", "bitwise", "seqcounter", "totalizer")

# python-sat's solve()/solve_limited() result -> what it means; anything else raises.
_RESULT = {True: "sat", False: "unsat", None: "limit"}

# piece -> offsets of the orthogonal neighbours that must be water (no touching).
_WATER_AROUND = {
    "O": ((0, -1), (0, 1), (-1, 0), (1, 0)),
    "<": ((0, -1), (-1, 0), (1, 0)),
    ">": ((0, 1), (-1, 0), (1, 0)),
    "^": ((-1, 0), (0, -1), (0, 1)),
    "v": ((1, 0), (0, -1), (0, 1)),
}
# end piece -> (offset of the neighbour it continues into, symbols allowed there).
_STITCH = {"<": ((0, 1), "#>"), ">": ((0, -1), "<#"), "^": ((1, 0), "#v"), "v": ((-1, 0), "^#")}


def _result(value: Any) -> str:
    try:
        return _RESULT[value]
    except (KeyError, TypeError):
        raise BackendError(f"python-sat returned an unknown solve result {value!r}") from None


class SatBackend(Backend):
    name = "sat"
    library = "python-sat"
    formulations = ("placement", "cell")
    options = {
        "solver": Option("cadical195", str, SOLVERS, "python-sat solver name"),
        "encoding": Option("seqcounter", str, ENCODINGS, "CardEnc encoding of fleet counts and line clues"),
        "amo": Option("seqcounter", str, AMO_ENCODINGS, "CardEnc encoding of at-most-one constraints"),
        "proof": PROOF_OPTION,
    }

    _first_budget = 2000  # conflicts in the first CaDiCaL chunk of a solve call

    @classmethod
    def proof_format(cls, opts: dict[str, Any]) -> str | None:
        return None if opts.get("solver") in NO_PROOF_SOLVERS else "drup"

    @classmethod
    def check_options(cls, opts: dict[str, Any]) -> None:
        if opts.get("proof", "off") != "off" and cls.proof_format(opts) is None:
            able = ", ".join(s for s in SOLVERS if s not in NO_PROOF_SOLVERS)
            raise UsageError(f"backend 'sat': solver {opts['solver']!r} logs no proofs (proof = "
                             f"{opts['proof']!r} needs one of {able})")

    @classmethod
    def versions(cls) -> dict[str, str]:
        import pysat

        return {"python-sat": pysat.__version__}

    # ------------------------------------------------------------------ build
    def build(self) -> ModelSize:
        self.encode()
        try:
            from pysat.solvers import Solver
        except ImportError as exc:
            raise BackendUnavailable(f"python-sat cannot be imported: {exc}") from exc
        name = self.opts["solver"]
        seed = self.opts["seed"]
        proving = self.opts.get("proof", "off") != "off"
        try:
            self.sat_solver = Solver(name=name, use_timer=True, with_proof=proving)
            if seed and name in SEEDED_SOLVERS:
                self.sat_solver.configure({"seed": seed})
            self.sat_solver.append_formula(self.sat_clauses)
        except Exception as exc:  # noqa: BLE001 - a solver library failure
            raise BackendError(f"python-sat solver {name!r} failed while loading the CNF: {exc}") from exc
        size = ModelSize(variables=self.sat_pool.top, constraints=len(self.sat_clauses))
        # the solver holds the clauses now; a proof is of the exact CNF solved, so they are kept for it
        self._solved: list[list[int]] | None = self.sat_clauses if proving else None
        self._loaded = len(self.sat_clauses)  # blocking clauses come after these
        self.sat_clauses = []
        return size

    def encode(self) -> None:
        """The formulation as CNF: ``sat_clauses`` over ``sat_pool``'s variables, ``sat_w`` (placement index ->
        its variable) and ``sat_s`` (cell -> the literal of "a ship covers it"); a nonzero seed shuffles the
        clauses."""
        try:
            from pysat.card import CardEnc, EncType
            from pysat.formula import IDPool
        except ImportError as exc:
            raise BackendUnavailable(f"python-sat cannot be imported: {exc}") from exc
        self._card = CardEnc
        self._enc = getattr(EncType, self.opts["encoding"])
        self._amo_enc = getattr(EncType, self.opts["amo"])
        self.sat_pool = IDPool()
        self.sat_clauses: list[list[int]] = []
        self.sat_w: dict[int, int] = {}  # placement index -> y_p / w_p variable
        self.sat_s: dict[tuple[int, int], int] = {}  # cell -> literal of s_c
        if self.formulation == "placement":
            self._placement()
        else:
            self._cell()
        seed = self.opts["seed"]
        if seed:
            random.Random(seed).shuffle(self.sat_clauses)

    def _false(self) -> None:
        """Make the CNF unsatisfiable (a constraint no assignment can meet)."""
        f = self.sat_pool.id(("false",))
        self.sat_clauses += [[f], [-f]]

    def _equals(self, lits: list[int], k: int) -> None:
        if k > len(lits):
            self._false()
        else:
            self.sat_clauses += self._card.equals(lits, k, vpool=self.sat_pool, encoding=self._enc).clauses

    def _atmost_one(self, lits: list[int]) -> None:
        if len(lits) > 1:
            self.sat_clauses += self._card.atmost(lits, 1, vpool=self.sat_pool, encoding=self._amo_enc).clauses

    def _common(self) -> None:
        """Fleet counts on y_p/w_p, line clues and ship hints on s_c."""
        m = self.model
        for L, n in m.fleet.items():
            self._equals([self.sat_w[p] for p in m.by_length[L]], n)
        for _kind, _idx, cells, clue in m.lines():
            self._equals([self.sat_s[c] for c in cells if c in self.sat_s], clue)
        for cell in m.forced_ship:
            if cell in self.sat_s:
                self.sat_clauses.append([self.sat_s[cell]])
            else:
                self._false()

    def _placement(self) -> None:
        m, pool, cl = self.model, self.sat_pool, self.sat_clauses
        y = self.sat_w = {p.index: pool.id(("y", p.index)) for p in m.placements}
        for cell, ps in m.cover.items():
            if not ps:
                continue  # s_c is constant false: no variable
            s = self.sat_s[cell] = pool.id(("s", cell))
            cl.append([-s] + [y[p] for p in ps])  # s_c -> OR y_p
            cl.extend([[-y[p], s] for p in ps])  # y_p -> s_c
        if m.instance.touching:
            for ps in m.cover.values():
                self._atmost_one([y[p] for p in ps])
        else:
            for _cells, ps in m.windows:
                self._atmost_one([y[p] for p in ps])
        self._common()

    def _cell(self) -> None:
        m, pool, cl = self.model, self.sat_pool, self.sat_clauses
        R, C = m.rows, m.cols
        no_touch = not m.instance.touching
        z = {(r, c): {t: pool.id(("z", (r, c), t)) for t in CELL_SYMBOLS} for r in range(R) for c in range(C)}

        def at(cell: tuple[int, int], d: tuple[int, int]) -> dict[str, int] | None:
            return z.get((cell[0] + d[0], cell[1] + d[1]))

        for cell, zc in z.items():
            self.sat_s[cell] = -zc["~"]
            cl.append(list(zc.values()))  # exactly one symbol
            self._atmost_one(list(zc.values()))
            for piece, (d, allowed) in _STITCH.items():
                nb = at(cell, d)
                cl.append([-zc[piece]] + ([nb[t] for t in allowed] if nb else []))
            left, right, up, down = at(cell, (0, -1)), at(cell, (0, 1)), at(cell, (-1, 0)), at(cell, (1, 0))
            h = pool.id(("h", cell))  # orientation of a '#': true = horizontal
            mid = -zc["#"]
            cl.append([mid, -h] + ([left["<"], left["#"]] if left else []))
            cl.append([mid, -h] + ([right["#"], right[">"]] if right else []))
            cl.append([mid, h] + ([up["^"], up["#"]] if up else []))
            cl.append([mid, h] + ([down["#"], down["v"]] if down else []))
            if no_touch:
                for piece, offsets in _WATER_AROUND.items():
                    for d in offsets:
                        nb = at(cell, d)
                        if nb:
                            cl.append([-zc[piece], nb["~"]])
                for nb in (up, down):
                    if nb:
                        cl.append([mid, -h, nb["~"]])
                for nb in (left, right):
                    if nb:
                        cl.append([mid, h, nb["~"]])
        if no_touch:
            for r in range(R - 1):
                for c in range(C - 1):
                    cl.append([z[(r, c)]["~"], z[(r + 1, c + 1)]["~"]])
                    cl.append([z[(r, c + 1)]["~"], z[(r + 1, c)]["~"]])
        for cell, hint in m.instance.hints.items():
            # water and piece hints fix that symbol; SHIP only says "not water".
            cl.append([-z[cell]["~"]] if hint.value == "*" else [z[cell][hint.value]])
        # w_p <-> AND_{c in p} z_{c,piece}; s_c = SUM_{p ∋ c} w_p.
        w = self.sat_w = {p.index: pool.id(("w", p.index)) for p in m.placements}
        for p in m.placements:
            lits = [z[c][t] for c, t in zip(p.cells, p.pieces)]
            wp = w[p.index]
            cl.extend([[-wp, lit] for lit in lits])
            cl.append([wp] + [-lit for lit in lits])
        for cell, ps in m.cover.items():
            cl.append([z[cell]["~"]] + [w[p] for p in ps])
            self._atmost_one([w[p] for p in ps])
        self._common()

    # ------------------------------------------------------------------ solve
    def _solve(self, deadline: Deadline) -> Any:
        solver = self.sat_solver
        remaining = deadline.remaining()
        if remaining is None:
            return solver.solve()
        if remaining <= 0.0:
            return None
        if self.opts["solver"] not in BUDGET_SOLVERS:
            timer = threading.Timer(remaining, solver.interrupt)
            timer.start()
            try:
                return solver.solve_limited(expect_interrupt=True)
            finally:
                timer.cancel()
                timer.join()
                solver.clear_interrupt()
        # CaDiCaL: conflict-budget chunks; each chunk aims at max(0.25 s, time spent so
        # far in this call), at most half the remaining time (the last chunks shrink).
        budget, started = self._first_budget, time.perf_counter()
        while True:
            solver.conf_budget(budget)
            t0 = time.perf_counter()
            result = solver.solve_limited()
            spent = max(time.perf_counter() - t0, 1e-4)
            self._chunks += 1
            if result is not None:
                return result
            remaining = deadline.remaining()
            if remaining <= 0.0:
                return None
            target = min(max(0.25, time.perf_counter() - started), remaining / 2 if remaining > 0.1 else remaining)
            budget = max(200, min(int(budget / spent * target), 8 * budget))

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        deadline = Deadline(time_limit_s)
        self._chunks = 0

        def solve_once(_remaining: float | None) -> Step:
            result = _result(self._solve(deadline))
            if result != "sat":
                return Step("exhausted" if result == "unsat" else "limit")
            true = set(lit for lit in self.sat_solver.get_model() if lit > 0)
            return Step("board", sorted(p for p, v in self.sat_w.items() if v in true))

        def block(board: Board) -> None:
            clause = [-self.sat_s[c] for c in board.cells]
            self.sat_solver.add_clause(clause)
            if self._solved is not None:
                self._solved.append(clause)

        answer, solves = self.enumerate_by_blocking(limit, deadline, solve_once, block)
        answer.solver_reported_s = self.sat_solver.time_accum()
        if answer.exhausted and self._solved is not None:
            answer.proof = self._write_proof()
        extra = f", {self._chunks} budget chunks" if self._chunks else ""
        answer.detail = f"{self.opts['solver']}: {solves} solve calls{extra}"
        return answer

    def _write_proof(self) -> ProofFiles:
        """The CNF solved (the puzzle's clauses, then every blocking clause, in order) and the solver's DRUP proof
        of it, in this run's scratch folder."""
        from pysat.formula import CNF

        from harness.core import scratch

        where = scratch.folder("proof")
        cnf, proof = where / "solved.cnf", where / "proof.drup"
        solved = CNF(from_clauses=self._solved)
        solved.nv = max(solved.nv, self.sat_pool.top)
        solved.to_file(str(cnf))
        lines = self.sat_solver.get_proof() or []
        note = ""
        if self.opts["solver"] in RESTORING_SOLVERS and len(self._solved) > self._loaded:
            lines = [line for line in lines if not line.startswith("d ")]
            note = "deletions dropped: CaDiCaL restores deleted clauses unlogged when used incrementally"
        with open(proof, "w") as fh:
            fh.writelines(line + "\n" for line in lines)
        return ProofFiles(cnf, proof, "drup", where, note)

