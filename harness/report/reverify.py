"""Stored results judged again from the subject files: a store's verdicts and statuses are evidence, not proof.

Every run was judged when it executed, and its verdict and status are stored.  ``check``
does not take them on trust: each task's section re-derives them (:class:`Reverified`
says what it did).  For the solve task, :func:`reverify` finds each run's instance file
(the stored ``instance_path`` as given, or relative to the results directory and its
parents, whose content hash must equal the stored ``instance_hash``: :func:`find_subject`),
verifies every stored board again with :func:`harness.puzzle.verify.verify`, and derives
the status again with ``classify()`` from the stored termination, boards, exhaustion and
verdicts; the ``count`` column must be the number of boards.  Runs whose instance file
cannot be found (or has changed since) are counted, not judged.

The verifier is pure Python (no solver), so this keeps the reports' promise of running on
a machine without solvers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from harness.core.status import Question, Termination, classify
from harness.errors import InputError
from harness.puzzle.formats import read_instance
from harness.puzzle.instance import Instance
from harness.puzzle.verify import verify
from harness.report.data import clean


@dataclass
class Reverified:
    """What judging the stored results again found."""

    runs: int = 0  # runs judged again
    boards: int = 0  # what was judged again in them: boards, games, counts (``what`` says)
    unverifiable: int = 0  # runs whose subject file was not found or has changed
    mismatches: list[tuple[str, str, str, str]] = field(default_factory=list)  # (instance, pair, stored, now)
    instances: dict[str, Any] = field(default_factory=dict)  # content hash -> subject
    what: str = "stored boards verified again"

    def sentence(self) -> str:
        """What was done, in one line (what ``check`` prints: never more than was done)."""
        text = f"{self.boards} {self.what} in {self.runs} runs"
        if self.unverifiable:
            text += f"; {self.unverifiable} runs not judged again (their file not found or changed)"
        return text


def roots_of(results_dir: str | Path) -> list[Path]:
    """Where relative subject paths are looked up: the results directory and each of its parents."""
    start = Path(results_dir).resolve()
    return [start, *start.parents]


def find_subject(path: str, digest: str, roots: list[Path], cache: dict, read: Callable[[Path], Any]) -> Any:
    """The subject at ``path`` (as given, or under one of ``roots``) whose content hash is ``digest``, read by
    ``read``; None when no such file is found."""
    key = (path, digest, read)
    if key not in cache:
        cache[key] = None
        for candidate in [Path(path)] + [root / path for root in roots]:
            if not candidate.is_file():
                continue
            try:
                value = read(candidate)
            except InputError:
                continue
            if value.content_hash() == digest:
                cache[key] = value
                break
    return cache[key]


def find_instance(path: str, digest: str, roots: list[Path], cache: dict) -> Instance | None:
    """The puzzle at ``path`` whose content hash is ``digest`` (see :func:`find_subject`)."""
    return find_subject(path, digest, roots, cache, read_instance)


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
    return str(classify(question, termination, len(boards), exhausted, all(v.startswith("ok") for v in verdicts)))


def reverify(df: pd.DataFrame, results_dir: str | Path) -> Reverified:
    """Judge every stored solve run again (see the module docstring)."""
    roots = roots_of(results_dir)
    cache: dict = {}
    out = Reverified()
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
        if not boards:
            continue
        inst = find_instance(str(rec.get("instance_path") or ""), str(rec.get("instance_hash") or ""), roots, cache)
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


__all__ = ["Reverified", "find_instance", "find_subject", "reverify", "roots_of", "status_again"]
