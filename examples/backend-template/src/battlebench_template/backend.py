"""The ``template`` backend: a plain depth-first search over placements, in pure Python.

Copy this file and replace the search with your solver.  What battlebench gives you:
``self.model`` (the abstract model every backend compiles: placements, ``by_length``,
``cover``, ``windows``, ``conflict_pairs()``, ``lines()``, ``forced_ship``,
``board_from()``), the options you declare (checked and typed), the time limit, worker
processes, limits enforced from outside, verification of every board you return, and
storage.  What you must do: ``build()`` your model and ``enumerate()`` distinct boards
(distinct sets of ship cells), saying truthfully whether the search was exhausted and
whether your own time limit stopped it.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from harness.backends import Answer, Backend, ModelSize, Option


class _OutOfTime(Exception):
    pass


class TemplateBackend(Backend):
    name: ClassVar[str] = "template"
    formulations: ClassVar[tuple[str, ...]] = ("placement",)
    options: ClassVar[dict[str, Option]] = {
        "order": Option("long-first", str, ("long-first", "short-first"), help="which ships are placed first"),
    }
    requires: ClassVar[tuple[str, ...]] = ()  # modules your solver needs, e.g. ("mysolver",)
    install: ClassVar[str] = ""  # one line saying how to install them

    @classmethod
    def versions(cls) -> dict[str, str]:
        return {"battlebench-template": "0.1.0"}

    def build(self) -> ModelSize:
        m = self.model
        self._conflicts: dict[int, set[int]] = {i: set() for i in range(len(m.placements))}
        for i, j in m.conflict_pairs():
            self._conflicts[i].add(j)
            self._conflicts[j].add(i)
        self._lines = list(m.lines())
        self._line_of: dict[int, list[tuple[int, int]]] = {}  # placement -> [(line number, cells on it)]
        for k, (_, _, cells, _) in enumerate(self._lines):
            for cell in cells:
                for i in m.cover[cell]:
                    self._line_of.setdefault(i, [])
                    self._line_of[i].append((k, 1))
        lengths = sorted(m.fleet, reverse=self.opts["order"] == "long-first")
        self._ships = [L for L in lengths for _ in range(m.fleet[L])]
        return ModelSize(variables=len(m.placements), constraints=len(self._lines) + len(m.fleet))

    def enumerate(self, limit: int | None, time_limit_s: float | None) -> Answer:
        start = time.perf_counter()
        end = None if time_limit_s is None else start + time_limit_s
        m = self.model
        boards: dict[frozenset, Any] = {}
        sums = [0] * len(self._lines)
        chosen: list[int] = []
        blocked: dict[int, int] = {}  # placement -> how many chosen placements conflict with it
        nodes = [0]

        def fits(i: int) -> bool:
            if blocked.get(i):
                return False
            return all(sums[k] + n <= self._lines[k][3] for k, n in self._line_of.get(i, ()))

        def place(i: int, sign: int) -> None:
            for k, n in self._line_of.get(i, ()):
                sums[k] += sign * n
            for j in self._conflicts[i]:
                blocked[j] = blocked.get(j, 0) + sign

        def search(depth: int, lowest: int) -> bool:
            """False when the limit on boards is reached."""
            nodes[0] += 1
            if end is not None and nodes[0] % 64 == 0 and time.perf_counter() > end:
                raise _OutOfTime
            if depth == len(self._ships):
                if all(sums[k] == line[3] for k, line in enumerate(self._lines)):
                    board = m.board_from(chosen)
                    if m.forced_ship <= board.cells and board.cells not in boards:
                        boards[board.cells] = board
                return limit is None or len(boards) < limit
            L = self._ships[depth]
            same = depth > 0 and self._ships[depth - 1] == L  # equal ships in increasing order
            for i in m.by_length[L]:
                if (same and i <= lowest) or not fits(i):
                    continue
                chosen.append(i)
                place(i, +1)
                go_on = search(depth + 1, i)
                place(i, -1)
                chosen.pop()
                if not go_on:
                    return False
            return True

        try:
            exhausted = search(0, -1)
            out_of_time = False
        except _OutOfTime:
            exhausted, out_of_time = False, True
        return Answer(boards=list(boards.values()), exhausted=exhausted, hit_limit=out_of_time,
                      solver_reported_s=time.perf_counter() - start, detail=f"{nodes[0]} nodes")
