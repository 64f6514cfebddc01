"""The command-line reference as Markdown, generated from the parser itself (:func:`harness.cli.build_parser`).

:func:`render` gives one section per command: its usage, its description, every option
with its help and default (as ``battlebench COMMAND --help`` prints them, options hidden
from ``--help`` left out), then the command's examples and exit codes.  The documentation
site builds its page *Reference > Command line* from it at build time (``docs/hooks.py``),
so the page cannot drift from the code: there is no committed copy.

    python -m harness.cli.reference > cli.md
"""

from __future__ import annotations

import argparse
import html
import re

__all__ = ["render"]

_INTRO = """\
# Command line

This page is generated from `battlebench`'s own argument parser each time the site is built
(`harness/cli/reference.py`, called by `docs/hooks.py`): it is what `battlebench COMMAND --help`
prints, command by command. Every option's default is given after its help.

Exit codes shared by every command: `0` success, `1` the work was done and found a problem
(a run not decided, a check failed), `2` bad input (one line on stderr naming the file, the
place and the problem, before any work), `130` interrupted. Each command's own list follows
its options.

A flag means one thing in every command that has it (a test compares them, with the few
differences it allows and why): `--out DIR` is where a command writes (a folder; `export`
names its table's file with `--file`), `--seed S` the random seed (the same seed, the same
run; default 0: `solve` passes none, so the backend's own 0 holds), `--grace S` the seconds
from SIGTERM to SIGKILL (default 5, as in campaigns), `--png-dir DIR` where figures go,
`-n N` how many the command makes (games, puzzles). Old spellings still work: `solve
--format` (now `--input-format`), `export --out FILE` (now `--file`), `play --strip PNG`
(beside `--png-dir`), `count --backend` (now `--counter`).
"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each command's one-line help, as ``battlebench --help`` lists it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _md(text: str) -> str:
    """Plain help text made safe for Markdown: HTML and emphasis characters escaped, backticks kept."""
    parts = " ".join(text.split()).split("`")
    for i in range(0, len(parts), 2):  # outside `code`
        parts[i] = re.sub(r"([*_\[\]|])", r"\\\1", html.escape(parts[i], quote=False))
    return "`".join(parts) if len(parts) % 2 else "\\`".join(parts)


def _flags(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    if not action.option_strings:
        return f"`{formatter._metavar_formatter(action, action.dest)(1)[0]}`"
    if action.nargs == 0:
        return ", ".join(f"`{o}`" for o in action.option_strings)
    metavar = formatter._format_args(action, action.dest.upper())
    return ", ".join(f"`{o} {metavar}`" for o in action.option_strings)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    lines: list[str] = []
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help is not argparse.SUPPRESS
                   and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]
        if not actions:
            continue
        lines += [f"**{group.title}**", ""]
        for action in actions:
            text = formatter._expand_help(action) if action.help else ""
            if isinstance(action, argparse._VersionAction):
                text = action.help or "show the version and exit"
            choices = ""
            if action.choices is not None:
                choices = " Choices: " + ", ".join(f"`{c}`" for c in action.choices) + "."
            lines.append(f"- {_flags(action, formatter)}: {_md(text)}{choices}")
        lines.append("")
    return lines


def _usage(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_usage().split()).removeprefix("usage: ")


def render() -> str:
    """Markdown for ``battlebench`` and every command: usage, description, options (help, default), epilog."""
    from harness.cli import build_parser

    top = build_parser()
    commands = _subparsers(top)
    helps = _help_of(top)
    out = [_INTRO, "| command | what it does |", "|---|---|"]
    out += [f"| [`{name}`](#{name}) | {_md(helps.get(name, ''))} |" for name in commands]
    out += ["", "## battlebench", "", "```text", _usage(top), "```", "", _md(top.description or ""), ""]
    out += _options(top)
    for name, parser in commands.items():
        out += [f"## {name}", "", f"*{_md(helps.get(name, ''))}*", "", "```text", _usage(parser), "```", "",
                _md(parser.description or ""), ""]
        out += _options(parser)
        if parser.epilog:
            out += ["```text", parser.epilog.rstrip(), "```", ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(render(), end="")
