"""Failures grouped by message, for run's closing summary and the report."""

from harness.core.failures import NO_MESSAGE, first_line, group_failures, render_failures


def rec(status, error="", detail="", instance="i1", pair="p/q", termination="crash"):
    return {"status": status, "error": error, "detail": detail, "instance": instance, "pair": pair,
            "termination": termination}


def test_first_line_prefers_the_error_then_the_detail():
    assert first_line(rec("error", "\n  boom: it broke\nat line 3")) == "boom: it broke"
    assert first_line(rec("timeout", "", "killed at the wall-clock limit (5 s)\nmore")).startswith("killed")
    assert first_line(rec("error")) == NO_MESSAGE


def test_groups_by_status_and_message_worst_first_most_first():
    runs = [rec("timeout", detail="killed", termination="timeout"),
            rec("error", "x.toml: cannot read", instance="x"), rec("error", "x.toml: cannot read", pair="a/b"),
            rec("error", "worker died (SIGSEGV)", instance="y"), rec("sat"), rec("memout", "MemoryError")]
    groups = group_failures(runs)
    assert [(g.status, g.count, g.message) for g in groups] == [
        ("error", 2, "x.toml: cannot read"), ("error", 1, "worker died (SIGSEGV)"),
        ("memout", 1, "MemoryError"), ("timeout", 1, "killed")]
    assert groups[0].example == "x × p/q" and groups[0].pairs == {"p/q", "a/b"}
    assert [g.status for g in group_failures(runs, ("error",))] == ["error", "error"]
    text = render_failures(groups)
    assert text.splitlines()[0].split() == ["error", "2", "runs", "x.toml:", "cannot", "read", "(e.g.", "x", "×",
                                            "p/q)"]
