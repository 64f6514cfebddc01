"""The ``template`` counter: depth-first search over placements, in pure Python, for boards without hints or clues.

Copy this file and replace the search with your counting algorithm.  What battlebench
gives you: the deployment instance (``dep``: its cells, pieces, touching rule, hints and
clues), its placements (:func:`harness.counting.placements.layout`), worker processes,
limits enforced from outside, the count judged against the instance's known count, and
storage.  What you must do: say which instances you take (``refuses``, pure and cheap),
and ``count`` them exactly, as a Python integer, truthfully saying whether the count is
complete.
"""

from __future__ import annotations

import time
from typing import Any

from harness.core.options import Option
from harness.counting.counters import CountAnswer, Counter, Unsupported


class TemplateCounter(Counter):
    name = "template"
    by = ("deployments",)  # what it counts: deployments (and/or "boards")
    library = None  # the package that counts, if not your own code (its version names the run's solver)
    requires: tuple[str, ...] = ()  # modules your counter needs, e.g. ("mycounter",)
    install = ""  # one line saying how to install them
    # options a pair may set (`options = { check_every = 1000 }`, `-o check_every=1000`): read in self.opts
    options = {"check_every": Option(4096, int, minimum=1, help="deployments found between two looks at the clock")}

    @classmethod
    def refuses(cls, dep: Any, by: str = "deployments") -> str | None:
        """None when this counter takes ``dep``; else one line why not (``battlebench conform`` checks that
        ``count`` does what this says)."""
        if dep.has_hints or dep.row_clues is not None or dep.col_clues is not None:
            return "the template counts boards without hints or clues"
        return super().refuses(dep, by)

    def count(self, dep: Any, by: str = "deployments", deadline: float | None = None) -> CountAnswer:
        from harness.counting.placements import layout

        why = self.refuses(dep, by)
        if why:
            raise Unsupported(why)
        lay = layout(dep)
        copies = [(k, t) for k, t in enumerate(lay.types) for _ in range(t.count)]
        found = 0
        stopped = False
        every = self.opts["check_every"]

        def place(j: int, used: frozenset, blocked: frozenset, last: dict) -> None:
            nonlocal found, stopped
            if stopped:
                return
            if j == len(copies):
                found += 1
                if deadline is not None and found % every == 0 and time.monotonic() > deadline:
                    stopped = True  # out of time: say what we have, not complete
                return
            k, t = copies[j]
            for pos in range(last.get(k, -1) + 1, len(t.placements)):  # identical copies in increasing order
                p = t.placements[pos]
                if blocked.intersection(p):
                    continue
                halo = lay.halo.get(p, ()) if not dep.touching else ()
                place(j + 1, used | set(p), blocked | set(p) | set(halo), {**last, k: pos})

        place(0, frozenset(), frozenset(), {})
        return CountAnswer(found, not stopped, {"placements": sum(len(t.placements) for t in lay.types)})
