"""Every problem a store's runs show, whatever their task: what ``check`` fails on and ``report`` shows.

Puzzle runs go through :func:`~harness.report.agreement.check_agreement`, counting runs
through :func:`~harness.report.counts.check_counts` (with ``deployments/MANIFEST.toml``
beside the manifest), games through :func:`~harness.report.play.check_play`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from harness.report.agreement import Problem, check_agreement
from harness.report.counts import check_counts, counting_manifest, is_counting
from harness.report.play import check_play, is_play


def all_problems(df: pd.DataFrame, manifest: dict[str, dict] | None, manifest_path: Any) -> list[Problem]:
    counting, play = is_counting(df), is_play(df)
    puzzle = ~(counting | play)
    problems = check_agreement(df[puzzle], manifest) if puzzle.any() else []
    if counting.any():
        problems += check_counts(df[counting], counting_manifest(manifest, manifest_path))
    if play.any():
        problems += check_play(df[play])
    return problems


__all__ = ["all_problems"]
