"""The backend contract: one module, one class, lazy solver imports.

A backend compiles the shared abstract :class:`~harness.model.Model` for one
formulation, then enumerates distinct boards (distinct *sets of ship cells*) up to a
limit.  The contract is small on purpose:

``name``, ``formulations``, ``options`` (declared, with defaults)
    class attributes, readable without importing any solver;
``requires``, ``install``, ``available()``
    what the backend needs (importable modules), one line saying how to install it,
    and ``None`` when usable here or that line's reason when not (no solver import);
``check_options(opts)``
    a classmethod raising :class:`~harness.errors.UsageError` for option values that
    cannot work here (a solver that is not installed), before any run starts;
``memory_limit_by(opts)``
    ``"address-space"`` (default) or ``"rss"``: how the runner enforces the memory limit;
``versions()``
    solver library versions (imports the solver);
``__init__(model, formulation, options)``
    cheap, no solver import;
``build() -> ModelSize``
    creates the native solver model (timed as ``build_s``);
``enumerate(limit, time_limit_s) -> Answer``
    finds up to ``limit`` distinct boards (``None``: all), blocking each found board
    by its ship cells; ``exhausted`` is True only when the solver proved that no
    further board exists (timed as ``solve_s``).

Native solver objects carry a prefix (``cp_model``, ``pyo_model``, ``sat_solver``).
Backends never verify boards; the caller sends every board to the verifier.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar

from harness.core.options import Option, Resolved, resolve
from harness.errors import UsageError
from harness.model import Model
from harness.proofs.claims import PROOF_MODES
from harness.puzzle.board import Board


COMMON_OPTIONS: dict[str, Option] = {
    "threads": Option(1, int, help="solver threads (where the solver has them)", minimum=1),
    "seed": Option(0, int, help="random seed passed to the solver", minimum=0),
}


PROOF_OPTION = Option("off", str, PROOF_MODES,
                      "log a proof of every unsat claim and check it: by the fastest checker here, or by every one")
"""The ``proof`` option of the backends that can log proofs (:mod:`harness.proofs.claims`)."""


@dataclass(frozen=True)
class ModelSize:
    variables: int
    constraints: int


@dataclass(frozen=True)
class ProofFiles:
    """A proof a backend logged of its claim that no (further) board exists: the exact CNF it solved (blocking
    clauses included) and the proof of it, as DIMACS and DRUP/DRAT text files in the run's scratch folder."""

    cnf: Path
    proof: Path
    format: str  # "drup" or "drat"
    folder: Path | None = None  # a scratch folder of the proof's own, removed once the proof is checked
    note: str = ""  # how the proof file was made from what the solver logged, if not verbatim


@dataclass
class Answer:
    """What the solver said."""

    boards: list[Board] = field(default_factory=list)
    exhausted: bool = False  # proven: no board beyond those returned
    hit_limit: bool = False  # the solver stopped on its own time limit
    solver_reported_s: float | None = None
    detail: str = ""
    proof: ProofFiles | None = None  # with the ``proof`` option: the proof of ``exhausted``


@dataclass
class Step:
    """The outcome of one solver call in a blocking enumeration.

    ``outcome`` is ``"board"`` (``chosen`` holds the placement indices), ``"exhausted"``
    (proven: no further board), ``"limit"`` (the solver's time limit; ``chosen`` may
    still hold a board it found before stopping) or ``"unknown"`` (the solver gave up
    within its limit without deciding: the run is ``unknown``, not a timeout).
    """

    outcome: str
    chosen: list[int] | None = None
    reported_s: float = 0.0


class Deadline:
    """Wall-clock budget shared by the repeated solver calls of one enumeration."""

    def __init__(self, seconds: float | None):
        self.start = time.perf_counter()
        self.seconds = seconds

    def remaining(self) -> float | None:
        if self.seconds is None:
            return None
        return max(self.seconds - (time.perf_counter() - self.start), 0.0)

    def expired(self) -> bool:
        rem = self.remaining()
        return rem is not None and rem <= 0.0


def solver_label(cls: type["Backend"], opts: dict[str, Any], versions: dict[str, str]) -> str | None:
    """``"NAME VERSION"`` of the solver ``cls`` runs with ``opts`` (a chosen ``solver`` option that the name
    does not already say is added in brackets), or None when ``versions`` lacks it."""
    key = cls.solver(opts)
    if key not in versions:
        key = cls.library or cls.name
    if key not in versions:
        return None
    text = f"{key} {versions[key]}"
    chosen = opts.get("solver")
    if isinstance(chosen, str) and chosen and chosen != key:
        text += f" ({chosen})"
    return text


class Backend:
    """Base class of every backend module's single class."""

    name: ClassVar[str] = ""
    formulations: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[dict[str, Option]] = {}
    requires: ClassVar[tuple[str, ...]] = ()  # modules the backend imports (found, not imported)
    install: ClassVar[str] = ""  # one line: how to install what is missing
    library: ClassVar[str] = ""  # the key of versions() naming its solver (default: the backend's name)

    @classmethod
    def solver(cls, opts: dict[str, Any]) -> str:
        """The key of :meth:`versions` naming the solver that answers with these (resolved) options: what a
        run record's ``solver_version`` names.  Override when an option picks the solver (``mip``'s engine)."""
        return cls.library or cls.name

    @classmethod
    def proof_format(cls, opts: dict[str, Any]) -> str | None:
        """The proof format (``"drup"``, ``"drat"``) this backend logs with the resolved options ``opts``, or
        None when it cannot (its claims are then the solver's word).  A backend that can declares the option
        ``proof`` (:data:`PROOF_OPTION`) and, with it on, puts :class:`ProofFiles` on an exhausted answer."""
        return None

    @classmethod
    def available(cls) -> str | None:
        """``None`` when the backend can run here, else one line naming what is missing and how to install it."""
        missing = [m for m in cls.requires if importlib.util.find_spec(m) is None]
        if missing:
            return f"backend {cls.name!r} needs {', '.join(missing)}" + (f": {cls.install}" if cls.install else "")
        return None

    @classmethod
    def check_options(cls, opts: dict[str, Any]) -> None:
        """Reject resolved option values that cannot work here (UsageError); the default accepts all."""

    @classmethod
    def memory_limit_by(cls, opts: dict[str, Any]) -> str:
        """How the runner holds this backend to the memory limit: ``"address-space"`` (``RLIMIT_AS``, the
        default) or ``"rss"`` (resident memory sampled from outside, for solvers that reserve far more
        address space than they use, such as a GraalVM native image)."""
        return "address-space"

    def __init__(self, model: Model, formulation: str, options: dict[str, Any] | None = None):
        if formulation not in self.formulations:
            raise UsageError(
                f"backend {self.name!r} has no formulation {formulation!r} "
                f"(choose from {', '.join(self.formulations)})"
            )
        self.model = model
        self.formulation = formulation
        self.opts = dict(options) if isinstance(options, Resolved) else self.resolve_options(options or {})

    @classmethod
    def declared_options(cls) -> dict[str, Option]:
        return {**COMMON_OPTIONS, **cls.options}

    @classmethod
    def resolve_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in, unknown names and bad values rejected."""
        out = resolve(cls.declared_options(), given, f"backend {cls.name!r}")
        cls.check_options(out)
        return out

    @classmethod
    def versions(cls) -> dict[str, str]:
        raise NotImplementedError

    @classmethod
    def run_versions(cls, opts: dict[str, Any]) -> dict[str, str]:
        """What a run with the resolved options ``opts`` records as its versions: :meth:`versions` unless the
        backend runs one of several installed solvers and names only the one that ran (``tool``)."""
        return cls.versions()

    def build(self) -> ModelSize:
        raise NotImplementedError

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        raise NotImplementedError

    def enumerate_by_blocking(
        self,
        limit: int | None,
        deadline: Deadline,
        solve_once: Callable[[float | None], Step],
        block: Callable[[Board], None],
    ) -> tuple[Answer, int]:
        """The loop every blocking enumeration shares: solve, record, block, repeat.

        ``solve_once(remaining_s)`` makes one solver call; ``block(board)`` excludes
        that board's ship-cell set from the native model.  Returns the answer and the
        number of solver calls.
        """
        answer = Answer(solver_reported_s=0.0)
        calls = 0
        while limit is None or len(answer.boards) < limit:
            remaining = deadline.remaining()
            if remaining is not None and remaining <= 0.0:
                answer.hit_limit = True
                break
            step = solve_once(remaining)
            calls += 1
            answer.solver_reported_s = (answer.solver_reported_s or 0.0) + step.reported_s
            if step.outcome == "exhausted":
                answer.exhausted = True
                break
            if step.outcome == "unknown":  # neither exhausted nor at a limit: the solver gave up
                break
            if step.outcome not in ("board", "limit") or (step.outcome == "board" and step.chosen is None):
                raise ValueError(f"malformed enumeration step {step!r}")
            if step.chosen is not None:
                board = self.model.board_from(step.chosen)
                answer.boards.append(board)
                block(board)
            if step.outcome == "limit":
                answer.hit_limit = True
                break
        return answer, calls
