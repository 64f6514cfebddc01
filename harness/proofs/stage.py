"""The proof stage of a run, in its worker: a logged proof checked, hashed and compressed for the store.

After a backend's search ends exhausted with ``proof`` on, its :class:`~harness.backends.base.ProofFiles` (the
exact CNF solved and the proof of it) go through :func:`prove`: each chosen checker
(:mod:`harness.proofs.checkers`, every check in a child process under its own limits) accepts, refuses or does
not finish; the files are hashed (sha256) and gzip-compressed so the parent can keep them beside the store
(:mod:`harness.proofs.recheck`).  The stage's own CPU and wall time are measured apart, so the run's ``cpu_s``
and ``wall_s`` stay the solve's (the record keeps ``check_cpu_s``/``check_s`` beside them).
"""

from __future__ import annotations

import gzip
import shutil
import time
from dataclasses import dataclass, field
from typing import Any

from harness.core.files import sha256_of
from harness.core.proctree import rusage_cpu_s

KEEP_MAX_BYTES = 256 * 1024 * 1024
"""A proof larger than this is checked but not kept (its hash is)."""


@dataclass
class ProofReport:
    """What the proof stage sends back (picklable): the proof's format, size and hashes, every check, the
    compressed files to keep (``files``: name -> gzip bytes; empty when too large) and the stage's cost."""

    format: str
    proof_bytes: int
    proof_sha256: str
    cnf_sha256: str
    checks: list[Any] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    cpu_s: float = 0.0
    wall_s: float = 0.0
    note: str = ""

    @property
    def check_cpu_s(self) -> float:
        return sum(c.cpu_s for c in self.checks)

    @property
    def check_wall_s(self) -> float:
        return sum(c.wall_s for c in self.checks)


def chosen_checkers(mode: str, fmt: str) -> list[str]:
    """The checkers of a ``proof`` mode: ``check`` the fastest at hand for the format, ``check-all`` the
    fastest of every lineage (:func:`harness.proofs.checkers.all_lineages`)."""
    from harness.proofs.checkers import all_lineages

    names = all_lineages(fmt)
    return names[:1] if mode == "check" else names


def prove(files: Any, mode: str, time_s: float | None, memory_mb: int | None) -> ProofReport:
    """Check the proof ``files`` (:class:`~harness.backends.base.ProofFiles`) with the checkers of ``mode``, one
    after another within ``time_s`` in all; then hash and compress them.  The proof's own folder goes after."""
    from harness.proofs.checkers import check
    from harness.proofs.recheck import kept_name

    t0, c0 = time.perf_counter(), rusage_cpu_s()
    try:
        size = files.proof.stat().st_size
        report = ProofReport(files.format, size, sha256_of(files.proof), sha256_of(files.cnf), note=files.note)
        end = None if time_s is None else t0 + time_s
        for name in chosen_checkers(mode, files.format):
            left = None if end is None else max(end - time.perf_counter(), 0.0)
            report.checks.append(check(name, files.cnf, files.proof, time_s=left, memory_mb=memory_mb))
        if size <= KEEP_MAX_BYTES:
            for path, sha, suffix in ((files.cnf, report.cnf_sha256, "cnf"),
                                      (files.proof, report.proof_sha256, files.format)):
                report.files[kept_name(sha, suffix)] = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        else:
            report.note = "; ".join(filter(None, (report.note, f"the proof ({size} bytes) is too large to keep; "
                                                                  "its sha256 is recorded")))
    finally:
        if files.folder is not None:
            shutil.rmtree(files.folder, ignore_errors=True)
    report.cpu_s, report.wall_s = rusage_cpu_s() - c0, time.perf_counter() - t0
    return report


__all__ = ["KEEP_MAX_BYTES", "ProofReport", "chosen_checkers", "prove"]
