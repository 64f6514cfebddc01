"""Named plugins found by ``"module:Class"`` without importing any until one is asked for (counters, strategies)."""

from __future__ import annotations

import importlib
from typing import Any

from harness.errors import UsageError


def load_plugin(table: dict[str, str], name: str, what: str) -> Any:
    """The class ``table[name]`` names (imported now); UsageError naming the choices if ``name`` is unknown."""
    target = table.get(name)
    if target is None:
        raise UsageError(f"unknown {what} {name!r} (choose from {', '.join(table)})")
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)


__all__ = ["load_plugin"]
