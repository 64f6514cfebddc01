"""Conformance: every backend x formulation passes ``harness.conform`` (the suite of ``battlebench conform``).

The suite runs each pair in its own worker process on tiny instances with brute-force
truth: counting all boards gives exactly the brute-force boards, count 2 certifies
uniqueness, every board passes the independent verifier, unsat is proven by the solver,
and the backend honours its time limit.  Solbat cases below add size.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.registry import all_pairs, get_backend
from harness.conform import CHECKS, conform
from harness.core.status import Status, Question
from harness.puzzle.formats import read_instance
from tiny import TINY, truth

PAIRS = all_pairs()
IDS = [f"{b}/{f}" for b, f in PAIRS]


def _skip_unavailable(backend: str) -> None:
    missing = get_backend(backend).available()
    if missing:
        pytest.skip(missing)  # never a silent pass: the reason shows in pytest's summary


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=IDS)
def test_every_pair_passes_the_conformance_suite(isolated, backend, formulation):
    """``battlebench conform``'s checks: count all / count 2 / solve against brute force, unsat
    proven by the solver, every board verified, the time limit honoured by the backend itself."""
    _skip_unavailable(backend)
    # the tool backend: its default measuring layer (runexec, where it runs) on placement; the process path on cell
    # (each runexec call waits 0.1 s for BenchExec's settled CPU reading: the second formulation would double the
    # suite's longest test)
    options = {"measure": "process"} if (backend, formulation) == ("tool", "cell") else {}
    results = conform(isolated, backend, [formulation], options)
    assert [r.check for r in results] == list(CHECKS)
    failed = [f"{r.check}: {r.detail}" for r in results if not r.passed]
    assert not failed, failed


def test_tiny_set_is_not_trivial():
    counts = sorted(len(truth(i.name)) for i in TINY)
    assert counts[0] == 0 and counts[-1] > 20  # unsat, unique and many-board cases
    assert counts.count(1) >= 3 and any(i.touching for i in TINY)


SOLBAT = Path(__file__).resolve().parents[1] / "instances" / "solbat"


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=[f"{b}/{f}" for b, f in PAIRS])
def test_sb_12_12_5_0_has_51_boards(isolated, backend, formulation):
    """All 51 boards (MIP enumeration re-solves slowly: it shows 2, not unique)."""
    _skip_unavailable(backend)
    inst = read_instance(SOLBAT / "sb_12_12_5_0.toml")
    k = 2 if backend == "mip" else 0
    res = isolated.solve(inst, backend, formulation, Question.count(k), time_limit_s=120)
    assert res.status is Status.SAT and res.count == (k or 51) and res.complete == (k == 0), res.detail
    assert all(v.startswith("ok") for v in res.verdicts)
    assert res.model["variables"] > 0 and res.model["constraints"] > 0
    # a tool binary's own time is not read (measured as the run's CPU instead): None, honestly
    assert (res.solver_reported_s is not None) == (backend != "tool") and res.versions.get("battlebench")


@pytest.mark.parametrize("backend,formulation", PAIRS, ids=[f"{b}/{f}" for b, f in PAIRS])
def test_unsat_by_clue_sums_is_decided_fast(isolated, backend, formulation):
    _skip_unavailable(backend)
    inst = read_instance(SOLBAT / "sb_13_13_5_5.toml")  # row sums 53, column sums 51
    res = isolated.solve(inst, backend, formulation, Question.count(2), time_limit_s=60)
    assert res.status is Status.UNSAT and res.complete and "precheck" in res.detail
    assert res.model["variables"] is None  # answered before any native model was built
