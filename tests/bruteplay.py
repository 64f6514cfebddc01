"""An independent brute force for game positions: every labelled deployment listed by its own code, each replayed.

Straight ships on a rectangle, listed here without the counting package: every
horizontal and vertical placement per ship, every tuple of placements with no shared
cell (and, with ``touching=False``, no two ships side- or corner-adjacent).  A deployment
*fits* a shot sequence when a game on it announces exactly what the sequence announced
(replayed through :class:`~harness.play.game.Game`).  Used to test the exact posterior
and the optimal-play search against the simplest possible reading of the rules.
"""

from __future__ import annotations

from itertools import product


def placements(rows: int, cols: int, length: int) -> list[tuple]:
    out = set()
    for r in range(rows):
        for c in range(cols):
            if c + length <= cols:
                out.add(tuple((r, c + k) for k in range(length)))
            if r + length <= rows:
                out.add(tuple((r + k, c) for k in range(length)))
    return sorted(out)


def _apart(a: tuple, b: tuple) -> bool:
    return all(max(abs(x[0] - y[0]), abs(x[1] - y[1])) > 1 for x in a for y in b)


def deployments(rows: int, cols: int, ships: list[tuple[str, int]], touching: bool = True) -> list[dict]:
    """Every labelled deployment ``{ship: cells}`` of straight ships ``[(name, length)]``."""
    per = [placements(rows, cols, n) for _, n in ships]
    out = []
    for pick in product(*per):
        cells = [c for p in pick for c in p]
        if len(set(cells)) != len(cells):
            continue
        if not touching and any(not _apart(pick[i], pick[j]) for i in range(len(pick)) for j in range(i)):
            continue
        out.append({name: p for (name, _), p in zip(ships, pick)})
    return out


def announcements(board, hidden: dict, rule: str, shots: list) -> list:
    from harness.play.game import Game

    game = Game(board, hidden, rule)
    return [game.shoot(c) for c in shots]


def fitting(board, every: list[dict], rule: str, shots: list, said: list) -> list[dict]:
    """The deployments on which ``shots`` announce ``said``."""
    return [d for d in every if announcements(board, d, rule, shots) == said]


__all__ = ["announcements", "deployments", "fitting", "placements"]
