"""Conformance: qualify any backend on brute-forced tiny instances (``battlebench conform``)."""

from harness.conform.suite import CHECKS, CheckResult, conform

__all__ = ["CHECKS", "CheckResult", "conform"]
