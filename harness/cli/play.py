"""``battlebench play``: strategies play the same hidden deployments in limited workers; shots summarised, or one game watched.

Every game is one run of the play task through the campaigns' own path
(:meth:`harness.tasks.play.PlayTask.execute`): the strategy's warm worker under the time
limit (per game) and memory limit, the shot sequence replayed here against the hidden
deployment drawn again.  Game ``i`` under ``--seed K`` is the same hidden deployment for
every strategy (common random numbers), so strategies are compared game by game.  The
summary per strategy: mean shots with a 95 % interval (Student t), median, p5/p95,
worst, games per second (wall and CPU), games that did not end; with several strategies,
each one after the first also gets its paired difference from the first: the mean of its
shots minus the first's, game by game on the games both ended, with a 95 % interval
(Student t on the differences).  ``--watch`` and
``--png-dir`` (or ``--strip``) play one game in the worker with the strategy's heat maps and show it after,
shot by shot, replayed through the game engine.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from harness.cli.common import BAD_INPUT, add_limits, add_options, check_limits, command, limits_of, plugin_help
from harness.core.paths import path_part
from harness.core.stats import mean_ci95, paired_difference
from harness.errors import UsageError

NAME = "play"


def default_board() -> Path:
    """The standard 10x10 game (Carrier 5, Battleship 4, Submarine 3, Cruiser 3, Destroyer 2; ships may touch),
    shipped inside the package: a copy of ``instances/deployments/standard_10x10.toml``."""
    from importlib.resources import files

    return Path(str(files("harness.play") / "boards" / "standard_10x10.toml"))


def add_parser(sub: Any) -> None:
    pl = command(sub, NAME, "strategies play the same hidden deployments: shots per game summarised",
                 "Play games of each strategy against the same hidden deployments (game i of seed K is one "
                 "deployment for every strategy), each game in the strategy's warm worker under the limits, every "
                 "shot sequence replayed against the deployment; or watch one game.",
                 ["battlebench play --strategy random --strategy density --games 200 --json",
                  "battlebench play -s thompson -o block=2000 --games 20 --time-limit 10",
                  "battlebench play --strategy posterior --watch",
                  "battlebench play --optimal instances/optimal/r4x4_s2_s2.toml -s posterior -s density -t 120"],
                 {0: "every game ended", 1: "a game did not end (an error, a timeout, a memout, a replay that "
                  "contradicts it)", 2: BAD_INPUT + ", before any game"})
    from harness.play.game import RULES
    from harness.play.strategies import FAMILY

    pl.add_argument("--strategy", "-s", action="append", metavar="S",
                    help=f"{plugin_help('strategy', FAMILY)} (repeat to compare) (default: {FAMILY.default})")
    pl.add_argument("--games", "-n", type=int, default=100, help="games per strategy")
    pl.add_argument("--seed", type=int, default=0, metavar="S",
                    help="random seed: the same seed, the same games (game i of seed S is one hidden deployment for "
                         "every strategy)")
    pl.add_argument("--board", default=None, metavar="FILE",
                    help="a deployment file without hints (default: the standard 10x10 game, shipped with "
                    "battlebench)")
    pl.add_argument("--rule", default="ship", choices=RULES, help="what a shot announces: ship (hit/miss and the "
                    "sunk ship's name), sunk (unnamed) or none")
    add_options(pl, "strategy (STRATEGY.KEY=VALUE when several play)", "block=2000")
    add_limits(pl, "game")
    pl.add_argument("--json", action="store_true", help="one JSON object per strategy per line")
    pl.add_argument("--watch", action="store_true", help="show game 0 of the first strategy shot by shot")
    pl.add_argument("--delay", type=float, default=0.0, metavar="S", help="--watch: seconds between shots")
    pl.add_argument("--png-dir", default=None, metavar="DIR",
                    help="draw game 0 of the first strategy: its heat maps every --every shots, as a strip of "
                         "pictures written to DIR/STRATEGY-strip.png (default: none)")
    pl.add_argument("--strip", metavar="PNG", help="as --png-dir, the strip written to this file (default: none)")
    pl.add_argument("--every", type=int, default=8, metavar="K", help="--png-dir, --strip: a picture every K shots")
    pl.add_argument("--optimal", metavar="BOARD", default=None,
                    help="optimal play on a small BOARD (a deployment file): the exact minimum expected shots, its "
                    "first shot and the belief states searched; with --strategy, each strategy's exact expected "
                    "shots and gap (--time-limit and --memory-mb per value)")


def parse_options(items: list[tuple[str, str]] | None, strategies: list[str]) -> dict[str, dict]:
    """``-o block=2000`` (one strategy) or ``-o thompson.block=2000`` -> {"thompson": {"block": "2000"}}; values
    stay text until the strategy converts them to its options' types."""
    out: dict[str, dict] = {s: {} for s in strategies}
    for key, value in items or []:
        name, dot, opt = key.rpartition(".")
        if not dot:
            if len(strategies) != 1:
                raise UsageError(f"--option {key}={value}: several strategies play; write STRATEGY.{key}={value}")
            name, opt = strategies[0], key
        if name not in out:
            raise UsageError(f"--option {key}={value}: strategy {name!r} is not playing")
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


def paired(against: str, base: dict[int, int], shots: dict[int, int]) -> dict[str, Any]:
    """The paired difference of ``shots`` from ``base`` (game -> shots, ended games only), as the summary's
    ``paired``: ``against``, ``games`` both ended, ``mean_diff`` (negative: fewer shots), ``ci95``, ``better``
    and ``worse`` (games with fewer, more shots)."""
    d = paired_difference(base, shots)
    return {"against": against, "games": d.games, "mean_diff": None if math.isnan(d.mean) else d.mean,
            "ci95": None if math.isnan(d.half) else [d.mean - d.half, d.mean + d.half],
            "better": d.better, "worse": d.worse}


def _paired_line(p: dict[str, Any]) -> str:
    """A summary's paired difference as a line of text, under the strategy's line."""
    if p["mean_diff"] is None:
        return f"{'':12s} paired vs {p['against']}: no game both ended"
    ci = p["ci95"]
    return (f"{'':12s} paired vs {p['against']}: {p['mean_diff']:+.2f} shots per game"
            + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "")
            + f" on {p['games']} games (fewer shots in {p['better']}, more in {p['worse']})")


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
    if summary["games_per_s"] is not None:
        text += f"  {summary['games_per_s']:.2f} games/s"
    if summary["errors"]:
        text += f"  {summary['errors']} errors"
    if summary.get("paired"):
        text += "\n" + _paired_line(summary["paired"])
    return text


def _checked(args: argparse.Namespace) -> tuple[list[str], dict[str, tuple[type, dict]], Any]:
    """Strategies with their options and the board, every problem found before any game (UsageError)."""
    from harness.core.task import Subject
    from harness.play.game import RULES
    from harness.play.strategies import get_strategy
    from harness.tasks.play import load_board

    from harness.play.strategies import FAMILY

    names = args.strategy or ([] if args.optimal else [FAMILY.default])
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games:g}")
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, not {args.seed:g}")
    if args.rule not in RULES:
        raise UsageError(f"--rule must be one of {', '.join(RULES)}, not {args.rule!r}")
    if args.every < 1:
        raise UsageError(f"--every must be at least 1, not {args.every:g}")
    if args.delay < 0:
        raise UsageError(f"--delay must be >= 0, not {args.delay:g}")
    check_limits(args)
    if len(set(names)) != len(names):
        raise UsageError("a strategy is named twice")
    options = parse_options(args.option, names)
    made = {}
    for name in names:
        cls = get_strategy(name)
        opts = cls.resolve_options(options[name])  # unknown options and bad values fail here, before any game
        if args.rule not in cls.rules:
            raise UsageError(f"strategy {name} plays under the {' or '.join(cls.rules)} rule, not {args.rule!r}")
        made[name] = (cls, {k: opts[k] for k in options[name]})
    if args.png_dir:
        if args.strip:
            raise UsageError("--png-dir names the strip's folder and --strip its file: give one")
        if not Path(args.png_dir).is_dir():
            raise UsageError(f"--png-dir {args.png_dir}: no folder {args.png_dir}")
        args.strip = str(Path(args.png_dir) / f"{path_part(names[0])}-strip.png")
    if args.strip:
        strip = Path(args.strip)
        if strip.suffix.lower() != ".png":
            raise UsageError(f"--strip {args.strip}: the picture's name must end in .png")
        if not strip.parent.is_dir():
            raise UsageError(f"--strip {args.strip}: no folder {strip.parent}")
    if args.optimal and args.board and args.board != args.optimal:
        raise UsageError("--optimal names its board: leave out --board")
    if args.optimal and (args.watch or args.strip):
        raise UsageError("--optimal computes values: it shows no game (leave out --watch, --png-dir and --strip)")
    path = Path(args.optimal or args.board) if (args.optimal or args.board) else default_board()
    board: Subject = load_board(path, str(path))
    if board.value is None:
        raise UsageError(board.error if board.error.startswith(str(path)) else f"{path}: {board.error}")
    return names, made, board


def run(args: argparse.Namespace) -> int:
    from harness.core.task import PairSpec, TaskSpec, make_spec
    from harness.runner.process import WorkerPool
    from harness.tasks.play import PlayTask

    names, made, board = _checked(args)
    if args.optimal:
        from harness.cli.play_optimal import run_optimal

        return run_optimal(args, names, made, board)
    limits = limits_of(args)
    task, spec_of_task = PlayTask(), TaskSpec("play", "play")
    with WorkerPool() as pool:
        if args.watch or args.strip:
            name = names[0]
            pair = PairSpec(name, args.rule, tuple(sorted(made[name][1].items())))
            done = task.execute(pool, make_spec(board, pair, spec_of_task, args.seed, 1, limits), heat=True)
            if args.watch:
                return watch(name, board.value, done.result, args.rule, args.delay)
            return strip(name, board.value, done.result, args.rule, args.every, args.strip)
        bad = 0
        first: dict[int, int] = {}  # the first strategy's shots per ended game: what the others are paired with
        for name in names:
            pair = PairSpec(name, args.rule, tuple(sorted(made[name][1].items())))
            shots, errors, wall, cpu = [], 0, 0.0, 0.0
            by_game: dict[int, int] = {}
            try:
                for g in range(args.games):
                    res = task.execute(pool, make_spec(board, pair, spec_of_task, args.seed, g + 1, limits)).result
                    wall += res.times.get("wall_s") or 0.0
                    cpu += res.times.get("cpu_s") or 0.0
                    if res.finished and res.shots is not None:
                        shots.append(res.shots)
                        by_game[g] = res.shots
                    else:
                        errors += 1
                        why = res.error or (res.verdict if res.verdict not in ("ok", "none") else str(res.status))
                        print(f"battlebench: {name} game {g}: {res.status}: {why.splitlines()[0] if why else ''}",
                              file=sys.stderr)
            except KeyboardInterrupt:  # keep what was played: the games that ended are summarised
                summary = summarise(name, shots, wall, cpu, errors)
                if name != names[0]:
                    summary["paired"] = paired(names[0], first, by_game)
                print(json.dumps({**summary, "interrupted": True}) if args.json else _line(summary), flush=True)
                print(f"battlebench: interrupted: {name} played {len(shots) + errors} of {args.games} games "
                      "(summarised above)" + (f"; {', '.join(names[names.index(name) + 1:])} not played"
                                              if name != names[-1] else ""), file=sys.stderr)
                return 130
            summary = summarise(name, shots, wall, cpu, errors)
            if name == names[0]:
                first = by_game
            else:
                summary["paired"] = paired(names[0], first, by_game)
            bad += errors
            print(json.dumps(summary) if args.json else _line(summary), flush=True)
    return 1 if bad else 0


def frame(board: Any, position: Any, heat: dict | None) -> str:
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


def replay(board: Any, result: Any, rule: str):
    """The game the worker played, shot by shot through the engine: (shot number, cell, outcome, position,
    heat map it was shot from)."""
    from harness.play.game import Game, labelled

    game = Game(labelled(board), result.hidden, rule)
    for k, (*cell, _hit) in enumerate(result.sequence):
        outcome = game.shoot(tuple(cell))
        heat = result.heats[k] if k < len(result.heats) else None
        yield k + 1, tuple(cell), outcome, game.position, heat


def watch(name: str, board: Any, result: Any, rule: str, delay: float) -> int:
    """Show one game shot by shot: each frame the board and the heat map the strategy shot from."""
    if result.verdict not in ("ok", "none"):
        print(f"battlebench: {name}: the replay contradicts the game: {result.verdict}", file=sys.stderr)
        return 1
    for k, cell, outcome, position, heat in replay(board, result, rule):
        said = "hit" if outcome.hit else "miss"
        if outcome.sunk:
            said += f", sunk {outcome.sunk}"
        print(f"shot {k}: {list(cell)} {said}")
        print(frame(board, position, heat))
        print(flush=True)
        if delay:
            time.sleep(delay)
    if not result.finished:
        print(f"battlebench: {name}: the game did not end ({result.status}): {result.error or result.termination}",
              file=sys.stderr)
        return 1
    print(f"{name}: all ships sunk in {result.shots} shots")
    return 0


def strip(name: str, board: Any, result: Any, rule: str, every: int, path: str) -> int:
    """Draw one game's heat maps before shot 1, 1+every, ... as a strip of pictures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    if board.grid.kind != "square":
        raise UsageError("--strip draws square boards")
    if not result.finished:
        print(f"battlebench: {name}: the game did not end ({result.status}): {result.error or result.termination}",
              file=sys.stderr)
        return 1
    frames = list(range(0, result.shots, every))
    fig, axes = plt.subplots(1, len(frames), figsize=(2.2 * len(frames), 2.6), squeeze=False)
    for ax, k in zip(axes[0], frames):
        grid = np.full((board.rows, board.cols), np.nan)
        for cell, p in (result.heats[k] or {}).items():
            grid[cell] = p
        ax.imshow(grid, cmap="viridis", vmin=0, vmax=1)
        for *cell, hit in result.sequence[:k]:
            ax.text(cell[1], cell[0], "x" if hit else "o", ha="center", va="center", fontsize=7,
                    color="red" if hit else "white")
        ax.set_title(f"before shot {k + 1}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"{name}: one game, {result.shots} shots (x hit, o miss; colour: belief of a ship)", fontsize=9)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        from harness.errors import InputError

        raise InputError(f"{path}: cannot write the picture: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
    print(f"wrote {path}: {len(frames)} pictures of a {result.shots}-shot game")
    return 0


__all__ = ["NAME", "add_parser", "default_board", "frame", "paired", "parse_options", "replay", "run", "strip",
           "summarise", "watch"]
