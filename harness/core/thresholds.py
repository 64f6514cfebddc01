"""Slowdown thresholds of ``check --baseline``: a ratio and a noise floor, for every pair and per pair.

They come from two places: the command line (``--ratio R``, ``--ratio PAIR=R``,
``--floor S``, ``--floor PAIR=S``) and the campaign config's ``[check]`` table::

    [check]
    ratio = 2.0                 # every pair
    floor_s = 0.1
    [check.ratio_by_pair]
    "sat/cell" = 3.0            # a pair label
    "mip/*" = 4.0               # or a pattern over labels
    [check.floor_by_pair]
    "mip/*" = 0.5

One pair's threshold is the first of these that gives one:

1. the command line's per-pair values;
2. the config's per-pair values;
3. the value for every pair: the command line's, else the config's, else
   :data:`DEFAULT_RATIO` / :data:`DEFAULT_FLOOR_S`.

Within one place, a pair's exact label beats a pattern, and of several patterns that
match the one given last wins.  In a pattern ``*`` is any text and ``?`` one character;
``[`` is taken literally (labels hold it: ``sat[solver=cadical195]/cell``).  A PAIR that
matches no pair is refused (:func:`unmatched`).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Iterable

from harness.core.tables import get as _get
from harness.core.tables import toml_type as _toml_type
from harness.core.tables import unknown as _unknown
from harness.errors import ConfigError

DEFAULT_RATIO = 2.0
DEFAULT_FLOOR_S = 0.1
CHECK_KEYS = ("ratio", "floor_s", "ratio_by_pair", "floor_by_pair")
RATIO_RULE = "must be a number > 1"
FLOOR_RULE = "must be a number of seconds >= 0"


def ratio_ok(value: float) -> bool:
    return 1 < value < float("inf")


def floor_ok(value: float) -> bool:
    return 0 <= value < float("inf")


@dataclass(frozen=True)
class Rule:
    """One threshold: ``value`` for the pairs ``pattern`` matches (``*`` for every pair), given at ``source``."""

    pattern: str
    value: float
    source: str

    def matches(self, pair: str) -> bool:
        return self.pattern == pair or fnmatchcase(pair, self.pattern.replace("[", "[[]"))

    def text(self, unit: str = "") -> str:
        """``3 (--ratio sat/cell=3)``: the value and where it came from."""
        return f"{self.value:g}{unit} ({self.source})"


@dataclass(frozen=True)
class Given:
    """The thresholds one place gives: for every pair (None: not given there) and per pair, in order."""

    ratio: Rule | None = None
    floor: Rule | None = None
    ratios: tuple[Rule, ...] = ()
    floors: tuple[Rule, ...] = ()

    def per_pair(self) -> tuple[Rule, ...]:
        return self.ratios + self.floors


def _pick(layers: Iterable[tuple[Rule, ...]], pair: str) -> Rule:
    for layer in layers:
        hits = [r for r in layer if r.matches(pair)]
        if hits:
            return ([r for r in hits if r.pattern == pair] or hits)[-1]
    raise AssertionError("the last layer matches every pair")


@dataclass(frozen=True)
class Thresholds:
    """The thresholds in force: per-pair layers first, the value for every pair last (see the module docstring)."""

    ratios: tuple[tuple[Rule, ...], ...]
    floors: tuple[tuple[Rule, ...], ...]

    @classmethod
    def of(cls, *places: Given) -> Thresholds:
        """The thresholds of ``places``, the first overriding the later (the command line, then the config)."""
        ratio = next((g.ratio for g in places if g.ratio), Rule("*", DEFAULT_RATIO, "default"))
        floor = next((g.floor for g in places if g.floor), Rule("*", DEFAULT_FLOOR_S, "default"))
        return cls(tuple(g.ratios for g in places) + ((ratio,),), tuple(g.floors for g in places) + ((floor,),))

    @classmethod
    def uniform(cls, ratio: float = DEFAULT_RATIO, floor_s: float = DEFAULT_FLOOR_S) -> Thresholds:
        return cls(((Rule("*", ratio, "every pair"),),), ((Rule("*", floor_s, "every pair"),),))

    def ratio_rule(self, pair: str) -> Rule:
        return _pick(self.ratios, pair)

    def floor_rule(self, pair: str) -> Rule:
        return _pick(self.floors, pair)

    def ratio(self, pair: str) -> float:
        return self.ratio_rule(pair).value

    def floor(self, pair: str) -> float:
        return self.floor_rule(pair).value

    @property
    def per_pair_floors(self) -> bool:
        return any(self.floors[:-1])

    @property
    def overall(self) -> tuple[Rule, Rule]:
        """The ratio and floor for every pair no per-pair value names."""
        return self.ratios[-1][0], self.floors[-1][0]

    def applied(self, pair: str) -> str:
        """The threshold a slowdown of ``pair`` was judged by: its ratio, and its floor when that is its own."""
        ratio, floor = self.ratio_rule(pair), self.floor_rule(pair)
        text = f"ratio {ratio.text()}"
        return text if floor is self.overall[1] else f"{text}, floor {floor.text(' s')}"

    def sentence(self) -> str:
        """``ratio 2, floor 0.1 s`` and the per-pair values, for the check's output."""
        ratio, floor = self.overall
        per = [f"ratio {r.pattern}={r.value:g} ({_origin(r)})" for layer in self.ratios[:-1] for r in layer]
        per += [f"floor {r.pattern}={r.value:g} s ({_origin(r)})" for layer in self.floors[:-1] for r in layer]
        return f"ratio {ratio.value:g}, floor {floor.value:g} s" + (f"; per pair: {', '.join(per)}" if per else "")


def _origin(rule: Rule) -> str:
    return "command line" if rule.source.startswith("--") else "config"


def unmatched(rules: Iterable[Rule], pairs: Iterable[str]) -> Rule | None:
    """The first per-pair rule that matches none of ``pairs`` (a typo, a pair of no campaign), or None."""
    pairs = list(pairs)
    return next((r for r in rules if not any(r.matches(p) for p in pairs)), None)


# --------------------------------------------------------------------------- the command line
def _option(text: str, ok: Any, rule: str) -> tuple[str | None, float]:
    pattern, sep, number = text.rpartition("=")
    if sep and not pattern.strip():
        raise argparse.ArgumentTypeError(f"expected R or PAIR=R, got {text!r}")
    try:
        value = float(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or PAIR=NUMBER, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{text!r}: {rule.replace('must be', 'the value must be')}")
    return (pattern.strip() if sep else None), value


def ratio_option(text: str) -> tuple[str | None, float]:
    """An argparse type: ``--ratio R`` (None, R) or ``--ratio PAIR=R`` (PAIR, R), R > 1."""
    return _option(text, ratio_ok, RATIO_RULE)


def floor_option(text: str) -> tuple[str | None, float]:
    """An argparse type: ``--floor S`` or ``--floor PAIR=S``, S >= 0."""
    return _option(text, floor_ok, FLOOR_RULE)


def from_options(ratios: Iterable[tuple[str | None, float]], floors: Iterable[tuple[str | None, float]]) -> Given:
    """The command line's thresholds (``ratio_option`` / ``floor_option`` values, in the order given)."""
    def split(values: Iterable[tuple[str | None, float]], option: str) -> tuple[Rule | None, tuple[Rule, ...]]:
        every: Rule | None = None
        per: list[Rule] = []
        for pattern, value in values:
            if pattern is None:
                every = Rule("*", value, f"{option} {value:g}")  # given twice: the last
            else:
                per.append(Rule(pattern, value, f"{option} {pattern}={value:g}"))
        return every, tuple(per)

    ratio, per_ratio = split(ratios, "--ratio")
    floor, per_floor = split(floors, "--floor")
    return Given(ratio, floor, per_ratio, per_floor)


# --------------------------------------------------------------------------- a config's [check] table
def _value(table: dict[str, Any], key: str, path: Path, where: str, ok: Any, rule: str) -> float | None:
    value = _get(table, key, float, path, where=where)
    if value is not None and not ok(value):
        raise ConfigError(path, where, rule)
    return value


def _by_pair(raw: Any, path: Path, key: str, ok: Any, rule: str, labels: list[str] | None) -> tuple[Rule, ...]:
    where = f"check.{key}"
    if not isinstance(raw, dict):
        raise ConfigError(path, where, f"must be a table of pair (or pattern) = number, not {_toml_type(raw)}")
    rules = []
    for pattern in raw:
        spot = f'{where}."{pattern}"'
        if not pattern.strip():
            raise ConfigError(path, spot, "names no pair")
        value = _value(raw, pattern, path, spot, ok, rule)
        rule_ = Rule(pattern, float(value), f"config {where}")  # type: ignore[arg-type]
        if labels is not None and unmatched([rule_], labels):
            raise ConfigError(path, spot, f"matches none of the config's pairs ({', '.join(labels)})")
        rules.append(rule_)
    return tuple(rules)


def parse_check(raw: Any, path: Path, labels: list[str] | None = None) -> Given:
    """A config's ``[check]`` table; every problem a ConfigError naming the key.  ``labels``: the config's pair
    labels, which every per-pair key must match (None: not checked)."""
    if not isinstance(raw, dict):
        raise ConfigError(path, "check", f"must be a table, not {_toml_type(raw)}")
    _unknown(raw, CHECK_KEYS, path, "check.")
    ratio = _value(raw, "ratio", path, "check.ratio", ratio_ok, RATIO_RULE)
    floor = _value(raw, "floor_s", path, "check.floor_s", floor_ok, FLOOR_RULE)
    return Given(
        None if ratio is None else Rule("*", ratio, "config check.ratio"),
        None if floor is None else Rule("*", floor, "config check.floor_s"),
        _by_pair(raw.get("ratio_by_pair", {}), path, "ratio_by_pair", ratio_ok, RATIO_RULE, labels),
        _by_pair(raw.get("floor_by_pair", {}), path, "floor_by_pair", floor_ok, FLOOR_RULE, labels),
    )


__all__ = ["CHECK_KEYS", "DEFAULT_FLOOR_S", "DEFAULT_RATIO", "Given", "Rule", "Thresholds", "floor_option",
           "from_options", "parse_check", "ratio_option", "unmatched"]
