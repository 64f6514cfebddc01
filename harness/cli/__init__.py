"""The ``battlebench`` command line: one module per command, one parser style (:mod:`harness.cli.common`).

Commands: ``solve``, ``count`` and ``play`` (single-shot: each run through the same
isolated-worker path as campaigns), ``run`` (a campaign), ``report``, ``check``,
``compare`` and ``export`` (stored results), ``generate``, ``convert`` and ``write`` (instances), ``backends`` and
``conform`` (plugins).  ``battlebench COMMAND --help`` gives each one's options with their
defaults, examples and exit codes.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from harness import __version__
from harness.cli.common import Formatter, Parser, error
from harness.errors import InputError

COMMANDS = ("solve", "count", "play", "run", "report", "check", "compare", "export", "generate", "convert",
            "write", "backends", "conform")
"""The commands, in the order ``battlebench --help`` lists them; each is the module ``harness.cli.NAME``."""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="battlebench", formatter_class=Formatter,
               description="Compare constraint solvers, formulations and strategies on Battleship: solve and count "
                           "puzzles, count fleet deployments, play the game; campaigns from a config, a report and "
                           "a check at the end.",
               epilog="Run `battlebench COMMAND --help` for a command's options, examples and exit codes.")
    p.add_argument("--version", action="version", version=f"battlebench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"harness.cli.{name}").add_parser(sub)
    return p


_build_parser = build_parser  # the name older tests and scripts use


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return importlib.import_module(f"harness.cli.{args.command}").run(args)
    except InputError as exc:
        error(str(exc))
        return 2
    except BrokenPipeError:  # `battlebench check ... | head`: the reader has gone, say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        error("interrupted")
        return 130


__all__ = ["COMMANDS", "build_parser", "main"]
