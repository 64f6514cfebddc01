"""The proof checkers: which are at hand, and one check of one proof, in a child process under its own limits.

A checker reads the exact CNF a solver was given (DIMACS) and the proof the solver logged of it (DRUP or
DRAT, text) and says whether the proof derives the empty clause from that CNF, every step verified.  Each
is a library made for the job, named by its distribution and version in every record
(:attr:`Check.checker`, e.g. ``dratify-native 0.1.7``):

* ``dratify-native`` -- dratify's forward DRAT checker (RUP and RAT) with its Rust engine, the one
  ``cdclkit-native`` ships and hands over with ``dratify.register_native``: the fastest, so the one
  ``proof = "check"`` uses;
* ``dratify`` -- the same checker in pure Python, differentially tested against the Rust engine by its
  authors (an independent implementation of one family: it agrees or the verdict is void);
* ``drup`` -- the checker of the ``verified_rup`` project (CMU): RUP/RAT checking extracted from a Why3 proof
  of its correctness -- another family, and slow (seconds on a proof dratify checks in milliseconds), so
  ``proof = "check-all"`` and ``check --proofs`` run it within the same limits and record an unfinished check
  honestly.

A check runs ``python -m harness.proofs.checkers NAME CNF PROOF`` on the tool process path
(:func:`harness.tools.process.run_tool`): time, the tree's memory and its output are limited and measured
(CPU from ``wait4``); a checker that crashes, runs out of time or memory has *not finished*, which is never a
refusal.  A proof is accepted only when the checker says valid **and** the proof itself adds the empty
clause (:func:`derives_empty`): a checker's "valid" on a proof that stops short is not taken.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

OUTCOMES = ("accepted", "refused", "unfinished")
"""What one check of one proof comes to; only ``accepted`` certifies, any ``refused`` rejects the claim."""

OUTPUT_BYTES = 1 << 20  # a checker prints one verdict line; more is a runaway


@dataclass(frozen=True)
class Check:
    """One checker's verdict on one proof: ``checker`` is its name and version, ``outcome`` one of
    :data:`OUTCOMES`, ``reason`` the checker's own words (or why it did not finish), and the child's cost."""

    checker: str
    outcome: str
    reason: str = ""
    cpu_s: float = 0.0
    wall_s: float = 0.0


@dataclass(frozen=True)
class Checker:
    """A checker the harness can run: its ``distribution`` (whose version names it), the ``family`` of its
    implementation (two checks agree independently only across families), the modules it needs and the
    proof formats it reads."""

    name: str
    distribution: str
    family: str
    modules: tuple[str, ...]
    formats: tuple[str, ...] = ("drup", "drat")


CHECKERS: dict[str, Checker] = {c.name: c for c in (  # fastest first
    Checker("dratify-native", "cdclkit-native", "dratify", ("dratify", "cdclkit_native")),
    Checker("dratify", "dratify", "dratify", ("dratify",)),
    Checker("drup", "drup", "verified_rup", ("drup.wrappers",)),
)}


@functools.cache
def version(name: str) -> str | None:
    """The checker's version (its distribution's), or None when it cannot be imported here."""
    spec = CHECKERS[name]
    try:
        for module in spec.modules:
            importlib.import_module(module)
        return importlib.metadata.version(spec.distribution)
    except Exception:  # noqa: BLE001 - not installed, or a broken wheel: not at hand
        return None


def available_checkers(fmt: str = "drat") -> list[str]:
    """The checkers at hand that read proofs of format ``fmt``, fastest first."""
    return [n for n, c in CHECKERS.items() if fmt in c.formats and version(n) is not None]


def label(name: str) -> str:
    """``name version`` as records carry it."""
    return f"{name} {version(name) or '(not installed)'}"


def family_of(checker: str) -> str:
    """The family of a recorded checker label (``dratify-native 0.1.7`` -> ``dratify``)."""
    spec = CHECKERS.get(checker.split(" ", 1)[0])
    return spec.family if spec else checker


def derives_empty(proof: Path) -> bool:
    """Whether the proof adds the empty clause: a line that is ``0`` alone (text DRUP/DRAT)."""
    with open(proof, "rb") as fh:
        return any(line.strip() == b"0" for line in fh)


def check(name: str, cnf: Path, proof: Path, *, time_s: float | None = None,
          memory_mb: int | None = None) -> Check:
    """Check ``proof`` of ``cnf`` with checker ``name`` in a child process, within ``time_s`` wall seconds and
    ``memory_mb`` (module doc)."""
    from harness.tools.process import run_tool

    who = label(name)
    if version(name) is None:
        return Check(who, "unfinished", f"checker {name!r} is not installed")
    if time_s is not None and time_s <= 0:
        return Check(who, "unfinished", "no time was left to check")
    with tempfile.TemporaryDirectory(prefix="bb-check-") as work:
        ran = run_tool([sys.executable, "-m", "harness.proofs.checkers", name, str(Path(cnf).resolve()),
                        str(Path(proof).resolve())], time_s, Path(work), memory_mb, OUTPUT_BYTES)
    cost = {"cpu_s": ran.cpu_s, "wall_s": ran.wall_s}
    if ran.timed_out:
        return Check(who, "unfinished", f"time limit {time_s:.4g} s reached", **cost)
    if ran.memout:
        return Check(who, "unfinished", f"memory limit {memory_mb} MB reached", **cost)
    lines = ran.stdout.strip().splitlines()
    try:
        said = json.loads(lines[-1])
        valid, reason = bool(said["valid"]), str(said["reason"])
    except (IndexError, ValueError, KeyError, TypeError):
        tail = (ran.stderr.strip().splitlines() or [f"exit code {ran.returncode}"])[-1]
        return Check(who, "unfinished", f"the checker failed: {tail[:200]}", **cost)
    if not valid:
        return Check(who, "refused", reason[:300], **cost)
    if not derives_empty(Path(proof)):
        return Check(who, "refused", "the proof never adds the empty clause", **cost)
    return Check(who, "accepted", reason[:300], **cost)


def _verdict(name: str, cnf: str, proof: str) -> tuple[bool, str]:
    """Run checker ``name`` in this process: (valid, its reason)."""
    if name == "drup":
        from drup.wrappers import Outcome, check_proof_from_files

        result = check_proof_from_files(cnf, proof)
        valid = result.outcome is Outcome.VALID
        return valid, "every step verified, the empty clause derived" if valid else str(result)[:300]
    import dratify

    if name == "dratify-native":
        import cdclkit_native

        dratify.register_native(cdclkit_native)
    formula = dratify.parse_dimacs(Path(cnf).read_text())
    result = dratify.check_proof(formula, Path(proof).read_text(),
                                 engine="native" if name == "dratify-native" else "python")
    return bool(result.ok and result.reached_empty), result.reason


def main(argv: list[str]) -> int:
    """The child: ``NAME CNF PROOF`` -> one JSON line ``{"valid": ..., "reason": ...}`` on stdout."""
    name, cnf, proof = argv
    valid, reason = _verdict(name, cnf, proof)
    print(json.dumps({"valid": valid, "reason": reason}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


__all__ = ["CHECKERS", "OUTCOMES", "Check", "Checker", "available_checkers", "check", "derives_empty",
           "family_of", "label", "version"]
