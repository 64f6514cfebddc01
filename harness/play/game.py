"""The game engine: a hidden deployment, shots, what each shot announces, and the position seen so far.

A *game* is one hidden deployment of a board's fleet (a hint-free
:class:`~harness.counting.deployment.Deployment`: its cells, pieces and touching rule)
shot at until every ship cell is hit.  Each *shot* is announced by the *announcement
rule*:

* ``ship`` (seed-002's rule, the default): hit or miss, and the name of the ship a shot
  sinks;
* ``sunk``: hit or miss, and "sunk" without saying which ship;
* ``none``: hit or miss only.

Identical copies of a piece are told apart as ships: ``Cruiser#1``, ``Cruiser#2``
(:func:`labelled`), each announced by its own name; the hidden deployments are uniform
over the labelled deployments anyway.

The *position* is what the shooter knows: misses, hits, and the ships sunk and where
(``ship``) or the cells where something sank (``sunk``), each sink with the hits made up
to it: a sunk ship lies within the hits made up to the shot that sank it, not within hits
made later.  :meth:`Position.deployment` states it as a deployment with hints (misses,
hits, ``sunk_at``, ``sunk_within``, sinks announced) for the counters.  Under the ``sunk``
rule a sink does not say which ship; :meth:`Position.deployments` gives one deployment per
way of naming the ships of the announced sinks (each deployment that fits the position
fits exactly one of them, since ships do not share cells), so counts and marginals are
their sums.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

from harness.counting.deployment import Deployment
from harness.counting.geometry import Cell
from harness.errors import ImpossiblePosition  # re-exported from its old home

RULES = ("ship", "sunk", "none")


@dataclass(frozen=True)
class Outcome:
    """What one shot announced: ``hit``, and ``sunk`` (the ship's name, ``"?"`` under the ``sunk`` rule, or
    None)."""

    hit: bool
    sunk: str | None = None


@dataclass
class Position:
    """What the shooter knows so far (see the module docstring)."""

    board: Deployment
    rule: str = "ship"
    misses: set = field(default_factory=set)
    hits: set = field(default_factory=set)
    sunk_at: dict = field(default_factory=dict)  # ship name -> the cell whose shot sank it (rule "ship")
    sinks: list = field(default_factory=list)  # cells whose shot sank a ship (rules "ship" and "sunk")
    sink_hits: list = field(default_factory=list)  # per sink, the hits made up to it (its shot included)

    @property
    def shots(self) -> int:
        return len(self.misses) + len(self.hits)

    def unknown(self) -> list[Cell]:
        """The cells not shot yet, in board order."""
        return sorted(self.board.cells - self.misses - self.hits)

    def copy(self) -> Position:
        """A position of its own (the board shared: it is immutable)."""
        return Position(self.board, self.rule, set(self.misses), set(self.hits), dict(self.sunk_at), list(self.sinks),
                        list(self.sink_hits))

    def record(self, cell: Cell, outcome: Outcome) -> None:
        (self.hits if outcome.hit else self.misses).add(cell)
        if outcome.sunk is not None:
            self.sinks.append(cell)
            self.sink_hits.append(frozenset(self.hits))
            if outcome.sunk != "?":
                self.sunk_at[outcome.sunk] = cell

    def _stated(self, sunk_at: dict, within: dict, suffix: str = "") -> Deployment:
        b = self.board
        return Deployment(b.grid, b.cells, b.pieces, touching=b.touching, reflections=b.reflections,
                          misses=frozenset(self.misses), hits=frozenset(self.hits), sunk_at=sunk_at,
                          sunk_within=within, announce_sinks=self.rule != "none", name=f"{b.name}@{self.shots}{suffix}")

    def deployment(self) -> Deployment:
        """The position as a deployment with hints, for the counters (rules ``ship`` and ``none``; under ``sunk``
        see :meth:`deployments`)."""
        if self.rule == "sunk":
            raise ValueError("the 'sunk' rule (sinks without names) has no single deployment form: "
                             "use Position.deployments()")
        within = {name: self.sink_hits[self.sinks.index(cell)] for name, cell in self.sunk_at.items()}
        return self._stated(dict(self.sunk_at), within)

    def deployments(self) -> list[Deployment]:
        """The position as deployments whose deployments together are exactly those that fit it, none in two:
        one for rules ``ship`` and ``none``; under ``sunk``, one per way of giving each announced sink a ship of
        its own (ships whose size cannot fit the hits at their sink are left out at once)."""
        if self.rule != "sunk":
            return [self.deployment()]
        ships = [(p.name, p.size) for p in self.board.pieces for _ in range(p.count)]
        if any(p.count > 1 for p in self.board.pieces):
            raise ValueError("name identical copies apart first (harness.play.game.labelled)")
        out = []
        for names in permutations(range(len(ships)), len(self.sinks)):
            if any(ships[k][1] > len(h) for k, h in zip(names, self.sink_hits)):
                continue
            sunk_at = {ships[k][0]: cell for k, cell in zip(names, self.sinks)}
            within = {ships[k][0]: h for k, h in zip(names, self.sink_hits)}
            out.append(self._stated(sunk_at, within, "/" + ",".join(ships[k][0] for k in names)))
        return out


class Game:
    """One hidden deployment (``{ship label: cells}``) being shot at, under one announcement rule."""

    def __init__(self, board: Deployment, hidden: dict[str, tuple], rule: str = "ship"):
        if rule not in RULES:
            raise ValueError(f"unknown announcement rule {rule!r} (choose from {', '.join(RULES)})")
        self.board = board
        self.hidden = hidden
        self.rule = rule
        self.owner = {c: label for label, cells in hidden.items() for c in cells}
        self.left = {label: set(cells) for label, cells in hidden.items()}
        self.position = Position(board, rule)
        self.sequence: list[tuple[Cell, bool]] = []

    @property
    def over(self) -> bool:
        return not any(self.left.values())

    def shoot(self, cell: Cell) -> Outcome:
        """Fire at ``cell``: ValueError if it is off the board or shot before."""
        if cell not in self.board.cells:
            raise ValueError(f"cell {list(cell)} is not on the board")
        if cell in self.position.misses or cell in self.position.hits:
            raise ValueError(f"cell {list(cell)} was shot before")
        label = self.owner.get(cell)
        sunk = None
        if label is not None:
            self.left[label].discard(cell)
            if not self.left[label]:
                sunk = {"ship": label, "sunk": "?", "none": None}[self.rule]
        outcome = Outcome(label is not None, sunk)
        self.position.record(cell, outcome)
        self.sequence.append((cell, outcome.hit))
        return outcome


def unplayable(board: Deployment) -> str | None:
    """Why a board cannot be played on (hints or clues: a game starts with nothing known), or None."""
    if board.has_hints or board.row_clues is not None or board.col_clues is not None:
        return "a board to play on has no hints or clues"
    return None


def labelled(board: Deployment) -> Deployment:
    """The board with every identical copy a ship of its own (``Name#1``, ``Name#2``, ...): the ships a game
    is played with, named as the sampler labels them."""
    if all(p.count == 1 for p in board.pieces):
        return board
    from dataclasses import replace

    from harness.counting.deployment import Piece

    ships = tuple(Piece(f"{p.name}#{k}", p.cells, 1) if p.count > 1 else p
                  for p in board.pieces for k in range(1, p.count + 1))
    return replace(board, pieces=ships)


__all__ = ["RULES", "Game", "ImpossiblePosition", "Outcome", "Position", "labelled", "unplayable"]
