"""Agreement of stored results: do the runs of a campaign (and the manifest) agree?

Reads a typed results frame (:meth:`harness.store.ResultsStore.dataframe`) and, when
given, the instance manifest; never re-verifies a board (every board's verdict is
stored in its run).  Only decided runs (``sat`` / ``unsat``) and ``wrong`` runs take
part: a timeout, memout or error never counts as a disagreement.

Kinds of problem, per instance (runs grouped by ``instance_hash``):

``wrong-board``
    a run returned a board that failed the verifier (status ``wrong`` or a verdict
    other than ``ok``).
``unsat-vs-sat``
    a pair says unsat where another pair found a verified board.
``count-mismatch``
    complete counts disagree across pairs: a pair's exact count is below the number
    of distinct verified boards it and other pairs found (or another pair's count,
    so two different exact counts are caught too).
``repetitions-disagree``
    runs of one pair on one instance give different decided statuses, different
    exact counts, or an exact count below the boards the pair itself found.
``expected-status`` / ``expected-count``
    a decided run contradicts the manifest entry with the run's content hash
    (``expected_count = "many"`` means at least 2).

Counting rules.  Boards are compared as sets: a board is identified by the positions of
its ship cells (every character other than ``.``), never against one stored solution.
A count is *exact* only for a decided ``count-K`` run whose count is ``complete`` and
either below K, K = 0 (all) or an exhausted search; an ``unsat`` run's count is exactly
0.  A ``solve`` run's single board is evidence, never a uniqueness claim.

The manifest (found, read, what it expects) is :mod:`harness.report.manifest`, whose public names stay
importable from here; the problems as terminal text, :mod:`harness.report.problem_text`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

import pandas as pd

from harness.report.data import clean as _clean
from harness.report.manifest import expected_count, expected_status
from harness.report.manifest import find_manifest, load_manifest, manifest_coverage, manifest_sentence  # noqa: F401

KINDS = ("wrong-board", "unsat-vs-sat", "count-mismatch", "repetitions-disagree",
         "expected-status", "expected-count")
"""Every problem kind, in the order problems of one instance are listed."""

DECIDED = ("sat", "unsat")
MAX_BOARDS = 8
"""At most this many boards are kept as evidence in one problem."""


@dataclass


class Problem:
    """One disagreement: its kind, the instance, the pairs involved and the evidence.

    ``boards`` holds ``(pair label, board rows, verdict)`` per disputed board; a board
    of no rows stands for an answer without a board (``unsat``).
    """

    kind: str
    instance: str
    pairs: tuple[str, ...]
    message: str
    boards: list[tuple[str, list[str], str]] = field(default_factory=list)
    key: str = ""  # the instance's content hash (or file), as the runs were grouped


# -- reading runs -----------------------------------------------------------------------


def _json_list(text: Any) -> list:
    text = _clean(text)
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _task_k(task: str) -> int | None:
    """K of a ``count-K`` task; None for ``solve`` or anything unreadable."""
    if task.startswith("count-"):
        try:
            return int(task[len("count-"):])
        except ValueError:
            return None
    return None


def _is_ok(verdict: Any) -> bool:
    return str(verdict).startswith("ok")


def board_id(rows: Iterable[str]) -> frozenset[tuple[int, int]]:
    """A board's identity: the positions of its ship cells (every character but '.')."""
    return frozenset((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != ".")


@dataclass


class _Run:
    key: str
    instance: str
    instance_hash: str | None
    pair: str
    task: str
    seed: int | None
    repetition: int | None
    run_id: str
    status: str
    count: int
    complete: bool
    exhausted: bool
    boards: list[list[str]]
    verdicts: list[str]

    @property
    def decided(self) -> bool:
        return self.status in DECIDED

    @property
    def failing(self) -> list[tuple[list[str], str]]:
        """The boards that failed the verifier, with their verdicts."""
        if self.status != "wrong" and all(_is_ok(v) for v in self.verdicts):
            return []
        out = [(b, str(v)) for b, v in zip(self.boards, self.verdicts) if not _is_ok(v)]
        if not out and self.status == "wrong":  # verdicts lost: every board is suspect
            out = [(b, "wrong (no verdict stored)") for b in self.boards]
        return out

    @property
    def verified(self) -> list[list[str]]:
        """The boards of a sat run (all verified); none for any other status."""
        if self.status != "sat":
            return []
        return [b for b, v in zip(self.boards, self.verdicts) if _is_ok(v)]

    @property
    def exact(self) -> int | None:
        """The exact number of boards this run proves, or None if it proves none."""
        if self.status == "unsat":
            return 0
        if self.status != "sat" or not self.complete:
            return None
        k = _task_k(self.task)
        if k is None:  # solve: one board, not a uniqueness claim
            return None
        if k == 0 or self.count < k or self.exhausted:
            return self.count
        return None

    @property
    def lower(self) -> int:
        """How many distinct verified boards this run shows exist."""
        if self.status != "sat":
            return 0
        return max(len({board_id(b) for b in self.verified}), self.count)


def _runs(df: pd.DataFrame) -> list[_Run]:
    out = []
    for rec in df.to_dict("records"):
        rec = {k: _clean(v) for k, v in rec.items()}
        status = str(rec.get("status") or "")
        if status not in ("sat", "unsat", "wrong"):
            continue
        boards = [[str(r) for r in b] for b in _json_list(rec.get("boards")) if isinstance(b, list)]
        verdicts = [str(v) for v in _json_list(rec.get("verdicts"))]
        verdicts += ["ok" if status == "sat" else "wrong (no verdict stored)"] * (len(boards) - len(verdicts))
        instance = str(rec.get("instance") or rec.get("instance_path") or "?")
        key = rec.get("instance_hash") or rec.get("instance_path") or instance
        count = rec.get("count")
        out.append(_Run(
            key=str(key), instance=instance, instance_hash=rec.get("instance_hash"),
            pair=str(rec.get("pair") or "?"), task=str(rec.get("question") or "solve"),
            seed=None if rec.get("seed") is None else int(rec["seed"]),
            repetition=None if rec.get("repetition") is None else int(rec["repetition"]),
            run_id=str(rec.get("run_id") or ""), status=status,
            count=len(boards) if count is None else int(count),
            complete=bool(rec.get("complete")), exhausted=bool(rec.get("exhausted")),
            boards=boards, verdicts=verdicts,
        ))
    out.sort(key=lambda r: (r.key, r.pair, r.task, r.seed or 0, r.repetition or 0, r.run_id))
    return out


# -- wording ----------------------------------------------------------------------------


def _plural(n: int, word: str = "board") -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _names(pairs: Iterable[str]) -> str:
    return ", ".join(pairs)


def _says(pairs: list[str]) -> str:
    return "says" if len(pairs) == 1 else "say"


def _run_label(run: _Run, runs: list[_Run]) -> str:
    """``rep 2``, with task and seed when the runs differ in them."""
    parts = []
    if len({r.task for r in runs}) > 1:
        parts.append(run.task)
    if len({r.seed for r in runs}) > 1:
        parts.append(f"seed {run.seed}")
    parts.append(f"rep {run.repetition}")
    return " ".join(parts)


def _describe(run: _Run) -> str:
    if run.status == "unsat":
        return "unsat"
    exact = run.exact
    if exact is not None:
        return f"sat, {_plural(exact)} (complete)"
    return f"sat, {_plural(run.lower)} found"


class _Evidence:
    """Distinct verified boards, each with the first pair that found it."""

    def __init__(self) -> None:
        self.boards: dict[frozenset, tuple[str, list[str]]] = {}

    def add(self, pair: str, boards: Iterable[list[str]]) -> None:
        for b in boards:
            self.boards.setdefault(board_id(b), (pair, b))

    def __len__(self) -> int:
        return len(self.boards)


def _shown(boards: list[tuple[str, list[str], str]]) -> list[tuple[str, list[str], str]]:
    return boards[:MAX_BOARDS]


# -- the checks -------------------------------------------------------------------------


def _wrong_boards(inst: str, runs: list[_Run]) -> list[Problem]:
    problems = []
    by_pair: dict[str, list[_Run]] = {}
    for r in runs:
        if r.failing:
            by_pair.setdefault(r.pair, []).append(r)
    for pair, bad in sorted(by_pair.items()):
        seen: dict[tuple, tuple[list[str], str]] = {}
        for r in bad:
            for b, v in r.failing:
                seen.setdefault((tuple(b), v), (b, v))
        evidence = [(pair, b, v) for b, v in seen.values()]
        labels = ", ".join(_run_label(r, runs) for r in bad)
        first = evidence[0][2] if evidence else "wrong"
        n = len(evidence)
        message = (f"{inst}: {pair} returned {_plural(n)} that fail{'s' if n == 1 else ''} the verifier "
                   f"({labels}): {first}")
        problems.append(Problem("wrong-board", inst, (pair,), message, _shown(evidence)))
    return problems


def _first_board(runs: list[_Run], pair: str) -> list[str] | None:
    for r in runs:
        if r.pair == pair and r.verified:
            return r.verified[0]
    return None


def _unsat_vs_sat(inst: str, runs: list[_Run]) -> list[Problem]:
    unsat = sorted({r.pair for r in runs if r.status == "unsat"})
    sat = sorted({r.pair for r in runs if r.status == "sat" and r.verified})
    if not any(u != s for u in unsat for s in sat):
        return []
    evidence: list[tuple[str, list[str], str]] = [(p, [], "unsat") for p in unsat]
    for p in sat:
        board = _first_board(runs, p)
        if board is not None:
            evidence.append((p, board, "ok"))
    message = f"{inst}: {_names(unsat)} {_says(unsat)} unsat; {_names(sat)} found a verified board"
    return [Problem("unsat-vs-sat", inst, tuple(sorted(set(unsat) | set(sat))), message, _shown(evidence))]


def _pair_boards(runs: list[_Run]) -> dict[str, _Evidence]:
    out: dict[str, _Evidence] = {}
    for r in runs:
        if r.status == "sat":
            out.setdefault(r.pair, _Evidence()).add(r.pair, r.verified)
    return out


def _pair_lower(runs: list[_Run]) -> dict[str, int]:
    out: dict[str, int] = {}
    ev = _pair_boards(runs)
    for r in runs:
        if r.status == "sat":
            out[r.pair] = max(out.get(r.pair, 0), r.lower, len(ev[r.pair]))
    return out


def _count_mismatch(inst: str, runs: list[_Run]) -> list[Problem]:
    # claims[c][pair] = the boards of the pair's runs that say exactly c (c >= 1)
    claims: dict[int, dict[str, _Evidence]] = {}
    for r in runs:
        c = r.exact
        if r.status == "sat" and c is not None:
            claims.setdefault(c, {}).setdefault(r.pair, _Evidence()).add(r.pair, r.verified)
    if not claims:
        return []
    pair_ev = _pair_boards(runs)
    lower = _pair_lower(runs)
    problems = []
    # (An exact count is never below the pair's own count, so two different exact counts
    # always show up here as the smaller one contradicted by the larger one's boards.)
    for c in sorted(claims):
        contradicted: list[str] = []
        finders: set[str] = set()
        total = 0
        for p, own in sorted(claims[c].items()):
            ev = _Evidence()
            ev.add(p, [b for _, b in own.boards.values()])
            others = [q for q in sorted(pair_ev) if q != p]
            for q in others:
                ev.add(q, [b for _, b in pair_ev[q].boards.values()])
            n = max([len(ev)] + [lower[q] for q in others])
            if n > c:
                contradicted.append(p)
                finders |= {q for q in others if lower[q] > c or any(
                    first == q for first, _ in ev.boards.values())}
                total = max(total, n)
        if not contradicted:
            continue
        finders -= set(contradicted)
        alone = sorted((q for q in finders if lower[q] > c), key=lambda q: (-lower[q], q))
        if alone:
            shown_finders = alone
            found = f"{alone[0]} found {lower[alone[0]]}"
            if len(alone) > 1:
                found += f" (and {_names(f'{q} {lower[q]}' for q in alone[1:])})"
        elif finders:
            shown_finders = sorted(finders)
            found = f"{_names(shown_finders)} found other boards ({total} distinct in all)"
        else:  # claimants of the same count with different boards
            shown_finders = []
            found = f"their boards differ ({total} distinct in all)"
        message = f"{inst}: {_names(contradicted)} {_says(contradicted)} {_plural(c)} (complete); {found}"
        evidence = [(p, b, "ok") for p in contradicted for _, b in claims[c][p].boards.values()]
        evidence += [(q, b, "ok") for q in shown_finders for _, b in pair_ev[q].boards.values()]
        pairs = tuple(sorted(set(contradicted) | set(shown_finders)))
        problems.append(Problem("count-mismatch", inst, pairs, message, _shown(evidence)))
    return problems


def _repetitions(inst: str, runs: list[_Run]) -> list[Problem]:
    problems = []
    pairs = sorted({r.pair for r in runs})
    for pair in pairs:
        mine = [r for r in runs if r.pair == pair and r.decided]
        if len(mine) < 2:
            continue
        statuses = {r.status for r in mine}
        exacts = {r.exact for r in mine if r.status == "sat" and r.exact is not None}
        own = _Evidence()
        for r in mine:
            own.add(pair, r.verified)
        lower = max([len(own)] + [r.lower for r in mine])
        if len(statuses) < 2 and len(exacts) < 2 and not any(c < lower for c in exacts):
            continue
        groups: dict[str, list[_Run]] = {}
        for r in mine:
            groups.setdefault(_describe(r), []).append(r)
        parts, evidence = [], []
        for desc, rs in groups.items():
            labels = ", ".join(_run_label(r, mine) for r in rs)
            parts.append(f"{labels}: {desc}")
            shown = rs[0].verified or [[]]
            for b in shown[:2]:
                evidence.append((pair, b, f"{'unsat' if not b else 'ok'} ({_run_label(rs[0], mine)})"))
        message = f"{inst}: {pair} repetitions disagree: " + "; ".join(parts)
        problems.append(Problem("repetitions-disagree", inst, (pair,), message, _shown(evidence)))
    return problems


def _expected(inst: str, runs: list[_Run], entry: dict) -> list[Problem]:
    problems = []
    status = expected_status(entry)
    if status is not None:
        against = [r for r in runs if r.decided and r.status != status]
        if against:
            pairs = sorted({r.pair for r in against})
            got = "unsat" if status == "sat" else "sat"
            evidence: list[tuple[str, list[str], str]] = []
            for p in pairs:
                board = _first_board(against, p)
                evidence.append((p, board or [], "ok" if board else got))
            message = f"{inst}: the manifest expects {status}; {_names(pairs)} {_says(pairs)} {got}"
            problems.append(Problem("expected-status", inst, tuple(pairs), message, _shown(evidence)))
    expected = expected_count(entry)
    if expected is None or expected == 0:
        return problems
    parts, pairs, evidence = [], [], []
    lower = _pair_lower(runs)
    pair_ev = _pair_boards(runs)
    for p in sorted(pair_ev):
        exacts = sorted({r.exact for r in runs if r.pair == p and r.status == "sat" and r.exact is not None})
        bad = [c for c in exacts if (c < 2 if expected == "many" else c != expected)]
        says = [f"{p} says {_plural(c)} (complete)" for c in bad]
        if expected != "many" and lower[p] > expected:
            says.append(f"{p} found {lower[p]}")
        if says:
            pairs.append(p)
            parts.extend(says)
            evidence += [(p, b, "ok") for _, b in pair_ev[p].boards.values()]
    if pairs:
        want = "at least 2 boards" if expected == "many" else _plural(expected)
        message = f"{inst}: the manifest expects {want}; " + "; ".join(parts)
        problems.append(Problem("expected-count", inst, tuple(pairs), message, _shown(evidence)))
    return problems


def check_agreement(df: pd.DataFrame, manifest: dict[str, dict] | None = None) -> list[Problem]:
    """Every disagreement among the stored runs (and with ``manifest``), by instance, kind.

    ``manifest`` maps content hash -> manifest entry (see :func:`load_manifest`); runs
    are matched to an entry by their ``instance_hash``.
    """
    groups: dict[str, list[_Run]] = {}
    for r in _runs(df):
        groups.setdefault(r.key, []).append(r)
    problems: list[Problem] = []
    for key, runs in groups.items():
        inst = " = ".join(sorted({r.instance for r in runs}))
        found = _wrong_boards(inst, runs)
        decided = [r for r in runs if r.decided]
        found += _unsat_vs_sat(inst, decided)
        found += _count_mismatch(inst, decided)
        found += _repetitions(inst, decided)
        entry = (manifest or {}).get(key) if runs[0].instance_hash else None
        if entry is not None:
            found += _expected(inst, decided, entry)
        for p in found:
            p.key = key
        problems += found
    problems.sort(key=lambda p: (p.instance, KINDS.index(p.kind), p.pairs, p.message))
    return problems


__all__ = ["DECIDED", "KINDS", "MAX_BOARDS", "Problem", "board_id", "check_agreement", "find_manifest",
           "load_manifest", "manifest_coverage", "manifest_sentence"]
