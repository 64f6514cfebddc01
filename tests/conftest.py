"""Shared fixtures: one isolated worker per backend for the whole test session.

As in campaigns, every backend runs in its own spawned worker (limits are enforced from
outside), so no test imports a solver library into the pytest process.
"""

from __future__ import annotations

import pytest

from harness.tasks.isolated import IsolatedSolver


@pytest.fixture(scope="session")
def isolated():
    with IsolatedSolver(grace_s=10.0) as solver:
        yield solver


@pytest.fixture(scope="session", autouse=True)
def _fresh_cluster_tables(tmp_path_factory):
    """The cluster counter's tables are computed in this session, never read from an earlier one's cache."""
    import os

    old = os.environ.get("BATTLEBENCH_CACHE")
    os.environ["BATTLEBENCH_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("BATTLEBENCH_CACHE", None)
    else:
        os.environ["BATTLEBENCH_CACHE"] = old
