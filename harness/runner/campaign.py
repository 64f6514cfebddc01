"""A campaign: a config expanded into runs, and one run executed into one run record.

Instances are read here, in the runner, once: a file that does not parse still gives
its runs, each recorded as ``error`` with the parse message, and the campaign goes on.
Run ids are deterministic (instance file and content, pair, task, seed, repetition,
limits), so running the same config again finds the finished runs and skips them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.backends.registry import check_pair
from harness.core.record import dumps, empty_record
from harness.core.status import Status, Task, Termination
from harness.errors import InputError
from harness.puzzle.formats import read_instance
from harness.puzzle.instance import Instance
from harness.runner.config import Config, Limits, PairSpec
from harness.runner.process import Execution, RunRequest, WorkerPool
from harness.solve import SolveResult

HOST = socket.gethostname()


@dataclass(frozen=True)
class RunSpec:
    """One run to execute: everything a worker (local or on a cluster) needs, picklable."""

    run_id: str
    campaign: str
    config_hash: str
    instance_path: str
    instance_name: str
    instance_hash: str
    instance: Instance | None  # None: the file did not parse (see load_error)
    load_error: str
    pair: PairSpec
    task: Task
    seed: int | None
    repetition: int
    limits: Limits

    @property
    def options(self) -> dict[str, Any]:
        opts = self.pair.option_dict
        if self.seed is not None:
            opts["seed"] = self.seed
        return opts


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def _loaded(path: Path, read: Any) -> tuple[Any, str, str, str]:
    """(instance, name, content hash, error): the hash of the file's bytes if it does not parse."""
    try:
        inst = read(path)
        return inst, inst.name, inst.content_hash(), ""
    except InputError as exc:
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        except OSError:
            digest = "missing"
        return None, path.stem, digest, str(exc)


def load_instance(path: Path) -> tuple[Instance | None, str, str, str]:
    """(puzzle, name, content hash, error)."""
    return _loaded(path, read_instance)


def load_deployment(path: Path) -> tuple[Any, str, str, str]:
    """(deployment, name, content hash, error), as :func:`load_instance` for the counting task."""
    from harness.counting.format import read_deployment

    return _loaded(path, read_deployment)


def _run_id(shown: str, digest: str, pair: PairSpec, task: Task, seed: int | None, rep: int,
            limits: Limits) -> str:
    key = dumps([shown, digest, pair.label, task.label, seed, rep, limits.time_s, limits.memory_mb])
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def load_board(path: Path) -> tuple[Any, str, str, str]:
    """(board, name, content hash, error) for the play task: a deployment file without hints."""
    import numpy as np

    from harness.play.game import unplayable
    from harness.play.task import sampler_for

    board, name, digest, error = load_deployment(path)
    why = unplayable(board) if board is not None else None
    if board is not None and why is None:
        try:  # a fleet that fits nowhere is a bad board, found here rather than in every game
            sampler_for(board).draw(np.random.default_rng(0))
        except ValueError as exc:
            why = str(exc)
    if why:
        return None, name, digest, f"{_display(path)}: {why}"
    return board, name, digest, error


def _expand_play(config: Config) -> list[RunSpec]:
    """Every game of a play campaign, in order: game, board, pair, seed (so the strategies advance together);
    the game's number is its run's repetition."""
    boards = [(path, *load_board(path)) for path in config.instance_paths]
    seeds = config.seeds if config.seeds is not None else (0,)
    runs: list[RunSpec] = []
    for game in range(1, max(p.games or config.games for p in config.pairs) + 1):
        for path, board, name, digest, error in boards:
            shown = _display(path)
            for pair in config.pairs:
                if game > (pair.games or config.games):
                    continue
                for seed in seeds:
                    run_id = _run_id(shown, digest, pair, config.task, seed, game, config.limits)
                    runs.append(RunSpec(run_id, config.name, config.hash, shown, name, digest, board, error,
                                        pair, config.task, seed, game, config.limits))
    return runs


def expand(config: Config) -> list[RunSpec]:
    """Every run of the campaign, in order: repetition, instance, pair, seed (games: :func:`_expand_play`)."""
    if config.task.play:
        return _expand_play(config)
    load = load_deployment if config.task.counting else load_instance
    instances = [(path, *load(path)) for path in config.instance_paths]
    seeds: tuple[int | None, ...] = config.seeds if config.seeds is not None else (None,)
    runs: list[RunSpec] = []
    for rep in range(1, config.repetitions + 1):
        for path, inst, name, digest, error in instances:
            shown = _display(path)
            for pair in config.pairs:
                for seed in seeds:
                    run_id = _run_id(shown, digest, pair, config.task, seed, rep, config.limits)
                    runs.append(RunSpec(run_id, config.name, config.hash, shown, name, digest, inst, error,
                                        pair, config.task, seed, rep, config.limits))
    return runs


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


def execute_spec(pool: WorkerPool, spec: RunSpec) -> dict[str, Any]:
    """Execute one run in the pool's worker for its backend; judge it here; one record."""
    started = now_iso()
    if spec.instance is None:
        return make_record(spec, None, None, started, now_iso(), error=spec.load_error)
    if spec.task.counting:
        return _execute_count(pool, spec, started)
    if spec.task.play:
        return _execute_play(pool, spec, started)
    if spec.pair.legs:
        return _execute_race(pool, spec)
    request = RunRequest(spec.instance, spec.pair.backend, spec.pair.formulation, spec.task,
                         spec.options, spec.limits.time_s, spec.limits.memory_mb)
    execution = pool.execute(request)
    ended = dt.datetime.now(dt.timezone.utc)
    result = execution.judge(request)
    started = (ended - dt.timedelta(seconds=execution.wall_s)).isoformat(timespec="milliseconds")
    return make_record(spec, execution, result, started, ended.isoformat(timespec="milliseconds"))


def _execute_race(pool: WorkerPool, spec: RunSpec) -> dict[str, Any]:
    """A racing portfolio (:mod:`harness.runner.race`): the standing leg's answer, the race's wall time, every
    leg's CPU time; ``detail`` (JSON) names the winner and how each leg ended."""
    from harness.runner.race import race

    requests = []
    for leg in spec.pair.legs:
        options = leg.option_dict
        if spec.seed is not None:
            options["seed"] = spec.seed
        requests.append(RunRequest(spec.instance, leg.backend, leg.formulation, spec.task, options,
                                   spec.limits.time_s, spec.limits.memory_mb))
    outcome = race(pool, requests, [leg.label for leg in spec.pair.legs])
    ended = dt.datetime.now(dt.timezone.utc)
    started = (ended - dt.timedelta(seconds=outcome.wall_s)).isoformat(timespec="milliseconds")
    standing = spec.pair.legs[outcome.decided_by]
    rec = make_record(spec, outcome.execution, outcome.result, started, ended.isoformat(timespec="milliseconds"))
    library = _LIBRARY.get(standing.backend, standing.backend)
    versions = outcome.result.versions or {}
    rec.update(options=dumps({"race": [leg.label for leg in spec.pair.legs]}),
               solver_version=f"{library} {versions[library]}" if library in versions else None,
               detail=dumps({**outcome.to_detail(), "detail": outcome.result.detail or ""}))
    return rec


def _execute_count(pool: WorkerPool, spec: RunSpec, started: str) -> dict[str, Any]:
    from harness.counting.task import CountRequest, judge_count

    request = CountRequest(spec.instance, spec.pair.backend, spec.task.kind, spec.limits.time_s,
                           spec.limits.memory_mb)
    ex = pool.execute_count(request)
    ended = dt.datetime.now(dt.timezone.utc)
    result = judge_count(request, ex.kind, ex.outcome, ex.error, ex.wall_s, ex.cpu_s)
    started = (ended - dt.timedelta(seconds=ex.wall_s)).isoformat(timespec="milliseconds")
    return make_count_record(spec, ex, result, started, ended.isoformat(timespec="milliseconds"))


def _execute_play(pool: WorkerPool, spec: RunSpec, started: str) -> dict[str, Any]:
    from harness.play.task import PlayRequest, judge_play

    request = PlayRequest(spec.instance, spec.pair.backend, spec.pair.options, spec.pair.formulation,
                          spec.seed if spec.seed is not None else 0, spec.repetition - 1, spec.limits.time_s,
                          spec.limits.memory_mb)
    ex = pool.execute_play(request)
    ended = dt.datetime.now(dt.timezone.utc)
    result = judge_play(request, ex.kind, ex.outcome, ex.error)
    started = (ended - dt.timedelta(seconds=ex.wall_s)).isoformat(timespec="milliseconds")
    return make_play_record(spec, ex, result, started, ended.isoformat(timespec="milliseconds"))


def make_play_record(spec: RunSpec, execution: Execution, result: Any, started: str, ended: str) -> dict[str, Any]:
    """The run record of one game: ``count`` holds its shots when it ended (``complete``), ``repetition`` its
    number; ``detail`` the game, rule, hidden deployment's id, shots, hits and the shot sequence."""
    rec = empty_record()
    board = spec.instance
    limit = spec.limits.time_s
    rec.update(
        run_id=spec.run_id, campaign=spec.campaign, config_hash=spec.config_hash,
        instance=spec.instance_name, instance_path=spec.instance_path, instance_hash=spec.instance_hash,
        rows=board.rows if board.grid.kind == "square" else None,
        cols=board.cols if board.grid.kind == "square" else None,
        pair=spec.pair.label, backend=spec.pair.backend, formulation=spec.pair.formulation,
        options=dumps(spec.pair.option_dict), task=spec.task.label, seed=spec.seed, repetition=spec.repetition,
        time_limit_s=limit, memory_limit_mb=spec.limits.memory_mb, host=HOST, started_at=started, ended_at=ended,
        status=str(result.status), answer="sat" if result.finished else ("none" if execution.outcome is None
                                                                           else "unknown"),
        exhausted=0, termination=str(result.termination), verdict=result.verdict,
        count=result.shots, complete=int(result.finished), build_s=None, solve_s=result.play_s,
        wall_s=execution.wall_s, cpu_s=execution.cpu_s, solver_reported_s=None,
        overshoot_s=max(execution.wall_s - limit, 0.0) if limit is not None else 0.0,
        peak_rss_mb=execution.peak_rss_mb, solver_version=None, versions=dumps(result.versions),
        worker_pid=execution.pid, boards=dumps([]), verdicts=dumps([]), error=result.error or "",
        detail=dumps(result.detail),
    )
    return rec


INT64_MAX = 2 ** 63 - 1


def make_count_record(spec: RunSpec, execution: Execution, result: Any, started: str, ended: str) -> dict[str, Any]:
    """The run record of a counting run.  The exact count is ``detail.count`` (decimal text, any size); the
    ``count`` column holds it too while it fits SQLite's 64-bit integers (else null), never a float."""
    rec = empty_record()
    dep = spec.instance
    count = result.count
    if count is None:
        answer = "none" if execution.outcome is None else "unknown"
    elif result.complete:
        answer = "sat" if count > 0 else "unsat"
    else:
        answer = "unknown"
    versions = result.versions or {}
    library = next((k for k in versions if k != "battlebench"), None)
    detail = {k: v for k, v in result.detail.items() if k != "trace"}
    detail.update(count=None if count is None else str(count),
                  expected=None if result.expected is None else str(result.expected))
    if "trace" in result.detail:
        detail["trace"] = result.detail["trace"][-2000:]
    limit = spec.limits.time_s
    rec.update(
        run_id=spec.run_id, campaign=spec.campaign, config_hash=spec.config_hash,
        instance=spec.instance_name, instance_path=spec.instance_path, instance_hash=spec.instance_hash,
        rows=dep.rows if dep and dep.grid.kind == "square" else None,
        cols=dep.cols if dep and dep.grid.kind == "square" else None,
        pair=spec.pair.label, backend=spec.pair.backend, formulation=spec.pair.formulation,
        options=dumps({}), task=spec.task.label, seed=spec.seed, repetition=spec.repetition,
        time_limit_s=limit, memory_limit_mb=spec.limits.memory_mb, host=HOST, started_at=started, ended_at=ended,
        status=str(result.status), answer=answer, exhausted=int(bool(result.complete)),
        termination=str(result.termination), verdict=result.verdict,
        count=count if count is not None and count <= INT64_MAX else None, complete=int(bool(result.complete)),
        build_s=result.times.get("build_s"), solve_s=result.times.get("count_s"),
        wall_s=execution.wall_s, cpu_s=execution.cpu_s, solver_reported_s=None,
        overshoot_s=max(execution.wall_s - limit, 0.0) if limit is not None else 0.0,
        peak_rss_mb=execution.peak_rss_mb, placements=result.detail.get("placements"),
        solver_version=f"{library} {versions[library]}" if library else None,
        versions=dumps(versions), worker_pid=execution.pid, boards=dumps([]), verdicts=dumps([]),
        error=result.error or "", detail=dumps(detail),
    )
    return rec


def make_record(spec: RunSpec, execution: Execution | None, result: SolveResult | None,
                started: str, ended: str, error: str = "") -> dict[str, Any]:
    """The run record (see :mod:`harness.core.record`) of one executed run."""
    rec = empty_record()
    inst = spec.instance
    try:
        resolved = check_pair(spec.pair.backend, spec.pair.formulation).resolve_options(spec.options)
    except InputError:
        resolved = spec.options
    rec.update(
        run_id=spec.run_id, campaign=spec.campaign, config_hash=spec.config_hash,
        instance=spec.instance_name, instance_path=spec.instance_path, instance_hash=spec.instance_hash,
        rows=inst.rows if inst else None, cols=inst.cols if inst else None,
        pair=spec.pair.label, backend=spec.pair.backend, formulation=spec.pair.formulation,
        options=dumps(resolved), task=spec.task.label, seed=resolved.get("seed", spec.seed),
        repetition=spec.repetition, time_limit_s=spec.limits.time_s, memory_limit_mb=spec.limits.memory_mb,
        host=HOST, started_at=started, ended_at=ended,
    )
    if result is None:  # the instance could not be read: no worker was involved
        rec.update(status=str(Status.ERROR), answer="none", exhausted=0, termination=str(Termination.CRASH),
                   verdict="none", count=0, complete=0, wall_s=0.0, overshoot_s=0.0,
                   boards=dumps([]), verdicts=dumps([]), versions=dumps({}), error=error, detail="")
        return rec
    assert execution is not None
    outcome = execution.outcome
    if outcome is None:
        answer = "none"
    elif outcome.boards:
        answer = "sat"
    elif outcome.exhausted:
        answer = "unsat"
    else:
        answer = "unknown"
    bad = [v for v in result.verdicts if not v.startswith("ok")]
    verdict = "none" if not result.verdicts else (bad[0] if bad else "ok")
    limit = spec.limits.time_s
    versions = result.versions or {}
    library = _LIBRARY.get(spec.pair.backend, spec.pair.backend)
    solver_version = f"{library} {versions[library]}" if library in versions else None
    if solver_version and "solver" in resolved:
        solver_version += f" ({resolved['solver']})"
    rec.update(
        status=str(result.status), answer=answer, exhausted=int(bool(outcome and outcome.exhausted)),
        termination=str(result.termination), verdict=verdict, count=result.count,
        complete=int(result.complete),
        build_s=result.times.get("build_s"), solve_s=result.times.get("solve_s"),
        wall_s=execution.wall_s, cpu_s=execution.cpu_s, solver_reported_s=result.solver_reported_s,
        overshoot_s=max(execution.wall_s - limit, 0.0) if limit is not None else 0.0,
        peak_rss_mb=execution.peak_rss_mb,
        variables=result.model.get("variables"), constraints=result.model.get("constraints"),
        placements=result.model.get("placements"),
        solver_version=solver_version,
        versions=dumps(versions), worker_pid=execution.pid,
        boards=dumps([list(b.rows) for b in result.boards]), verdicts=dumps(result.verdicts),
        error=result.error or "", detail=result.detail or "",
    )
    return rec


# the library whose version identifies each backend's solver
_LIBRARY = {"cpsat": "ortools", "mip": "highs", "sat": "python-sat", "fake": "fake"}


__all__ = ["RunSpec", "expand", "execute_spec", "load_board", "load_deployment", "make_count_record",
           "make_play_record", "make_record", "load_instance", "now_iso"]
