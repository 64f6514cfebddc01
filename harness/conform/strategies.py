"""The strategies' conformance suite: what every strategy must do, checked in isolated workers.

Each check plays games the way campaigns do (the play task's own path: the strategy's
worker, limits from outside, every shot sequence replayed in this process against the
hidden deployment drawn again) on small boards -- square with ships that touch, square
with ships apart, a hex board, a board with islands -- under every rule the strategy
declares:

``legal``       every shot is on the board and new, every announcement as the replay says;
``sinks``       every fleet is sunk, within the board's number of cells (N x M shots);
``repeatable``  the same game (board, rule, seed, game) played again gives the same shots:
                the strategy's randomness is its own generator's, nothing else's;
``rules``       under a rule it does not declare, the game ends at once, without a shot
                (its ``start()`` refuses the rule).

A check fails on the first game that breaks it; the detail names the board, rule and game.

The first game on each board and rule (game 0, and its replay) has :data:`FIRST_GAME_LIMIT_S`, the others
:data:`GAME_LIMIT_S`: a strategy may compile programmes for a new geometry or rule in its first game there (the
posterior's dp: about 20 s of CPU cold for a hex board or ships apart, minutes of wall time on a loaded machine),
and the suite judges what a strategy does, not how fast it starts.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

from harness.conform.suite import CheckResult
from harness.core.status import Status
from harness.core.task import Limits, PairSpec, Subject, TaskSpec, make_spec

CHECKS = ("legal", "sinks", "repeatable", "rules")
GAMES = 3  # per board and rule
GAME_LIMIT_S = 60.0  # a game after the first on its board and rule: a warm strategy's games take milliseconds
FIRST_GAME_LIMIT_S = 900.0  # the first game on a board and rule: it may pay a compilation (module docstring)
SEED = 7

_BOARDS = {
    "square-5x5-touching": """
        [grid]
        rows = 5
        cols = 5
        [pieces]
        Cruiser = 3
        Destroyer = { length = 2, count = 2 }
        """,
    "square-6x6-apart": """
        [grid]
        rows = 6
        cols = 6
        [rules]
        touching = false
        [pieces]
        Cruiser = 3
        Destroyer = 2
        Sub = 1
        """,
    "hex-r2": """
        [grid]
        kind = "hex"
        cells = [[-2, 0, 2], [-2, 1, 1], [-2, 2, 0], [-1, -1, 2], [-1, 0, 1], [-1, 1, 0], [-1, 2, -1],
                 [0, -2, 2], [0, -1, 1], [0, 0, 0], [0, 1, -1], [0, 2, -2], [1, -2, 1], [1, -1, 0],
                 [1, 0, -1], [1, 1, -2], [2, -2, 0], [2, -1, -1], [2, 0, -2]]
        [pieces]
        Straight = 3
        Short = 2
        """,
    "islands-6x6": """
        [grid]
        rows = 6
        cols = 6
        islands = [[2, 2], [2, 3], [3, 2], [3, 3]]
        [pieces]
        Cruiser = 3
        Destroyer = 2
        """,
}


@functools.lru_cache(maxsize=1)
def boards() -> list[Any]:
    from harness.conform.deployments import parse_case

    return [parse_case(name, text) for name, text in _BOARDS.items()]


def _play(pool: Any, name: str, options: dict[str, Any], board: Any, rule: str, game: int, grace_s: float) -> Any:
    from harness.tasks.play import PlayTask

    subject = Subject(board.name, board, board.name, board.content_hash())
    pair = PairSpec(name, rule, tuple(sorted(options.items())))
    limit = FIRST_GAME_LIMIT_S if game == 0 else GAME_LIMIT_S
    spec = make_spec(subject, pair, TaskSpec("play", "play"), SEED, game + 1, Limits(limit, None, grace_s))
    return PlayTask().execute(pool, spec).result


def _said(res: Any) -> str:
    why = res.error or (res.verdict if res.verdict not in ("ok", "none") else "")
    return f"{res.status}" + (f": {why.splitlines()[0][:160]}" if why else "")


_ILLEGAL = ("is not on the board", "was shot before", "off the board", "shot before", "announced as",
            "fired after")


def conform_strategy(pool: Any, name: str, options: dict[str, Any] | None = None, checks: tuple[str, ...] = CHECKS,
                     grace_s: float = Limits.grace_s, progress: Callable[[CheckResult], None] | None = None
                     ) -> list[CheckResult]:
    """Run ``checks`` on the strategy ``name`` (a name or ``module:Class``) with ``options`` in ``pool``'s workers."""
    from harness.play.game import RULES
    from harness.play.strategies import get_strategy

    cls = get_strategy(name)
    options = dict(options or {})
    cls.resolve_options(options)
    games: dict[tuple[str, str, int], Any] = {}  # each game played once, when a check first reads it

    def game(board: Any, rule: str, g: int) -> Any:
        if (board.name, rule, g) not in games:
            games[(board.name, rule, g)] = _play(pool, name, options, board, rule, g, grace_s)
        return games[(board.name, rule, g)]

    def played():
        """(board name, rule, game) and its result, played as the check reads them: a check that fails stops
        at its first bad game (a lying strategy's games each cost a fresh worker)."""
        for board in boards():
            for rule in cls.rules:
                for g in range(GAMES):
                    yield (board.name, rule, g), game(board, rule, g)

    out: list[CheckResult] = []
    for check in checks:
        start = time.perf_counter()
        failure, cases, said = None, 0, ""
        if check == "legal":
            for (board, rule, g), res in played():
                cases += 1
                text = f"{res.error} {res.verdict}"
                if res.status is Status.WRONG or any(m in text for m in _ILLEGAL):
                    failure = f"{board}, rule {rule}, game {g}: {_said(res)}"
                    break
            said = f"{cases} games: every shot on the board and new"
        elif check == "sinks":
            for (board, rule, g), res in played():
                cases += 1
                if not res.finished:
                    failure = f"{board}, rule {rule}, game {g}: the fleet was not sunk ({_said(res)})"
                    break
            said = f"{cases} fleets sunk"
        elif check == "repeatable":
            for board in boards():
                for rule in cls.rules:
                    cases += 1
                    first = game(board, rule, 0)
                    again = _play(pool, name, options, board, rule, 0, grace_s)
                    if again.sequence != first.sequence:
                        k = next((i for i, (a, b) in enumerate(zip(first.sequence, again.sequence)) if a != b),
                                 min(len(first.sequence), len(again.sequence)))
                        failure = (f"{board.name}, rule {rule}, game 0 played twice: the shots differ from shot "
                                   f"{k + 1} on")
                        break
                if failure:
                    break
            said = f"{cases} games played twice: the same shots"
        elif check == "rules":
            board = boards()[0]
            for rule in (r for r in RULES if r not in cls.rules):
                cases += 1
                res = _play(pool, name, options, board, rule, 0, grace_s)
                if res.status is not Status.ERROR or res.sequence:
                    failure = (f"it declares rules {', '.join(cls.rules)} but played under {rule!r}: "
                               f"{len(res.sequence)} shots, {_said(res)}")
                    break
            said = (f"refuses {cases} rule{'s' if cases != 1 else ''} it does not declare" if cases
                    else "declares every rule")
        else:
            raise ValueError(f"unknown conformance check {check!r}")
        row = CheckResult("-", check, failure is None, cases, time.perf_counter() - start, failure or said)
        out.append(row)
        if progress is not None:
            progress(row)
    return out


__all__ = ["CHECKS", "FIRST_GAME_LIMIT_S", "GAME_LIMIT_S", "boards", "conform_strategy"]
