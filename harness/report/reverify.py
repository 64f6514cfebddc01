"""Stored results judged again from the subject files: a store's verdicts and statuses are evidence, not proof.

Every run was judged when it executed, and its verdict and status are stored.  ``check``
does not take them on trust: each task's section re-derives them (:class:`Reverified`
says what it did).  For the solve task, :func:`reverify` finds each run's instance file
(relative to the campaign root the store records, else to the store's folder and its
parents; its content hash must equal the stored ``instance_hash``: :mod:`harness.report.locate`),
verifies every stored board again with :func:`harness.puzzle.verify.verify`, and derives
the status again with ``classify()`` from the stored termination, boards, exhaustion and
verdicts; the ``count`` column must be the number of boards, and the boards must be distinct
(a board listed twice would count one solution as two).  Runs whose instance file cannot be
found (or has changed since) are counted, not judged: ``check`` says so and fails
(:mod:`harness.report.gate`).

The verifier is pure Python (no solver), so this keeps the reports' promise of running on
a machine without solvers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.core.status import Question, Termination, classify
from harness.puzzle.formats import read_instance
from harness.puzzle.instance import Instance
from harness.puzzle.verify import verify
from harness.report.data import clean
from harness.report.locate import Locator, locator_of


@dataclass
class Reverified:
    """What judging the stored results again found."""

    runs: int = 0  # runs judged again
    boards: int = 0  # what was judged again in them: boards, games, counts (``what`` says)
    unverifiable: int = 0  # runs whose subject file was not found or has changed
    mismatches: list[tuple[str, str, str, str]] = field(default_factory=list)  # (instance, pair, stored, now)
    instances: dict[str, Any] = field(default_factory=dict)  # content hash -> subject
    what: str = "stored boards verified again"
    located: Locator | None = None  # where the subject files were looked for, and what was not found

    def sentence(self) -> str:
        """What was done, in one line (what ``check`` prints: never more than was done)."""
        text = f"{self.boards} {self.what} in {self.runs} runs"
        if self.unverifiable:
            text += f"; {self.unverifiable} runs not judged again (their file not found or changed)"
        return text


def find_instance(path: str, digest: str, located: Locator) -> Instance | None:
    """The puzzle at ``path`` whose content hash is ``digest`` (see :meth:`Locator.find`)."""
    return located.find(path, digest, read_instance)


_LATE = ("timeout", "memout", "crash")


def status_again(rec: dict[str, Any], boards: list, verdicts: list[str]) -> str | None:
    """The status ``classify()`` gives a solve run's stored termination, boards, exhaustion and verdicts (None
    when its question or termination is not one this code knows)."""
    try:
        question = Question.of_label(str(rec.get("question")))
        termination = Termination(str(rec.get("termination")))
    except ValueError:
        return None
    exhausted = bool(rec.get("exhausted")) and str(termination) not in _LATE
    if rec.get("certificate") == "rejected":  # a checker refused the claim's proof (harness.proofs.claims)
        return "wrong"
    return str(classify(question, termination, len(boards), exhausted, all(v.startswith("ok") for v in verdicts)))


def _repeated(boards: list) -> tuple[int, int] | None:
    """The first two positions of one board listed twice (None when all are distinct)."""
    seen: dict[str, int] = {}
    for i, rows in enumerate(boards):
        key = json.dumps(rows)
        if key in seen:
            return seen[key], i
        seen[key] = i
    return None


def reverify(df: pd.DataFrame, results_dir: str | Path) -> Reverified:
    """Judge every stored solve run again (see the module docstring)."""
    out = Reverified(located=locator_of(results_dir))
    for rec in df.to_dict("records"):
        rec = {k: clean(v) for k, v in rec.items()}
        boards = json.loads(rec.get("boards") or "[]")
        stored = [str(v) for v in json.loads(rec.get("verdicts") or "[]")]
        where = (str(rec.get("instance")), str(rec.get("pair")))
        if rec.get("count") is not None and rec.get("answer") != "none" and int(rec["count"]) != len(boards):
            out.mismatches.append((*where, f"count {rec['count']}", f"{len(boards)} boards stored"))
        again = status_again(rec, boards, stored)
        if again is not None and again != rec.get("status"):
            out.mismatches.append((*where, f"status {rec.get('status')}", f"status {again} (classify() of its "
                                                                            "termination, boards and verdicts)"))
        twice = _repeated(boards)
        if twice:
            out.mismatches.append((*where, f"{len(boards)} boards", f"boards {twice[0] + 1} and {twice[1] + 1} are "
                                                                   "the same board (listed twice)"))
        if not boards:
            continue
        inst = find_instance(str(rec.get("instance_path") or ""), str(rec.get("instance_hash") or ""), out.located)
        if inst is None:
            out.unverifiable += 1
            continue
        out.instances[inst.content_hash()] = inst
        now = [str(verify(inst, rows)) for rows in boards]
        out.runs += 1
        out.boards += len(boards)
        if [v.startswith("ok") for v in now] != [v.startswith("ok") for v in stored]:
            first = next(i for i, (a, b) in enumerate(zip(now, stored)) if a.startswith("ok") != b.startswith("ok"))
            out.mismatches.append((*where, stored[first], now[first]))
    return out


__all__ = ["Reverified", "find_instance", "reverify", "status_again"]
