"""TOML tables checked key by key: typed values, unknown keys, one :class:`~harness.errors.ConfigError` line each.

The config loader and every task's part of a config (its ``task`` value, its
``[[pairs]]`` tables, its own top-level keys) read values through these, so that every
problem reads ``FILE: KEY: PROBLEM`` the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from harness.errors import ConfigError, InputError

_NAMES = {str: "a string", list: "a list", dict: "a table", int: "an integer", float: "a number",
          bool: "a boolean"}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def toml_type(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def unknown(table: dict[str, Any], known: tuple[str, ...], path: Path, prefix: str) -> None:
    """ConfigError for the first key of ``table`` not in ``known`` (``prefix`` places it: ``pairs[0].``)."""
    for key in table:
        if key not in known:
            where = f"{prefix}{key if key and key.isprintable() else repr(key)}"  # one line
            raise ConfigError(path, where, f"unknown key (known: {', '.join(known)})")


def get(table: dict[str, Any], key: str, typ: type, path: Path, *, required: bool = False,
        where: str | None = None) -> Any:
    """``table[key]`` checked to be of ``typ`` (an integer is a number); None when absent and not required."""
    where = where or key
    if key not in table:
        if required:
            raise ConfigError(path, where, "missing")
        return None
    value = table[key]
    if typ is float and is_int(value):
        value = float(value)
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise ConfigError(path, where, f"must be {_NAMES.get(typ, typ.__name__)}, not {toml_type(value)}")
    return value


def positive_int(table: dict[str, Any], key: str, default: int, path: Path, where: str | None = None) -> int:
    value = get(table, key, int, path, where=where)
    if value is None:
        return default
    if value < 1:
        raise ConfigError(path, where or key, "must be >= 1")
    return value


def one_of(entry: dict[str, Any], keys: tuple[str, ...], where: str, path: Path) -> str:
    """The one of ``keys`` a table uses for one idea (a task's own word, or its generic spelling: ``counter`` or
    ``backend``); naming it twice is a ConfigError."""
    given = [k for k in keys if k in entry]
    if len(given) > 1:
        raise ConfigError(path, f"{where}.{given[1]}", f"name it once: {' or '.join(keys)}, not both")
    return given[0] if given else keys[0]


def option_types(declared: dict[str, Any], owner: str, options: dict[str, Any], path: Path, where: str) -> None:
    """A TOML value must fit its option's declared type (strings are converted as on the command line)."""
    for key, value in options.items():
        opt = declared.get(key)
        if opt is None or isinstance(value, str):
            continue  # unknown names and strings: the plugin's resolve judges them
        if opt.type is bool:
            fits = isinstance(value, bool)
        elif opt.type in (int, float):
            fits = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            fits = False
        if not fits:
            raise ConfigError(path, f"{where}.options.{key}",
                              f"option {key!r} of {owner} must be {opt.type.__name__}, not {toml_type(value)}")


def configured_options(options: dict[str, Any], declared: dict[str, Any], resolve: Callable[[dict], dict], owner: str,
                       path: Path, where: str, at: str | None = None) -> tuple[tuple[str, Any], ...]:
    """A ``[[pairs]]`` table's ``options`` checked against its plugin: TOML types against ``declared``
    (:func:`option_types`), then the plugin's ``resolve`` (its UsageError one ConfigError at ``at``, by default
    ``WHERE.options``); the configured options, converted to their declared types, sorted (a pair's label)."""
    option_types(declared, owner, options, path, where)
    try:
        resolved = resolve(options)
    except InputError as exc:
        raise ConfigError(path, f"{where}.options" if at is None else at, str(exc)) from None
    return tuple(sorted((k, resolved[k]) for k in options))


__all__ = ["configured_options", "get", "is_int", "one_of", "option_types", "positive_int", "toml_type", "unknown"]
