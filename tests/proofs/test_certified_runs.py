"""Certified verdicts end to end: proofs logged by python-sat and by a tool entry, checked in the worker, and
the lies a prover can tell (a bogus proof, a truncated one, another formula's, none) never certified."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from harness.core.status import Question, Status
from harness.errors import UsageError
from harness.puzzle.formats import read_instance
from harness.proofs.checkers import available_checkers
from harness.tasks.solve.run import solve_in_process

ROOT = Path(__file__).resolve().parents[2]
UNSAT = read_instance(ROOT / "instances" / "unsat" / "unsat_10x10_unique-unsat-clue-shift_s1.toml")
PRECHECKED = read_instance(ROOT / "instances" / "smoke" / "unsat_hint_5x5.toml")  # the model's precheck decides it
UNIQUE = read_instance(ROOT / "instances" / "classic" / "classic_10x10_unique_s100.toml")

pytestmark = pytest.mark.skipif(not available_checkers("drup"), reason="no proof checker installed")


def _dimacs(data: bytes) -> list[list[int]]:
    clauses = []
    for line in data.decode().splitlines():
        if line and line[0] not in "cp":
            clauses.append([int(x) for x in line.split()[:-1]])
    return clauses


def test_an_unsat_puzzle_is_certified_on_its_cnf_by_a_checker_in_the_worker(isolated):
    res = isolated.solve(UNSAT, "sat", "placement", Question.count(2), {"proof": "check"}, 60)
    assert res.status is Status.UNSAT and res.claim == "unsat" and res.certificate == "certified"
    accepted = [c for c in res.proof.checks if c.outcome == "accepted"]
    assert accepted and res.certificate_why == "accepted by " + accepted[0].checker
    assert res.proof.format == "drup" and res.proof.proof_bytes > 0 and len(res.proof.cnf_sha256) == 64


def test_without_proof_the_claim_is_the_solvers_word(isolated):
    for backend in ("sat", "cpsat"):
        res = isolated.solve(UNSAT, backend, "placement", Question.count(2), {}, 60)
        assert res.status is Status.UNSAT and res.certificate == "trusted" and res.proof is None


def test_with_proof_the_models_precheck_does_not_answer_for_the_solver(isolated):
    trusted = isolated.solve(PRECHECKED, "sat", "placement", Question(), {}, 60)
    assert trusted.status is Status.UNSAT and "precheck" in trusted.detail and trusted.certificate == "trusted"
    proven = isolated.solve(PRECHECKED, "sat", "placement", Question(), {"proof": "check"}, 60)
    assert proven.status is Status.UNSAT and proven.certificate == "certified" and "precheck" not in proven.detail


def test_uniqueness_is_proven_on_the_cnf_with_the_boards_blocking_clause():
    res = solve_in_process(UNIQUE, "sat", "placement", Question.count(2), {"proof": "check"}, 60)
    assert res.status is Status.SAT and res.count == 1 and res.complete
    assert res.claim == "no further board" and res.certificate == "certified"
    cnf = _dimacs(gzip.decompress(res.proof.files[f"{res.proof.cnf_sha256}.cnf.gz"]))
    assert len(cnf) == res.model["constraints"] + 1  # the puzzle's clauses, then the one blocking clause
    blocking = cnf[-1]
    assert all(lit < 0 for lit in blocking) and len(blocking) == len(res.boards[0].cells)


def test_a_solver_that_logs_no_proof_is_refused_before_any_run():
    with pytest.raises(UsageError, match="minisat22.*logs no proofs"):
        solve_in_process(UNSAT, "sat", "placement", Question(), {"proof": "check", "solver": "minisat22"}, 60)
    with pytest.raises(UsageError, match="has no option .proof."):  # CP-SAT has no proof option at all
        solve_in_process(UNSAT, "cpsat", "placement", Question(), {"proof": "check"}, 60)


# A prover that lies: it says UNSATISFIABLE of any file and writes what its mode says as the proof.
LIAR = """
import sys
if sys.argv[1] == "--version":
    print("liar 1.0"); sys.exit(0)
mode, cnf = sys.argv[1], sys.argv[2]
proof = sys.argv[3] if len(sys.argv) > 3 else None
if mode == "bogus":  # claims the empty clause outright
    text = "0\\n"
elif mode == "truncated":  # lemmas, and no empty clause
    text = "1 2 0\\n-3 0\\n"
elif mode == "other":  # a real refutation -- of another formula (x1 and not x1)
    text = "0\\n"
    cnf = None
else:
    text = None
if proof and text is not None:
    open(proof, "w").write(text)
print("s UNSATISFIABLE")
sys.exit(20)
"""


@pytest.mark.parametrize("mode, want", [("bogus", "rejected"), ("truncated", "rejected"), ("other", "rejected"),
                                        ("none", "trusted")])
def test_a_tool_that_lies_about_unsat_is_never_certified(tmp_path, isolated, mode, want):
    script = tmp_path / "liar.py"
    script.write_text(f"#!{sys.executable}\n{LIAR}")
    script.chmod(0o755)
    entry = tmp_path / "liar.toml"
    entry.write_text(f'[tools.liar]\nformat = "cnf"\ncommand = ["{script}", "{mode}", "{{file}}"]\n'
                     f'output = "sat-competition"\nversion = ["{script}", "--version"]\n'
                     'proof = "drat"\nproof_args = ["{proof}"]\n')
    opts = {"tool": "liar", "tool_file": str(entry), "measure": "process", "proof": "check"}
    res = isolated.solve(UNIQUE, "tool", "placement", Question(), opts, 60)  # UNIQUE has a board: any refutation lies
    assert res.certificate == want and res.certificate != "certified"
    if want == "rejected":
        assert res.status is Status.WRONG and "is wrong" in res.error
    else:
        assert res.status is Status.UNSAT and "logged no proof" in res.certificate_why


def test_the_cadical_binary_writes_a_drat_proof_a_checker_accepts(isolated):
    from harness.tools import find_tool

    if find_tool("cadical").missing():
        pytest.skip("cadical is not installed")
    res = isolated.solve(UNIQUE, "tool", "placement", Question.count(2), {"measure": "process", "proof": "check"}, 60)
    assert res.status is Status.SAT and res.count == 1 and res.certificate == "certified"
    assert res.proof.format == "drat"
