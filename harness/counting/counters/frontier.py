"""The ``frontier`` counter: the dp's frontier programme alone, for instances the row programme also takes.

It counts what ``dp`` counts, always with :mod:`harness.counting.frontier` (see
:mod:`harness.counting.counters.dp`): the slower general programme kept measurable and
cross-checked against the row programme on the same instances.
"""

from __future__ import annotations

from typing import Any

from harness.counting.counters.dp import DpCounter, frontier_refusal


class FrontierCounter(DpCounter):
    name = "frontier"
    engines = ("frontier",)
    options = {}  # one programme: the dp's split is its CP-SAT handoff's

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        why = frontier_refusal(dep)
        return f"the frontier programme cannot take it: {why}" if why else super().refuses(dep, by)


__all__ = ["FrontierCounter"]
