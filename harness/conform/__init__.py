"""Conformance: qualify any backend, counter or strategy against brute force (``battlebench conform``).

One suite per plugin family: :mod:`~harness.conform.suite` (backends, on brute-forced tiny
puzzles), :mod:`~harness.conform.counters` (counters, on brute-forced tiny deployment
instances), :mod:`~harness.conform.strategies` (strategies, on games on small boards).
"""

from harness.conform.suite import CHECKS, CheckResult, conform

__all__ = ["CHECKS", "CheckResult", "conform"]
