"""Exact strategy values on small boards: a strategy's expected shots over every deployment, by walking its decision tree.

Every labelled deployment is equally likely (:class:`~harness.play.optimal.Beliefs` lists
them).  The walk starts a strategy once and asks it for a shot at every node of its
decision tree; a shot splits the deployments by what it announces, and each part goes
on with its own copy of the strategy (:func:`_fork`) and of the position.  The sum of
misses over the deployments is then exact, like the optimum's.

Randomness: a strategy gets a *scripted* generator (:class:`ScriptedRng`) whose
``integers(n)`` is enumerated: the walk plays every value, each with probability
``1/n`` (ties broken at random become an exact average).  A strategy that draws in any
other way (arrays of random numbers, floats), or whose tree outgrows ``budget`` nodes,
is *sampled* instead: every deployment played ``rounds`` times with seeded generators,
the mean with its 95% interval.  A strategy with a closed form
(:meth:`~harness.play.strategies.Strategy.expected_shots`, ``random``'s
``K (N + 1) / (K + 1)``) is walked where its tree is small (at most :data:`FORM_WALK`
nodes: the value task's judge then checks the walk against the form) and given the form
elsewhere.

With a :class:`~harness.play.optimal.Search` at hand the walk also says how often a
strategy's shot *costs*: at a node, a shot whose optimal continuation takes more
expected shots than the node's optimum.  ``costly`` is the probability that a game meets
such a shot, ``first_costly`` the mean shot number of the first one.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from harness.errors import NotEnumerable, Signal  # NotEnumerable: re-exported from its old home
from harness.play.game import Outcome, Position, labelled
from harness.play.optimal import Beliefs, Search, Stopped

FORM_WALK = 20_000  # a strategy with a closed form is walked when its tree has at most this many nodes


class _Branch(Signal):
    """The scripted generator ran past its script: the walk branches on the next draw."""

    def __init__(self, n: int):
        super().__init__(n)
        self.n = n


class _SearchStopped(Signal):
    """The optimum's search (for costly shots) reached its deadline: the walk goes on without it."""


class ScriptedRng:
    """A generator whose ``integers`` calls return a script, and ask for a branch past its end."""

    def __init__(self, script: list[int]):
        self.script = script
        self.used = 0

    def integers(self, low, high=None, size=None, **_: Any):
        if size is not None:
            raise NotEnumerable("the strategy draws arrays of random numbers")
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        if self.used < len(self.script):
            value = self.script[self.used]
            self.used += 1
            return lo + value
        raise _Branch(hi - lo)

    def __getattr__(self, name):
        raise NotEnumerable(f"the strategy uses its generator's {name}()")


def _fork(strategy: Any) -> Any:
    """A copy of a strategy whose lists, sets and dicts are its own (the board and arrays are shared: read-only)."""
    twin = copy.copy(strategy)
    for name, value in vars(strategy).items():
        if isinstance(value, (list, set, dict)):
            setattr(twin, name, copy.copy(value))
    return twin


def _choices(strategy: Any, position: Position) -> list[tuple[Any, Fraction, Any]]:
    """``[(cell, probability, the strategy after choosing it)]``: every way its generator's integers can go."""
    out = []
    pending: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while pending:
        script, p = pending.pop()
        twin = _fork(strategy)
        twin.rng = ScriptedRng(script)
        try:
            cell = tuple(twin.shot(position))
        except _Branch as branch:
            if branch.n <= 0:
                raise NotEnumerable("the strategy drew from an empty range") from None
            pending.extend(([*script, v], p / branch.n) for v in range(branch.n))
            continue
        out.append((cell, p, twin))
    return out


@dataclass
class StrategyValue:
    """A strategy's expected shots on one board under one rule, exact or sampled."""

    strategy: str
    board: str
    rule: str
    deployments: int
    method: str  # "walk" (its tree, exact), "closed-form" (exact) or "sample"
    expected: Fraction | None  # exact value (walk, closed form)
    mean: float  # the value as a float (exact or sampled)
    half_width: float  # 95% interval half width (0 when exact)
    nodes: int  # decision nodes walked (games played when sampled)
    costly: Fraction | None = None  # probability a game meets a costly shot (walk with a search)
    first_costly: float | None = None  # mean shot number of the first costly shot, given one
    wall_s: float = 0.0
    cpu_s: float = 0.0
    note: str = ""


class _Walk:
    def __init__(self, beliefs: Beliefs, search: Search | None, budget: int, deadline: float | None,
                 markov: bool):
        self.b = beliefs
        self.search = search
        self.budget = budget
        self.deadline = deadline
        self.markov = markov
        self.nodes = 0
        self.memo: dict = {}
        names = beliefs.ships
        self.said = {"miss": Outcome(False), "hit": Outcome(True), "sunk": Outcome(True, "?")}
        self.said.update({k: Outcome(True, name) for k, name in enumerate(names)})
        self.index = {c: i for i, c in enumerate(beliefs.cells)}

    def _optimal(self, d: int, h: int) -> int:
        try:
            return self.search.value(d, h)
        except Stopped as why:
            raise _SearchStopped(str(why)) from None

    def walk(self, d: int, h: int, position: Position, strategy: Any, shots: int) -> tuple:
        """(sum of misses over ``d``, deployments of ``d`` meeting a costly shot, sum of the shot numbers of
        their first costly shot) -- Fractions when the strategy's randomness was enumerated."""
        if not any(d & occ for i, occ in enumerate(self.b.occupied) if not h >> i & 1):
            return 0, 0, 0
        key = None
        if self.markov:
            key = (d, frozenset(position.misses), h, tuple(position.sinks), tuple(sorted(position.sunk_at.items())))
            got = self.memo.get(key)
            if got is not None:
                return got
        self.nodes += 1
        if self.nodes > self.budget:
            raise NotEnumerable(f"its tree has more than {self.budget:,} nodes")
        if self.deadline is not None and not self.nodes & 63 and time.monotonic() > self.deadline:
            raise Stopped("time limit reached")
        n = d.bit_count()
        best = self._optimal(d, h) if self.search is not None else None
        misses = costly = first = 0
        for cell, p, twin in _choices(strategy, position):
            i = self.index.get(cell)
            if i is None or h >> i & 1 or cell in position.misses:
                raise NotEnumerable(f"the strategy shot {list(cell)}, not a cell it may shoot")
            here = n - (d & self.b.occupied[i]).bit_count()
            sub_m = sub_c = sub_f = 0
            q = here
            for what, part in self.b.outcomes(d, h, i):
                pos = position.copy()
                pos.record(cell, self.said[what])
                h2 = h | 1 << i if what != "miss" else h
                m, c, f = self.walk(part, h2, pos, _fork(twin), shots + 1)
                sub_m += m
                sub_c += c
                sub_f += f
                if best is not None:
                    q += self._optimal(part, h2)
            if best is not None and q > best:  # this shot costs: every game here meets it now
                sub_c, sub_f = n, n * (shots + 1)
            misses += p * (here + sub_m)
            costly += p * sub_c
            first += p * sub_f
        out = (misses, costly, first)
        if key is not None:
            self.memo[key] = out
        return out


def strategy_value(board, rule: str, strategy: Any, beliefs: Beliefs | None = None, search: Search | None = None,
                   budget: int = 200_000, rounds: int = 4, seed: int = 0, time_limit: float | None = None,
                   closed_form: bool = True) -> StrategyValue:
    """The expected shots of ``strategy`` (an instance, options set) on ``board`` under ``rule``: its closed
    form, else its walked tree, else a sample of ``rounds`` games per deployment (see the module docstring).
    With ``search``, the walk also measures its costly shots."""
    w0, c0 = time.perf_counter(), time.process_time()
    beliefs = beliefs or Beliefs.of(board, rule)
    ships = labelled(board)
    n = len(beliefs.deployments)
    k = beliefs.ship_cells
    deadline = None if time_limit is None else time.monotonic() + time_limit
    name = strategy.name

    def done(**kw) -> StrategyValue:
        return StrategyValue(name, board.name, rule, n, wall_s=time.perf_counter() - w0,
                             cpu_s=time.process_time() - c0, **kw)

    form = strategy.expected_shots(ships, rule) if closed_form else None
    if form is not None:
        budget = min(budget, FORM_WALK)  # walked where small (the judge then checks the form), else the form
    note = ""
    try:
        try:
            walk = _Walk(beliefs, search, budget, deadline, getattr(strategy, "markov", False))
            strategy.start(ships, rule, ScriptedRng([]))
            misses, costly, first = walk.walk(beliefs.full, 0, Position(ships, rule), _fork(strategy), 0)
        except _SearchStopped as why:  # the optimum's search ran out of time: the value without costly shots
            note, search = f"costly shots not measured: the optimum's search stopped ({why})", None
            walk = _Walk(beliefs, None, budget, deadline, getattr(strategy, "markov", False))
            strategy.start(ships, rule, ScriptedRng([]))
            misses, costly, first = walk.walk(beliefs.full, 0, Position(ships, rule), _fork(strategy), 0)
        expected = Fraction(k) + Fraction(misses) / n
        out = done(method="walk", expected=expected, mean=float(expected), half_width=0.0, nodes=walk.nodes,
                   note=note)
        if search is not None:
            out.costly = Fraction(costly) / n
            out.first_costly = float(Fraction(first) / costly) if costly else None
        return out
    except NotEnumerable as why:
        if form is not None:
            return done(method="closed-form", expected=Fraction(form), mean=float(form), half_width=0.0,
                        nodes=0, note=f"not walked: {why}")
        note = str(why)
    mean, half, games = _sample(beliefs, ships, rule, strategy, rounds, seed, deadline)
    return done(method="sample", expected=None, mean=mean, half_width=half, nodes=games, note=note)


def _sample(beliefs: Beliefs, ships, rule: str, strategy: Any, rounds: int, seed: int,
            deadline: float | None) -> tuple[float, float, int]:
    """Every deployment played ``rounds`` times (stratified: only the strategy's own randomness varies)."""
    from harness.play.match import play_game

    shots = []
    for r in range(rounds):
        for j, dep in enumerate(beliefs.deployments):
            if deadline is not None and time.monotonic() > deadline:
                raise Stopped("time limit reached while sampling")
            hidden = {name: tuple(beliefs.cells[i] for i in cells) for name, cells in zip(beliefs.ships, dep)}
            rec = play_game(strategy, ships, hidden, rule, seed=(seed, r * len(beliefs.deployments) + j))
            if rec.error:
                raise ValueError(f"{strategy.name}: {rec.error}")
            shots.append(rec.shots)
    m = sum(shots) / len(shots)
    # the deployments are a census, not a sample: what varies is the strategy's own draws, measured within each
    # deployment's rounds (one round: the spread over all games, an overestimate)
    count = len(beliefs.deployments)
    if rounds > 1:
        per = [sum(shots[r * count + j] for r in range(rounds)) / rounds for j in range(count)]
        var = sum((shots[r * count + j] - per[j]) ** 2 for r in range(rounds) for j in range(count))
        var /= len(shots) - count
    else:
        var = sum((s - m) ** 2 for s in shots) / max(1, len(shots) - 1)
    half = 1.96 * math.sqrt(var / len(shots))
    return m, half, len(shots)


__all__ = ["NotEnumerable", "ScriptedRng", "StrategyValue", "strategy_value"]
