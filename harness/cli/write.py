"""``battlebench write``: puzzles as the field's standard files (CNF, WCNF, OPB, LP, MPS, SMT-LIB, XCSP3, FlatZinc,
ASP) with variable maps and a manifest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import BAD_INPUT, command

NAME = "write"


def add_parser(sub: Any) -> None:
    c = command(sub, NAME, "write puzzles as solver files (CNF, WCNF, OPB, LP, MPS, SMT-LIB, XCSP3, FlatZinc, ASP) "
                "with variable maps and a manifest",
                "Write each puzzle in each formulation as a standard solver file, with a variable map (JSON) beside "
                "it that decodes a model back to a board, and MANIFEST.json (instance, format, formulation, "
                "expected count where known, sha256), so other harnesses and solvers can use them "
                "(docs/how-to/solver-binaries.md).",
                ["battlebench write instances/solbat/*.toml --format cnf --out scratch/solbat-cnf",
                 "battlebench write instances/smoke/tiny_4x4.toml --formulation cell --out /tmp/cnf",
                 "battlebench write instances/solbat/*.toml --format xcsp3 --out scratch/solbat-xcsp3"],
                {0: "written", 2: BAD_INPUT + " (nothing is written when any puzzle cannot be read)"})
    c.add_argument("paths", nargs="+", metavar="PATH", help="puzzle files")
    c.add_argument("--format", default="cnf", help="the file format: cnf | wcnf | opb | lp | mps | smt2 | xcsp3 | "
                   "fzn | asp")
    c.add_argument("--formulation", "-f", action="append", default=None,
                   help="placement | cell (repeatable; default: both)")
    c.add_argument("--encoding", default="seqcounter", help="CardEnc encoding of fleet counts and line clues")
    c.add_argument("--amo", default="seqcounter", help="CardEnc encoding of at-most-one constraints")
    c.add_argument("--out", required=True, type=Path, metavar="DIR", help="the directory to write into")


def run(args: argparse.Namespace) -> int:
    from harness.backends.files import write_all
    from harness.backends.sat import SatBackend

    options = SatBackend.resolve_options({"encoding": args.encoding, "amo": args.amo})
    entries = write_all(args.paths, args.format, args.formulation or ["placement", "cell"], args.out,
                        {k: options[k] for k in ("encoding", "amo")})
    print(f"wrote {len(entries)} files and MANIFEST.json to {args.out}", file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
