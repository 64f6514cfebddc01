"""Declared plugin options: what a backend, counter or strategy takes, with defaults, types and checks.  Pure.

Every plugin family declares its options the same way, ``{name: Option(default, type,
choices, help, minimum)}``, and :func:`resolve` turns what a user gave (command-line text
or TOML values) into the full option dict with the defaults filled in, or one
:class:`~harness.errors.UsageError` line naming the plugin, the option, what it allows and
the value given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import UsageError


@dataclass(frozen=True)
class Option:
    """A declared option of a plugin."""

    default: Any
    type: type
    choices: tuple[Any, ...] | None = None
    help: str = ""
    minimum: int | float | None = None


def coerce(value: Any, typ: type) -> Any:
    """Convert a command-line or config value to the declared type (ValueError/TypeError if it cannot be)."""
    if typ is bool and isinstance(value, str):
        low = value.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(value)
    if typ is bool and not isinstance(value, bool):
        raise TypeError(value)
    if typ in (int, float) and isinstance(value, bool):
        raise TypeError(value)
    if typ is int and isinstance(value, float) and not value.is_integer():
        raise ValueError(value)
    return typ(value)


def resolve(declared: dict[str, Option], given: dict[str, Any], owner: str) -> dict[str, Any]:
    """Defaults filled in; unknown names and bad values are one UsageError naming ``owner`` (e.g. "backend 'sat'")."""
    out = {k: o.default for k, o in declared.items()}
    for key, value in given.items():
        if key not in declared:
            known = f"known: {', '.join(sorted(declared))}" if declared else "it takes none"
            raise UsageError(f"{owner} has no option {key!r} ({known})")
        opt = declared[key]
        try:
            value = coerce(value, opt.type)
        except (TypeError, ValueError):
            raise UsageError(f"option {key!r} of {owner} must be {opt.type.__name__}, not {value!r}") from None
        if opt.minimum is not None and value < opt.minimum:
            raise UsageError(f"option {key!r} of {owner} must be >= {opt.minimum}, not {value!r}")
        if opt.choices is not None and value not in opt.choices:
            raise UsageError(f"option {key!r} of {owner} must be one of {', '.join(map(str, opt.choices))}, "
                             f"not {value!r}")
        out[key] = value
    return out


def describe(declared: dict[str, Option]) -> dict[str, dict[str, Any]]:
    """The options as plain data (for listings and JSON): default, type, choices, help."""
    return {k: {"default": o.default, "type": o.type.__name__, "choices": list(o.choices) if o.choices else None,
                "help": o.help} for k, o in declared.items()}


class Resolved(dict):
    """A plugin's options as :func:`resolve` returned them (every option, defaults filled in, checked): a
    plugin constructed with one takes them as they are instead of resolving them again."""


__all__ = ["Option", "Resolved", "coerce", "describe", "resolve"]
