"""The ``battlebench`` command line: one module per command, one parser style (:mod:`harness.cli.common`).

Commands: ``solve``, ``count`` and ``play`` (single-shot: each run through the same
isolated-worker path as campaigns), ``run`` (a campaign), ``report``, ``check``,
``compare``, ``export`` and ``merge`` (stored results), ``select`` (the pair for new puzzles, learnt from a
campaign), ``generate``, ``convert`` and ``write`` (instances), ``backends`` and
``conform`` (plugins), ``prepare`` (the numba kernels compiled ahead of time).  ``battlebench COMMAND --help``
gives each one's options with their defaults, examples and exit codes.

A run builds only the parser of the command it names (:func:`parser_for`): each command
module imports what its parser and its run need, so ``battlebench --version`` imports no
command and ``battlebench solve`` none of the others (nor their tasks).
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

COMMANDS = ("solve", "count", "play", "run", "report", "check", "compare", "export", "merge", "select", "generate",
            "convert", "write", "backends", "conform", "prepare")
"""The commands, in the order ``battlebench --help`` lists them; each is the module ``harness.cli.NAME``."""


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The ``battlebench`` parser with the subparsers of ``commands`` (default: every command)."""
    p = Parser(prog="battlebench", formatter_class=Formatter,
               description="Compare constraint solvers, formulations and strategies on Battleship: solve and count "
                           "puzzles, count fleet deployments, play the game; campaigns from a config, a report and "
                           "a check at the end.",
               epilog="Run `battlebench COMMAND --help` for a command's options, examples and exit codes.")
    p.add_argument("--version", action="version", version=f"battlebench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for name in commands:
        importlib.import_module(f"harness.cli.{name}").add_parser(sub)
    return p


_build_parser = build_parser  # the name older tests and scripts use


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser ``argv`` needs: only its command's (a command word before any help flag), none for
    ``--version`` or no command at all, every command's for the top-level help or a word that is no command
    (whose error lists the commands)."""
    for arg in argv:
        if arg == "-h" or (len(arg) > 2 and "--help".startswith(arg)):  # argparse takes --he for --help
            return build_parser()
        if not arg.startswith("-"):
            return build_parser((arg,) if arg in COMMANDS else COMMANDS)
    return build_parser(())


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser_for(argv).parse_args(argv)
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


__all__ = ["COMMANDS", "build_parser", "main", "parser_for"]
