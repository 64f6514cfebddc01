"""harness.core.task: a label's task is looked up once (not by scanning every task's owns() per row)."""

from __future__ import annotations

from harness.core import task as task_mod


def test_a_labels_task_is_looked_up_once_until_the_registry_is_scanned_again(monkeypatch):
    calls = []
    real = task_mod.task_for_kind

    def counting(kind):
        calls.append(kind)
        return real(kind)

    monkeypatch.setattr(task_mod, "task_for_kind", counting)
    task_mod.TASKS.plugin_origins.cache_clear()
    try:
        for _ in range(3):
            assert task_mod.task_for_label("count-2").name == "solve"
            assert task_mod.task_for_label("deployments").name == "count"
            assert task_mod.task_for_label("nosuch") is None
        assert calls == ["count-2", "deployments", "nosuch"]
        task_mod.TASKS.plugin_origins.cache_clear()  # entry points scanned again: looked up again
        assert task_mod.task_for_label("count-2").name == "solve" and calls[-1] == "count-2"
    finally:
        task_mod.TASKS.plugin_origins.cache_clear()
