"""Run ids and config hashes are pinned by the committed stores: renaming a field or a config key changes neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.task import Limits, PairSpec, TaskSpec, run_id
from harness.runner.config import load_config
from harness.store import ResultsStore

REPORTS = Path(__file__).resolve().parents[2] / "reports"


@pytest.mark.parametrize("name", ["smoke-baseline", "counting", "play", "optimal"])
def test_a_committed_stores_ids_are_recomputed_from_its_config(name):
    config = load_config(REPORTS / name / "config.toml", require_instances=False)
    with ResultsStore(REPORTS / name, create=False) as store:
        records = store.records()
    assert {r["config_hash"] for r in records} == {config.hash}
    pairs = {p.label: p for p in config.pairs}
    for rec in records[:40]:
        pair = pairs[rec["pair"]]
        assert (pair.plugin, pair.variant) == (rec["backend"], rec["formulation"])
        assert run_id(rec["instance_path"], rec["instance_hash"], pair, config.task, seed(config, rec),
                      rec["repetition"], config.limits) == rec["run_id"]


def seed(config, rec):
    """The seed the run was planned with: none when the config lists none (a solve record stores the seed its
    backend used)."""
    return rec["seed"] if config.seeds is not None or config.task.name == "play" else None


def test_a_run_id_is_pinned():
    pair = PairSpec("sat", "placement", (("solver", "cadical195"),))
    assert run_id("instances/smoke/a.toml", "0123456789abcdef", pair, TaskSpec("solve", "count-2", (("k", 2),)),
                  0, 1, Limits()) == "3c76359005b311a83482"


def test_the_old_field_names_read_the_new_ones():
    pair = PairSpec("dp", "deployments")
    assert (pair.backend, pair.formulation) == (pair.plugin, pair.variant) == ("dp", "deployments")
