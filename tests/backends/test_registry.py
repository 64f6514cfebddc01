"""Finding backends: built-ins, entry points, module:Class references, and every way that fails."""

from __future__ import annotations

import sys
import textwrap

import pytest

from clirun import run
from harness.backends import registry
from harness.backends.registry import check_pair, get_backend, origin_of, origins
from harness.errors import UsageError

GOOD = '''
from harness.backends import Answer, Backend, ModelSize


class Good(Backend):
    name = "good"
    formulations = ("placement",)

    @classmethod
    def versions(cls):
        return {"good": "1"}

    def build(self):
        return ModelSize(0, 0)

    def enumerate(self, limit, time_limit_s):
        return Answer(exhausted=True)


class NoEnumerate(Backend):
    name = "half"
    formulations = ("placement",)

    @classmethod
    def versions(cls):
        return {}

    def build(self):
        return ModelSize(0, 0)


class Missing(Good):
    requires = ("battlebench_no_such_solver",)
    install = "pip install no-such-solver"


class NotABackend:
    pass
'''


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A directory on sys.path holding the module ``bb_plugin`` and an installed distribution with entry points."""
    (tmp_path / "bb_plugin.py").write_text(GOOD)
    (tmp_path / "bb_broken.py").write_text("raise RuntimeError('the solver library is broken')\n")
    dist = tmp_path / "bb_plugin-2.5.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: bb-plugin\nVersion: 2.5\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [battlebench.backends]
        good = bb_plugin:Good
        broken = bb_broken:Anything
        sat = bb_plugin:Good
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the workers see it too
    registry.plugin_origins.cache_clear()
    yield tmp_path
    registry.plugin_origins.cache_clear()
    for name in ("bb_plugin", "bb_broken"):
        sys.modules.pop(name, None)


def test_built_ins_are_listed_with_their_source():
    assert {"cpsat", "mip", "sat"} <= set(origins())
    assert origin_of("sat").source == "built-in"


def test_an_entry_point_is_found_and_named_by_its_distribution(plugins):
    assert origin_of("good").source == "entry point (bb-plugin 2.5)"
    assert get_backend("good").name == "good"
    assert get_backend("sat").__name__ == "SatBackend"  # an entry point cannot shadow a built-in


def test_a_reference_loads_any_class(plugins):
    assert get_backend("bb_plugin:Good").__name__ == "Good"
    assert origin_of("bb_plugin:Good").source == "module:Class"


@pytest.mark.parametrize("name,message", [
    ("nothing", "unknown backend 'nothing' (choose from cpsat"),
    ("broken", "cannot import module 'bb_broken': RuntimeError: the solver library is broken"),
    ("bb_nowhere:X", "cannot import module 'bb_nowhere': ModuleNotFoundError"),
    ("bb_plugin:Nope", "module 'bb_plugin' has no attribute 'Nope'"),
    ("bb_plugin:NotABackend", "not a subclass of harness.backends.Backend"),
    ("bb_plugin:NoEnumerate", "does not implement enumerate()"),
    ("bb_plugin", "unknown backend 'bb_plugin'"),
    ("bb_plugin:", "is not of the form module:Class"),
])
def test_every_way_a_name_fails_is_a_usage_error_naming_it(plugins, name, message):
    with pytest.raises(UsageError, match=None) as err:
        get_backend(name)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_an_unavailable_backend_is_refused_before_running_with_its_install_line(plugins):
    with pytest.raises(UsageError) as err:
        check_pair("bb_plugin:Missing", "placement")
    assert "not available here" in str(err.value) and "pip install no-such-solver" in str(err.value)


def test_cli_lists_entry_points_and_broken_ones(plugins, capsys):
    code, out, _ = run(capsys, "backends", "--no-versions")
    assert code == 0
    assert "good  [entry point (bb-plugin 2.5)]  available" in out
    assert "broken  [entry point (bb-plugin 2.5)]  UNAVAILABLE" in out and "RuntimeError" in out


def test_cli_refuses_a_broken_plugin_with_one_line_before_any_run(plugins, capsys, tmp_path):
    code, out, err = run(capsys, "solve", "instances/smoke/tiny_4x4.toml", "--backend", "broken")
    assert code == 2 and err.count("\n") == 1 and "bb_broken" in err
    config = tmp_path / "c.toml"
    config.write_text('name = "x"\ninstances = ["%s"]\n[[pairs]]\nbackend = "bb_plugin:NotABackend"\n'
                      % registry.__file__.replace("harness/backends/registry.py", "instances/smoke"))
    code, out, err = run(capsys, "run", config, "--output", tmp_path / "out")
    assert code == 2 and "pairs[0]" in err and "not a subclass" in err
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_a_plugin_runs_in_a_campaign_and_a_crash_is_an_error_record(plugins, capsys, tmp_path):
    (plugins / "bb_crash.py").write_text(GOOD.replace("return Answer(exhausted=True)",
                                                      "raise RuntimeError('plugin crashed')"))
    smoke = registry.__file__.replace("harness/backends/registry.py", "instances/smoke")
    config = tmp_path / "c.toml"
    config.write_text(f'name = "x"\ninstances = ["{smoke}"]\n[limits]\ntime_s = 20\n'
                      '[[pairs]]\nbackend = "bb_crash:Good"\n[[pairs]]\nbackend = "good"\n')
    code, out, err = run(capsys, "run", config, "--output", tmp_path / "out", "--progress", "plain")
    assert code == 3, err  # error runs stored, the campaign went on
    import sqlite3

    rows = sqlite3.connect(tmp_path / "out" / "results.sqlite").execute(
        "select backend, status, count(*) from runs group by backend, status").fetchall()
    by = {(b, s): n for b, s, n in rows}
    assert by[("bb_crash:Good", "error")] == 3  # the fourth smoke instance is unsat by the precheck
    assert by[("bb_crash:Good", "unsat")] == 1
    assert sum(n for (b, _), n in by.items() if b == "good") == 4
