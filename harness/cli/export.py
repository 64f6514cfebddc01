"""``battlebench export``: a results store written as one table (CSV or Parquet) for pandas, or as an ASlib
scenario (:mod:`harness.selection.aslib`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import BAD_INPUT, command
from harness.errors import UsageError

NAME = "export"


def add_parser(sub: Any) -> None:
    e = command(sub, NAME, "write a results store as a table for pandas, or as an ASlib scenario",
                "Write every stored run of a results store as one table, one row per run, the columns of the "
                "store (docs/reference/records.md); or, with --format aslib, a solve campaign as an algorithm "
                "selection scenario in ASlib's format (description.txt and the ARFF files of runs, features, "
                "their costs and folds; docs/how-to/select.md) in the folder --out names.",
                ["battlebench export results/smoke", "battlebench export reports/solbat --format parquet --file scratch/solbat.parquet",
                 "battlebench export reports/headline --format aslib --out scratch/headline-aslib"],
                {0: "the table (or the scenario) was written",
                 2: BAD_INPUT + " (no store, a damaged one, a place it cannot write; for aslib: fewer than two "
                    "pairs, pairs ranked by CPU and by wall time with no --measure, a puzzle file not found)"})
    e.add_argument("results", metavar="DIR", help="results directory (holds results.sqlite)")
    e.add_argument("--format", choices=("csv", "parquet", "aslib"), default="csv",
                   help="table format, or aslib: an ASlib scenario folder")
    e.add_argument("--measure", choices=("cpu", "wall"), default=None,
                   help="aslib: the runs' time in CPU or wall seconds (default: the pairs' own measure)")
    e.add_argument("--file", default=None, metavar="FILE", help="the table's file (default: DIR/results.csv or "
                   "DIR/results.parquet)")
    e.add_argument("--out", default=None, metavar="PATH",
                   help="a folder to write results.csv or results.parquet into, as --out is everywhere; a path "
                        "that is no folder is the table's file, as --file (the old meaning, kept for scripts)")


def run(args: argparse.Namespace) -> int:
    from harness.store import export

    if args.file and args.out:
        raise UsageError("--file names the table's file and --out its folder: give one")
    if args.format == "aslib":
        return _aslib(args)
    if args.measure:
        raise UsageError("--measure is for --format aslib")
    path = export(args.results, args.format, _file(args))
    print(f"wrote {path}", file=sys.stderr)
    return 0


def _aslib(args: argparse.Namespace) -> int:
    from harness.selection.aslib import write_scenario
    from harness.selection.scenario import scenario

    if args.file:
        raise UsageError("--format aslib writes a folder: name it with --out")
    folder = Path(args.out) if args.out else Path(args.results) / "aslib"
    scn = scenario(args.results, args.measure)
    write_scenario(scn, folder)
    print(f"wrote the ASlib scenario of {len(scn.pairs)} pairs on {len(scn.instances)} instances "
          f"({scn.measure} seconds) into {folder}", file=sys.stderr)
    return 0


def _file(args: argparse.Namespace) -> str | None:
    """The table's file: --file, or in the folder --out names (a path that is no folder: the file, as before)."""
    if args.out and Path(args.out).is_dir():
        return str(Path(args.out) / f"results.{args.format}")
    return args.file or args.out


__all__ = ["NAME", "add_parser", "run"]
