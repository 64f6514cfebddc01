"""benchmarks/runexec_cost.py: the CPU of measuring a tool call, per layer, in a summary that names each layer."""

from __future__ import annotations

import shutil

import pytest


@pytest.mark.skipif(shutil.which("cadical") is None, reason="the cadical binary is not installed")
def test_the_summary_has_a_row_per_layer_and_says_when_runexec_is_not_measured(load_benchmark, tmp_path):
    from harness.tools import unusable

    mod = load_benchmark("runexec_cost")
    assert mod.main(["--calls", "2", "--out", str(tmp_path)]) == 0
    summary = (tmp_path / "summary.md").read_text()
    assert "| process | " in summary
    if unusable() is None:
        assert "| runexec | " in summary and "| runexec command | " in summary
    else:
        assert "| runexec | " not in summary and f"runexec not measured here: {unusable()}" in summary
