"""A toy task from outside the package: the whole of what a new task writes (one module plus its registration).

The *square* task: each subject file holds one integer n; each pair's method squares it in
the worker (``mul``: n * n; ``add``: n added n times; ``liar``: n * n + 1 for n > 2, to test
the gate); the parent judges the answer against n ** 2.  Registered by an entry point of
the group ``battlebench.tasks`` (``square = toytask:SquareTask``), it runs through ``run``,
``check`` and ``report`` like the built-in tasks.  It declares its record columns, one of
its own (``digits``: the store adds it; the report's table reads it back).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.limits import NO_LIMITS, Limits
from harness.core.record import dumps
from harness.core.status import Status, Termination
from harness.core.tables import get
from harness.core.task import (Executed, PairSpec, ReportSection, Request, Subject, TaskType, WorkerOutcome,
                               base_record, error_record, termination_of)
from harness.errors import ConfigError, InputError

METHODS = ("mul", "add", "liar", "sleep")


@dataclass
class Number:
    """A subject: a name and the integer to square."""

    name: str
    n: int

    def content_hash(self) -> str:
        return f"n{self.n}"


def read_number(path: Path) -> Number:
    try:
        text = path.read_text().strip()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    if not text.isdigit():
        raise InputError(f"{path}:1: not a whole number: {text[:20]!r}")
    return Number(path.stem, int(text))


@dataclass
class Squared(WorkerOutcome):
    value: int | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class SquareRequest(Request):
    n: int
    method: str
    limits: Limits = NO_LIMITS

    def key(self) -> str:
        return f"square:{self.method}"

    def execute(self) -> Squared:
        t0 = time.perf_counter()
        if self.method == "add":
            value = sum(self.n for _ in range(self.n))
        elif self.method == "liar":
            value = self.n * self.n + (1 if self.n > 2 else 0)
        elif self.method == "sleep":
            time.sleep(60)
            value = self.n * self.n
        else:
            value = self.n * self.n
        return Squared(value=value, seconds=time.perf_counter() - t0)


class SquareTask(TaskType):
    name = "square"
    kinds = ("square",)
    plugin = "method"
    variant = "what is computed"
    subject = "number file"
    columns = {"instance": "the number file's name", "backend": "the method", "formulation": "square",
               "question": "square", "count": "the square", "solve_s": "squaring, in the worker"}
    extra_columns = {"digits": ("INTEGER", "decimal digits of the square (null: no square)")}
    pair_keys = ("method",)

    @classmethod
    def parse_pair(cls, entry: dict[str, Any], where: str, path: Path, spec: Any) -> PairSpec:
        method = get(entry, "method", str, path, required=True, where=f"{where}.method")
        if method not in METHODS:
            raise ConfigError(path, f"{where}.method", f"must be one of {', '.join(METHODS)}, not {method!r}")
        return PairSpec(method, "square")

    @classmethod
    def load(cls, path: Path, shown: str) -> Subject:
        try:
            number = read_number(path)
        except InputError as exc:
            return Subject(shown, None, path.stem, "unread", str(exc))
        return Subject(shown, number, number.name, number.content_hash())

    def execute(self, pool: Any, spec: Any) -> Executed:
        if spec.instance is None:
            return Executed(error_record(spec, spec.load_error))
        ex = pool.execute(SquareRequest(spec.instance.n, spec.pair.plugin, spec.limits))
        termination = termination_of(ex.kind)
        value = ex.outcome.value if ex.kind == "ok" else None
        right = value is None or value == spec.instance.n ** 2
        status = Status.WRONG if not right else (Status.SAT if ex.kind == "ok" else
                                                 {"timeout": Status.TIMEOUT, "memout": Status.MEMOUT}.get(
                                                     ex.kind, Status.ERROR))
        rec = base_record(spec, ex)
        rec.update(status=str(status), answer="sat" if value is not None else "none", exhausted=0,
                   termination=str(termination if ex.kind != "ok" else Termination.COMPLETED),
                   verdict="ok" if right and value is not None else ("none" if value is None else
                                                                     f"{value} is not {spec.instance.n} squared"),
                   count=value, digits=None if value is None else len(str(value)), complete=int(value is not None),
                   solve_s=ex.outcome.seconds if value else None,
                   versions=dumps({"toytask": "1"}), solver_version="toytask 1", boards=dumps([]),
                   verdicts=dumps([]), error=ex.error, detail=ex.detail)
        return Executed(rec, value)

    @classmethod
    def section(cls) -> ReportSection:
        return SquareSection()


class SquareSection(ReportSection):
    """The toy task's report section: methods that disagree on a number are a problem; a table of squares."""

    def problems(self, frame: Any, manifest: Any, manifest_path: Any) -> list:
        from harness.report.agreement import Problem

        out = []
        for name, group in frame.groupby("instance"):
            values = {int(v) for v in group["count"].dropna()}
            if len(values) > 1:
                out.append(Problem("square-mismatch", str(name), tuple(sorted(group["pair"])),
                                   f"the methods disagree on the square of {name}: {sorted(values)}", []))
        return out

    def agreement(self, frame: Any) -> str:
        return f"{len(frame)} squares agree"

    def tables(self, frame: Any) -> dict[str, Any]:
        return {"squares": frame[["instance", "pair", "count", "digits"]].rename(columns={"count": "square"})}

    def html(self, tables: dict, figures: dict, html_table: Any) -> list:
        return [("squares", "Squares", html_table(tables["squares"]))]

    def markdown(self, tables: dict, pngs: list, markdown_table: Any) -> list:
        return ["## Squares", "", markdown_table(tables["squares"]), ""]
