"""What backs a run's claim that no (further) board exists: certified, trusted, rejected or unchecked -- one table.

A board a backend returns is checked by the independent verifier; the other half of a verdict is a *claim*
no board can show: ``unsat`` (the puzzle has no board) or, for ``count-K``, ``no further board`` (after the
boards found were blocked, none is left: the claim that makes a puzzle unique).  How a claim was established:

* ``certified`` -- the solver logged a proof of the exact CNF it solved (blocking clauses included) and an
  independent checker accepted it (the record names the checker and its version);
* ``trusted`` -- the solver's word: the pair logs no proof (CP-SAT, MIP, MiniZinc, a binary without proofs),
  or did not log one for this claim;
* ``rejected`` -- a checker refused the proof: the run's verdict is wrong (its status is ``wrong``, and
  ``battlebench check`` fails);
* ``unchecked`` -- a proof was logged but no checker finished (its time or memory limit, a crash): not
  certified, not wrong; the reason is kept.

Certified means certified *relative to the written encoding*: the checker proves the CNF has no model; that
the CNF means the puzzle is argued by the encodings' model counts, tested against brute force on tiny boards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

CLAIMS = ("unsat", "no further board")
CERTIFICATES = {
    "certified": "a proof of the exact CNF solved, accepted by an independent checker",
    "trusted": "the solver's word: no proof was logged",
    "rejected": "a checker refused the proof: the verdict is wrong",
    "unchecked": "a proof was logged, but no checker finished (limit, crash): neither certified nor wrong",
}
"""certificate -> what it means (the records page and the report's legend read it here)."""

PROOF_MODES = ("off", "check", "check-all")
"""A pair's ``proof`` option: no proof; a proof checked by the fastest checker at hand; by the fastest of every
lineage at hand."""


def claim_of(count: int, exhausted: bool) -> str | None:
    """The claim a decided run makes beyond its boards: ``unsat`` (no board, search exhausted), ``no further
    board`` (boards, then exhausted), or None (a run that stopped at its K-th board claims nothing)."""
    if not exhausted:
        return None
    return "unsat" if count == 0 else "no further board"


def certificate_of(checks: Iterable[Any], proof_logged: bool) -> tuple[str, str]:
    """(certificate, why) of a claim from its checks (:class:`harness.proofs.checkers.Check`): a refusal by any
    checker rejects it; else an acceptance certifies it; else a logged proof is unchecked; no proof: trusted."""
    checks = list(checks)
    refused = [c for c in checks if c.outcome == "refused"]
    if refused:
        return "rejected", "; ".join(f"{c.checker} refused the proof: {c.reason}" for c in refused)
    accepted = [c for c in checks if c.outcome == "accepted"]
    if accepted:
        return "certified", "accepted by " + ", ".join(c.checker for c in accepted)
    if proof_logged:
        why = "; ".join(f"{c.checker}: {c.reason}" for c in checks) or "no checker is installed"
        return "unchecked", f"no checker finished: {why}"
    return "trusted", "the solver's word (no proof logged)"


__all__ = ["CERTIFICATES", "CLAIMS", "PROOF_MODES", "certificate_of", "claim_of"]
