"""``battlebench export``: a results store written as one table (CSV or Parquet) for pandas."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.common import BAD_INPUT, command

NAME = "export"


def add_parser(sub: Any) -> None:
    e = command(sub, NAME, "write a results store as a table for pandas",
                "Write every stored run of a results store as one table, one row per run, the columns of the "
                "store (docs/reference/records.md).",
                ["battlebench export results/smoke", "battlebench export reports/solbat --format parquet --out scratch/solbat.parquet"],
                {0: "the table was written", 2: BAD_INPUT + " (no store, a damaged one, a place it cannot write)"})
    e.add_argument("results", metavar="DIR", help="results directory (holds results.sqlite)")
    e.add_argument("--format", choices=("csv", "parquet"), default="csv", help="table format")
    e.add_argument("--out", default=None, metavar="FILE", help="the table's file (default: DIR/results.csv or "
                   "DIR/results.parquet)")


def run(args: argparse.Namespace) -> int:
    from harness.store import export

    path = export(args.results, args.format, args.out)
    print(f"wrote {path}", file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
