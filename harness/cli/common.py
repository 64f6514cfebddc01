"""What every command shares: one parser style, one ``-o KEY=VALUE`` syntax, the limit options, exit codes, errors.

Every command module has ``NAME``, ``add_parser(sub)`` and ``run(args) -> int``; its
parser is made by :func:`command` with a one-line help, an example and its exit codes
(the epilog), and every option says its default (the formatter adds it).  Bad input is
one line on stderr (``battlebench: error: ...``) and exit 2, before any work.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.core.limits import DEFAULT_GRACE_S

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
BAD_INPUT = "bad input (an unknown name, option or file; a malformed file or config): one line on stderr"


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after every option's help; the epilog (example, exit codes) kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default is argparse.SUPPRESS or isinstance(action, argparse._VersionAction):
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
                return text + " (default: off)" if action.default is False else text + " (default: on)"
            shown = "none" if action.default is None else ("none" if action.default == [] else "%(default)s")
            return f"{text} (default: {shown})"
        return text


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump), exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"battlebench: error: {message} (see {self.prog} --help)\n")


def epilog(examples: list[str], codes: dict[int, str]) -> str:
    """The end of a command's help: examples and exit codes."""
    lines = ["examples:"] + [f"  {e}" for e in examples] + ["", "exit codes:"]
    lines += [f"  {code:<3} {what}" for code, what in sorted(codes.items())]
    return "\n".join(lines)


def command(sub: Any, name: str, help: str, description: str, examples: list[str],
            codes: dict[int, str]) -> argparse.ArgumentParser:
    """A command's parser, in the one style every command has."""
    return sub.add_parser(name, help=help, description=description, epilog=epilog(examples, codes),
                          formatter_class=Formatter)


def key_value(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` (the one syntax of every ``-o``)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    if not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def plugin_help(word: str, family: Any) -> str:
    """The help of an option that names a plugin of ``family``: its built-ins (the installed plugins' entry points
    are not read to build a parser: ``battlebench backends`` lists them) or ``module:Class``."""
    return f"a {word} ({', '.join(family.builtins)}; battlebench backends lists them, plugins too) or module:Class"


def add_options(p: argparse.ArgumentParser, what: str, example: str) -> None:
    p.add_argument("--option", "-o", action="append", type=key_value, default=[], metavar="KEY=VALUE",
                   help=f"an option of the {what}, e.g. -o {example} (repeatable)")


def add_limits(p: argparse.ArgumentParser, per: str, *, memory_default: int | None = None) -> None:
    """The limit options every single-shot command shares: as in campaigns, enforced from outside the worker."""
    p.add_argument("--time-limit", "-t", type=float, default=None, metavar="S",
                   help=f"wall-clock seconds per {per}: SIGTERM at the limit, SIGKILL after --grace (default: none)")
    p.add_argument("--memory-mb", type=int, default=memory_default, metavar="MB",
                   help=f"memory limit of the worker per {per}, in MB")
    add_grace(p)


def add_grace(p: argparse.ArgumentParser) -> None:
    """``--grace S``: one meaning and one default (the campaigns', :func:`grace_of`) in every command."""
    p.add_argument("--grace", type=float, default=None, metavar="S",
                   help=f"after SIGTERM at the time limit, seconds until SIGKILL (default: {DEFAULT_GRACE_S:g}, as in "
                        "campaigns)")


def grace_of(args: argparse.Namespace) -> float:
    """The grace a command's ``--grace`` asks for, or the campaigns' default."""
    return DEFAULT_GRACE_S if args.grace is None else args.grace


_FLAGS = {"time_s": "--time-limit", "memory_mb": "--memory-mb", "grace_s": "--grace"}


def limits_of(args: argparse.Namespace) -> Any:
    """The :class:`~harness.core.limits.Limits` of a single-shot command, range-checked before any work (a
    UsageError naming the option)."""
    from harness.core.limits import Limits
    from harness.errors import LimitError, UsageError

    try:
        return Limits.checked(time_s=args.time_limit, memory_mb=args.memory_mb, grace_s=args.grace)
    except LimitError as exc:
        raise UsageError(f"{_FLAGS[exc.field]} {exc.problem}") from None


def check_limits(args: argparse.Namespace) -> None:
    """The limit options' values, checked before any work (UsageError): :func:`limits_of`'s check."""
    limits_of(args)


def check_jobs(jobs: int | None) -> None:
    """A ``--jobs`` value: None (the default) or at least 1 (UsageError)."""
    if jobs is not None and jobs < 1:
        from harness.errors import UsageError

        raise UsageError(f"--jobs must be >= 1, not {jobs:g}")


def error(msg: str) -> None:
    print(f"battlebench: error: {msg}", file=sys.stderr)


__all__ = ["BAD_INPUT", "EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "Formatter", "Parser",
           "add_grace", "add_limits", "add_options", "check_jobs", "check_limits", "command", "epilog", "error", "grace_of", "key_value",
           "limits_of", "plugin_help"]
