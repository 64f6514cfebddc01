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


# -- one meaning per flag ---------------------------------------------------------------------------------------
DIFFERENCES = {  # flag: (the commands that have it, why they may differ)
    "--backend": (("solve", "count"), "count's --backend is the generic spelling of --counter (as a config's backend)"),
    "-b": (("solve", "count"), "as --backend: the pair's plugin (a backend; count's: a counter)"),
    "--counter": (("count", "conform"), "count defaults to the default counter; conform qualifies one plugin of "
                                        "three families, named by --counter, --strategy or BACKEND (default none)"),
    "--strategy": (("play", "conform"), "play plays several strategies (repeatable); conform qualifies one"),
    "--formulation": (("solve", "write", "conform"), "one pair's in solve; write and conform take several "
                                                     "(a file, a check each)"),
    "-f": (("solve", "write", "conform"), "as --formulation"),
    "--format": (("solve", "export", "write"), "the output format of export and write (each its own formats and "
                                               "default); solve's is the old spelling of --input-format"),
    "--out": (("run", "report", "compare", "export", "merge", "generate", "write"),
              "a folder everywhere; export's --out may still name the table's file (what it did before --file); "
              "merge's is required (the merged store has no place of its own)"),
    "--jobs": (("run", "check", "generate"), "how many at a time: runs (run's default is the config's jobs, none: "
                                             "not overridden), stored proofs checked again (check, 1), puzzles "
                                             "(generate has no config, 1)"),
    "-j": (("run", "generate"), "as --jobs"),
    "--seed": (("solve", "play", "generate"), "one meaning (the random seed; the same seed, the same run), default 0 "
                                              "everywhere: solve's none passes no seed, so the backend's own 0 holds "
                                              "and the pair's label names no seed"),
    "-n": (("play", "generate"), "how many the command makes: games per strategy (play), puzzles (generate)"),
    "--ratio": (("check", "compare"), "the slowdown threshold in both; check's may be per pair (PAIR=R, repeatable) "
                                      "over the stored [check], compare has one"),
    "--floor": (("check", "compare"), "as --ratio: the noise floor, per pair in check"),
}


def _signature(action: argparse.Action) -> tuple:
    default = tuple(action.default) if isinstance(action.default, list) else action.default
    return (action.dest, type(action).__name__, getattr(action.type, "__name__", action.type), default,
            action.metavar, tuple(action.choices or ()))


def _flags() -> dict[str, dict[str, tuple]]:
    """flag -> {command: what it means there (dest, action, type, default, metavar, choices)}."""
    flags: dict[str, dict[str, tuple]] = {}
    for name, parser in SUB.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                flags.setdefault(flag, {})[name] = _signature(action)
    return flags


def test_a_flag_means_one_thing_with_one_default_in_every_command():
    flags = _flags()
    differing = {flag: tuple(by) for flag, by in flags.items() if len(set(by.values())) > 1}
    unexplained = sorted(set(differing) - set(DIFFERENCES))
    assert unexplained == [], {f: flags[f] for f in unexplained}
    stale = sorted(f for f in DIFFERENCES if f not in differing)
    assert stale == [], "these flags agree now: take them out of DIFFERENCES"
    moved = {f: differing[f] for f in DIFFERENCES if differing[f] != DIFFERENCES[f][0]}
    assert moved == {}, "a command took one of these flags up or dropped it: say why it differs there"


def test_the_grace_is_the_campaigns_everywhere():
    from harness.cli.common import grace_of
    from harness.core.limits import DEFAULT_GRACE_S

    for name in ("solve", "count", "play", "conform"):
        (action,) = [a for a in SUB[name]._actions if "--grace" in a.option_strings]
        assert grace_of(argparse.Namespace(grace=action.default)) == DEFAULT_GRACE_S, name


@pytest.mark.parametrize("argv, dest, value", [
    (["solve", "p.toml", "--input-format", "ascii"], "input_format", "ascii"),
    (["solve", "p.toml", "--format", "ascii"], "input_format", "ascii"),  # the old spelling
    (["play", "--png-dir", "figs"], "png_dir", "figs"),
    (["play", "--strip", "s.png"], "strip", "s.png"),  # the old spelling, a file
    (["export", "r", "--file", "t.csv"], "file", "t.csv"),
    (["export", "r", "--out", "t.csv"], "out", "t.csv"),  # old scripts: a file still
])
def test_the_new_spellings_and_the_old_ones_parse(argv, dest, value):
    assert getattr(build_parser().parse_args(argv), dest) == value


def _built(parser: argparse.ArgumentParser) -> list[str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices)


@pytest.mark.parametrize("argv, built", [
    (["solve", "p.toml", "-b", "sat"], ["solve"]),
    (["--version"], []),
    ([], []),  # the error: a command is required
    (["--help"], list(COMMANDS)),
    (["--he"], list(COMMANDS)),  # argparse's abbreviation of --help
    (["-h", "solve"], list(COMMANDS)),
    (["nosuch"], list(COMMANDS)),  # its error lists every command
])
def test_a_run_builds_only_the_parser_its_command_needs(argv, built):
    """``battlebench solve`` builds (and imports) solve's parser alone, ``--version`` none."""
    from harness.cli import parser_for

    assert _built(parser_for(argv)) == built


def test_a_word_that_is_no_command_is_refused_naming_the_commands(capsys):
    from harness.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["slove", "p.toml"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "invalid choice: 'slove'" in err and "'solve'" in err and "'conform'" in err, err


def test_the_plugin_options_list_the_built_ins_without_reading_entry_points():
    """--backend, --counter and --strategy name the built-ins; ``battlebench backends`` lists the installed
    plugins too, so building the parsers reads no entry point (a fresh process: importlib.metadata stays out)."""
    import sys

    import procs

    code = ("import sys; from harness.cli import build_parser; build_parser(('solve', 'count', 'play')); "
            "print('importlib.metadata' in sys.modules)")
    out = procs.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr[-2000:]
    from harness.backends.registry import FAMILY

    (action,) = [a for a in SUB["solve"]._actions if "--backend" in a.option_strings]
    assert action.help.startswith(f"a backend ({', '.join(FAMILY.builtins)}; battlebench backends lists them")
