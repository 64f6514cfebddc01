"""Every pair agrees on the shipped instances: status, count up to 2, verified boards.

Every built-in pair available here runs count 2 (60 s limit) on the small shipped suites (smoke, seeds,
variants); runs that do not decide in time are left out of the comparison, but every
instance must be decided by at least one pair.  On the 39 solbat instances the fastest
pairs (sat, both formulations) run here; every pair on solbat is a benchmark sweep
(configs/solbat.toml, configs/solvers-solbat.toml, judged by battlebench check; reports under reports/).  Expected statuses and counts in
instances/MANIFEST.toml are checked too.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from harness.backends.registry import FAMILY, all_pairs, get_backend
from harness.core.status import Status, Question
from harness.puzzle.formats import read_instance

ROOT = Path(__file__).resolve().parents[1] / "instances"
MANIFEST = tomllib.loads((ROOT / "MANIFEST.toml").read_text())["instance"]
SMALL = [e for e in MANIFEST if e["suite"] in ("smoke", "seeds", "variants")]
SOLBAT = [e for e in MANIFEST if e["suite"] == "solbat"]
GENERATED = [e for e in MANIFEST if e["suite"] in ("classic", "unsat")]
LIMIT_S = 60
AVAILABLE = [(b, f) for b, f in all_pairs() if get_backend(b).available() is None]


@pytest.mark.parametrize("backend", FAMILY.names())
def test_every_built_in_backend_takes_part_here(backend):
    """A backend missing here (MiniZinc not installed) is skipped with its reason, never silently left out."""
    missing = get_backend(backend).available()
    if missing:
        pytest.skip(f"left out of the agreement tests: {missing}")


def _check(entry, results):
    name = entry["name"]
    for pair, res in results.items():
        assert res.status is not Status.WRONG, f"{name}: {pair} returned a bad board: {res.verdicts}"
        assert res.status is not Status.ERROR, f"{name}: {pair} failed: {res.error}"
    decided = {pair: (str(r.status), min(r.count, 2)) for pair, r in results.items() if r.decided}
    assert decided, f"{name}: no pair decided it within {LIMIT_S} s"
    assert len(set(decided.values())) == 1, f"{name}: pairs disagree: {decided}"
    status, count = next(iter(decided.values()))
    if "expected_status" in entry:
        assert status == entry["expected_status"], f"{name}: expected {entry['expected_status']}, got {status}"
    if "expected_count" in entry:
        want = entry["expected_count"]
        assert count == (2 if want == "many" else min(want, 2)), name


@pytest.mark.parametrize("entry", SMALL, ids=[e["name"] for e in SMALL])
def test_all_pairs_agree_on_small_suites(isolated, entry):
    inst = read_instance(ROOT / entry["path"])
    results = {f"{b}/{f}": isolated.solve(inst, b, f, Question.count(2), time_limit_s=LIMIT_S) for b, f in AVAILABLE}
    _check(entry, results)


@pytest.mark.parametrize("entry", SOLBAT, ids=[e["name"] for e in SOLBAT])
def test_fastest_pairs_agree_on_solbat(isolated, entry):
    inst = read_instance(ROOT / entry["path"])
    results = {f"sat/{f}": isolated.solve(inst, "sat", f, Question.count(2), time_limit_s=LIMIT_S)
               for f in ("placement", "cell")}
    _check(entry, results)
    assert all(r.decided for r in results.values()), {p: str(r.status) for p, r in results.items()}


@pytest.mark.parametrize("entry", GENERATED, ids=[e["name"] for e in GENERATED])
def test_pairs_other_than_the_certifier_confirm_generated_claims(isolated, entry):
    """The generator certified these with cpsat/placement; two other pairs must say the same."""
    inst = read_instance(ROOT / entry["path"])
    assert inst.meta["certificate"]["pair"] == "cpsat/placement"
    results = {p: isolated.solve(inst, *p.split("/"), Question.count(2), time_limit_s=LIMIT_S)
               for p in ("sat/cell", "cpsat/cell")}
    _check(entry, results)
    assert all(r.decided for r in results.values()), {p: str(r.status) for p, r in results.items()}
