"""The template counter passes battlebench's conformance suite (run after `pip install -e .`)."""

from harness.conform.counters import conform_counter
from harness.counting.counters import FAMILY, get_counter
from harness.runner.process import WorkerPool


def test_the_entry_point_names_the_template():
    assert FAMILY.origins()["template"].source.startswith("entry point (battlebench-counter-template")
    assert get_counter("template").name == "template"


def test_the_template_conforms():
    with WorkerPool(grace_s=3.0) as pool:
        results = conform_counter(pool, "template")
    failed = [f"{r.check}: {r.detail}" for r in results if not r.passed]
    assert not failed, failed
