"""``battlebench convert``: a puzzle converted between the instance formats."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.common import BAD_INPUT, command
from harness.errors import UsageError

NAME = "convert"


def add_parser(sub: Any) -> None:
    c = command(sub, NAME, "convert an instance between formats",
                "Convert a puzzle between the formats: native (.toml), dzn (MiniZinc solbat data), ascii (seed-001, "
                ".txt) and jolyonb (no extension); formats are told from the file names.",
                ["battlebench convert instances/solbat/sb_12_12_5_0.toml scratch/sb.dzn",
                 "battlebench convert scratch/sb.dzn - --to native"],
                {0: "written", 2: BAD_INPUT + " (or the target format cannot express the puzzle)"})
    c.add_argument("src", metavar="IN", help="the puzzle file")
    c.add_argument("dst", metavar="OUT", help="output file, or - for standard output")
    c.add_argument("--from", dest="src_format", default=None, help="input format (default: from the name)")
    c.add_argument("--to", dest="dst_format", default=None, help="output format (default: from the name)")


def run(args: argparse.Namespace) -> int:
    from harness.puzzle.formats import FORMATS, format_instance, output_format, read_instance, write_instance

    for fmt in (args.src_format, args.dst_format):
        if fmt is not None and fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    inst = read_instance(args.src, args.src_format)
    if args.dst == "-":
        sys.stdout.write(format_instance(inst, args.dst_format or "native"))
        return 0
    fmt = args.dst_format or output_format(args.dst)
    write_instance(inst, args.dst, fmt)
    print(f"wrote {args.dst} ({fmt})", file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
