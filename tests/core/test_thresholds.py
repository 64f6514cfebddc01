"""Per-pair thresholds: which rule a pair gets, and patterns over labels that hold brackets."""

from __future__ import annotations

from harness.core.thresholds import Given, Rule, Thresholds, from_options, unmatched

LABEL = "sat[solver=cadical195]/cell"


def test_brackets_in_a_pattern_are_literal_as_labels_hold_them():
    rule = Rule("sat[solver=cadical195]/*", 3.0, "test")
    assert rule.matches(LABEL) and rule.matches("sat[solver=cadical195]/placement")
    assert not rule.matches("sats/cell") and not rule.matches("sat/cell")  # not a character class
    assert Rule(LABEL, 3.0, "test").matches(LABEL) and Rule("sat?solver*", 3.0, "test").matches(LABEL)


def test_layers_the_command_line_then_the_config_then_every_pair():
    config = Given(Rule("*", 3.0, "config check.ratio"), None, (Rule("sat/*", 4.0, "config"),), ())
    cli = from_options([(None, 2.5), ("mip/cell", 5.0)], [("mip/*", 0.5)])
    limits = Thresholds.of(cli, config)
    assert [limits.ratio(p) for p in ("mip/cell", "sat/cell", "cpsat/cell")] == [5.0, 4.0, 2.5]
    assert [limits.floor(p) for p in ("mip/cell", "sat/cell")] == [0.5, 0.1]
    assert limits.applied("mip/cell") == "ratio 5 (--ratio mip/cell=5), floor 0.5 s (--floor mip/*=0.5)"
    assert limits.applied("sat/cell") == "ratio 4 (config)"
    assert Thresholds.of(Given(), config).ratio("cpsat/cell") == 3.0  # no global option: the config's
    assert Thresholds.of(Given(), Given()).overall[0].text() == "2 (default)"


def test_a_rule_that_matches_no_pair_is_named():
    rules = from_options([("sat/*", 3.0), ("mpi/cell", 3.0)], []).per_pair()
    assert unmatched(rules, ["sat/cell", "mip/cell"]).pattern == "mpi/cell"
    assert unmatched(rules[:1], ["sat/cell"]) is None
