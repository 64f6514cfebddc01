"""The play task: one game of one strategy, played in a worker, replayed and judged in the caller.

A config names it ``task = "play"`` with ``games`` per seed; its pairs name strategies
(``strategy = "density"``, or ``backend``) with their options, under an announcement rule
(``rule = "ship"``, or ``formulation``; default ``ship``), and a pair may set its own
``games``.  Each game is a run: ``repetition`` is its number + 1, ``shots`` its shots.

:func:`execute_play` is the worker's part: draw game ``game`` of ``seed`` (the same hidden
deployment for every strategy), play it, time it, catch failures.  :func:`judge_play` is
the caller's: it draws the hidden deployment again itself and replays the shot sequence
the worker sent against it (:func:`verify_game`: every shot on the board and new, every
hit and miss as announced, every ship cell hit); the pure :func:`classify_play` gives the
status from why the run ended, whether the game ended, and that verdict.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.failures import failure_of
from harness.core.limits import NO_LIMITS, Limits
from harness.core.record import dumps
from harness.core.status import Status, Termination, ended_early
from harness.core.tables import configured_options, get, one_of, positive_int
from harness.core.task import (Executed, PairSpec, ReportSection, Request, RunSpec, Subject, TaskSpec, TaskType,
                               WorkerOutcome, base_record, error_record, make_spec, read_subject, termination_of,
                               worker_key)
from harness.errors import ConfigError, InputError
from harness.play.sample import sampler_for

DEFAULT_GAMES = 100


@dataclass(frozen=True)
class PlayRequest(Request):
    """What a worker needs for one game (picklable)."""

    board: Any  # a hint-free Deployment
    strategy: str
    options: tuple  # (name, value) pairs, sorted
    rule: str
    seed: int
    game: int
    limits: Limits = NO_LIMITS
    heat: bool = False  # also the strategy's heat map before every shot (--watch, --strip)

    def key(self) -> str:
        return worker_key(f"play:{self.strategy}", dict(self.options))

    def execute(self) -> "PlayOutcome":
        return execute_play(self)

    def warm(self) -> dict[str, str]:
        """Import the strategy and play one game on a tiny board with it: compilation (the posterior's dp) is paid
        here, outside the games' time limits (the next game's record keeps what this took, ``warmup_s``)."""
        from harness.counting.format import parse_deployment
        from harness.play.strategies import get_strategy

        tiny = parse_deployment('[meta]\nname = "warm"\n[grid]\nrows = 3\ncols = 3\n[pieces]\nA = 2\nB = 1\n',
                                file="<warm-up>")
        try:
            execute_play(PlayRequest(tiny, self.strategy, self.options, self.rule, 0, 0))
        except Exception:  # noqa: BLE001 - the game meets and reports the problem
            pass
        return versions_of(get_strategy(self.strategy))

    def kernels(self) -> tuple[str, ...]:
        from harness.play.strategies import get_strategy

        return tuple(get_strategy(self.strategy).kernels(self.board))


@dataclass
class PlayOutcome(WorkerOutcome):
    """What the worker sends back for one game (``failure``: why the game ended early, one line)."""

    shots: int = 0
    hits: int = 0
    sequence: list = field(default_factory=list)  # [[row, col, hit], ...] (cells as lists)
    deployment: str = ""  # the hidden deployment's id
    trace: str = ""
    play_s: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    heats: list = field(default_factory=list)  # per shot, the heat map it was chosen from (when asked)


def deployment_id(hidden: dict) -> str:
    """A short stable id of a hidden deployment (its ships' labels and cells)."""
    payload = json.dumps(sorted([label, sorted(map(list, cells))] for label, cells in hidden.items()))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def versions_of(strategy: Any = None) -> dict[str, str]:
    """What identifies a strategy's code: battlebench's version, and the strategy's own distribution's."""
    from harness import __version__

    return {"battlebench": __version__, **(strategy.versions() if strategy is not None else {})}


def execute_play(request: PlayRequest) -> PlayOutcome:
    """Play one game in this process; failures come back as ``failure`` (never raised)."""
    from harness.play.match import play_game
    from harness.play.sample import game_deployment
    from harness.play.strategies import get_strategy

    out = PlayOutcome()
    try:
        cls = get_strategy(request.strategy)
        out.versions = versions_of(cls)
        hidden = game_deployment(sampler_for(request.board), request.seed, request.game)
        out.deployment = deployment_id(hidden)
        strategy = cls(**dict(request.options))
        t0 = time.perf_counter()
        rec = play_game(strategy, request.board, hidden, request.rule, (request.seed, request.game),
                        heat=request.heat)
        out.play_s = time.perf_counter() - t0
        out.shots, out.hits, out.failure = rec.shots, rec.hits, rec.error or ""
        out.sequence = [[*cell, int(hit)] for cell, hit in rec.sequence]
        out.heats = rec.heats
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
    sequence: list = field(default_factory=list)  # [[row, col, hit], ...] as the worker sent it
    heats: list = field(default_factory=list)
    hidden: dict = field(default_factory=dict)  # the hidden deployment, drawn again here
    times: dict[str, float | None] = field(default_factory=dict)  # wall_s, cpu_s as the runner measured them


def judge_play(request: PlayRequest, kind: str, outcome: PlayOutcome | None, error: str = "") -> PlayResult:
    """Judge one execution (``kind``: ok, timeout, memout, crash, as the runner measured it)."""
    from harness.play.sample import game_deployment

    termination = termination_of(kind)
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
    if kind == "ok" and outcome.failure == "MemoryError":
        termination = Termination.MEMOUT
    elif kind == "ok" and outcome.failure and outcome.trace:
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
                      outcome.play_s, outcome.versions, list(outcome.sequence), list(outcome.heats), hidden)


def play_in_process(request: PlayRequest) -> PlayResult:
    """One game in this process (it imports the strategy), judged as a worker's is; no limit stops it (a strategy
    has no deadline of its own), ``wall_s`` is the seconds it took here."""
    t0 = time.perf_counter()
    outcome = execute_play(request)
    result = judge_play(request, "ok", outcome)
    result.times = {"wall_s": time.perf_counter() - t0, "cpu_s": None, "warmup_s": None}
    return result


def _sequence(text: Any) -> list[list[int]]:
    """``"r,c,h;r,c,h"`` (a game's stored shots) as ``[[r, c, h], ...]``; ValueError if it is not that."""
    if not text:
        return []
    return [[int(v) for v in shot.split(",")] for shot in str(text).split(";")]


def replay_stored(frame: Any, results: Path) -> Any:
    """Every stored game replayed against its hidden deployment, drawn again from its board file, seed and number:
    the sequence (every shot on the board and new, every hit and miss as the deployment says, every ship cell hit
    when it ended), the deployment it names, its shots and hits, its verdict and status (``classify_play`` of what
    the replay finds) must be as stored.  Games whose board file is gone or changed are counted, not judged."""
    import json

    from harness.counting.format import read_deployment
    from harness.play.sample import game_deployment
    from harness.report.data import clean
    from harness.report.locate import locator_of
    from harness.report.reverify import Reverified

    located = locator_of(results)
    out = Reverified(what="games replayed", located=located)
    for rec in frame.to_dict("records"):
        rec = {k: clean(v) for k, v in rec.items()}
        where = (str(rec.get("instance")), f"{rec.get('pair')} game {int(rec.get('repetition') or 1) - 1}")
        board = located.find(str(rec.get("instance_path") or ""), str(rec.get("instance_hash") or ""),
                             read_deployment)
        if board is None:
            out.unverifiable += 1
            continue
        try:
            detail = json.loads(rec.get("detail") or "{}")
            sequence = _sequence(detail.get("sequence"))
            hidden = game_deployment(sampler_for(board), int(rec.get("seed") or 0), int(rec["repetition"]) - 1)
            termination = Termination(str(rec.get("termination")))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            if rec.get("status") != "error":  # an unplayable board's error runs have no game to replay
                out.mismatches.append((*where, "a game", f"none to replay: {exc}"))
            continue
        out.runs += 1
        out.boards += 1
        ship = sum(len(c) for c in hidden.values())
        shots, hits = len(sequence), sum(1 for s in sequence if s[-1])
        finished = termination is Termination.COMPLETED and hits == ship and not rec.get("error")
        verdict = verify_game(board, hidden, sequence, finished)
        named = detail.get("deployment")
        if verdict == "ok" and named and named != deployment_id(hidden):
            verdict = f"the game names deployment {named}, not game's {deployment_id(hidden)}"
        status = str(classify_play(termination, finished, verdict))
        said = {"verdict": rec.get("verdict"), "status": rec.get("status"), "shots": rec.get("shots"),
                "detail shots": detail.get("shots"), "detail hits": detail.get("hits")}
        again = {"verdict": verdict, "status": status, "shots": shots if finished else None,
                 "detail shots": shots, "detail hits": hits}
        for key, value in said.items():
            if value != again[key] and (value is not None or key in ("status", "verdict", "shots")):
                out.mismatches.append((*where, f"{key} {value}", f"{key} {again[key]} (its replay)"))
                break
    return out


def load_board(path: Path, shown: str) -> Subject:
    """A board to play on: a deployment file without hints or clues, whose fleet fits (found here, once, rather
    than in every game); a bad one is kept as its error."""
    from harness.counting.format import read_deployment

    subject = read_subject(path, read_deployment, shown)
    board = subject.value
    if board is None:
        return subject
    why = unfit_board(board)
    if why:
        return Subject(shown, None, subject.name, subject.digest, f"{shown}: {why}")
    return subject


def unfit_board(board: Any) -> str | None:
    """Why a deployment instance is no board to play on (hints or clues, a fleet that does not fit), or None."""
    import numpy as np

    from harness.play.game import unplayable

    why = unplayable(board)
    if why is None:
        try:
            sampler_for(board).draw(np.random.default_rng(0))
        except ValueError as exc:
            why = str(exc)
    return why


def strategy_pair(entry: dict[str, Any], where: str, path: Path, task: str,
                  special: tuple[str, ...] = ()) -> tuple[str, str, tuple]:
    """(strategy, rule, its configured options resolved and sorted) of a ``[[pairs]]`` table naming a strategy
    (``strategy`` or ``backend``) and a rule (``rule`` or ``formulation``, default ``ship``), checked against the
    strategy (ConfigError naming the key); a name of ``special`` is no strategy and takes no options."""
    from harness.play.game import RULES
    from harness.play.strategies import get_strategy

    key = one_of(entry, ("strategy", "backend"), where, path)
    name = get(entry, key, str, path, required=True, where=f"{where}.{key}")
    rule_key = one_of(entry, ("rule", "formulation"), where, path)
    rule = get(entry, rule_key, str, path, where=f"{where}.{rule_key}") or "ship"
    if rule not in RULES:
        raise ConfigError(path, f"{where}.{rule_key}", f"the {task} task's {rule_key} is the announcement rule: "
                          f"one of {', '.join(RULES)}, not {rule!r}")
    options = get(entry, "options", dict, path, where=f"{where}.options") or {}
    if name in special:
        if options:
            raise ConfigError(path, f"{where}.options", f"{name} takes no options")
        return name, rule, ()
    try:
        strategy = get_strategy(name)
    except InputError as exc:
        raise ConfigError(path, f"{where}.{key}", str(exc) + (f" (or {', '.join(map(repr, special))})"
                                                              if special else "")) from None
    configured = configured_options(options, strategy.options, strategy.resolve_options, f"strategy {name}", path,
                                    where)
    if rule not in strategy.rules:
        raise ConfigError(path, f"{where}.{rule_key}", f"the {name} strategy plays under the "
                          f"{' or '.join(strategy.rules)} rule, not {rule!r}")
    return name, rule, configured


class PlayTask(TaskType):
    """The play task (see the module docstring)."""

    name = "play"
    kinds = ("play",)
    plugin = "strategy"
    variant = "announcement rule"
    subject = "board"
    columns = {  # what the shared record columns hold for this task (the records page)
        "instance": "the board's name",
        "backend": "the strategy",
        "formulation": "the announcement rule: ship, sunk or none",
        "options": "the strategy's options as configured (JSON)",
        "question": "play",
        "seed": "the games' seed",
        "repetition": "the game's number + 1",
        "answer": "sat: the game ended; unknown: it did not; none: no answer",
        "exhausted": "0",
        "verdict": "ok, or where the replay of the shot sequence fails",
        "count": "null (shots are in shots)",
        "complete": "the game ended",
        "shots": "shots to sink the fleet (null when the game did not end)",
        "build_s": "null",
        "solve_s": "playing the game, in the worker",
        "placements": "null",
        "solver_version": "the strategy's distribution",
        "boards": "[]",
        "detail": "game, rule, deployment id, shots, hits, sequence (JSON)",
    }
    family = "harness.play.strategies:FAMILY"
    pair_keys = ("strategy", "backend", "rule", "formulation", "options", "games")
    settings_keys = ("games",)
    repeats = False

    @classmethod
    def settings(cls, data: dict[str, Any], path: Path, spec: TaskSpec) -> tuple[tuple[str, Any], ...]:
        return (("games", positive_int(data, "games", DEFAULT_GAMES, path)),)

    @classmethod
    def parse_pair(cls, entry: dict[str, Any], where: str, path: Path, spec: TaskSpec) -> PairSpec:
        games = get(entry, "games", int, path, where=f"{where}.games")
        if games is not None and games < 1:
            raise ConfigError(path, f"{where}.games", "must be >= 1")
        name, rule, options = strategy_pair(entry, where, path, "play")
        return PairSpec(name, rule, options, (("games", games),) if games else ())

    @classmethod
    def load(cls, path: Path, shown: str) -> Subject:
        return load_board(path, shown)

    @classmethod
    def expand(cls, config: Any, subjects: list[Subject]) -> list[RunSpec]:
        """Every game of a play campaign, in order: game, board, pair, seed (so the strategies advance
        together); the game's number + 1 is its run's repetition."""
        seeds = config.seeds if config.seeds is not None else (0,)
        default = dict(config.params)["games"]
        games = {p.label: p.param_dict.get("games") or default for p in config.pairs}
        return [make_spec(subject, pair, config.task, seed, game, config.limits, config.name, config.hash)
                for game in range(1, max(games.values()) + 1) for subject in subjects
                for pair in config.pairs if game <= games[pair.label] for seed in seeds]

    def execute(self, pool: Any, spec: RunSpec, heat: bool = False) -> Executed:
        if spec.instance is None:
            return Executed(error_record(spec, spec.load_error))
        request = PlayRequest(spec.instance, spec.pair.plugin, spec.pair.options, spec.pair.variant,
                              spec.seed if spec.seed is not None else 0, spec.repetition - 1, spec.limits, heat)
        ex = pool.execute(request)
        result = judge_play(request, ex.kind, ex.outcome, ex.error)
        result.times = {"wall_s": ex.wall_s, "cpu_s": ex.cpu_s, "warmup_s": ex.warmup_s}
        if ex.detail:  # what the runner saw: killed at the limit, a late answer, the worker's last words
            result.detail = {**result.detail, "runner": ex.detail}
        return Executed(self.record(spec, ex, result), result)

    @staticmethod
    def record(spec: RunSpec, execution: Any, result: PlayResult) -> dict[str, Any]:
        """The run record of one game (``docs/reference/records.md``, the play task): ``shots`` holds its shots when it
        ended, ``repetition`` its number + 1; ``detail`` the game, rule, hidden deployment's id, shots, hits and
        the shot sequence."""
        from harness.play.strategies import get_strategy

        rec = base_record(spec, execution)
        board = spec.instance
        square = board.grid.kind == "square"
        try:
            solver = get_strategy(spec.pair.plugin).solver_label(result.versions or {})
        except InputError:
            solver = None
        rec.update(
            rows=board.rows if square else None, cols=board.cols if square else None,
            status=str(result.status), answer="sat" if result.finished else ("none" if execution.outcome is None
                                                                              else "unknown"),
            exhausted=0, termination=str(result.termination), verdict=result.verdict,
            shots=result.shots, complete=int(result.finished), solve_s=result.play_s,
            solver_version=solver, versions=dumps(result.versions), boards=dumps([]), verdicts=dumps([]),
            error=result.error or "", detail=dumps(result.detail),
        )
        return rec

    @classmethod
    def section(cls) -> ReportSection:
        return PlaySection()


class PlaySection(ReportSection):
    """What report and check add for games: shots per pair with intervals, each pair against the best on the
    same deployments, the shots figure; shots (not seconds) rank the pairs."""

    title = "Games"
    ranks_by_time = False

    def problems(self, frame: Any, manifest: dict | None, manifest_path: Any) -> list:
        from harness.report.play import check_play

        return check_play(frame)

    def agreement(self, frame: Any) -> str:
        return f"{len(frame)} games: none contradicts another or the exact mean of random"

    def recheck(self, frame: Any, results: Path) -> Any:
        return replay_stored(frame, results)

    def tables(self, frame: Any) -> dict[str, Any]:
        from harness.report.play import paired_table, play_table

        return {"play": play_table(frame), "paired": paired_table(frame)}

    def figures(self, frame: Any) -> dict[str, Any]:
        from harness.report.play import shots_figure

        figure = shots_figure(frame)
        return {"play_shots": figure} if figure is not None else {}

    def headline(self, tables: dict[str, Any]) -> str | None:
        from harness.report.play import play_headline

        return play_headline(tables["play"], tables["paired"]) if not tables["play"].empty else None

    def html(self, tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
        body = (html_table(tables["play"].drop(columns="board").round(3), first_row_class="best")
                + '<p class="sub">Against the best mean, paired on the same hidden deployments:</p>'
                + html_table(tables["paired"].drop(columns="board").round(3)))
        if "play_shots" in figures:
            body += (f'<figure id="fig-play"><img alt="shots per game" '
                     f'src="data:image/png;base64,{figures["play_shots"]}"><figcaption>Shots to sink the fleet per '
                     "strategy: histogram and cumulative share of games.</figcaption></figure>")
        return [("games", "Games", body)]

    def markdown(self, tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
        games = tables.get("play")
        if games is None or games.empty:
            return []
        return ["## Games", "", "Shots to sink the fleet per strategy/rule (one run per game; the mean's 95% "
                "interval is Student's t; games per second from the workers' measured game times).", "",
                markdown_table(games.drop(columns="board").round(3)), "", "Each pair against the best mean, "
                "paired on the same hidden deployments (positive: more shots than the best):", "",
                markdown_table(tables["paired"].drop(columns="board").round(3)), "",
                "![shots per game](play_shots.png)" if "play_shots.png" in pngs else "", ""]


__all__ = ["DEFAULT_GAMES", "PlayOutcome", "PlayRequest", "PlayResult", "PlaySection", "PlayTask", "classify_play",
           "deployment_id", "execute_play", "judge_play", "load_board", "play_in_process", "sampler_for", "strategy_pair",
           "unfit_board", "verify_game", "versions_of"]
