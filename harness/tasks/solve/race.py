"""The racing portfolio: several pairs on one instance at once; the first decided answer wins, the rest are killed.

A race's *legs* are pairs (``backend/formulation`` with options).  Each leg runs in its
own worker process -- the pool's warm worker for its key -- under the same limits a
single run gets, all started together (:meth:`harness.runner.process.WorkerPool.execute_many`,
which knows no race: it asks this module's judging policy of each leg as it ends).  As
each leg ends, its answer is judged here (every board verified, the status classified by
``classify``); the first leg
whose status decides the task wins and every other leg's process group is killed at
once.  *Decides* means sat, unsat -- or wrong: a decided answer the verifier rejects is
what a portfolio without a verifier would have returned, so the race is wrong too, never
quietly saved by a slower leg.  When no leg decides (each timed out, ran out of memory
or failed) the race takes the status of its first listed leg that timed out, else that
ran out of memory, else of its first leg.

What a race costs is recorded apart from what it took: ``wall_s`` runs from the start to
the winner's answer (or the last leg's end), ``cpu_s`` is the CPU time of every leg
together, the peak memory the sum of the legs' peaks.  The legs share the machine: a race
of N single-threaded legs wants N cores.  A killed leg's worker is replaced, so a campaign
of races pays a worker start (~0.5 s, not timed) per lost leg and run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from harness.core.status import Status
from harness.core.task import RACE, PairSpec, Request
from harness.errors import UsageError
from harness.runner.process import Execution, WorkerPool
from harness.tasks.solve.run import judge_execution

_DECISIVE = (Status.SAT, Status.UNSAT, Status.WRONG)


def split_pairs(text: str) -> list[str]:
    """``a/b,c[k=v,w=x]/d`` -> ``["a/b", "c[k=v,w=x]/d"]`` (commas inside brackets are options)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return parts


def parse_leg(text: str) -> tuple[str, str, dict[str, str]]:
    """``backend[key=value,...]/formulation`` (a pair's label) -> (backend, formulation, options as text)."""
    head, sep, formulation = text.rpartition("/")
    backend, options = head, {}
    if "[" in head:
        backend, _, rest = head.partition("[")
        if not rest.endswith("]"):
            raise UsageError(f"race leg {text!r}: expected BACKEND[KEY=VALUE,...]/FORMULATION")
        for item in filter(None, (p.strip() for p in rest[:-1].split(","))):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise UsageError(f"race leg {text!r}: option {item!r} is not KEY=VALUE")
            options[key.strip()] = value.strip()
    if not sep or not backend or not formulation:
        raise UsageError(f"race leg {text!r}: expected BACKEND/FORMULATION, e.g. cpsat/placement")
    return backend.strip(), formulation.strip(), options


def leg_label(backend: str, formulation: str, options: dict[str, Any]) -> str:
    """A leg's label, as a campaign pair's: ``backend[key=value,...]/formulation``."""
    return PairSpec(backend, formulation, tuple(sorted(options.items()))).label


@dataclass
class Leg:
    """How one leg of a race ended."""

    label: str
    request: Request
    execution: Execution
    result: Any  # the task's judged result (with a ``status``); None: killed because another leg won

    @property
    def killed(self) -> bool:
        return self.result is None

    def summary(self) -> dict[str, Any]:
        return {"pair": self.label, "status": "killed" if self.killed else str(self.result.status),
                "wall_s": round(self.execution.wall_s, 4),
                "cpu_s": None if self.execution.cpu_s is None else round(self.execution.cpu_s, 4)}


@dataclass
class RaceResult:
    """Every leg, the winner's index (None: no leg decided) and the race's own wall time."""

    legs: list[Leg]
    winner: int | None
    wall_s: float
    decided_by: int = field(init=False)  # the leg whose result stands for the race

    def __post_init__(self) -> None:
        self.decided_by = self.winner if self.winner is not None else self._undecided()

    def _undecided(self) -> int:
        for status in (Status.TIMEOUT, Status.MEMOUT):
            for i, leg in enumerate(self.legs):
                if leg.result is not None and leg.result.status is status:
                    return i
        return 0

    @property
    def winner_label(self) -> str | None:
        return None if self.winner is None else self.legs[self.winner].label

    @property
    def result(self) -> Any:
        """The standing leg's judged result, with the race's times."""
        leg = self.legs[self.decided_by]
        assert leg.result is not None
        times = dict(leg.result.times, wall_s=self.wall_s)
        cpu = self.cpu_s
        if cpu is not None:
            times["cpu_s"] = cpu
        return replace(leg.result, times=times)

    @property
    def cpu_s(self) -> float | None:
        values = [leg.execution.cpu_s for leg in self.legs]
        return None if any(v is None for v in values) else sum(values)

    @property
    def execution(self) -> Execution:
        """One execution standing for the race (for the run record): the standing leg's answer, the race's
        wall time, every leg's CPU time and peak memory added up."""
        ex = self.legs[self.decided_by].execution
        peaks = [leg.execution.peak_rss_mb for leg in self.legs if leg.execution.peak_rss_mb]
        return replace(ex, wall_s=self.wall_s, cpu_s=self.cpu_s, peak_rss_mb=sum(peaks) if peaks else None)

    def to_detail(self) -> dict[str, Any]:
        return {"race": {"winner": self.winner_label, "legs": [leg.summary() for leg in self.legs]}}

    def describe(self) -> str:
        if self.winner is None:
            return "race: no leg decided (" + ", ".join(f"{leg.label} {leg.summary()['status']}" for leg in self.legs) + ")"
        lost = [f"{leg.label} {leg.summary()['status']}" for i, leg in enumerate(self.legs) if i != self.winner]
        return f"race won by {self.winner_label} in {self.wall_s:.2f} s" + (f" ({', '.join(lost)})" if lost else "")


def race(pool: WorkerPool, requests: list[Request], labels: list[str],
         judge: Callable[[Request, Execution], Any] | None = None) -> RaceResult:
    """Run every request at once in its own worker of ``pool``; ``judge(request, execution)`` (default: the solve
    task's :func:`~harness.tasks.solve.run.judge_execution`) judges each leg as it ends; the first decided answer
    wins (module doc)."""
    if len(requests) != len(labels) or not requests:
        raise ValueError("a race needs one label per request, and at least one request")
    judge = judge or judge_execution
    results: list[Any] = [None] * len(requests)

    def decided(i: int, execution: Execution) -> bool:
        results[i] = judge(requests[i], execution)
        return results[i].status in _DECISIVE

    many = pool.execute_many(requests, decided)
    legs = [Leg(labels[i], requests[i], many.executions[i], None if many.stopped[i] else results[i])
            for i in range(len(requests))]
    return RaceResult(legs, many.first, many.wall_s)


__all__ = ["Leg", "RACE", "RaceResult", "leg_label", "parse_leg", "race", "split_pairs"]
