"""The proof checkers: which are at hand, and one check of one proof, in a child process under its own limits.

A checker reads the exact CNF a solver was given (DIMACS) and the proof the solver logged of it (DRUP or
DRAT, text) and says whether the proof derives the empty clause from that CNF, every step verified.  Each
is a program made for the job, named by its distribution (or Debian package) and version in every record
(:attr:`Check.checker`, e.g. ``dratify-native 0.1.7``):

* ``dratify-native`` -- dratify's forward DRAT checker (RUP and RAT) with its Rust engine, the one
  ``cdclkit-native`` ships and hands over with ``dratify.register_native``;
* ``dratify`` -- the same checker in pure Python, differentially tested against the Rust engine by its
  authors (an independent implementation of one lineage: it agrees or the verdict is void);
* ``drat-trim`` -- the SAT competition's reference checker (Marijn Heule's C program: backward checking,
  core-first propagation), the binary Debian packages (``scripts/install-drat-trim``); named by its Debian
  package version.  Another lineage from dratify, and the fastest at hand: it is the one ``proof = "check"``
  uses when installed;
* ``drup`` -- the checker of the ``verified_rup`` project (CMU): RUP/RAT checking extracted from a Why3 proof
  of its correctness -- a third lineage, and slow (minutes on a proof dratify checks in milliseconds: it
  ignores deletions and propagates naively), so only ``--checker drup`` runs it, within the same limits, and
  records an unfinished check honestly.

``proof = "check-all"`` and ``check --proofs`` run the checkers of every lineage at hand but drup's, so two
independent implementations judge every proof (:func:`all_lineages` says which).  A check runs
``python -m harness.proofs.checkers NAME CNF PROOF`` (a library checker) or the checker's program itself on
the tool process path (:func:`harness.tools.process.run_tool`): time, the tree's memory and its output are
limited and measured (CPU from ``wait4``); a checker that crashes, runs out of time or memory has *not
finished*, which is never a refusal.  A proof is accepted only when the checker says valid **and** the proof
itself adds the empty clause (:func:`derives_empty`): a checker's "valid" on a proof that stops short (which
drat-trim and drup 1.2.1 both accept when the formula then propagates to a conflict) is not taken.
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
    """A checker the harness can run: its ``distribution`` (the Python distribution, or for a ``program`` the
    Debian package, whose version names it), the ``lineage`` of its implementation (two checks agree
    independently only across lineages), the modules it needs (a library) or the ``program`` it is, the
    arguments after ``CNF PROOF``, and the proof formats it reads."""

    name: str
    distribution: str
    lineage: str
    modules: tuple[str, ...] = ()
    formats: tuple[str, ...] = ("drup", "drat")
    program: str = ""
    args: tuple[str, ...] = ()


CHECKERS: dict[str, Checker] = {c.name: c for c in (  # fastest first
    # -I: the proofs are text (never guess binary); -w: no warning per lemma (its output is bounded); -t: its own
    # time limit (40000 s by default, then "s TIMEOUT") out of the way: the check's limit is the harness's
    Checker("drat-trim", "drat-trim", "drat-trim", program="drat-trim", args=("-I", "-w", "-t", "2000000000")),
    Checker("dratify-native", "cdclkit-native", "dratify", ("dratify", "cdclkit_native")),
    Checker("dratify", "dratify", "dratify", ("dratify",)),
    Checker("drup", "drup", "verified_rup", ("drup.wrappers",)),
)}

SLOW = ("drup",)
"""Checkers only an explicit ``--checker`` runs: minutes where the others take milliseconds."""


@functools.cache
def version(name: str) -> str | None:
    """The checker's version (its distribution's), or None when it cannot be run here."""
    spec = CHECKERS[name]
    if spec.program:
        return _program_version(spec)
    try:
        for module in spec.modules:
            importlib.import_module(module)
        return importlib.metadata.version(spec.distribution)
    except Exception:  # noqa: BLE001 - not installed, or a broken wheel: not at hand
        return None


def _program_version(spec: Checker) -> str | None:
    """A checker program's version: its Debian package's, when the program on PATH is the package's file;
    else the first 12 hex digits of the program's sha256 (a build nobody versioned is named by its content)."""
    import hashlib
    import shutil
    import subprocess

    path = shutil.which(spec.program)
    if path is None:
        return None
    real = Path(path).resolve()
    try:
        owner = subprocess.run(["dpkg-query", "-S", str(real)], capture_output=True, text=True, timeout=30)
        if owner.returncode == 0 and owner.stdout.split(":", 1)[0].strip() == spec.distribution:
            got = subprocess.run(["dpkg-query", "-W", "-f=${Version}", spec.distribution], capture_output=True,
                                 text=True, timeout=30)
            if got.returncode == 0 and got.stdout.strip():
                return got.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return "sha256:" + hashlib.sha256(real.read_bytes()).hexdigest()[:12]


def available_checkers(fmt: str = "drat", slow: bool = True) -> list[str]:
    """The checkers at hand that read proofs of format ``fmt``, fastest first (without :data:`SLOW` ones
    unless ``slow``)."""
    return [n for n, c in CHECKERS.items()
            if fmt in c.formats and (slow or n not in SLOW) and version(n) is not None]


def all_lineages(fmt: str = "drat") -> list[str]:
    """What ``check-all`` and ``check --proofs`` run: the fastest checker at hand of every lineage (not the
    :data:`SLOW` ones), fastest first -- each proof judged by as many independent implementations as exist."""
    chosen: dict[str, str] = {}
    for name in available_checkers(fmt, slow=False):
        chosen.setdefault(CHECKERS[name].lineage, name)
    return list(chosen.values())


def label(name: str) -> str:
    """``name version`` as records carry it."""
    return f"{name} {version(name) or '(not installed)'}"


def lineage_of(checker: str) -> str:
    """The lineage of a recorded checker label (``dratify-native 0.1.7`` -> ``dratify``)."""
    spec = CHECKERS.get(checker.split(" ", 1)[0])
    return spec.lineage if spec else checker


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
    spec, files = CHECKERS[name], [str(Path(cnf).resolve()), str(Path(proof).resolve())]
    argv = [spec.program, *files, *spec.args] if spec.program else \
        [sys.executable, "-m", "harness.proofs.checkers", name, *files]
    with tempfile.TemporaryDirectory(prefix="bb-check-") as work:
        ran = run_tool(argv, time_s, Path(work), memory_mb, OUTPUT_BYTES)
    cost = {"cpu_s": ran.cpu_s, "wall_s": ran.wall_s}
    if ran.timed_out:
        return Check(who, "unfinished", f"time limit {time_s:.4g} s reached", **cost)
    if ran.memout:
        return Check(who, "unfinished", f"memory limit {memory_mb} MB reached", **cost)
    said = _said_by_program(ran.stdout) if spec.program else _said_by_child(ran.stdout)
    if said is None:
        tail = (ran.stderr.strip().splitlines() or ran.stdout.strip().splitlines()
                or [f"exit code {ran.returncode}"])[-1]
        return Check(who, "unfinished", f"the checker failed: {tail[:200]}", **cost)
    valid, reason = said
    if not valid:
        return Check(who, "refused", reason[:300], **cost)
    if not derives_empty(Path(proof)):
        return Check(who, "refused", "the proof never adds the empty clause", **cost)
    return Check(who, "accepted", reason[:300], **cost)


def _said_by_child(stdout: str) -> tuple[bool, str] | None:
    """(valid, reason) from the last line of :func:`main`'s output, or None when it printed no verdict."""
    try:
        said = json.loads(stdout.strip().splitlines()[-1])
        return bool(said["valid"]), str(said["reason"])
    except (IndexError, ValueError, KeyError, TypeError):
        return None


def _said_by_program(stdout: str) -> tuple[bool, str] | None:
    """(valid, reason) from a DRAT checker's solution line (``s VERIFIED`` / ``s NOT VERIFIED``, the format the
    SAT competition's checkers print), or None when there is none (it failed, or stopped at its own limit)."""
    lines = [line.strip() for line in stdout.splitlines()]
    if "s VERIFIED" in lines:
        return True, "s VERIFIED"
    if "s NOT VERIFIED" in lines:
        comments = [line[1:].strip() for line in lines if line.startswith("c ") and "time" not in line]
        return False, "s NOT VERIFIED" + (f" ({comments[-1]})" if comments else "")
    return None


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


__all__ = ["CHECKERS", "OUTCOMES", "SLOW", "Check", "Checker", "all_lineages", "available_checkers", "check",
           "derives_empty", "lineage_of", "label", "version"]
