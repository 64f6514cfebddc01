"""Certified verdicts: proofs of unsat claims, their checkers and the files they live in."""
