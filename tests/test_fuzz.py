"""Fuzzing the inputs (issue 32): deployment files, play options and campaign configs, drawn by hypothesis.

Whatever is drawn, the answer is a value or one line of bad input -- never a traceback, never another
exception: the deployment reader raises only InstanceFormatError, the config loader only ConfigError,
and ``battlebench play`` exits 0, 1 or 2 with at most one error line per bad input.
"""

from __future__ import annotations

import string
from pathlib import Path

import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clirun import ROOT, run
from harness.errors import ConfigError, InstanceFormatError

KEYS = ["meta", "grid", "rules", "pieces", "hints", "clues", "kind", "rows", "cols", "cells", "islands", "touching",
        "reflections", "length", "count", "misses", "hits", "sunk", "sunk_at", "announce_sinks", "name", "A", "B",
        "task", "instances", "pairs", "limits", "time_s", "memory_mb", "grace_s", "backend", "formulation",
        "options", "games", "seeds", "repetitions", "jobs", "executor", "output", "workers", "strategy", "rule",
        "counter", "k", "race", "solver", "block", "weight"]
SCALARS = st.one_of(st.integers(-3, 40), st.integers(), st.booleans(), st.floats(allow_nan=False, width=32),
                    st.sampled_from(["square", "hex", "?", "ship", "dp", "random", "cpsat", "play", "deployments",
                                     "count-2", "solve", "placement", "", "x", "..", "@smoke", "@deployments/tiny",
                                     "local", "warm", "nope:Nope"]),
                    st.text(string.printable, max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
                      max_leaves=12)
DOCS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=7)

VALID = """[meta]
name = "base"
[grid]
rows = 4
cols = 4
[pieces]
A = 2
B = { length = 1, count = 2 }
[hints]
misses = [[0, 0]]
hits = [[1, 1]]
[clues]
rows = [1, "?", 1, 2]
"""


def _text(doc: dict) -> str:
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError):  # not representable in TOML: the raw repr is text too
        return repr(doc)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=DOCS)
def test_any_deployment_file_is_a_deployment_or_one_line(doc, tmp_path_factory):
    from harness.counting.format import read_deployment

    path = tmp_path_factory.mktemp("dep") / "fuzz.toml"
    path.write_text(_text(doc))
    try:
        read_deployment(path)
    except InstanceFormatError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(cut=st.integers(0, len(VALID)), junk=st.text(max_size=12), at=st.integers(0, len(VALID)))
def test_a_valid_deployment_file_cut_or_spliced_is_a_deployment_or_one_line(cut, junk, at, tmp_path_factory):
    from harness.counting.format import read_deployment

    text = VALID[:cut] if cut % 2 else VALID[:at] + junk + VALID[at:]
    path = tmp_path_factory.mktemp("dep") / "cut.toml"
    path.write_text(text)
    try:
        read_deployment(path)
    except InstanceFormatError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=DOCS, pairs=st.lists(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4), max_size=3))
def test_any_campaign_config_loads_or_is_one_config_error(doc, pairs, tmp_path_factory):
    from harness.runner.config import load_config

    folder = tmp_path_factory.mktemp("cfg")
    doc = {"name": "fuzz", "instances": [str(ROOT / "instances" / "smoke")], **doc}
    if pairs:
        doc["pairs"] = pairs
    path = folder / "c.toml"
    path.write_text(_text(doc))
    try:
        load_config(path)
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(path))


PLAY_OPTIONS = st.lists(st.one_of(
    st.tuples(st.just("--strategy"), st.sampled_from(["random", "density", "thompson", "posterior", "nope",
                                                      "harness:Nope", "parity"])),
    st.tuples(st.just("--games"), st.sampled_from(["1", "2", "0", "-1", "x", "1e3"])),
    st.tuples(st.just("--seed"), st.sampled_from(["0", "7", "-1", "x"])),
    st.tuples(st.just("--rule"), st.sampled_from(["ship", "sunk", "none", "loud"])),
    st.tuples(st.just("-o"), st.sampled_from(["block=100", "block=0", "block=x", "weight=-1", "thompson.block=50",
                                              "nothing", "=3", "blok=5"])),
    st.tuples(st.just("--time-limit"), st.sampled_from(["5", "0", "-2", "inf"])),
    st.tuples(st.just("--memory-mb"), st.sampled_from(["1024", "10", "x"])),
    st.tuples(st.just("--every"), st.sampled_from(["1", "0"])),
    st.tuples(st.just("--delay"), st.sampled_from(["0", "-1"])),
), max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(options=PLAY_OPTIONS)
def test_any_play_options_end_in_games_or_one_line(options, capsys):
    argv = ["play", "--board", str(ROOT / "instances" / "deployments" / "tiny" / "t4x4_3_2.toml"), "--json"]
    if not any(flag == "--games" for flag, _ in options):
        argv += ["--games", "1"]
    argv += [part for pair in options for part in pair]
    try:
        code, out, err = run(capsys, *argv)
    except SystemExit as exc:  # argparse's own refusals (a value of the wrong type): exit 2, one line
        out, err = capsys.readouterr()
        assert exc.code == 2 and err.count("\n") == 1, err
        return
    assert code in (0, 1, 2) and "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and out == "", err


def test_the_corpus_has_the_attack_s_cases(tmp_path):
    """The cases the attack named, kept as a corpus beside the drawn ones."""
    from harness.counting.format import read_deployment

    corpus = {
        "disconnected shape": '[grid]\nrows = 3\ncols = 3\n[pieces]\nX = { cells = [[0, 0], [0, 2]] }\n',
        "repeated cell": '[grid]\nrows = 3\ncols = 3\n[pieces]\nX = { cells = [[0, 0], [0, 0]] }\n',
        "island off the board": '[grid]\nrows = 3\ncols = 3\nislands = [[5, 5]]\n[pieces]\nA = 2\n',
        "unknown grid": '[grid]\nkind = "triangle"\nrows = 3\ncols = 3\n[pieces]\nA = 2\n',
        "not UTF-8": None,
    }
    for name, text in corpus.items():
        path = Path(tmp_path) / f"{name.replace(' ', '_')}.toml"
        if text is None:
            path.write_bytes(b'[grid]\nrows = 3\ncols = \xff3\n')
        else:
            path.write_text(f'[meta]\nname = "c"\n{text}')
        try:
            read_deployment(path)
            raise AssertionError(f"{name}: read as a deployment")
        except InstanceFormatError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc), name
