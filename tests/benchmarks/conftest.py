"""Benchmarks (benchmarks/) and one-off experiments (experiments/) are scripts, not a package: load one by file name."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def load_benchmark():
    def load(name: str):
        path = next(p for p in (ROOT / "benchmarks" / f"{name}.py", ROOT / "experiments" / f"{name}.py")
                    if p.is_file())
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load


@pytest.fixture
def journal_of_a_search(tmp_path):
    """``make(seed)``: the journal of the minimal-hint search of an 8x8 seed (every question asked of CP-SAT)."""
    def make(seed: int):
        from harness.generate import oracle as oracle_mod
        from harness.generate.generator import Settings, minimal_hints, planted_puzzle
        from harness.generate.journal import Journal

        planted, base, rng = planted_puzzle(Settings(8, 8, hints="minimal"), seed)
        oracle = oracle_mod.UniquenessOracle(base, planted, budget=1)
        journal = Journal(tmp_path / f"s{seed}.jsonl", key="k")
        try:
            minimal_hints(oracle, rng, journal=journal)
        finally:
            journal.close()
            oracle.close()
        return journal.path
    return make
