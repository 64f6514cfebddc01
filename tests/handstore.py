"""Hand-built results stores for report and check tests: runs written as compact rows.

``run(instance, pair, status, wall_s, **more)`` gives a full run record with sensible
defaults (the pair label is split into backend and formulation; ``count``, ``answer``,
``termination``, ``verdict``, ``exhausted`` and ``complete`` follow from the status and
the boards unless given: as in the runner, a count-2 run that stopped at 2 boards is
neither exhausted nor complete);
``make_store(directory, runs)`` writes them into a real ``ResultsStore`` with a plan of
exactly those runs (a complete campaign); ``plan=`` gives another plan (more runs than
stored: an interrupted campaign) or ``None`` (no plan recorded, as in old stores);
``config_text=`` the config the store records (``check`` reads its ``[check]`` table);
``files=True`` writes each run's instance file into the store's folder (``inst/NAME.toml``: the
3x2 puzzle the boards fit, made distinct per name by its hints) and stores its content hash, so that
``check`` judges every board again (without, it finds no file: "not verified").
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from harness.core.record import dumps, empty_record
from harness.core.task import task_name_of_label
from harness.store import ResultsStore

BOARD_A = ["O.", "..", ".O"]  # two boards of the 3x2 instance with clues rows (1,0,1), cols (1,1)
BOARD_B = [".O", "..", "O."]
BAD_BOARD = ["O.", ".O", ".."]  # breaks the clues


def run(instance: str, pair: str, status: str, wall_s: float | None, *, repetition: int = 1,
        time_limit_s: float = 10.0, rows: int = 10, cols: int = 10, **more: Any) -> dict[str, Any]:
    backend, formulation = pair.split("[")[0].split("/")[0], pair.rsplit("/", 1)[1]
    rec = empty_record()
    boards = more.pop("boards", [BOARD_A] if status in ("sat", "wrong") else [])
    verdicts = more.pop("verdicts", ["ok" if status != "wrong" else "row-clue: row 1 has 1 ship cell, clue 0"]
                        * len(boards))
    rec.update(
        run_id=hashlib.sha256(f"{instance}|{pair}|{repetition}|{more.get('seed', 0)}".encode()).hexdigest()[:20],
        campaign="hand", config_hash="hand0001", instance=instance, instance_path=f"inst/{instance}.toml",
        instance_hash=hashlib.sha256(instance.encode()).hexdigest()[:16], rows=rows, cols=cols,
        pair=pair, backend=backend, formulation=formulation, options=dumps({}), task="solve", question="count-2",
        seed=0, repetition=repetition, time_limit_s=time_limit_s, memory_limit_mb=4096,
        status=status,
        answer={"sat": "sat", "wrong": "sat", "unsat": "unsat"}.get(status, "unknown"),
        exhausted=int(status == "unsat" or (status == "sat" and len(boards) < 2)),
        termination={"timeout": "timeout", "memout": "memout", "error": "crash"}.get(status, "completed"),
        verdict="none" if not boards else ("ok" if all(v == "ok" for v in verdicts) else
                                           next(v for v in verdicts if v != "ok")),
        count=len(boards), complete=int(status == "unsat" or (status == "sat" and len(boards) < 2)),
        build_s=None if wall_s is None else wall_s * 0.2, solve_s=None if wall_s is None else wall_s * 0.7,
        wall_s=wall_s, cpu_s=wall_s,  # one core, a quiet machine: ranked by CPU or wall, the same times
        solver_reported_s=None if wall_s is None else wall_s * 0.7,
        overshoot_s=max((wall_s or 0) - time_limit_s, 0.0), peak_rss_mb=100.0,
        variables=1000, constraints=2000, placements=500, solver_version=f"{backend} 1.0",
        versions=dumps({backend: "1.0"}), host="testhost", worker_pid=1,
        started_at="2026-01-01T00:00:00.000+00:00", ended_at="2026-01-01T00:00:01.000+00:00",
        boards=dumps(boards), verdicts=dumps(verdicts), error="boom" if status == "error" else "", detail="",
    )
    if "question" in more and "task" not in more:  # the task that owns the question
        more["task"] = task_name_of_label(more["question"])
    for key, value in more.items():
        if key not in rec:
            raise KeyError(key)
        rec[key] = dumps(value) if key in ("options", "versions") and not isinstance(value, str) else value
    return rec


_RUNS = object()


def plan_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The store's plan rows for these run records."""
    from harness.store.sqlite import PLAN_COLUMNS

    return [{c: rec.get(c) for c in PLAN_COLUMNS} for rec in runs]


def puzzle(k: int) -> Any:
    """The ``k``-th distinct 3x2 puzzle BOARD_A and BOARD_B both solve (k < 8): water hints in row 1, touching."""
    from harness.puzzle.instance import Hint, Instance

    hints = {cell: Hint.WATER for bit, cell in enumerate(((1, 0), (1, 1))) if k & (1 << bit)}
    return Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1), hints=hints,
                    touching=bool(k & 4), name=f"p{k}")


def with_files(directory: Path, runs: list[dict[str, Any]], hashes: dict[str, str] | None = None
               ) -> list[dict[str, Any]]:
    """``runs`` with each default instance path (``inst/NAME.toml``) written under ``directory`` as a distinct
    puzzle, and its content hash stored (``hashes``: name -> hash, of the files written before)."""
    from dataclasses import replace

    from harness.puzzle.formats import write_instance

    hashes = {} if hashes is None else hashes
    out = []
    for rec in runs:
        name = rec["instance"]
        if rec["instance_path"] == f"inst/{name}.toml":
            if name not in hashes:
                inst = replace(puzzle(len(hashes)), name=name)
                (directory / "inst").mkdir(parents=True, exist_ok=True)
                write_instance(inst, directory / "inst" / f"{name}.toml", "native")
                hashes[name] = inst.content_hash()
            rec = {**rec, "instance_hash": hashes[name]}
        out.append(rec)
    return out


def make_store(directory: Path, runs: list[dict[str, Any]], *, campaign: str = "hand",
               config_hash: str = "hand0001", plan: Any = _RUNS, config_text: str = "# hand-built\n",
               files: bool = False) -> Path:
    if files:
        hashes: dict[str, str] = {}
        plan = plan if plan is _RUNS or plan is None else with_files(directory, plan, hashes)
        runs = with_files(directory, runs, hashes)
    planned = plan_rows(runs) if plan is _RUNS else (None if plan is None else plan_rows(plan))
    with ResultsStore(directory) as store:
        store.begin(campaign, config_hash, config_text, plan=planned)
        for rec in runs:
            rec = {**rec, "campaign": campaign, "config_hash": config_hash}
            assert store.add(rec), rec["run_id"]
    return directory
