"""``battlebench play``: strategies play the same hidden deployments; shots per game summarised, or one game watched.

Game ``i`` under ``--seed K`` is the same hidden deployment for every strategy (common
random numbers), so strategies are compared game by game.  The summary per strategy:
mean shots with a 95 % interval (Student t), median, p5/p95, worst, games per second
(wall and CPU), errors.  Exit 0 when every game ended; 1 when a game ended in an error;
2 on bad input (an unknown strategy or option, a board that cannot be read).
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from typing import Any

from harness.core.stats import mean_ci95
from harness.errors import UsageError

DEFAULT_BOARD = "instances/deployments/standard_10x10.toml"


def parse_options(items: list[str] | None, strategies: list[str]) -> dict[str, dict]:
    """``--option thompson.block=2000`` -> {"thompson": {"block": 2000}} (values read as JSON when they parse)."""
    out: dict[str, dict] = {s: {} for s in strategies}
    for item in items or []:
        key, eq, value = item.partition("=")
        name, dot, opt = key.partition(".")
        if not eq or not dot or not opt:
            raise UsageError(f"--option {item!r}: expected STRATEGY.OPTION=VALUE")
        if name not in out:
            raise UsageError(f"--option {item!r}: strategy {name!r} is not playing")
        try:
            out[name][opt] = json.loads(value)
        except json.JSONDecodeError:
            out[name][opt] = value
    return out


def summarise(name: str, shots: list[int], wall: float, cpu: float, errors: int) -> dict[str, Any]:
    """The summary of one strategy's games (see the module docstring)."""
    n = len(shots)
    mean, half = mean_ci95(shots) if shots else (None, math.nan)
    half = None if math.isnan(half) else half
    ordered = sorted(shots)

    def pct(q: float):  # linear between ranks, as the report (pandas) computes it
        import numpy as np

        return float(np.percentile(ordered, 100 * q)) if n else None

    return {"strategy": name, "games": n + errors, "completed": n, "errors": errors, "mean_shots": mean,
            "ci95": [mean - half, mean + half] if half is not None else None,
            "median_shots": statistics.median(shots) if shots else None, "p5": pct(0.05), "p95": pct(0.95),
            "worst": ordered[-1] if shots else None, "games_per_s": (n + errors) / wall if wall > 0 else None,
            "cpu_games_per_s": (n + errors) / cpu if cpu > 0 else None}


def _line(summary: dict[str, Any]) -> str:
    """One strategy's summary as a line of text."""
    text = f"{summary['strategy']:12s} {summary['games']:6d} games"
    if summary["mean_shots"] is None:
        text += "  none ended"
    else:
        ci = summary["ci95"]
        text += (f"  mean {summary['mean_shots']:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
                 + f"  median {summary['median_shots']:g}  p5 {summary['p5']:g}  p95 {summary['p95']:g}"
                 f"  worst {summary['worst']}")
    text += f"  {summary['games_per_s']:.2f} games/s"
    if summary["errors"]:
        text += f"  {summary['errors']} errors"
    return text


def cmd_play(args: Any) -> int:
    from harness.counting.format import read_deployment
    from harness.play.game import RULES, unplayable
    from harness.play.match import play_game
    from harness.play.sample import Sampler, game_deployment
    from harness.play.strategies import get_strategy

    names = args.strategy or ["random"]
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.rule not in RULES:
        raise UsageError(f"--rule must be one of {', '.join(RULES)}, not {args.rule!r}")
    options = parse_options(args.option, names)
    made = {name: (get_strategy(name), options[name]) for name in names}
    for name, (cls, opts) in made.items():
        cls(**opts)  # unknown options and bad values fail here, before any game
        if args.rule not in cls.rules:
            raise UsageError(f"strategy {name} plays under the {' or '.join(cls.rules)} rule, not {args.rule!r}")
    board = read_deployment(args.board)
    why = unplayable(board)
    if why:
        raise UsageError(f"{args.board}: {why}")
    sampler = Sampler.of(board)
    if args.watch:
        cls, opts = made[names[0]]
        return watch(cls(**opts), board, game_deployment(sampler, args.seed, 0), args.rule, args.seed, args.delay)
    if args.strip:
        if args.every < 1:
            raise UsageError("--every must be at least 1")
        cls, opts = made[names[0]]
        return strip(cls(**opts), board, game_deployment(sampler, args.seed, 0), args.rule, args.seed, args.every,
                     args.strip)
    bad = 0
    for name, (cls, opts) in made.items():
        shots, errors = [], 0
        w0, c0 = time.perf_counter(), time.process_time()
        for g in range(args.games):
            rec = play_game(cls(**opts), board, game_deployment(sampler, args.seed, g), args.rule, (args.seed, g))
            if rec.error:
                errors += 1
                print(f"battlebench: {name} game {g}: {rec.error}", file=sys.stderr)
            else:
                shots.append(rec.shots)
        summary = summarise(name, shots, time.perf_counter() - w0, time.process_time() - c0, errors)
        bad += errors
        if args.json:
            print(json.dumps(summary))
        else:
            print(_line(summary))
        sys.stdout.flush()
    return 1 if bad else 0


def frame(board, position, heat: dict | None) -> str:
    """The board (``X`` hit, ``o`` miss, ``.`` unknown) beside the strategy's heat map (0-9, ``#`` certain)."""
    if board.grid.kind != "square":
        return f"{position.shots} shots, {len(position.hits)} hits"
    lines = []
    for r in range(board.rows):
        left, right = [], []
        for c in range(board.cols):
            cell = (r, c)
            if cell not in board.cells:
                left.append(" ")
                right.append(" ")
                continue
            left.append("X" if cell in position.hits else "o" if cell in position.misses else ".")
            if heat is None or cell in position.hits or cell in position.misses:
                right.append(left[-1] if heat is not None else " ")
            else:
                p = heat.get(cell, 0.0)
                right.append("#" if p >= 0.999 else str(min(9, int(p * 10))))
        lines.append(" ".join(left) + "    " + " ".join(right))
    return "\n".join(lines)


def watch(strategy, board, hidden: dict, rule: str, seed: int, delay: float) -> int:
    """Replay one game shot by shot: each frame the board and the heat map the strategy shot from."""
    from harness.play.game import Game, ImpossiblePosition, labelled
    from harness.play.match import strategy_rng

    board = labelled(board)
    game = Game(board, hidden, rule)
    strategy.start(board, rule, strategy_rng((seed, 0)))
    try:
        while not game.over:
            cell, heat = strategy.decide(game.position, True)
            outcome = game.shoot(tuple(cell))
            said = "hit" if outcome.hit else "miss"
            if outcome.sunk:
                said += f", sunk {outcome.sunk}"
            print(f"shot {game.position.shots}: {list(cell)} {said}")
            print(frame(board, game.position, heat))
            print(flush=True)
            if delay:
                time.sleep(delay)
    except (ImpossiblePosition, ValueError) as exc:
        print(f"battlebench: shot {game.position.shots + 1}: {exc}", file=sys.stderr)
        return 1
    print(f"{strategy.name}: all ships sunk in {game.position.shots} shots")
    return 0


def strip(strategy, board, hidden: dict, rule: str, seed: int, every: int, path: str) -> int:
    """Play one game and draw the strategy's heat map before shot 1, 1+every, ... as a strip of pictures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from harness.play.match import play_game

    if board.grid.kind != "square":
        raise UsageError("--strip draws square boards")
    rec = play_game(strategy, board, hidden, rule, (seed, 0), heat=True)
    if rec.error:
        print(f"battlebench: {rec.error}", file=sys.stderr)
        return 1
    frames = list(range(0, rec.shots, every))
    fig, axes = plt.subplots(1, len(frames), figsize=(2.2 * len(frames), 2.6), squeeze=False)
    for ax, k in zip(axes[0], frames):
        grid = np.full((board.rows, board.cols), np.nan)
        for cell, p in (rec.heats[k] or {}).items():
            grid[cell] = p
        ax.imshow(grid, cmap="viridis", vmin=0, vmax=1)
        for cell, hit in rec.sequence[:k]:
            ax.text(cell[1], cell[0], "x" if hit else "o", ha="center", va="center", fontsize=7,
                    color="red" if hit else "white")
        ax.set_title(f"before shot {k + 1}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"{strategy.name}: one game, {rec.shots} shots (x hit, o miss; colour: belief of a ship)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}: {len(frames)} pictures of a {rec.shots}-shot game")
    return 0


__all__ = ["cmd_play", "frame", "parse_options", "strip", "summarise", "watch"]
