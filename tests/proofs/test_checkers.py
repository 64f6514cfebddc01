"""The proof checkers on the proofs they exist to judge: a real refutation accepted by every one at hand, and
the bad ones -- a lemma that does not follow, a proof that stops short of the empty clause, another formula's
proof -- refused; a checker out of time, out of memory, crashing or missing has not finished, never refused."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from harness.proofs import checkers
from harness.proofs.checkers import CHECKERS, available_checkers, check, derives_empty, lineage_of
from harness.proofs.claims import certificate_of

pytestmark = pytest.mark.skipif(not available_checkers("drup"), reason="no proof checker installed")


def _pigeons(n: int) -> list[list[int]]:
    """n+1 pigeons in n holes: unsatisfiable, and small."""
    var = lambda p, h: p * n + h + 1  # noqa: E731
    clauses = [[var(p, h) for h in range(n)] for p in range(n + 1)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(n) for p in range(n + 1) for q in range(p + 1, n + 1)]
    return clauses


@pytest.fixture(scope="module")
def refutation(tmp_path_factory) -> tuple[Path, Path]:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    where = tmp_path_factory.mktemp("proof")
    clauses = _pigeons(4)
    with Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as s:
        assert s.solve() is False
        lines = s.get_proof()
    CNF(from_clauses=clauses).to_file(str(where / "php.cnf"))
    (where / "php.drup").write_text("".join(line + "\n" for line in lines))
    return where / "php.cnf", where / "php.drup"


def test_every_checker_at_hand_is_named_by_its_distributions_version_fastest_first():
    at_hand = available_checkers("drup")
    assert at_hand == [n for n in CHECKERS if n in at_hand]  # the registry's order: fastest first
    assert "dratify-native" in at_hand and "drup" in at_hand
    assert checkers.label("dratify") == f"dratify {checkers.version('dratify')}"
    assert lineage_of(checkers.label("dratify-native")) == lineage_of("dratify 0.1.10") == "dratify"
    assert lineage_of("drup 1.2.1") == "verified_rup" != "dratify"
    assert lineage_of("drat-trim 0.0~git20240428.effa1dc-2") == "drat-trim"
    assert available_checkers("drup", slow=False) == [n for n in at_hand if n != "drup"]


def test_check_all_runs_the_fastest_checker_of_every_lineage_but_the_slow_one():
    lineages = checkers.all_lineages("drup")
    assert [lineage_of(n) for n in lineages] == list(dict.fromkeys(lineage_of(n) for n in lineages))  # one each
    assert "dratify-native" in lineages and "dratify" not in lineages and "drup" not in lineages
    from harness.proofs.stage import chosen_checkers

    assert chosen_checkers("check-all", "drup") == lineages and chosen_checkers("check", "drup") == lineages[:1]


@pytest.mark.skipif(checkers.version("drat-trim") is None, reason="drat-trim not installed (scripts/install-drat-trim)")
def test_drat_trim_is_named_by_its_debian_package_and_checks_first():
    import subprocess

    said = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "drat-trim"], capture_output=True, text=True)
    assert checkers.label("drat-trim") == f"drat-trim {said.stdout.strip()}" and said.stdout.strip()
    assert checkers.all_lineages("drat") == ["drat-trim", "dratify-native"]


def _program(tmp_path: Path, monkeypatch, body: str) -> None:
    """A stand-in ``drat-trim`` on PATH (no Debian package owns it) that runs ``body``."""
    fake = tmp_path / "bin" / "drat-trim"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n" + body + "\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setattr(checkers, "version", functools.cache(checkers.version.__wrapped__))  # its own cache


def test_a_program_no_package_owns_is_named_by_its_content(tmp_path, monkeypatch):
    import hashlib

    _program(tmp_path, monkeypatch, 'echo "s VERIFIED"')
    digest = hashlib.sha256((tmp_path / "bin" / "drat-trim").read_bytes()).hexdigest()[:12]
    assert checkers.version("drat-trim") == f"sha256:{digest}"


def test_a_program_that_says_verified_of_a_proof_without_the_empty_clause_is_not_taken(refutation, tmp_path,
                                                                                      monkeypatch):
    cnf, _ = refutation
    _program(tmp_path, monkeypatch, 'echo "s VERIFIED"')  # a checker that lies
    short = tmp_path / "short.drup"
    short.write_text("1 2 0\n")
    assert check("drat-trim", cnf, short, time_s=30).outcome == "refused"


def test_a_program_that_prints_no_verdict_has_not_finished(refutation, tmp_path, monkeypatch):
    cnf, proof = refutation
    _program(tmp_path, monkeypatch, 'echo "c parsing" ; echo "segfault" >&2 ; exit 139')
    got = check("drat-trim", cnf, proof, time_s=30)
    assert got.outcome == "unfinished" and got.reason == "the checker failed: segfault", got
    assert certificate_of([got], True)[0] == "unchecked"


def test_a_program_out_of_its_own_time_has_not_finished(refutation, tmp_path, monkeypatch):
    cnf, proof = refutation
    _program(tmp_path, monkeypatch, 'echo "c finished parsing"; echo "s TIMEOUT"; exit 0')  # drat-trim -t 0
    got = check("drat-trim", cnf, proof, time_s=30)
    assert got.outcome == "unfinished" and "s TIMEOUT" in got.reason, got


def test_a_program_that_says_not_verified_refuses_with_its_reason(refutation, tmp_path, monkeypatch):
    cnf, proof = refutation
    _program(tmp_path, monkeypatch, 'echo "c ERROR: no conflict"; echo "s NOT VERIFIED"; exit 1')
    got = check("drat-trim", cnf, proof, time_s=30)
    assert got.outcome == "refused" and got.reason == "s NOT VERIFIED (ERROR: no conflict)", got


@pytest.mark.parametrize("name", available_checkers("drup"))
def test_a_real_refutation_is_accepted(refutation, name):
    cnf, proof = refutation
    got = check(name, cnf, proof, time_s=120)
    assert got.outcome == "accepted", got
    assert got.checker == checkers.label(name) and got.cpu_s > 0 and got.wall_s >= got.cpu_s * 0.5


@pytest.mark.parametrize("name", available_checkers("drup"))
def test_a_lemma_that_does_not_follow_is_refused(refutation, tmp_path, name):
    cnf, _ = refutation
    bogus = tmp_path / "bogus.drup"
    bogus.write_text("1 0\n0\n")  # pigeon 0 in hole 0 does not follow from the formula
    got = check(name, cnf, bogus, time_s=60)
    assert got.outcome == "refused" and got.reason, got


@pytest.mark.parametrize("name", available_checkers("drup"))
def test_a_proof_that_stops_short_of_the_empty_clause_is_refused(refutation, tmp_path, name):
    cnf, proof = refutation
    short = tmp_path / "short.drup"
    short.write_text("".join(line + "\n" for line in proof.read_text().splitlines() if line.strip() != "0"))
    assert derives_empty(proof) and not derives_empty(short)
    got = check(name, cnf, short, time_s=120)
    assert got.outcome == "refused", got  # drup 1.2.1 says valid here: the harness refuses it all the same


def test_another_formulas_proof_is_refused(refutation, tmp_path):
    _, proof = refutation
    other = tmp_path / "other.cnf"
    other.write_text("p cnf 20 2\n1 2 0\n-1 2 0\n")  # satisfiable
    assert check("dratify-native", other, proof, time_s=60).outcome == "refused"


def test_a_checker_out_of_time_has_not_finished_and_certifies_nothing(refutation):
    cnf, proof = refutation
    got = check("drup", cnf, proof, time_s=0.05)
    assert got.outcome == "unfinished" and "time limit" in got.reason
    assert certificate_of([got], True)[0] == "unchecked"


def test_a_checker_out_of_memory_has_not_finished(refutation):
    cnf, proof = refutation
    got = check("dratify", cnf, proof, time_s=60, memory_mb=2)  # the interpreter alone is more
    assert got.outcome == "unfinished", got  # killed at the limit, or failing to map itself under the backstop
    assert "memory limit 2 MB" in got.reason or "failed to map" in got.reason, got


def test_a_checker_that_crashes_has_not_finished(refutation, tmp_path):
    _, proof = refutation
    broken = tmp_path / "broken.cnf"
    broken.write_text("this is not DIMACS\n")
    got = check("dratify", broken, proof, time_s=60)
    assert got.outcome == "unfinished" and got.reason.startswith("the checker failed: "), got


def test_a_checker_not_installed_has_not_finished(refutation, monkeypatch):
    cnf, proof = refutation
    monkeypatch.setattr(checkers, "version", lambda name: None)
    got = check("drup", cnf, proof, time_s=60)
    assert got.outcome == "unfinished" and "not installed" in got.reason
    assert checkers.available_checkers("drup") == []
