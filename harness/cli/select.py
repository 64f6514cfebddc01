"""``battlebench select``: the pair to run on new puzzles, chosen by a selector learnt from a solve campaign."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import BAD_INPUT, command

NAME = "select"


def add_parser(sub: Any) -> None:
    s = command(sub, NAME, "the pair to run on new puzzles, learnt from a campaign",
                "Learn from a solve campaign's store (or the store a campaign config names) which pair is fastest "
                "on which puzzle -- one cost-sensitive classifier per two pairs over the puzzles' features "
                "(harness.selection) -- and name the pair for each PUZZLE, with the selector's confidence (1: it "
                "beats every other pair for sure) and each pair's votes. How well such a selector does out of "
                "fold is in the campaign's report (docs/how-to/select.md).",
                ["battlebench select reports/headline instances/large/large_30x20_minimal_s502.toml",
                 "battlebench select configs/headline.toml instances/classic/*.toml --json"],
                {0: "a pair was named for every puzzle",
                 2: BAD_INPUT + " (no store, a puzzle that cannot be read, fewer than two pairs)"})
    s.add_argument("source", metavar="CONFIG_OR_STORE", help="a results directory, or a campaign config (its output)")
    s.add_argument("puzzles", nargs="+", metavar="PUZZLE", help="puzzle files")
    s.add_argument("--measure", choices=("cpu", "wall"), default=None,
                   help="what the pairs' times are (default: the pairs' own measure)")
    s.add_argument("--json", action="store_true", help="one JSON object per puzzle")


def _store(source: str) -> Path:
    path = Path(source)
    if path.is_file() and path.suffix == ".toml":
        from harness.runner.config import load_config

        return Path(load_config(path).output)
    return path


def run(args: argparse.Namespace) -> int:
    import json

    from harness.counting.format import read_deployment
    from harness.puzzle.formats import read_instance
    from harness.selection.features import board_features, cached_features
    from harness.selection.scenario import scenario
    from harness.selection.selector import predict, train

    scn = scenario(_store(args.source), args.measure)
    # a count scenario's instances are boards (deployments); a bad file: one line, before any learning
    reader, featured = (read_instance, cached_features) if scn.task == "solve" else (read_deployment, board_features)
    puzzles = [(p, reader(Path(p))) for p in args.puzzles]
    models = train(scn)
    chosen = predict(models, [featured(inst).values for _, inst in puzzles])
    for (path, _), (pair, confidence, votes) in zip(puzzles, chosen):
        if args.json:
            print(json.dumps({"puzzle": path, "pair": pair, "confidence": round(confidence, 4),
                              "votes": {p: round(v, 4) for p, v in votes.items()}, "measure": scn.measure}))
        else:
            print(f"{path}: {pair} (confidence {confidence:.2f})")
    what = "puzzles" if scn.task == "solve" else "boards"
    print(f"learnt from {len(scn.instances)} {what} of {args.source} ({len(scn.pairs)} pairs, {scn.measure} "
          "seconds)", file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
