"""The ``brute`` counter: :func:`~harness.counting.brute.brute_count` (every deployment listed) as a counter.

Ground truth for tiny boards: any board, touching rule, hints and clues, by deployments
or boards.  Past the brute force's limit of deployments listed it raises
:class:`Unsupported`; ``deadline`` is ignored (the runner stops it from outside).
"""

from __future__ import annotations

from typing import Any

from harness.counting.counters import CountAnswer, Counter, Unsupported


class BruteCounter(Counter):
    name = "brute"
    by = ("deployments", "boards")
    library = None

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from harness.counting.brute import brute_count

        self.check_by(by)
        try:
            total = brute_count(dep, by)
        except ValueError as exc:
            raise Unsupported(str(exc)) from None
        return CountAnswer(total, True, {})


__all__ = ["BruteCounter"]
