"""Does looking two shots ahead beat ``lookahead``? An experiment on the same games, paired, with a committed report.

    python experiments/play_expectimax.py --games 400 --seed 11 --jobs 2 --out experiments/play-expectimax

The experimental strategy (not one of the package's: it did not earn its place) is a
two-shot expectimax on the exact posterior: for the five most likely cells ``c`` it
adds to P(hit c) the expected best hit chance of the next shot over every announcement
``c`` could bring (miss; hit; hit that sinks X, each from the dp's per-placement counts),
each outcome's posterior counted exactly.  Both it and ``lookahead`` play games ``0 ..
games-1`` of ``--seed`` (not the benchmark campaign's seed 0); the report gives both
means, the paired difference with its 95 % interval, and games per second (CPU).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "instances" / "deployments" / "standard_10x10.toml"


def _expectimax_class():
    from harness.counting.deployment import Deployment
    from harness.play.strategies.posterior import PosteriorStrategy, memo_marginals

    class Expectimax(PosteriorStrategy):
        name = "expectimax"
        options = {"k": 5}

        def shot(self, position):
            m = self.marginals(position)
            total, unknown, hits = m.total, position.unknown(), position.hits
            base = position.deployment()
            sinks: dict = {}
            for (name, cells), n in m.placements.items():
                open_cells = [c for c in cells if c not in hits]
                if name not in position.sunk_at and n and len(open_cells) == 1:
                    per = sinks.setdefault(open_cells[0], {})
                    per[name] = per.get(name, 0) + n
            best, where = -1.0, None
            for c in sorted(unknown, key=lambda c: -m.occupied[c])[: int(self.opts["k"])]:
                hit = m.occupied[c]
                sunk = sinks.get(c, {})
                outcomes = [(total - hit, base.misses | {c}, base.hits, dict(base.sunk_at)),
                            (hit - sum(sunk.values()), base.misses, base.hits | {c}, dict(base.sunk_at))]
                outcomes += [(n, base.misses, base.hits | {c}, {**base.sunk_at, name: c}) for name, n in sunk.items()]
                value = hit / total
                for n, misses, hit_cells, sunk_at in outcomes:
                    if not n:
                        continue
                    after = memo_marginals(self.name, Deployment(base.grid, base.cells, base.pieces, misses=misses,
                                                             hits=hit_cells, sunk_at=sunk_at, announce_sinks=True))
                    if after.total:
                        value += n / total * max((after.occupied[d] for d in unknown if d != c), default=0) \
                            / after.total
                if value > best:
                    best, where = value, c
            return where

    return Expectimax


def _play(args: tuple) -> tuple[str, int, int, float]:
    name, seed, game = args
    from harness.counting.format import read_deployment
    from harness.play.match import play_game
    from harness.play.strategies import get_strategy
    from harness.play.sample import sampler_for
    from harness.play.sample import game_deployment

    board = read_deployment(BOARD)
    strategy = _expectimax_class()() if name == "expectimax" else get_strategy(name)()
    c0 = time.process_time()
    rec = play_game(strategy, board, game_deployment(sampler_for(board), seed, game), "ship", (seed, game))
    assert rec.error is None, rec.error
    return name, game, rec.shots, time.process_time() - c0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    names = ("lookahead", "expectimax")
    tasks = [(n, args.seed, g) for g in range(args.games) for n in names]
    shots: dict = {n: {} for n in names}
    cpu: dict = {n: 0.0 for n in names}
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, game, n, c in pool.map(_play, tasks, chunksize=4):
            shots[name][game] = n
            cpu[name] += c
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    games = sorted(shots["lookahead"])
    with open(out / "games.csv", "w") as fh:
        fh.write("game,lookahead,expectimax\n")
        fh.writelines(f"{g},{shots['lookahead'][g]},{shots['expectimax'][g]}\n" for g in games)
    diff = [shots["expectimax"][g] - shots["lookahead"][g] for g in games]
    half = 1.96 * statistics.stdev(diff) / math.sqrt(len(diff))
    lines = [f"# Two shots ahead against lookahead (experiments/play_expectimax.py --games {args.games} --seed "
             f"{args.seed})", "", "| strategy | games | mean shots | CPU games/s |", "|---|---:|---:|---:|"]
    for n in names:
        lines.append(f"| {n} | {len(games)} | {statistics.fmean(shots[n].values()):.2f} | "
                     f"{len(games) / cpu[n]:.2f} |")
    lines += ["", f"Paired, expectimax − lookahead: {statistics.fmean(diff):+.2f} shots per game "
              f"(95% CI {statistics.fmean(diff) - half:+.2f} to {statistics.fmean(diff) + half:+.2f}); "
              f"expectimax better in {sum(d < 0 for d in diff)} games, worse in {sum(d > 0 for d in diff)}.", ""]
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
