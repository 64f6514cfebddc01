"""The template strategy passes battlebench's conformance suite (run after `pip install -e .`)."""

from harness.conform.strategies import conform_strategy
from harness.play.strategies import FAMILY, get_strategy
from harness.runner.process import WorkerPool


def test_the_entry_point_names_the_template():
    assert FAMILY.origins()["template"].source.startswith("entry point (battlebench-strategy-template")
    assert get_strategy("template").name == "template"


def test_the_template_conforms():
    with WorkerPool(grace_s=3.0) as pool:
        results = conform_strategy(pool, "template")
    failed = [f"{r.check}: {r.detail}" for r in results if not r.passed]
    assert not failed, failed
