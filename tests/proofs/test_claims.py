"""How a claim was established: one rule from the checks (harness.proofs.claims)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness.proofs.claims import CERTIFICATES, certificate_of, claim_of


@dataclass(frozen=True)
class _Check:
    checker: str
    outcome: str
    reason: str = ""


def test_the_claim_of_a_run_is_what_no_board_shows():
    assert claim_of(0, True) == "unsat"
    assert claim_of(1, True) == "no further board"
    assert claim_of(2, False) is None and claim_of(0, False) is None


@pytest.mark.parametrize("checks, logged, want", [
    ([_Check("a 1", "accepted")], True, "certified"),
    ([_Check("a 1", "accepted"), _Check("b 2", "refused", "lemma 3 does not follow")], True, "rejected"),
    ([_Check("a 1", "unfinished", "time limit 1.0 s reached")], True, "unchecked"),
    ([], True, "unchecked"),  # logged, and no checker at hand
    ([], False, "trusted"),
])
def test_a_refusal_rejects_an_acceptance_certifies_else_unchecked_or_trusted(checks, logged, want):
    certificate, why = certificate_of(checks, logged)
    assert certificate == want and certificate in CERTIFICATES and why
    if want == "rejected":
        assert "b 2 refused the proof: lemma 3 does not follow" in why
    if want == "unchecked" and checks:
        assert "time limit" in why
