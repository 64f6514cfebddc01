"""The puzzle generator: plant a fleet, read the clues, reveal hints until unique, certify.

One puzzle from (:class:`Settings`, seed), everything drawn from ``random.Random(seed)``:

1. plant the fleet at random (:func:`~harness.puzzle.plant.random_board`; default fleet
   :func:`~harness.puzzle.plant.default_fleet`, about 20% ship cells, longest ship
   growing with the board) and read the clues off it, hiding a fraction if asked;
2. hints, by ``Settings.hints``:

   * ``"unique"``: ask the :class:`~harness.generate.oracle.UniquenessOracle` for
     another board; reveal one random cell where it differs from the planted board;
     repeat until there is none (:func:`unique_hints`);
   * ``"minimal"``: start from every cell revealed and drop hints in random order, in
     batches, while the puzzle stays unique -- no remaining hint can be dropped
     (:func:`minimal_hints`);
   * an integer N: N random cells, uniqueness not required (the count is certified);

3. ``unsat``: break the puzzle in a named way (:data:`UNSAT_CAUSES`) and retry other
   breaks until the certifier proves it unsat;
4. certify: a complete count-2 run of a harness pair (default ``cpsat/placement``, in
   an isolated worker; every board checked by the verifier) must agree with the
   claim -- exactly the planted board (``expected_count = 1``), at least two boards
   (``"many"``) or none (unsat).  A disagreement is a :class:`GenerationError`.

The instance's ``meta`` records the planted board, the seed, the settings, the command
that regenerates it, the certificate (pair, status, count, times, versions) and the
expected result with its evidence.
"""

from __future__ import annotations

import json
import random
import shlex
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from harness import __version__
from harness.core.paths import check_name
from harness.core.status import Status
from harness.errors import GenerationError, UsageError  # GenerationError: re-exported from its old home
from harness.generate.journal import Journal, question_id
from harness.generate.oracle import (FALLBACK_LIMIT_S, FALLBACK_OPTIONS, FALLBACK_PAIR, ORACLE_PAIR,
                                     ORACLE_SOLVER, Undecided, UniquenessOracle)
from harness.puzzle.board import Board
from harness.tasks.solve.race import leg_label
from harness.puzzle.instance import Cell, Hint, Instance
from harness.puzzle.plant import default_fleet, instance_from_board, random_board
from harness.tasks.solve.run import SolveResult

HINT_MODES = ("unique", "minimal")
UNSAT_CAUSES = ("clue-sum", "clue-shift", "fleet-extra", "fleet-swap", "wrong-hint")
"""How ``--unsat`` breaks a puzzle:

* ``clue-sum``: one row clue +1, so row and column clues no longer add up (found
  without search);
* ``clue-shift``: one row clue +1 and another -1, totals kept;
* ``fleet-extra``: one more submarine, with one row and one column clue +1;
* ``fleet-swap``: two ships of lengths a >= b >= 2 become a+1 and b-1 (same cells);
* ``wrong-hint``: one more hint that contradicts the planted board.
"""
RETRIES = 60  # breaks tried before giving up on an unsat cause


@dataclass(frozen=True)
class Settings:
    """What ``battlebench generate`` was asked for (everything but the seed)."""

    rows: int
    cols: int
    fleet: dict[int, int] | None = None  # None: default_fleet(rows, cols, density)
    density: float = 0.2
    hints: str | int = "unique"  # "unique" | "minimal" | number of random hints
    unknown_clues: float = 0.0
    piece_hints: bool = False
    touching: bool = False
    unsat: str | None = None  # one of UNSAT_CAUSES
    certify: str = "cpsat/placement"
    certify_limit_s: float = 600.0
    prefix: str = "gen"

    def __post_init__(self) -> None:
        check_name(self.prefix, "the prefix", "--prefix")  # it begins every puzzle's name and file name
        if self.rows < 1 or self.cols < 1:
            raise UsageError(f"--rows and --cols must be positive, got {self.rows}x{self.cols}")
        if isinstance(self.hints, str) and self.hints not in HINT_MODES:
            raise UsageError(f"--hints must be unique, minimal or a number, got {self.hints!r}")
        if isinstance(self.hints, int) and not 0 <= self.hints <= self.rows * self.cols:
            raise UsageError(f"--hints {self.hints}: must be between 0 and {self.rows * self.cols}")
        if not 0.0 <= self.unknown_clues <= 1.0:
            raise UsageError(f"--unknown-clues must be a fraction in [0, 1], got {self.unknown_clues}")
        if not 0.0 < self.density < 1.0:
            raise UsageError(f"--density must be in (0, 1), got {self.density}")
        if self.unsat is not None and self.unsat not in UNSAT_CAUSES:
            raise UsageError(f"--unsat {self.unsat!r}: choose from {', '.join(UNSAT_CAUSES)}")
        if self.fleet is not None and (not self.fleet or any(k < 1 or n < 0 for k, n in self.fleet.items())
                                       or sum(self.fleet.values()) == 0):
            raise UsageError("--fleet needs at least one ship and positive lengths")
        if self.certify_limit_s <= 0:
            raise UsageError(f"--certify-limit must be positive, not {self.certify_limit_s:g}")

    def fleet_for(self) -> dict[int, int]:
        if self.fleet is not None:
            return dict(sorted(self.fleet.items()))
        return {k: n for k, n in default_fleet(self.rows, self.cols, self.density).items() if n > 0}

    def label(self) -> str:
        """Short file-name part: hint mode, style, unknown clues, unsat cause."""
        parts = [self.hints if isinstance(self.hints, str) else f"h{self.hints}"]
        if self.piece_hints:
            parts.append("pieces")
        if self.unknown_clues:
            parts.append(f"u{round(self.unknown_clues * 100)}")
        if self.touching:
            parts.append("touching")
        if self.unsat:
            parts.append(f"unsat-{self.unsat}")
        return "-".join(parts)

    def name(self, seed: int) -> str:
        return f"{self.prefix}_{self.rows}x{self.cols}_{self.label()}_s{seed}"

    def command(self, seed: int) -> str:
        """The command line that regenerates the puzzle of this seed."""
        args = [f"battlebench generate --rows {self.rows} --cols {self.cols}"]
        if self.fleet is not None:
            args.append("--fleet " + ",".join(f"{k}:{n}" for k, n in sorted(self.fleet.items())))
        elif self.density != 0.2:
            args.append(f"--density {self.density}")
        args.append(f"--hints {self.hints}")
        if self.unknown_clues:
            args.append(f"--unknown-clues {self.unknown_clues}")
        if self.piece_hints:
            args.append("--piece-hints")
        if self.touching:
            args.append("--touching")
        if self.unsat:
            args.append(f"--unsat {self.unsat}")
        args.append(f"--certify {shlex.quote(self.certify)} --seed {seed}")
        if self.prefix != "gen":
            args.append(f"--prefix {self.prefix}")
        return " ".join(args) + " --out DIR"

    def to_meta(self) -> dict[str, Any]:
        d = asdict(self)
        d["fleet"] = {str(k): n for k, n in self.fleet_for().items()}
        d["fleet_given"] = self.fleet is not None
        return {k: v for k, v in d.items() if v is not None}


@dataclass
class Generated:
    """One generated puzzle and how it was made."""

    instance: Instance
    planted: Board
    seconds: dict[str, float] = field(default_factory=dict)
    oracle: dict[str, Any] = field(default_factory=dict)
    certificate: dict[str, Any] = field(default_factory=dict)
    journal: Journal | None = None  # the minimal search's journal: ``finish()`` it once the file is written


Certifier = Callable[[Instance], SolveResult]
"""Runs a complete count-2 of the certifying pair on an instance (see ``certify.py``)."""


def reveal(board: Board, cell: Cell, piece_hints: bool) -> Hint:
    ch = board.rows[cell[0]][cell[1]]
    if ch == ".":
        return Hint.WATER
    return Hint.from_symbol(ch) if piece_hints else Hint.SHIP


# ---------------------------------------------------------------- hints
def unique_hints(oracle: UniquenessOracle, rng: random.Random) -> list[Cell]:
    """Reveal cells until the planted board is the only board (bottom-up, not minimal).

    Each round asks for another board and reveals one random cell where it differs
    from the planted board.  When the conflict budget does not settle a round, a batch
    of random unrevealed cells (a tenth of the candidates) is revealed instead, so the
    loop always ends: with every candidate revealed the board is unique."""
    planted = oracle.planted.cells
    pool = oracle.candidates()
    rng.shuffle(pool)
    hints: list[Cell] = []
    revealed: set[Cell] = set()
    batch = max(1, len(pool) // 10)
    while True:
        try:
            other = oracle.other(hints)
        except Undecided:
            other = None
            fresh = [c for c in pool if c not in revealed][:batch]
            if not fresh:
                raise GenerationError("every cell is revealed and the oracle still cannot decide uniqueness") from None
            hints += fresh
            revealed.update(fresh)
            continue
        if other is None:
            return hints
        cell = rng.choice(sorted(planted ^ other.cells))
        hints.append(cell)
        revealed.add(cell)


def minimal_hints(oracle: UniquenessOracle, rng: random.Random, batch: int = 16,
                  journal: Journal | None = None) -> list[Cell]:
    """An inclusion-minimal set of hints that makes the planted board unique (top-down).

    Start from every candidate cell revealed (unique by construction) and try to drop
    the hints, in random order, in batches: a batch goes when no board agrees with the
    remaining hints and differs from the planted board inside the batch; otherwise it is
    split in halves, down to single cells.  A hint kept was needed when it was tested,
    with a superset of the final hints -- so it is still needed at the end, and no hint
    of the result can be dropped.

    Every board the oracle finds is remembered (as the cells where it disagrees with the
    planted board): a later question is answered by a remembered board that agrees with
    the remaining hints and disagrees inside the batch, without a solver.  A board that
    disagrees with exactly one hint of the batch proves that hint needed, and the rest of
    the batch is tried without it.  Which board answers a question never changes the
    answer, so the result is the same as testing the hints one by one in order: hint i
    is dropped iff the planted board stays unique with the hints kept before it and all
    the hints after it.

    With a ``journal``, every oracle answer is written down as it comes, and the answers
    recorded by an earlier, stopped run of the same search are replayed first
    (:mod:`harness.generate.journal`): the search resumes where it stopped."""
    hints = oracle.candidates()
    order = rng.sample(hints, len(hints))
    kept: set[Cell] = set(hints)
    needed: set[Cell] = set()
    known: list[frozenset[Cell]] = []  # disagreement sets of boards found so far

    def witness(chunk: list[Cell]) -> frozenset[Cell] | None:
        """Where a board that agrees with the other hints disagrees; None: ``chunk`` can go."""
        rest = kept.difference(chunk)
        for seen in known:
            if seen.isdisjoint(rest) and not seen.isdisjoint(chunk):
                oracle.stats.boards_reused += 1
                return seen
        asked = [c for c in hints if c in rest]
        qid = question_id(asked, chunk) if journal else ""
        if journal:
            replayed, answer = journal.lookup(qid)
            if replayed:
                if answer:
                    known.append(answer)
                return answer
        t0 = time.perf_counter()
        found: frozenset[Cell] | None
        try:
            board = oracle.differs(asked, chunk)
        except Undecided:
            if len(chunk) == 1:
                raise GenerationError(f"CP-SAT could not decide within {oracle.fallback_limit_s:g} s whether the "
                                      f"hint at {chunk[0]} is needed (a larger --question-limit may)") from None
            found = frozenset()  # unknown: split the batch
        else:
            found = None if board is None else oracle.disagreements(board)
            if found:
                known.append(found)
        if journal:
            journal.record(qid, found, time.perf_counter() - t0)
        return found

    def drop(chunk: list[Cell]) -> bool:
        """Drop what can be dropped of ``chunk``; True when all of it went in one query."""
        chunk = [c for c in chunk if c not in needed]
        if not chunk:
            return False
        seen = witness(chunk)
        if seen is None:
            kept.difference_update(chunk)
            return True
        inside = seen.intersection(chunk)
        if len(inside) == 1:  # that hint is needed now, so also with fewer hints later
            needed.update(inside)
            drop(chunk)
        elif len(chunk) > 1:
            half = len(chunk) // 2
            drop(chunk[:half])
            drop(chunk[half:])
        return False

    i, size = 0, batch
    while i < len(order):
        chunk = order[i:i + size]
        i += len(chunk)
        size = min(size * 2, 256) if drop(chunk) else max(1, size // 2)
    return [c for c in hints if c in kept]


# ---------------------------------------------------------------- unsat breaks
def _known(clues: tuple[int | None, ...], ok: Callable[[int], bool]) -> list[int]:
    return [i for i, v in enumerate(clues) if v is not None and ok(v)]


def break_puzzle(inst: Instance, planted: Board, cause: str, rng: random.Random,
                 piece_hints: bool) -> tuple[Instance, str] | None:
    """``inst`` broken by ``cause`` (and what changed), or None when it cannot apply."""
    rows, cols = list(inst.row_clues), list(inst.col_clues)
    if cause in ("clue-sum", "clue-shift"):
        up = _known(inst.row_clues, lambda v: v < inst.cols)
        down = _known(inst.row_clues, lambda v: v > 0)
        if not up or (cause == "clue-shift" and not [d for d in down if d != up[0] or len(up) > 1]):
            return None
        a = rng.choice(up)
        rows[a] += 1  # type: ignore[operator]
        change = f"row {a} clue {rows[a] - 1} -> {rows[a]}"  # type: ignore[operator]
        if cause == "clue-shift":
            candidates = [d for d in down if d != a]
            if not candidates:
                return None
            b = rng.choice(candidates)
            rows[b] -= 1  # type: ignore[operator]
            change += f", row {b} clue {rows[b] + 1} -> {rows[b]}"  # type: ignore[operator]
        return inst.replace(row_clues=rows), change
    if cause == "fleet-extra":
        up_r = _known(inst.row_clues, lambda v: v < inst.cols)
        up_c = _known(inst.col_clues, lambda v: v < inst.rows)
        if not up_r or not up_c:
            return None
        a, b = rng.choice(up_r), rng.choice(up_c)
        rows[a] += 1  # type: ignore[operator]
        cols[b] += 1  # type: ignore[operator]
        fleet = dict(inst.fleet)
        fleet[1] = fleet.get(1, 0) + 1
        return (inst.replace(fleet=fleet, row_clues=rows, col_clues=cols),
                f"one more submarine; row {a} and column {b} clues +1")
    if cause == "fleet-swap":
        ships = sorted(k for k, n in inst.fleet.items() for _ in range(n) if k >= 2)
        if len(ships) < 2:
            return None
        i, j = sorted(rng.sample(range(len(ships)), 2))
        b, a = ships[i], ships[j]  # a >= b >= 2
        if a + 1 > max(inst.rows, inst.cols):
            return None
        fleet = dict(inst.fleet)
        for k, d in ((a, -1), (b, -1), (a + 1, 1), (b - 1, 1)):
            fleet[k] = fleet.get(k, 0) + d
        return inst.replace(fleet={k: n for k, n in fleet.items() if n}), \
            f"ships of lengths {a} and {b} became {a + 1} and {b - 1}"
    if cause == "wrong-hint":
        free = [(r, c) for r in range(inst.rows) for c in range(inst.cols) if (r, c) not in inst.hints]
        if not free:
            return None
        cell = rng.choice(free)
        truth = reveal(planted, cell, piece_hints)
        wrong = Hint.WATER if truth.is_ship else (Hint.SUBMARINE if piece_hints else Hint.SHIP)
        hints = dict(inst.hints)
        hints[cell] = wrong
        return inst.replace(hints=hints), f"hint {wrong.value!r} at {cell}, where the planted board has {truth.value!r}"
    raise UsageError(f"unknown unsat cause {cause!r}")


# ---------------------------------------------------------------- certification
def certificate(result: SolveResult, pair: str, task: str = "count-2") -> dict[str, Any]:
    times = result.times
    cert = {
        "pair": pair, "task": task, "status": str(result.status), "count": result.count,
        "complete": result.complete, "wall_s": round(times.get("wall_s", times.get("total_s", 0.0)), 4),
    }
    for key in ("build_s", "solve_s"):
        if times.get(key) is not None:
            cert[key] = round(times[key], 4)
    if result.solver_reported_s is not None:
        cert["solver_reported_s"] = round(result.solver_reported_s, 4)
    cert["versions"] = dict(result.versions)
    if result.claim:  # unsat, or "no further board" (the uniqueness claim), and how it was established
        cert.update(claim=result.claim, certified=result.certificate, how=result.certificate_why)
    proof = result.proof
    if proof is not None:
        cert["proof"] = {"format": proof.format, "bytes": proof.proof_bytes, "sha256": proof.proof_sha256,
                         "cnf_sha256": proof.cnf_sha256,
                         "checks": [{"checker": c.checker, "outcome": c.outcome, "cpu_s": round(c.cpu_s, 4),
                                     "wall_s": round(c.wall_s, 4)} for c in proof.checks]}
    return cert


def _undecided(result: SolveResult, pair: str, limit: float) -> str:
    why = result.error or result.detail.splitlines()[0] if (result.error or result.detail) else ""
    return f"certification by {pair} ended {result.status} ({result.termination}) within {limit:g} s" + (
        f": {why}" if why else "")


# ---------------------------------------------------------------- one puzzle
def planted_puzzle(settings: Settings, seed: int) -> tuple[Board, Instance, random.Random]:
    """Step 1 for ``seed``: the planted board, the hint-free puzzle, and the generator's
    random stream as the hint step continues it."""
    rng = random.Random(seed)
    fleet = settings.fleet_for()
    planted = random_board(settings.rows, settings.cols, fleet, rng, touching=settings.touching)
    if planted is None:
        raise GenerationError(f"seed {seed}: cannot place the fleet {fleet} on a {settings.rows}x{settings.cols} "
                              "board (try a smaller fleet or --density)")
    base = instance_from_board(planted, fleet, name=settings.name(seed), touching=settings.touching,
                               unknown_clue_fraction=settings.unknown_clues, rng=rng)
    return planted, base, rng


def journal_path(settings: Settings, seed: int, directory: Path) -> Path:
    """Where the minimal-hint search of ``seed`` keeps its journal in ``directory``."""
    return directory / f"{settings.name(seed)}.jsonl"


def journal_for(settings: Settings, seed: int, planted: Board, directory: Path) -> Journal:
    """The journal of the minimal-hint search of ``seed`` in ``directory`` (resumed if it is there)."""
    key = json.dumps({"command": settings.command(seed), "planted": list(planted.rows), "version": __version__})
    return Journal(journal_path(settings, seed, directory), key)


def generate(settings: Settings, seed: int, certifier: Certifier, journal_dir: Path | None = None,
             on_resume: Callable[[Journal], None] | None = None,
             question_limit_s: float = FALLBACK_LIMIT_S) -> Generated:
    """One certified puzzle of ``settings`` from ``seed``.

    With ``journal_dir``, a minimal-hint search keeps a journal there
    (:func:`journal_for`) and resumes from one a stopped run left (``on_resume`` is told
    first, and when a journal of another search under that name was set aside); the caller
    deletes it with ``Generated.journal.finish()`` once the puzzle is written, and it stays
    if generation fails.  ``question_limit_s`` bounds one CP-SAT
    question of the oracle (it never changes an answer, only whether one comes)."""
    t0 = time.perf_counter()
    planted, base, rng = planted_puzzle(settings, seed)
    t_plant = time.perf_counter()
    oracle_stats: dict[str, Any] = {}
    journal = None
    if isinstance(settings.hints, int):
        cells = rng.sample([(r, c) for r in range(settings.rows) for c in range(settings.cols)], settings.hints)
    else:
        oracle = UniquenessOracle(base, planted, settings.piece_hints, fallback_limit_s=question_limit_s)
        try:
            if settings.hints == "minimal":
                journal = journal_for(settings, seed, planted, journal_dir) if journal_dir is not None else None
                if journal is not None and (journal.resumable or journal.set_aside or journal.cut) and \
                        on_resume is not None:
                    on_resume(journal)
                cells = minimal_hints(oracle, rng, journal=journal)
            else:
                cells = unique_hints(oracle, rng)
            oracle_stats = {**oracle.stats.to_meta(), **(journal.to_meta() if journal else {})}
        except GenerationError as exc:
            raise GenerationError(f"seed {seed}: {exc}") from None
        finally:
            try:
                oracle.close()
            finally:
                if journal is not None:
                    journal.close()
    puzzle = base.replace(hints={c: reveal(planted, c, settings.piece_hints) for c in cells})
    t_hints = time.perf_counter()

    unsat_note: dict[str, Any] = {}
    if settings.unsat is None:
        result = certifier(puzzle)
        _check_sat(result, planted, settings, seed)
    else:
        puzzle, result, unsat_note = _break_until_unsat(puzzle, planted, settings, seed, rng, certifier)
    t_cert = time.perf_counter()
    if result.options.get("proof", "off") != "off" and result.claim and result.certificate != "certified":
        raise GenerationError(f"seed {seed}: certification by {settings.certify}: the claim {result.claim!r} is "
                              f"{result.certificate}, not certified ({result.certificate_why})")

    cert = certificate(result, settings.certify)
    race = getattr(certifier, "last_race", None)
    if race is not None:  # certified by a race: who won, and how the other legs ended
        cert.update(won_by=race.winner_label, race=race.to_detail()["race"]["legs"])
    seconds = {"plant_s": t_plant - t0, "hints_s": t_hints - t_plant, "certify_s": t_cert - t_hints,
               "total_s": t_cert - t0}
    meta = _meta(settings, seed, planted, puzzle, cert, unsat_note, oracle_stats, seconds)
    return Generated(puzzle.replace(meta=meta), planted, seconds, oracle_stats, cert, journal)


def _check_sat(result: SolveResult, planted: Board, settings: Settings, seed: int) -> None:
    pair = settings.certify
    if result.status is not Status.SAT:
        raise GenerationError(f"seed {seed}: " + _undecided(result, pair, settings.certify_limit_s))
    if not any(b.cells == planted.cells for b in result.boards) and result.count < 2:
        raise GenerationError(f"seed {seed}: {pair} found one board, not the planted one, yet the oracle "
                              "proved the planted board unique")
    if isinstance(settings.hints, str) and result.count != 1:
        raise GenerationError(f"seed {seed}: {pair} found {result.count} boards but the oracle "
                              "proved the puzzle unique")


def _break_until_unsat(puzzle: Instance, planted: Board, settings: Settings, seed: int, rng: random.Random,
                       certifier: Certifier) -> tuple[Instance, SolveResult, dict[str, Any]]:
    cause = settings.unsat
    assert cause is not None
    for attempt in range(1, RETRIES + 1):
        broken = break_puzzle(puzzle, planted, cause, rng, settings.piece_hints)
        if broken is None:
            raise GenerationError(f"seed {seed}: --unsat {cause} does not apply to this puzzle "
                                  "(no known clue or ship it can change)")
        candidate, change = broken
        result = certifier(candidate)
        if result.status is Status.UNSAT and result.complete:
            return candidate, result, {"cause": cause, "change": change, "attempts": attempt}
        if result.status is not Status.SAT:
            raise GenerationError(f"seed {seed}: " + _undecided(result, settings.certify, settings.certify_limit_s))
    raise GenerationError(f"seed {seed}: {RETRIES} breaks of kind {cause} all left the puzzle solvable")


def _meta(settings: Settings, seed: int, planted: Board, puzzle: Instance, cert: dict[str, Any],
          unsat: dict[str, Any], oracle: dict[str, Any], seconds: dict[str, float]) -> dict[str, Any]:
    pair = settings.certify if "won_by" not in cert else f"{cert['won_by']} (winning the race {settings.certify})"
    if unsat:
        expected: dict[str, Any] = {
            "expected_status": "unsat", "expected_count": 0,
            "expected_evidence": f"complete count-2 by {pair}: unsat ({unsat['cause']}: {unsat['change']})",
        }
    elif cert["count"] == 1:
        expected = {"expected_status": "sat", "expected_count": 1,
                    "expected_evidence": f"complete count-2 by {pair}: exactly 1 board, the planted one (verified)"}
    else:
        expected = {"expected_status": "sat", "expected_count": "many",
                    "expected_evidence": f"count-2 by {pair}: 2 verified boards"}
    if cert.get("certified") == "certified":  # the claim (unsat; no further board) proven, and by what
        expected["expected_evidence"] += f"; its claim {cert['claim']!r} certified: {cert['how']}"
    hints = "no hints" if not puzzle.hints else f"{len(puzzle.hints)} {settings.label().split('-')[0]} " + (
        "piece hints" if settings.piece_hints else "hints")
    title = f"{settings.rows}x{settings.cols} puzzle, {hints}" + (f", unsat ({unsat['cause']})" if unsat else "")
    meta: dict[str, Any] = {
        "title": f"{title} (battlebench generate, seed {seed})",
        "source": f"battlebench generate {__version__}",
        "author": "battlebench generate", "license": "the project's", "format": "native",
        "command": settings.command(seed), "seed": seed,
        **expected,
        "planted": list(planted.rows),
    }
    if unsat:
        meta["planted_note"] = "the planted board before the unsat change; it does not solve this instance"
        meta["unsat"] = unsat
    meta["settings"] = settings.to_meta()
    meta["certificate"] = cert
    meta["generation"] = {
        "oracle": (f"{ORACLE_PAIR} ({ORACLE_SOLVER}, incremental, conflict budget), "
                   f"{leg_label(*FALLBACK_PAIR.split('/'), FALLBACK_OPTIONS)} for questions the budget leaves open")
        if oracle else "none",
        **oracle, **{k: round(v, 4) for k, v in seconds.items()},
    }
    return meta


__all__ = ["Settings", "Generated", "GenerationError", "generate", "unique_hints", "break_puzzle",
           "minimal_hints", "planted_puzzle", "journal_for", "journal_path", "UNSAT_CAUSES", "HINT_MODES", "reveal"]
