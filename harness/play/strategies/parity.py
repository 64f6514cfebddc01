"""The ``parity`` strategy: ``hunt-target`` hunting on a checkerboard (every ship of length 2 or more covers a cell of each colour).

Square boards; on a hex board it hunts every cell (it is ``hunt-target`` there).
"""

from __future__ import annotations

from harness.play.strategies.hunt_target import HuntTargetStrategy


class ParityStrategy(HuntTargetStrategy):
    name = "parity"

    def hunting(self, position) -> list:
        if self.board.grid.kind != "square":
            return position.unknown()
        return [c for c in position.unknown() if sum(c) % 2 == 0]


__all__ = ["ParityStrategy"]
