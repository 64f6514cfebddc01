"""One command layer: every command's help has examples and exit codes, every option help text and its default,
one ``-o KEY=VALUE`` syntax, one name per idea."""

from __future__ import annotations

import argparse

import pytest

from harness.cli import COMMANDS, build_parser


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


SUB = _subparsers()


def test_every_command_is_a_module_of_the_command_layer():
    assert list(SUB) == list(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_help_has_examples_and_exit_codes(name):
    text = SUB[name].format_help()
    assert "examples:\n  battlebench " + name in text, text
    assert "exit codes:\n  0 " in text and ("  2 " in text or name == "backends"), text


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_has_help_and_says_its_default(name):
    parser = SUB[name]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)) or action.help == argparse.SUPPRESS:
            continue
        assert action.help, f"{name} {action.dest}: no help text"
        if action.option_strings and not action.required:
            shown = formatter._get_help_string(action)
            assert "default" in shown, f"{name} {'/'.join(action.option_strings)}: no default in {shown!r}"


@pytest.mark.parametrize("name", [n for n in COMMANDS if n in ("solve", "play", "conform")])
def test_plugin_options_are_one_syntax(name):
    """``-o KEY=VALUE``, repeatable, wherever a plugin takes options."""
    (action,) = [a for a in SUB[name]._actions if "-o" in a.option_strings]
    assert action.option_strings == ["--option", "-o"] and action.metavar == "KEY=VALUE"
    assert isinstance(action, argparse._AppendAction)


@pytest.mark.parametrize("name", [n for n in COMMANDS if n in ("solve", "count", "play")])
def test_single_shot_commands_share_the_limit_options(name):
    options = {s for a in SUB[name]._actions for s in a.option_strings}
    assert {"--time-limit", "-t", "--memory-mb", "--grace"} <= options


def test_output_places_are_named_out():
    for name in ("run", "report", "compare", "export", "generate"):
        options = {s for a in SUB[name]._actions for s in a.option_strings}
        assert "--out" in options, name
