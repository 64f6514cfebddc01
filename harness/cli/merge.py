"""``battlebench merge``: stores written on separate machines (a campaign's shards) merged into one."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.common import BAD_INPUT, command

NAME = "merge"


def add_parser(sub: Any) -> None:
    m = command(sub, NAME, "merge results stores written apart into one",
                "Merge the stores of one campaign run on separate machines (run --shard I/N) into a new store: "
                "the plans joined, each run once (a run stored twice: the measurement that started first), every "
                "machine's sessions and kept proofs kept. Stores of different configs, and two records of one run "
                "whose answers disagree, are refused (docs/how-to/shards.md).",
                ["battlebench merge results/main-1 results/main-2 --out results/main",
                 "battlebench merge a b --out ab --mixed"],
                {0: "the merged store was written",
                 2: BAD_INPUT + " (a store missing or damaged, different configs, two records of one run that "
                    "disagree, --out holding a store already)"})
    m.add_argument("stores", nargs="+", metavar="DIR", help="results directories (each holds results.sqlite)")
    m.add_argument("--out", "-O", required=True, metavar="DIR", help="the new store's folder (must hold no store)")
    m.add_argument("--mixed", action="store_true",
                   help="merge stores of different configs (the merged store's config hash is then its own)")


def run(args: argparse.Namespace) -> int:
    from harness.store.merge import merge

    merged = merge(args.stores, args.out, mixed=args.mixed)
    print(merged.sentence(), file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
