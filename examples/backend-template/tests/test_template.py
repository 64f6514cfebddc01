"""The template backend passes battlebench's conformance suite (run after `pip install -e .`)."""

from harness.backends.registry import get_backend, origins
from harness.conform import conform
from harness.tasks.isolated import IsolatedSolver


def test_the_entry_point_names_the_template():
    assert origins()["template"].source.startswith("entry point (battlebench-template")
    assert get_backend("template").name == "template"


def test_the_template_conforms():
    with IsolatedSolver(grace_s=3.0) as solver:
        results = conform(solver, "template", ["placement"])
    failed = [f"{r.check}: {r.detail}" for r in results if not r.passed]
    assert not failed, failed
