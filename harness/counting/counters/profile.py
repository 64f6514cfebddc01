"""The ``profile`` counter: the dp's profile programme alone, to measure it and cross-check the other programmes.

It counts what ``dp`` counts where :mod:`harness.counting.profile` takes the instance
(straight pieces on square boards, touching or not, every hint, no clues; see
:mod:`harness.counting.counters.dp`), and refuses the rest naming the reason.
"""

from __future__ import annotations

from typing import Any

from harness.counting.counters.dp import DpCounter


class ProfileCounter(DpCounter):
    name = "profile"
    engines = ("profile",)
    options = {}  # one programme: the dp's split is its CP-SAT handoff's

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        from harness.counting import profile
        from harness.counting.placements import layout
        from harness.counting.reduce import without_sunk

        why = super().refuses(dep, by)
        if why:
            return why
        reduced, _ = without_sunk(dep)
        why = profile.unsupported(reduced, layout(reduced))
        return f"the profile programme cannot take it: {why}" if why else None


__all__ = ["ProfileCounter"]
