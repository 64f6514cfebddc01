"""Verify stored boards again, against the instance files: a store's verdicts are evidence, not proof.

Every board a backend returned was verified when its run executed, and its verdict is
stored.  ``check`` does not take the stored verdict on trust: :func:`reverify` finds each
run's instance file (the stored ``instance_path`` as given, or relative to the results
directory and its parents, whose content hash must equal the stored ``instance_hash``),
verifies every stored board again with :func:`harness.puzzle.verify.verify` and reports
each run whose verdicts differ from the stored ones.  Runs whose instance file cannot be
found (or has changed since) are counted, not judged.

The verifier is pure Python (no solver), so this keeps the reports' promise of running on
a machine without solvers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from harness.errors import InputError
from harness.puzzle.formats import read_instance
from harness.puzzle.instance import Instance
from harness.puzzle.verify import verify
from harness.report.data import clean


@dataclass
class Reverified:
    """What re-verification found."""

    runs: int = 0  # runs with boards, verified again
    boards: int = 0
    unverifiable: int = 0  # runs with boards whose instance file was not found or has changed
    mismatches: list[tuple[str, str, str, str]] = field(default_factory=list)  # (instance, pair, stored, now)
    instances: dict[str, Instance] = field(default_factory=dict)  # content hash -> instance


def find_instance(path: str, digest: str, roots: list[Path], cache: dict) -> Instance | None:
    """The instance at ``path`` (as given, or under one of ``roots``) whose content hash is ``digest``."""
    key = (path, digest)
    if key not in cache:
        cache[key] = None
        for candidate in [Path(path)] + [root / path for root in roots]:
            if not candidate.is_file():
                continue
            try:
                inst = read_instance(candidate)
            except InputError:
                continue
            if inst.content_hash() == digest:
                cache[key] = inst
                break
    return cache[key]


def reverify(df: pd.DataFrame, results_dir: str | Path) -> Reverified:
    """Verify every stored board again (see the module docstring)."""
    start = Path(results_dir).resolve()
    roots = [start, *start.parents]
    cache: dict = {}
    out = Reverified()
    for rec in df.to_dict("records"):
        rec = {k: clean(v) for k, v in rec.items()}
        boards = json.loads(rec.get("boards") or "[]")
        if not boards:
            continue
        inst = find_instance(str(rec.get("instance_path") or ""), str(rec.get("instance_hash") or ""), roots, cache)
        if inst is None:
            out.unverifiable += 1
            continue
        out.instances[inst.content_hash()] = inst
        stored = [str(v) for v in json.loads(rec.get("verdicts") or "[]")]
        now = [str(verify(inst, rows)) for rows in boards]
        out.runs += 1
        out.boards += len(boards)
        if [v.startswith("ok") for v in now] != [v.startswith("ok") for v in stored]:
            first = next(i for i, (a, b) in enumerate(zip(now, stored)) if a.startswith("ok") != b.startswith("ok"))
            out.mismatches.append((str(rec.get("instance")), str(rec.get("pair")), stored[first], now[first]))
    return out


__all__ = ["Reverified", "find_instance", "reverify"]
