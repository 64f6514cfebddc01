"""harness.core.limits: one Limits value, its defaults and its range check, the same from the CLI and a config."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness.core.limits import DEFAULT_GRACE_S, NO_LIMITS, WARM_MIN_S, WARM_S, Limits
from harness.core.task import Request, limits_of
from harness.errors import ConfigError, LimitError, UsageError


def test_checked_fills_the_defaults_and_keeps_the_values_as_given():
    assert Limits.checked() == Limits() == Limits(60.0, 4096, DEFAULT_GRACE_S)
    assert Limits.checked(time_s=None, memory_mb=None, grace_s=None) == Limits(None, None, DEFAULT_GRACE_S)
    assert Limits.checked(time_s=1.5, memory_mb=64, grace_s=0.0) == Limits(1.5, 64, 0.0)


@pytest.mark.parametrize("given, field, problem", [
    ({"time_s": 0}, "time_s", "must be a number of seconds > 0, not 0"),
    ({"time_s": -2.5}, "time_s", "must be a number of seconds > 0, not -2.5"),
    ({"time_s": 1e8}, "time_s", "must be a number of seconds > 0, not 1e+08"),
    ({"memory_mb": 63}, "memory_mb", "must be at least 64 (a Python worker needs that much), not 63"),
    ({"grace_s": -0.5}, "grace_s", "must be a number of seconds >= 0, not -0.5"),
    ({"output_mb": 0}, "output_mb", "must be a number of MiB >= 1, not 0"),
])
def test_a_limit_out_of_range_names_its_field_and_problem(given, field, problem):
    with pytest.raises(LimitError) as err:
        Limits.checked(**given)
    assert (err.value.field, err.value.problem) == (field, problem)


def test_the_output_cap_has_a_default_none_switches_it_off_and_run_ids_do_not_hash_it():
    from harness.core.limits import DEFAULT_OUTPUT_MB
    from harness.core.runspec import run_id

    assert Limits.checked().output_mb == DEFAULT_OUTPUT_MB == 64 and Limits.checked(output_mb=None).output_mb is None
    assert Limits.checked(output_mb=2).output_mb == 2
    ids = {run_id("a.toml", "d", _Pair(), _Task(), 0, 1, Limits.checked(output_mb=m)) for m in (None, 2, 64)}
    assert len(ids) == 1  # the runs of stores written before the cap keep their ids


@dataclass(frozen=True)
class _Pair:
    label: str = "sat/cell"


@dataclass(frozen=True)
class _Task:
    label: str = "solve"


def test_the_warm_up_may_take_as_long_as_a_run_within_its_bounds():
    assert Limits(None).warm_s == WARM_S and Limits(1.0).warm_s == WARM_MIN_S
    assert Limits(100.0).warm_s == 100.0 and Limits(1e6).warm_s == WARM_S


@pytest.mark.parametrize("flag, key, value, problem", [
    ("--time-limit", "time_s", "0", "must be a number of seconds > 0, not 0"),
    ("--memory-mb", "memory_mb", "10", "must be at least 64 (a Python worker needs that much), not 10"),
    ("--grace", "grace_s", "-1", "must be a number of seconds >= 0, not -1"),
])
def test_the_command_line_and_a_config_say_the_same_about_a_bad_limit(tmp_path, flag, key, value, problem):
    import argparse

    from harness.cli.common import limits_of as cli_limits
    from harness.runner.config import load_config

    args = argparse.Namespace(time_limit=None, memory_mb=None, grace=None)
    setattr(args, {"--time-limit": "time_limit", "--memory-mb": "memory_mb", "--grace": "grace"}[flag],
            float(value) if flag != "--memory-mb" else int(value))
    with pytest.raises(UsageError) as cli:
        cli_limits(args)
    assert str(cli.value) == f"{flag} {problem}"
    config = tmp_path / "c.toml"
    config.write_text(f'name = "c"\ninstances = ["*.toml"]\n[[pairs]]\nbackend = "fake"\n[limits]\n{key} = {value}\n')
    with pytest.raises(ConfigError) as cfg:
        load_config(config, require_instances=False)
    assert str(cfg.value) == f"{config}: limits.{key}: {problem}"


def test_a_request_carries_its_limits_and_an_older_plugins_request_its_attributes():
    @dataclass(frozen=True)
    class New(Request):
        limits: Limits = Limits(3.0, 128, 1.0)

    @dataclass(frozen=True)
    class Old(Request):  # a plugin task written before requests carried Limits
        time_limit_s: float | None = 2.0
        memory_mb: int | None = 100

    assert limits_of(New()) == Limits(3.0, 128, 1.0)
    assert limits_of(Old()) == Limits(2.0, 100, DEFAULT_GRACE_S)
    assert limits_of(Request()) is NO_LIMITS
