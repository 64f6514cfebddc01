"""The ``asp`` backend: the placement and cell formulations as answer set programs, solved by clingo in process.

The program (below, the same for every instance) meets the instance as facts written from the abstract model:
``placement(P, L)``, ``covers(P, R, C, S)`` (placement ``P`` puts piece ``S`` on cell ``(R, C)``), ``fleet(L, N)``,
``rowclue(R, K)`` / ``colclue(C, K)`` for known clues, ``member(G, P)`` for each group of placements of which at
most one may be chosen (the placements covering a cell where ships may touch, the placements meeting a 2x2
window where they may not), ``forced(R, C)`` (a cell hinted as ship), and for the cell formulation ``cell(R, C)``
and ``hint(R, C, S)`` (a water or piece hint).

* ``placement``: choose exactly ``N`` placements of each length, at most one per group; a cell is ``ship`` when
  a chosen placement covers it; clues count ship cells.
* ``cell``: choose one of seven symbols per cell (``z``); a placement is there (``w``) when all its cells hold
  its pieces; every ship cell is covered by exactly one placement that is there, ``N`` of each length are
  there, at most one per group; clues count the non-water symbols; hints fix symbols.

Boards are counted by clingo's own enumeration **projected onto** ``ship/2`` (``#project ship/2`` with
``--project=project``): each answer is a distinct set of ship cells, whatever the ships or symbols that make
it, so no blocking and no second call.  ``models`` limits the count; a finished search with fewer answers
proves there are no more (``exhausted``).  The time limit is kept by a timer that interrupts the solve
(``hit_limit``).  Every board goes to the verifier.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from harness.backends.base import Answer, Backend, ModelSize
from harness.errors import BackendError, BackendUnavailable

# piece symbol -> an ASP constant
SYMBOL = {"~": "water", "O": "sub", "<": "left", ">": "right", "^": "top", "v": "bottom", "#": "middle"}

COMMON = """
:- rowclue(R, K), #count { C : ship(R, C) } != K.
:- colclue(C, K), #count { R : ship(R, C) } != K.
:- forced(R, C), not ship(R, C).
#project ship/2.
#show ship/2.
"""

PLACEMENT = """
{ chosen(P) : placement(P, L) } = N :- fleet(L, N).
ship(R, C) :- chosen(P), covers(P, R, C, _).
:- group(G), #count { P : chosen(P), member(G, P) } > 1.
#show chosen/1.
""" + COMMON

CELL = """
sym(water; sub; left; right; top; bottom; middle).
1 { z(R, C, S) : sym(S) } 1 :- cell(R, C).
w(P) :- placement(P, _), z(R, C, S) : covers(P, R, C, S).
ship(R, C) :- z(R, C, S), S != water.
:- ship(R, C), #count { P : w(P), covers(P, R, C, _) } != 1.
:- fleet(L, N), #count { P : w(P), placement(P, L) } != N.
:- group(G), #count { P : w(P), member(G, P) } > 1.
:- hint(R, C, S), not z(R, C, S).
#show w/1.
""" + COMMON


def facts(model: Any, formulation: str) -> str:
    """The instance as facts for the program of ``formulation``."""
    out = []
    for p in model.placements:
        out.append(f"placement({p.index},{p.length}).")
        out += [f"covers({p.index},{r},{c},{SYMBOL[s]})." for (r, c), s in zip(p.cells, p.pieces)]
    out += [f"fleet({length},{n})." for length, n in model.fleet.items()]
    for kind, index, _cells, clue in model.lines():
        out.append(f"{'rowclue' if kind == 'row' else 'colclue'}({index},{clue}).")
    groups = [ps for ps in model.cover.values()] if model.instance.touching else [ps for _c, ps in model.windows]
    for g, ps in enumerate(ps for ps in groups if len(ps) > 1):
        out.append(f"group({g}).")
        out += [f"member({g},{p})." for p in ps]
    out += [f"forced({r},{c})." for r, c in sorted(model.forced_ship)]
    if formulation == "cell":
        out += [f"cell({r},{c})." for r, c in model.cells()]
        for (r, c), hint in sorted(model.instance.hints.items()):
            if hint.value in SYMBOL:
                out.append(f"hint({r},{c},{SYMBOL[hint.value]}).")
    return "\n".join(out)


class AspBackend(Backend):
    name = "asp"
    library = "clingo"
    formulations = ("placement", "cell")
    options = {}
    requires = ("clingo",)
    install = "pip install clingo"

    @classmethod
    def versions(cls) -> dict[str, str]:
        import clingo

        return {"clingo": clingo.__version__}

    def build(self) -> ModelSize:
        try:
            import clingo
        except ImportError as exc:
            raise BackendUnavailable(f"clingo cannot be imported: {exc}") from exc
        program = PLACEMENT if self.formulation == "placement" else CELL
        self.asp_messages: list[str] = []
        self.asp_control = clingo.Control(["--project=project", f"--seed={self.opts['seed']}",
                                           f"--parallel-mode={self.opts['threads']}"],
                                          logger=lambda _code, text: self.asp_messages.append(text.strip()))
        try:
            text = "\n" + facts(self.model, self.formulation)
            self.asp_control.add("base", [], program + text)
            self.asp_control.ground([("base", [])])
        except RuntimeError as exc:
            raise BackendError(f"clingo could not ground the program: {'; '.join(self.asp_messages) or exc}") \
                from exc
        # variables: the ground atoms gringo kept; constraints: the statements handed over (rules and facts)
        statements = sum(1 for line in (program + text).splitlines() if line.strip().endswith("."))
        return ModelSize(variables=len(self.asp_control.symbolic_atoms), constraints=statements)

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        ctl = self.asp_control
        ctl.configuration.solve.models = str(limit or 0)
        answer = Answer()
        chosen_sets: list[list[int]] = []
        key = "chosen" if self.formulation == "placement" else "w"

        def on_model(m: Any) -> None:
            chosen_sets.append(sorted(a.arguments[0].number for a in m.symbols(shown=True) if a.name == key))

        t0 = time.perf_counter()
        # A blocking solve that a timer interrupts (clingo releases the GIL while it searches): the asynchronous
        # handle's wait(limit) twice let a tiny solve hang to its limit, or answer past it, in CI.
        timer = threading.Timer(time_limit_s, ctl.interrupt) if time_limit_s is not None else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            result = ctl.solve(on_model=on_model)
        finally:
            if timer is not None:
                timer.cancel()
        finished = not result.interrupted
        answer.boards = [self.model.board_from(c) for c in chosen_sets]
        answer.exhausted = bool(finished and result.exhausted)
        answer.hit_limit = not finished
        summary = ctl.statistics.get("summary", {})
        answer.solver_reported_s = float(summary.get("times", {}).get("cpu", time.perf_counter() - t0))
        answer.detail = (f"clingo {self.versions()['clingo']}: {len(chosen_sets)} answers projected onto ship cells in one "
                         f"call{' (cancelled at the time limit)' if not finished else ''}")
        return answer


__all__ = ["AspBackend", "facts"]
