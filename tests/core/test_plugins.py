"""One plugin family shape: counters, strategies and tasks are found, checked and refused as backends are.

Each family: built-ins by name, entry points of its group (a built-in's name cannot be
taken), ``module:Class``; every way a name fails is one UsageError line naming it.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from harness.backends.registry import FAMILY as BACKENDS
from harness.core.task import TASKS
from harness.counting.counters import FAMILY as COUNTERS
from harness.errors import UsageError
from harness.play.strategies import FAMILY as STRATEGIES

PLUGINS = '''
from harness.counting.counters import CountAnswer, Counter
from harness.play.strategies import Option, Strategy


class GoodCounter(Counter):
    name = "good-counter"
    by = ("deployments",)

    def count(self, dep, by="deployments", deadline=None):
        return CountAnswer(0, True)


class CounterWithoutCount(Counter):
    name = "lazy"


class CounterCountingNonsense(GoodCounter):
    by = ("cells",)


class GoodStrategy(Strategy):
    name = "good-strategy"
    options = {"depth": Option(1, int, minimum=1)}

    def shot(self, position):
        return position.unknown()[0]


class StrategyWithoutShot(Strategy):
    name = "idle"


class StrategyOfNoRule(GoodStrategy):
    rules = ("whisper",)


class StrategyWithBareOptions(GoodStrategy):
    options = {"depth": 1}


class NotAPlugin:
    pass
'''

FAMILIES = {"counter": (COUNTERS, "GoodCounter", "dp"), "strategy": (STRATEGIES, "GoodStrategy", "random")}


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    (tmp_path / "bb_family.py").write_text(PLUGINS)
    (tmp_path / "bb_broken_plugin.py").write_text("raise RuntimeError('the library is broken')\n")
    dist = tmp_path / "bb_family-3.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: bb-family\nVersion: 3.1\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [battlebench.counters]
        good = bb_family:GoodCounter
        broken = bb_broken_plugin:Anything
        dp = bb_family:GoodCounter
        [battlebench.strategies]
        good = bb_family:GoodStrategy
        broken = bb_broken_plugin:Anything
        random = bb_family:GoodStrategy
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    for family in (COUNTERS, STRATEGIES, TASKS, BACKENDS):
        family.plugin_origins.cache_clear()
    yield tmp_path
    for family in (COUNTERS, STRATEGIES, TASKS, BACKENDS):
        family.plugin_origins.cache_clear()
    for name in ("bb_family", "bb_broken_plugin"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("word", FAMILIES)
def test_an_entry_point_is_found_named_by_its_distribution_and_cannot_shadow_a_built_in(plugins, word):
    family, good, builtin = FAMILIES[word]
    assert family.origin_of("good").source == "entry point (bb-family 3.1)"
    assert family.load("good").__name__ == good
    assert family.origin_of(builtin).source == "built-in"
    assert family.load(builtin).__module__.startswith("harness.")  # the built-in wins


@pytest.mark.parametrize("word", FAMILIES)
def test_a_reference_loads_any_class(plugins, word):
    family, good, _ = FAMILIES[word]
    assert family.load(f"bb_family:{good}").__name__ == good
    assert family.origin_of(f"bb_family:{good}").source == "module:Class"


@pytest.mark.parametrize("word, name, message", [
    ("counter", "nothing", "unknown counter 'nothing' (choose from dp, frontier"),
    ("counter", "broken", "cannot import module 'bb_broken_plugin': RuntimeError: the library is broken"),
    ("counter", "bb_nowhere:X", "cannot import module 'bb_nowhere': ModuleNotFoundError"),
    ("counter", "bb_family:Nope", "module 'bb_family' has no attribute 'Nope'"),
    ("counter", "bb_family:NotAPlugin", "not a subclass of harness.counting.counters.Counter"),
    ("counter", "bb_family:GoodStrategy", "not a subclass of harness.counting.counters.Counter"),
    ("counter", "bb_family:CounterWithoutCount", "does not implement count()"),
    ("counter", "bb_family:CounterCountingNonsense", "by must be a non-empty tuple of deployments, boards"),
    ("strategy", "nothing", "unknown strategy 'nothing' (choose from random, hunt-target"),
    ("strategy", "broken", "cannot import module 'bb_broken_plugin'"),
    ("strategy", "bb_family:NotAPlugin", "not a subclass of harness.play.strategies.Strategy"),
    ("strategy", "bb_family:StrategyWithoutShot", "does not implement shot()"),
    ("strategy", "bb_family:StrategyOfNoRule", "rules must be a non-empty tuple of ship, sunk, none"),
    ("strategy", "bb_family:StrategyWithBareOptions", "options must map names to harness.core.options.Option"),
    ("strategy", "bb_family:", "is not of the form module:Class"),
])
def test_every_way_a_name_fails_is_one_usage_error_naming_it(plugins, word, name, message):
    family = FAMILIES[word][0]
    with pytest.raises(UsageError) as err:
        family.load(name)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_the_cli_refuses_a_broken_counter_or_strategy_with_one_line_before_any_work(plugins, capsys):
    from clirun import ROOT, run

    board = ROOT / "instances" / "deployments" / "tiny" / "t5x5_3_2x2.toml"
    code, out, err = run(capsys, "count", board, "--counter", "bb_family:CounterWithoutCount")
    assert code == 2 and err.count("\n") == 1 and "does not implement count()" in err and out == ""
    code, out, err = run(capsys, "play", "--strategy", "broken", "--board", board)
    assert code == 2 and err.count("\n") == 1 and "bb_broken_plugin" in err and out == ""


def test_the_listing_shows_every_family_with_its_sources(plugins, capsys):
    from clirun import run

    code, out, _ = run(capsys, "backends", "--no-versions")
    assert code == 0
    counters = out.split("counters (", 1)[1].split("strategies (", 1)[0]
    strategies = out.split("strategies (", 1)[1].split("tasks (", 1)[0]
    tasks = out.split("tasks (", 1)[1]
    assert "  good  [entry point (bb-family 3.1)]  available" in counters and "  dp  [built-in]" in counters
    assert "  good  [entry point (bb-family 3.1)]  available" in strategies
    assert "broken  [entry point (bb-family 3.1)]  UNAVAILABLE" in strategies and "RuntimeError" in strategies
    assert all(f"  {t}  [built-in]  available" in tasks for t in ("solve", "count", "play"))


def test_the_json_listing_has_versions_for_every_family(capsys):
    import json

    from clirun import run

    code, out, _ = run(capsys, "backends", "--json")
    assert code == 0
    rows = json.loads(out)
    families = {r["family"] for r in rows}
    assert families == {"backend", "counter", "strategy", "task"}
    dp = next(r for r in rows if r["family"] == "counter" and r["name"] == "dp")
    assert dp["versions"]["battlebench"] and dp["versions"]["numba"] and dp["by"] == ["deployments", "boards"]
    random = next(r for r in rows if r["family"] == "strategy" and r["name"] == "random")
    assert random["source"] == "built-in" and "battlebench" in random["versions"]


def test_entry_points_are_read_once_for_every_family(monkeypatch):
    """One scan of the installed distributions serves every family (it was one per family: 30 ms each); a family's
    cache_clear reads them again."""
    import importlib.metadata

    calls = []
    real = importlib.metadata.entry_points

    def counted(**params):
        calls.append(params)
        return real(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", counted)
    families = (BACKENDS, COUNTERS, STRATEGIES, TASKS)
    try:
        for family in families:
            family.plugin_origins.cache_clear()
        for family in families:
            assert family.names()[:len(family.builtins)] == list(family.builtins)
        assert len(calls) == 1, calls
        BACKENDS.plugin_origins.cache_clear()
        assert BACKENDS.names() and len(calls) == 2
    finally:
        for family in families:
            family.plugin_origins.cache_clear()


def test_a_built_in_is_found_without_reading_entry_points():
    """A built-in's name cannot be taken by an entry point: resolving, loading and naming one's source read none
    (a fresh process, so that nothing else has imported importlib.metadata)."""
    import procs

    code = ("import sys; from harness.backends.registry import FAMILY, get_backend; from harness.core.task import TASKS; "
            "cls = get_backend('cpsat'); assert FAMILY.source_of(cls) == 'built-in'; TASKS.load('solve'); "
            "assert FAMILY.origin_of('sat').source == 'built-in'; print('importlib.metadata' in sys.modules)")
    out = procs.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr[-2000:]
