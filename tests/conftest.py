"""Shared fixtures: one isolated worker per backend for the whole test session.

OR-Tools and highspy cannot live in one process, so no test imports a solver library
into the pytest process: every backend runs in its own spawned worker.
"""

from __future__ import annotations

import pytest

from harness.runner.isolated import IsolatedSolver


@pytest.fixture(scope="session")
def isolated():
    with IsolatedSolver(grace_s=10.0) as solver:
        yield solver
