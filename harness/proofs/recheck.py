"""Stored claims counted and stored proofs checked again: what ``battlebench check`` says of certified verdicts.

Every solve run that claims more than its boards show (``claim``: unsat, no further board) records how the claim
was established (``certificate``, :mod:`harness.proofs.claims`).  :func:`claims_line` counts them; a ``rejected``
claim fails the check.  With ``--proofs`` (:func:`recheck_proofs`) every stored proof is read back from
``RESULTS/proofs/`` -- the proof and the exact CNF it proves, each under its sha256, which must match the record --
and checked again by the fastest checker of every lineage at hand, or the ones named
(:mod:`harness.proofs.checkers`): a certified claim whose proof a
checker now refuses, a rejected one a checker now accepts, a file missing or not matching its hash: each a
contradiction, and the check fails.  A claim whose re-check no checker finished within the limit is *not
confirmed* -- not a contradiction (nothing said it was wrong), but not a pass either: nothing judged it.  A
``--proofs`` check with no stored proof judges nothing and fails too.
"""

from __future__ import annotations

import gzip
import hashlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.proofs.claims import CERTIFICATES, certificate_of

PROOFS_DIR = "proofs"
"""The folder beside the store (in the results folder) that holds the kept proofs and CNFs."""


def kept_name(sha256: str, suffix: str) -> str:
    """The file a kept proof (``suffix``: its format) or CNF (``cnf``) has in :data:`PROOFS_DIR`."""
    return f"{sha256}.{suffix}.gz"


def claims_line(records: list[dict[str, Any]]) -> tuple[str | None, int]:
    """("claims: 12 certified, 3 trusted ...", how many are rejected), or (None, 0) when no run claims anything."""
    counts = {name: 0 for name in CERTIFICATES}
    for rec in records:
        if rec.get("claim") and rec.get("certificate") in counts:
            counts[rec["certificate"]] += 1
    total = sum(counts.values())
    if not total:
        return None, 0
    said = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
    return f"claims: {total} (unsat, no further board): {said}", counts["rejected"]


@dataclass
class ProofsAgain:
    """What checking the stored proofs again found."""

    checked: int = 0
    mismatches: list[tuple[str, str, str, str]] = field(default_factory=list)  # instance, pair, stored, found
    unconfirmed: list[tuple[str, str, str, str]] = field(default_factory=list)  # ... no checker finished
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)  # checker -> outcome -> proofs
    agreed: int = 0  # proofs that checkers of two lineages or more finished, all with one outcome
    disagreed: list[tuple[str, str, str]] = field(default_factory=list)  # instance, pair, who said what

    def sentence(self) -> str:
        said = [f"{len(self.mismatches)} contradicted"] if self.mismatches else []
        if self.unconfirmed:
            said.append(f"{len(self.unconfirmed)} not confirmed (no checker finished within the limit)")
        bad = ", " + ", ".join(said) if said else ", every one as stored"
        by = "; ".join(f"{who}: " + ", ".join(f"{n} {outcome}" for outcome, n in said.items())
                       for who, said in self.outcomes.items())
        both = self.agreed + len(self.disagreed)
        across = f"; {both} judged by two lineages or more, " + (
            f"{len(self.disagreed)} with the lineages disagreeing" if self.disagreed else "every one agreeing")
        return f"{self.checked} stored proof{'s' if self.checked != 1 else ''} checked again{bad}" + \
            (f" ({by})" if by else "") + (across if both else "; no proof judged by two lineages")


def _lineages_said(checks: list[Any]) -> dict[str, set[str]]:
    """lineage -> the outcomes its finished checks came to."""
    from harness.proofs.checkers import lineage_of

    said: dict[str, set[str]] = {}
    for c in checks:
        if c.outcome != "unfinished":
            said.setdefault(lineage_of(c.checker), set()).add(c.outcome)
    return said


def _read(folder: Path, sha256: str, suffix: str) -> tuple[bytes | None, str]:
    path = folder / kept_name(sha256, suffix)
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        return None, f"{path} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    if hashlib.sha256(data).hexdigest() != sha256:
        return None, f"{path} does not hold what its record's sha256 says"
    return data, ""


def recheck_proofs(records: list[dict[str, Any]], results: str | Path, time_s: float | None = None,
                   memory_mb: int | None = None, checkers: tuple[str, ...] | None = None,
                   jobs: int = 1) -> ProofsAgain:
    """Check every stored proof again (see the module docstring) by ``checkers`` (default: the fastest of every
    lineage at hand for its format), each within ``time_s`` and ``memory_mb``; ``jobs`` proofs at a time, each in a process of
    a pool (a check's child is contained and killed with its whole tree by the process that runs it, one at a
    time: :func:`harness.tools.process.run_tool`)."""
    import functools

    folder = Path(results) / PROOFS_DIR
    out = ProofsAgain()
    kept = [rec for rec in records if rec.get("proof_sha256") and rec.get("cnf_sha256")]
    again = functools.partial(_again, folder=folder, time_s=time_s, memory_mb=memory_mb, checkers=checkers)
    if jobs <= 1 or len(kept) <= 1:
        found = [again(rec) for rec in kept]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            found = list(pool.map(again, kept))
    for rec, (checks, now, finished) in zip(kept, found):
        out.checked += 1
        where = (str(rec.get("instance")), str(rec.get("pair")))
        stored = str(rec.get("certificate"))
        for c in checks:
            said = out.outcomes.setdefault(c.checker, {})
            said[c.outcome] = said.get(c.outcome, 0) + 1
        lineages = _lineages_said(checks)
        if len(lineages) >= 2:
            if len(set().union(*lineages.values())) == 1:
                out.agreed += 1
            else:
                out.disagreed.append((*where, ", ".join(f"{c.checker} {c.outcome}" for c in checks)))
        if now is not None:
            (out.mismatches if finished else out.unconfirmed).append((*where, f"certificate {stored}", now))
    return out


def _again(rec: dict[str, Any], folder: Path, time_s: float | None, memory_mb: int | None,
           checkers: tuple[str, ...] | None) -> tuple[list[Any], str | None, bool]:
    """One stored proof checked again: (its checks, what differs from its record or None, whether a checker
    finished: a difference when none did is *not confirmed*, not a contradiction)."""
    from harness.proofs.checkers import all_lineages, available_checkers, check

    from harness.tools.entry import PROOF_FORMATS

    fmt = str(rec.get("proof_format") or "drat")
    if fmt not in PROOF_FORMATS:
        return [], f"its proof_format {fmt!r} is not one of {', '.join(PROOF_FORMATS)}", True
    shas = (str(rec["proof_sha256"]), str(rec["cnf_sha256"]))
    if not all(len(sha) == 64 and all(ch in "0123456789abcdef" for ch in sha) for sha in shas):
        return [], "its proof_sha256 or cnf_sha256 is not a sha256 (64 hex digits)", True
    proof, why = _read(folder, str(rec["proof_sha256"]), fmt)
    cnf, why_cnf = _read(folder, str(rec["cnf_sha256"]), "cnf")
    if proof is None or cnf is None:
        return [], why or why_cnf, True
    with tempfile.TemporaryDirectory(prefix="battlebench-recheck-") as tmp:
        cnf_path, proof_path = Path(tmp) / "solved.cnf", Path(tmp) / f"proof.{fmt}"
        cnf_path.write_bytes(cnf)
        proof_path.write_bytes(proof)
        names = all_lineages(fmt) if checkers is None else [n for n in available_checkers(fmt) if n in checkers]
        checks = [check(name, cnf_path, proof_path, time_s=time_s, memory_mb=memory_mb) for name in names]
    now, why_now = certificate_of(checks, True)
    stored = str(rec.get("certificate"))
    if now == stored:
        return checks, None, True
    return checks, f"{now} ({why_now})", now != "unchecked"


__all__ = ["PROOFS_DIR", "ProofsAgain", "claims_line", "kept_name", "recheck_proofs"]
