"""The play task as runs: one game of one strategy, played in a worker, verified and judged in the caller.

``execute_play`` is the worker's part: draw game ``game`` of ``seed`` (the same hidden
deployment for every strategy), play it, time it, catch failures.  ``judge_play`` is the
caller's: it draws the hidden deployment again itself and replays the shot sequence the
worker sent against it (:func:`verify_game`: every shot on the board and new, every hit
and miss as announced, every ship cell hit); the pure :func:`classify_play` gives the
status from why the run ended, whether the game ended, and that verdict.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from harness.core.failures import failure_of
from harness.core.status import Status, Termination, ended_early

_SAMPLERS: dict = {}


@dataclass(frozen=True)
class PlayRequest:
    """What a worker needs for one game (picklable)."""

    board: Any  # a hint-free Deployment
    strategy: str
    options: tuple  # (name, value) pairs, sorted
    rule: str
    seed: int
    game: int
    time_limit_s: float | None = None
    memory_mb: int | None = None


@dataclass
class PlayOutcome:
    """What the worker sends back for one game."""

    shots: int = 0
    hits: int = 0
    sequence: list = field(default_factory=list)  # [[row, col, hit], ...] (cells as lists)
    deployment: str = ""  # the hidden deployment's id
    failure: str = ""  # the game ended early: why (one line)
    trace: str = ""
    play_s: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    cpu_s: float | None = None
    peak_rss_mb: float | None = None


def sampler_for(board: Any):
    """The board's sampler, made once per process."""
    from harness.play.sample import Sampler

    key = board.content_hash()
    got = _SAMPLERS.get(key)
    if got is None:
        got = _SAMPLERS[key] = Sampler.of(board)
    return got


def deployment_id(hidden: dict) -> str:
    """A short stable id of a hidden deployment (its ships' labels and cells)."""
    payload = json.dumps(sorted([label, sorted(map(list, cells))] for label, cells in hidden.items()))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def versions_of() -> dict[str, str]:
    """What identifies a strategy's code: battlebench's version (strategies are part of it)."""
    from harness import __version__

    return {"battlebench": __version__}


def execute_play(request: PlayRequest) -> PlayOutcome:
    """Play one game in this process; failures come back as ``failure`` (never raised)."""
    from harness.play.match import play_game
    from harness.play.sample import game_deployment
    from harness.play.strategies import get_strategy

    out = PlayOutcome(versions=versions_of())
    try:
        hidden = game_deployment(sampler_for(request.board), request.seed, request.game)
        out.deployment = deployment_id(hidden)
        strategy = get_strategy(request.strategy)(**dict(request.options))
        t0 = time.perf_counter()
        rec = play_game(strategy, request.board, hidden, request.rule, (request.seed, request.game))
        out.play_s = time.perf_counter() - t0
        out.shots, out.hits, out.failure = rec.shots, rec.hits, rec.error or ""
        out.sequence = [[*cell, int(hit)] for cell, hit in rec.sequence]
    except Exception as exc:  # noqa: BLE001 - a strategy's crash is a result
        out.failure, out.trace = failure_of(exc)
    return out


def verify_game(board: Any, hidden: dict, sequence: list, finished: bool) -> str:
    """``ok``, or the first thing wrong with a shot sequence against the hidden deployment: a shot off the
    board or repeated, a hit or miss not as the deployment says, a shot after the last ship cell was hit, or
    (``finished``) a ship cell never hit."""
    ship = {c for cells in hidden.values() for c in cells}
    seen: set = set()
    for k, (*cell, hit) in enumerate(sequence, 1):
        cell = tuple(cell)
        if ship <= seen:
            return f"shot {k}: fired after every ship cell was hit"
        if cell not in board.cells:
            return f"shot {k}: {list(cell)} is off the board"
        if cell in seen:
            return f"shot {k}: {list(cell)} was shot before"
        seen.add(cell)
        if bool(hit) != (cell in ship):
            return f"shot {k}: {list(cell)} announced as {'hit' if hit else 'miss'}"
    if finished and not ship <= seen:
        return f"the game ended with {len(ship - seen)} ship cells never hit"
    return "ok"


def classify_play(termination: Termination, finished: bool, verdict: str) -> Status:
    """The status of a game.  Pure.

    A sequence the replay contradicts is ``wrong``; then crash, memout, timeout; a game
    that did not end (the strategy gave up or found the position impossible) is an
    ``error``; a game played to the end is ``sat``.
    """
    if verdict != "ok":
        return Status.WRONG
    early = ended_early(termination)
    if early is not None:
        return early
    return Status.SAT if finished else Status.ERROR


@dataclass
class PlayResult:
    """One judged game: what the strategy did, why the run ended, whether the replay agrees."""

    status: Status
    termination: Termination
    finished: bool
    shots: int | None
    verdict: str
    error: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    play_s: float | None = None
    versions: dict[str, str] = field(default_factory=dict)


def judge_play(request: PlayRequest, kind: str, outcome: PlayOutcome | None, error: str = "") -> PlayResult:
    """Judge one execution (``kind``: ok, timeout, memout, crash, as the runner measured it)."""
    from harness.play.sample import game_deployment

    termination = {"ok": Termination.COMPLETED, "timeout": Termination.TIMEOUT, "memout": Termination.MEMOUT,
                   "crash": Termination.CRASH}[kind]
    detail: dict[str, Any] = {"game": request.game, "rule": request.rule}
    try:
        hidden = game_deployment(sampler_for(request.board), request.seed, request.game)
    except ValueError as exc:
        return PlayResult(Status.ERROR, Termination.CRASH, False, None, "none", str(exc), detail)
    ship_cells = sum(len(c) for c in hidden.values())
    detail.update(deployment=deployment_id(hidden), cells=len(request.board.cells), ship_cells=ship_cells)
    if outcome is None:
        return PlayResult(classify_play(termination, False, "ok"), termination, False, None, "none",
                          error or "no answer from the worker", detail)
    if outcome.failure == "MemoryError":
        termination = Termination.MEMOUT
    elif outcome.failure and outcome.trace:
        termination = Termination.CRASH
    # shots and hits are the sequence's, not the worker's word
    shots, hits = len(outcome.sequence), sum(1 for s in outcome.sequence if s[-1])
    finished = kind == "ok" and not outcome.failure and hits == ship_cells
    verdict = verify_game(request.board, hidden, outcome.sequence, finished)
    if verdict == "ok" and (outcome.shots, outcome.hits) != (shots, hits):
        verdict = f"the worker said {outcome.shots} shots and {outcome.hits} hits; its sequence has {shots} and {hits}"
    if outcome.deployment and outcome.deployment != detail["deployment"]:
        verdict = f"the worker played deployment {outcome.deployment}, not {detail['deployment']}"
    detail.update(shots=shots, hits=hits,
                  sequence=";".join(",".join(str(v) for v in s) for s in outcome.sequence))
    if outcome.trace:
        detail["trace"] = outcome.trace[-2000:]
    return PlayResult(classify_play(termination, finished, verdict), termination, finished,
                      shots if finished else None, verdict, error or outcome.failure, detail,
                      outcome.play_s, outcome.versions)


__all__ = ["PlayOutcome", "PlayRequest", "PlayResult", "classify_play", "deployment_id", "execute_play",
           "judge_play", "sampler_for", "verify_game", "versions_of"]
