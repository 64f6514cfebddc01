"""The ``frontier`` counter: the dp's frontier programme alone, for instances the row programme also takes.

It counts what ``dp`` counts, always with :mod:`harness.counting.frontier` (see
:mod:`harness.counting.counters.dp`): the slower general programme kept measurable and
cross-checked against the row programme on the same instances.
"""

from __future__ import annotations

from harness.counting.counters.dp import DpCounter


class FrontierCounter(DpCounter):
    name = "frontier"
    engines = ("frontier",)


__all__ = ["FrontierCounter"]
