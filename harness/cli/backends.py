"""``battlebench backends``: every plugin family -- backends, counters, strategies, tasks -- with sources and versions."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from harness.cli.common import command

NAME = "backends"


def add_parser(sub: Any) -> None:
    b = command(sub, NAME, "list backends, counters, strategies and tasks: sources, options, versions",
                "List every plugin of every family -- backends (the solve task), counters (the count task), "
                "strategies (the play task) and the tasks themselves -- built-in or from an installed "
                "distribution's entry point, with what each takes, its versions, and why it cannot run here.",
                ["battlebench backends", "battlebench backends --json --no-versions"],
                {0: "listed (a plugin that fails to load is listed as unavailable, with why)"})
    b.add_argument("--json", action="store_true", help="one JSON list of every plugin")
    b.add_argument("--no-versions", action="store_true", help="do not import solvers to read their versions")


def _first_line(obj: Any) -> str:
    doc = sys.modules[obj.__module__].__doc__ if getattr(obj, "__module__", None) in sys.modules else ""
    return (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""


def _versions(cls: Any) -> dict[str, str] | str:
    try:
        return dict(cls.versions())
    except Exception as exc:  # a plugin's versions() may fail in any way: show it, go on
        return f"versions() failed: {type(exc).__name__}: {exc}"


def _describe(family: str, cls: Any) -> dict[str, Any]:
    from harness.core.options import describe

    if family == "backend":
        out = {"formulations": list(cls.formulations), "options": describe(cls.declared_options())}
        if hasattr(cls, "tools"):  # the tool backend: its tool entries, each installed or not
            out["tools"] = cls.tools()
            out["measuring"] = cls.measuring()
        return out
    if family == "counter":
        return {"by": list(cls.by), "library": cls.library, "options": describe(cls.options)}
    if family == "strategy":
        return {"rules": list(cls.rules), "options": describe(cls.options)}
    return {"kinds": list(cls.forms()), "plugin": cls.plugin, "variant": cls.variant, "subject": cls.subject}


def rows(with_versions: bool = True) -> list[dict[str, Any]]:
    """One row per plugin that can be named without a reference, every family; a broken one says why."""
    from harness.backends.registry import FAMILY as BACKENDS
    from harness.core.task import TASKS
    from harness.counting.counters import FAMILY as COUNTERS
    from harness.errors import UsageError
    from harness.play.strategies import FAMILY as STRATEGIES

    out = []
    for family in (BACKENDS, COUNTERS, STRATEGIES, TASKS):
        for name, origin in family.origins().items():
            row: dict[str, Any] = {"family": family.word, family.word: name, "name": name, "source": origin.source,
                                   "target": origin.target}
            try:
                cls = family.load(name)
            except UsageError as exc:
                out.append({**row, "available": False, "missing": str(exc)})
                continue
            missing = cls.available() if hasattr(cls, "available") else None
            row.update(available=missing is None, missing=missing, about=_first_line(cls), **_describe(family.word,
                                                                                                          cls))
            if with_versions and missing is None and hasattr(cls, "versions"):
                row["versions"] = _versions(cls)
            out.append(row)
    return out


def backend_rows(with_versions: bool = True) -> list[dict[str, Any]]:
    """The backends' rows (as ``battlebench backends --json`` lists them with ``family = "backend"``)."""
    return [r for r in rows(with_versions) if r["family"] == "backend"]


_HEADS = {
    "backend": 'backends (the solve task: battlebench solve --backend B; a config\'s backend = "B"):',
    "counter": 'counters (the count task: battlebench count --counter C; task = "deployments"/"boards", '
               'counter = "C"):',
    "strategy": 'strategies (the play task: battlebench play --strategy S; task = "play", strategy = "S"):',
    "task": "tasks (a config's task = ...):",
}


def run(args: argparse.Namespace) -> int:
    listed = rows(with_versions=not args.no_versions)
    if args.json:
        print(json.dumps(listed, indent=2, default=str))
        return 0
    for family, head in _HEADS.items():
        print(head)
        for row in (r for r in listed if r["family"] == family):
            state = "available" if row["available"] else f"UNAVAILABLE: {row['missing']}"
            print(f"  {row['name']}  [{row['source']}]  {state}")
            if row.get("about"):
                print(f"      {row['about']}")
            if row.get("formulations"):
                print(f"      formulations: {', '.join(row['formulations'])}")
            if row.get("by"):
                print(f"      counts by: {', '.join(row['by'])}")
            if row.get("rules"):
                print(f"      rules: {', '.join(row['rules'])}")
            if row.get("kinds"):
                print(f"      task = {', '.join(row['kinds'])}; pairs name a {row['plugin']} and a {row['variant']}")
            if row.get("measuring"):
                print(f"      tool processes measured by: {row['measuring']}")
            for tool in row.get("tools") or []:
                state = "installed" if tool["missing"] is None else f"NOT INSTALLED: {tool['missing']}"
                print(f"      tool = {tool['name']} ({tool['format']})  {state}")
            versions = row.get("versions")
            if versions:
                text = versions if isinstance(versions, str) else ", ".join(f"{k} {v}" for k, v in versions.items())
                print(f"      versions: {text}")
            for k, o in (row.get("options") or {}).items():
                choices = f" (choices: {', '.join(map(str, o['choices']))})" if o["choices"] else ""
                print(f"      {k} = {o['default']}{choices}  {o['help']}")
        print("  (or any class as module:Class)")
    return 0


__all__ = ["NAME", "add_parser", "backend_rows", "rows", "run"]
